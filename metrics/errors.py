"""Exceptions raised by the readers.

``InputError`` is what a user sees when a file cannot be read: it names the
file, the 1-based line and what was expected there, e.g.::

    run.txt, line 12: found 5 columns; expected 6 columns 'qid Q0 docid rank score tag'

``Cancelled`` is raised when a progress callback returns ``False``.
"""

from __future__ import annotations

__all__ = ["InputError", "IntentQrelsError", "Cancelled"]


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


# ir-eval's exit statuses (metrics.cli)
EXIT_USAGE = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3
EXIT_OUTPUT = 4
EXIT_INTERRUPTED = 130


class IntentQrelsError(InputError):
    """Intent (diversity) qrels (``qid intent docid grade``) given where ad hoc qrels are read: their
    documents come once per intent of a query, which ad hoc qrels refuse.  Read them with
    :func:`metrics.read_intent_qrels` for the diversity measures (:func:`metrics.evaluate_diversity`)."""
