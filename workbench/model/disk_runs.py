"""Runs the window does not hold in memory: scored from their files by worker processes (no Qt).

A DL19-sized run takes about 3.5 MB in memory as a frame, so a folder of a thousand runs cannot all
be held.  The window holds run files while their sizes add up to :data:`HOLD_BYTES`; the files
opened beyond that are *runs on disk* (:class:`RunOnDisk`): opening one reads only the start of the
file (its kind and the tag that names it), and each evaluation reads and scores it again in a
worker process, as ``ir-eval --jobs`` does: the qrels are encoded once and handed to every process
when it starts, each process reads its run files itself, and what comes back per run is its
per-query values and curves (a few tens of kilobytes), kept by :class:`workbench.model.analysis.RunCache`
so that a run is not read again until the qrels or options change.  A file that cannot be read is
reported with its line when its run is scored, and is then left out like a file that failed to load.

The processes are started with ``spawn`` on every platform: ``fork`` would copy the window's process
with the locks its other threads (Qt's, the readers') may hold at that moment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

#: run files are held in memory while the held ones add up to less than this many bytes on disk;
#: beyond it they stay on disk (about 170 DL19-sized runs, 25 Robust04-sized ones)
HOLD_BYTES = 256 << 20

_STATE: dict = {}


@dataclass(eq=False)
class RunOnDisk:
    """A run file scored from disk: what stands in the workspace where a run frame would be.

    ``attrs`` has the frame's ``name`` (the tag of the first line) and ``path``.  A new object for
    every load of the file, so that the scores kept for it (by identity) go with it.
    """

    path: str
    attrs: dict = field(default_factory=dict)

    def __len__(self) -> int:  # rows are not known without reading the file
        return 0


def head_of_run(path: str, kind: Optional[str]) -> Optional[RunOnDisk]:
    """A :class:`RunOnDisk` for ``path`` when it is a run file (``kind`` "run", or detected as one
    from its first data line); None for anything else (read as usual)."""
    if kind not in (None, "run"):
        return None
    from metrics.readers.detect import _first_data_line

    try:
        tokens, _ = _first_data_line(path)
    except (OSError, EOFError, ValueError):
        return None  # the usual reader says what is wrong
    if tokens is None or len(tokens) < 6:
        return None
    try:
        tag = tokens[5].decode("utf-8") if isinstance(tokens[5], bytes) else str(tokens[5])
    except UnicodeDecodeError:
        return None
    return RunOnDisk(os.path.abspath(path), {"name": tag, "path": path})


# ------------------------------------------------------------------------------ worker processes


def start(state: dict) -> None:
    """Initializer of a worker process: what every run is scored with (encoded qrels, measures, options)."""
    _STATE.clear()
    _STATE.update(state)


def score(label: str, path: str):
    """Read and score one run file in a worker process, with the state given to :func:`start`.

    Returns ``(evaluation of the one run, precision-recall blocks, NDCG@k blocks, queries in the run)``
    as :func:`metrics.curves.evaluate_with_curves` (``tidy=False``) gives them."""
    import numpy as np

    import metrics.curves
    from metrics.columns import read_columns

    run = read_columns(path, "run")
    s = _STATE
    ev, pr, atk = metrics.curves.evaluate_with_curves(
        s["qrels"],
        {label: run},
        s["measures"],
        relevance_level=s["relevance_level"],
        kind="NDCG",
        k_max=s["k_max"],
        tidy=False,
        **s["ndcg_options"],
    )
    return ev, pr, atk, int(len(np.unique(run.qid)))


def processes() -> int:
    """Worker processes for runs on disk: one per core, at least one."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))
