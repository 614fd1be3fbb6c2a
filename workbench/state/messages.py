"""What the window told the user, kept to be read back (plain Python, no Qt).

Status lines pass (a later one takes the status bar's place), errors stay in the message area until
closed, and notices (a qrels file replaced, a file opened twice, a folder's tally, a run removed: what a
change of the user's did besides what was asked) stay there until the user's next action. Every one of
them is also kept here, newest last, for View > Messages to show again.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

__all__ = ["KINDS", "Message", "MessageLog"]

#: the kinds of messages, as View > Messages names them
KINDS = ("error", "notice", "status")


@dataclass(frozen=True)
class Message:
    """One message told to the user (an error, a notice, a line of news), with when it was told."""

    kind: str  # one of KINDS
    text: str
    at: float  # time.time() when told

    def line(self) -> str:
        """``"14:02:31  notice  qrels2.txt replaces qrels.txt as the qrels ..."``."""
        return f"{time.strftime('%H:%M:%S', time.localtime(self.at))}  {self.kind:<6}  {self.text}"


class MessageLog:
    """The last :data:`KEEP` messages told, newest last (a message told again is kept again)."""

    KEEP = 500

    def __init__(self) -> None:
        self._messages: deque[Message] = deque(maxlen=self.KEEP)

    def add(self, kind: str, text: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        if text:  # (an empty status line clears the status bar: nothing was told)
            self._messages.append(Message(kind, text, time.time()))

    def messages(self) -> list[Message]:
        return list(self._messages)

    def text(self) -> str:
        return "\n".join(m.line() for m in self._messages)
