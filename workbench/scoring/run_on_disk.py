"""What stands in the workspace where a run's columns would be, for a run file scored from disk
(:mod:`workbench.scoring.disk_runs` scores it in worker processes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass(eq=False)
class RunOnDisk:
    """A run file scored from disk: what stands in the workspace where a run's columns would be.

    ``attrs`` has the run's ``name`` (the tag of the first line) and ``path``.  A new object for
    every load of the file, so that the scores kept for it (by identity) go with it.
    """

    path: str
    attrs: dict = field(default_factory=dict)
    #: (size, modification time) of the file when it was opened: a file changed since is not scored as
    #: if it were the one opened (the window says it changed, and offers to read it again)
    stat: Optional[tuple] = None

    @property
    def name(self) -> str:
        """The run's tag, as :class:`metrics.io.table.Columns` names a run held in memory."""
        return str(self.attrs.get("name", ""))

    def __len__(self) -> int:  # rows are not known without reading the file
        return 0
