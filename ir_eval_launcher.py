"""The ``ir-eval`` command's entry point, outside the ``metrics`` package so that it runs before any of
that package is imported: a Ctrl-C while the modules load (numpy's import alone takes a fifth of a
second) ends the command with status 130 and one line, as one at any later moment does
(:func:`metrics.cli.ir_eval.run` hands SIGINT back to Python once it is under way)."""

from __future__ import annotations

import os
import signal


def _interrupted(signum: int, frame: object) -> None:
    os.write(2, b"ir-eval: interrupted\n")
    os._exit(130)  # nothing is written yet: the modules are loading


def run() -> None:
    signal.signal(signal.SIGINT, _interrupted)
    from metrics.startup import one_blas_thread

    one_blas_thread()  # (before numpy is imported)
    from metrics.cli.ir_eval import run as command

    command()
