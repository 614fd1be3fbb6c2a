"""What the judgments' analyses share: qrels and runs read once into frames, a value that cannot be
computed told as such (NaN in the numbers, the reason beside it), and the progress callback that may
cancel a long computation."""

from __future__ import annotations

import math

import numpy as np

from metrics.errors import Cancelled

__all__ = ["qrels_frame", "runs_frames", "not_computable", "shown", "report_progress"]


def qrels_frame(qrels):
    """``qrels`` (a path, a frame or a dict of dicts: anything :func:`metrics.read_qrels` takes) as a
    frame ``query_id, doc_id, relevance`` (str, str, int), one row per judged pair."""
    from metrics.io.readers import read_qrels

    frame = read_qrels(qrels)
    return frame[["query_id", "doc_id", "relevance"]].astype({"query_id": str, "doc_id": str})


def runs_frames(runs) -> dict:
    """``runs`` (a path, a frame, a list of them, or a dict label -> run) as a dict label -> run frame,
    labelled as :func:`metrics.evaluate` labels them (the run's tag, made unique)."""
    from metrics.engine.evaluate import labelled_runs

    return {label: run for label, run in labelled_runs(runs)}


def not_computable(why: str) -> str:
    """The reason a value is not a number, in the words every door shows."""
    return f"not computable: {why}"


def shown(value, why: str | None = None, digits: int = 4) -> str:
    """``value`` as text: a number to ``digits`` decimals, or ``n/a (why)`` where it is NaN or missing,
    never ``nan``."""
    if value is None or (isinstance(value, (float, np.floating)) and not math.isfinite(float(value))):
        return f"n/a ({why})" if why else "n/a"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return f"{float(value):.{digits}f}"


def report_progress(progress, fraction: float) -> None:
    """Tell ``progress(fraction)``; :class:`~metrics.errors.Cancelled` when it returns False."""
    if progress is not None and progress(min(max(float(fraction), 0.0), 1.0)) is False:
        raise Cancelled("cancelled")
