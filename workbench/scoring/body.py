"""The window's one scoring body: a run's columns scored with their curves and their queries counted, the
same for a run held in memory (in the scoring service's thread) and a run on disk (in a worker process,
once :func:`workbench.scoring.disk_runs.score` has read it).  Plain Python, numpy and the core only: the
worker processes import it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from metrics.engine.evaluation import Evaluation
    from metrics.engine.settings import Settings
    from metrics.io.table import Columns


@dataclass(frozen=True)
class Scored:
    """One run scored: its one-run :class:`metrics.engine.evaluation.Evaluation`, its curve blocks, and the
    number of distinct queries in the run (evaluated or not)."""

    evaluation: Evaluation
    pr: list
    atk: list
    queries: int


def score(qrels: Any, label: str, run: Columns | None, measures: Any, settings: Settings) -> Scored:
    """``run`` (None: no run, for an evaluation of none, which names the measures) scored against the
    encoded ``qrels`` with the parsed ``measures`` (None: the default set) under ``settings``."""
    import metrics.engine.curves

    ev, pr, atk = metrics.engine.curves.evaluate_with_curves(
        qrels, {} if run is None else {label: run}, measures, kind="NDCG", tidy=False, settings=settings
    )
    return Scored(ev, pr, atk, 0 if run is None else run.query_count())
