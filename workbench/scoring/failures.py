"""How a file that failed to read or score is told to the user: its name, and the line and what was
expected when the reader said so (plain Python, no Qt)."""

from __future__ import annotations

import os

from metrics.errors import InputError


def describe_error(path: str, exc: BaseException) -> str:
    """A message naming the file, the line and what was expected, when known."""
    if isinstance(exc, InputError):
        text = str(exc)
        name = os.path.basename(path)
        return text if (name in text or path in text) else f"{name}: {text}"
    if isinstance(exc, MemoryError):
        return f"{os.path.basename(path)}: not enough memory to read this file"
    if isinstance(exc, OSError):
        return f"{os.path.basename(path)}: {exc.strerror or exc}"
    return f"{os.path.basename(path)}: cannot be read ({type(exc).__name__}: {exc})"
