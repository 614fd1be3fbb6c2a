"""Exceptions raised by the readers.

``InputError`` is what a user sees when a file cannot be read: it names the
file, the 1-based line and what was expected there, e.g.::

    run.txt, line 12: found 5 columns; expected 6 columns 'qid Q0 docid rank score tag'

``Cancelled`` is raised when a progress callback returns ``False``.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Callable

__all__ = ["InputError", "IntentQrelsError", "NoSharedQueries", "Cancelled", "WorkerDied", "stop_when", "checkpoint"]


class WorkerDied(RuntimeError):
    """A worker process scoring runs ended without finishing its work: killed from outside (the system's
    out-of-memory killer, a signal) or crashed.  ``runs`` are the run files whose scores are not complete
    (their output, and that of every run after them, was not written)."""

    def __init__(self, runs: list[str]) -> None:
        self.runs = list(runs)
        shown = ", ".join(self.runs[:5]) + (f" and {len(self.runs) - 5} more" if len(self.runs) > 5 else "")
        super().__init__(
            "a worker process died before it finished (killed by the system, perhaps for lack of memory); "
            f"not scored: {shown}; the output holds only the runs before them (try fewer --jobs)"
        )


class InputError(ValueError):
    """A file (or DataFrame) that cannot be read as the requested kind.

    Attributes
    ----------
    path : str or None
        The file as given by the caller (``None`` for in-memory input).
    line : int or None
        1-based physical line number in the file, counting blank and comment
        lines; ``None`` when the problem is not tied to one line (an empty
        file, a corrupt gzip stream, a DataFrame).
    message : str
        What was found.
    expected : str or None
        What was expected instead.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        expected: str | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.expected = expected
        super().__init__(self._text())

    def _text(self) -> str:
        if self.path is not None and self.line is not None:
            where = f"{self.path}, line {self.line}: "
        elif self.path is not None:
            where = f"{self.path}: "
        elif self.line is not None:
            where = f"line {self.line}: "
        else:
            where = ""
        text = where + self.message
        if self.expected:
            text += f"; expected {self.expected}"
        return text

    def __str__(self) -> str:
        return self._text()

    def __reduce__(self):
        return (
            _rebuild_input_error,
            (self.message, self.path, self.line, self.expected),
        )


def _rebuild_input_error(message, path, line, expected):
    return InputError(message, path=path, line=line, expected=expected)


class Cancelled(Exception):
    """Reading was stopped because the progress callback returned ``False``."""


# ir-eval's exit statuses (metrics.cli.ir_eval)
EXIT_USAGE = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3
EXIT_OUTPUT = 4
EXIT_INTERRUPTED = 130


class NoSharedQueries(InputError):
    """No run given has a query in common with the qrels (without ``complete``): nothing was scored, and
    a mean over no query (num_q 0, map 0) would read as a score.  ``ir-eval`` exits with status 2 for it.
    ``evaluation`` is what was computed: its ``warnings`` say which queries each side had."""

    def __init__(self, message: str, evaluation=None) -> None:
        super().__init__(message)
        self.evaluation = evaluation

    def __reduce__(self):
        return (NoSharedQueries, (self.message, None))


class IntentQrelsError(InputError):
    """Intent (diversity) qrels (``qid intent docid grade``) given where ad hoc qrels are read: their
    documents come once per intent of a query, which ad hoc qrels refuse.  Read them with
    :func:`metrics.read_intent_qrels` for the diversity measures (:func:`metrics.evaluate_diversity`)."""


# ------------------------------------------------------------------ stopping long work between its stages

#: the test of whether the work of this thread was asked to stop: a context variable, which each thread holds
#: apart as it would a thread-local one (and which numpy has imported already: ``threading`` is not needed)
_stopped: ContextVar[Callable[[], bool] | None] = ContextVar("stopped", default=None)


@contextlib.contextmanager
def stop_when(stopped: Callable[[], bool]):
    """In this thread, until the block ends, :func:`checkpoint` raises :class:`Cancelled` once
    ``stopped()`` is true: scoring one run of millions of lines is a few stages of whole-array work
    (the ranking, each measure family, the curves) without a progress callback of its own, and the
    window's Cancel is heard between them."""
    previous = _stopped.get()
    _stopped.set(stopped)
    try:
        yield
    finally:
        _stopped.set(previous)


def checkpoint() -> None:
    """Raise :class:`Cancelled` if the work of this thread was asked to stop (see :func:`stop_when`)."""
    stopped = _stopped.get()
    if stopped is not None and stopped():
        raise Cancelled("cancelled")
