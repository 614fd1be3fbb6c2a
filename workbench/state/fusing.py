"""Runs fused into one in the window (plain Python, no Qt): what to fuse, and the fusion itself, in a worker.

The runs are fused by :func:`metrics.fuse` (the library's and ``ir-eval --fuse``'s one implementation) and
the fused run is written as a TREC run file (atomically, never over a loaded file), which the window then
opens like any other run: it is scored, compared, explained and kept in workspaces as a file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from workbench.scoring.run_on_disk import RunOnDisk

__all__ = ["FuseRequest", "default_output", "fuse_to_file"]


@dataclass(frozen=True)
class FuseRequest:
    """Fuse ``runs`` (label -> a run frame, or a run scored from its file) with ``method`` after ``norm``
    (``k``: RRF's constant; ``weights``: one per run, for ``wsum``) into the run ``name``, written to
    ``output``; ``protect``: the loaded files, never written over."""

    runs: dict[str, object]
    method: str
    norm: str
    output: str
    name: str
    k: float = 60.0
    weights: tuple[float, ...] | None = None
    protect: tuple[str, ...] = field(default=())

    def check(self) -> None:
        """Refuse at once what the fusion would refuse (in the window's words), before any work."""
        from metrics.fusion import canonical_method, canonical_norm

        method = canonical_method(self.method)
        canonical_norm(self.norm)
        if len(self.runs) < 2:
            raise ValueError("choose at least two runs to fuse")
        if not self.name or any(c.isspace() for c in self.name):
            raise ValueError(f"the fused run's name must be one word, not {self.name!r}")
        if (method == "wsum") != (self.weights is not None):
            raise ValueError("weights go with the weighted sum, one per run")
        if self.weights is not None and len(self.weights) != len(self.runs):
            raise ValueError(f"{len(self.weights)} weights for {len(self.runs)} runs")
        if not self.output:
            raise ValueError("choose the file to write the fused run to")
        from metrics.io.fileio import check_not_input

        check_not_input(self.output, self.protect)


def default_output(folder: str, name: str, taken) -> str:
    """``folder/name.txt``, or ``name-2.txt``... when that file is loaded or exists."""
    taken = {os.path.abspath(p) for p in taken}
    candidate = os.path.join(folder, f"{name}.txt")
    n = 2
    while os.path.abspath(candidate) in taken or os.path.exists(candidate):
        candidate = os.path.join(folder, f"{name}-{n}.txt")
        n += 1
    return candidate


def fuse_to_file(request: FuseRequest, progress=None) -> str:
    """Fuse the runs and write the fused run (in a worker); the path written."""
    from metrics.errors import Cancelled
    from metrics.fusion import fuse
    from metrics.io.readers import read_run
    from metrics.io.writers import write_run

    request.check()
    runs = {}
    for i, (label, run) in enumerate(request.runs.items()):
        runs[label] = read_run(run.path) if isinstance(run, RunOnDisk) else run
        if progress is not None and progress((i + 1) / (len(request.runs) + 1)) is False:
            raise Cancelled("fusion cancelled")
    fused = fuse(runs, request.method, norm=request.norm, weights=request.weights, k=request.k, name=request.name)
    from metrics.io.fileio import check_not_input

    check_not_input(request.output, request.protect)
    write_run(fused, request.output, tag=request.name, overwrite=True)
    return request.output
