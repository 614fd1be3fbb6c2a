"""What an ``ir-eval`` process sets before numpy is imported (:mod:`ir_eval_launcher`, ``python -m metrics``);
the window does the same in :func:`workbench.system.process.prepare`, which imports nothing of ``metrics``
before the window is shown.

**One BLAS thread.** numpy's OpenBLAS starts a thread per core when it is loaded, and after loading and
after each matrix product those threads spin, waiting for more work, for about a tenth of a second: as
long as a whole everyday evaluation, on the cores that the evaluation's other processes or another job
would use.  Nothing here gains from parallel BLAS: the matrix products (the comparisons' resamples) are
small.  On the project's 2-core machine, five TREC DL 2019-shaped runs took 0.79x to 0.90x the time with
one thread, ``--compare 1 --test permutation`` on them 0.65x.  The variable is set only if the user has
not set it (their value is kept), and the processes started from here inherit it.
"""

from __future__ import annotations

import os

#: the environment variable OpenBLAS reads once, when numpy loads it
BLAS_THREADS = "OPENBLAS_NUM_THREADS"


def one_blas_thread() -> None:
    """Ask for one BLAS thread, unless the user chose a number (before numpy is imported: after, it is too late)."""
    os.environ.setdefault(BLAS_THREADS, "1")
