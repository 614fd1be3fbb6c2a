"""What Edit > Undo takes back: removals, a qrels file replaced, measure and option changes, renames (no Qt).

Each change the user may want back pushes what it was and how to put it back; :meth:`UndoStack.undo`
takes back the last one.  The stack holds no views: putting a change back goes through the same
rules (and the same events) as making it, so every view follows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Change:
    """One change that can be taken back: ``what`` names it in the Edit menu ("Undo remove bm25")."""

    what: str
    restore: Callable[[], str | None]  # puts it back; returns what to tell the user (or None)


class UndoStack:
    """The changes that can be taken back, the latest last (at most :attr:`LIMIT`)."""

    LIMIT = 100

    def __init__(self) -> None:
        self._changes: list[Change] = []
        self.undoing = False  # while a change is put back, the change it makes is not pushed again

    def push(self, what: str, restore: Callable[[], str | None]) -> None:
        if self.undoing:
            return
        self._changes.append(Change(what, restore))
        del self._changes[: -self.LIMIT]

    def __bool__(self) -> bool:
        return bool(self._changes)

    def __len__(self) -> int:
        return len(self._changes)

    @property
    def next_text(self) -> str | None:
        """What :meth:`undo` would take back (None: nothing)."""
        return self._changes[-1].what if self._changes else None

    def undo(self) -> str | None:
        """Take back the last change; what to tell the user (None when there was nothing to take back)."""
        while self._changes:
            change = self._changes.pop()
            self.undoing = True
            try:
                told = change.restore()
            finally:
                self.undoing = False
            if told is not None:
                return told
        return None

    def clear(self) -> None:
        self._changes.clear()
