"""Pool bias: would a run have scored the same had it not helped build the pool?  Leave-one-run-out
(Zobel, SIGIR 1998): for each run, the relevant documents that only it put in its first ``depth``
ranks (of the runs given) are taken out of the qrels, and the run is scored again; a run whose score
drops much, or whose rank among the others falls, owes its score to its own contributions, and a new
run that did not contribute is likely underestimated by as much.

* The pool is the first ``depth`` documents of every query of every run given, in trec_eval's order
  (score, highest first; a tie by document id, the later in byte order first).  A document is relevant
  when its grade is ``relevance_level`` or more.
* ``groups``: runs from one group (one team's runs share their documents) are left out together: a dict
  run -> group (a run not in it is its own group), or a function of the run's label (a tag prefix:
  ``lambda run: run.split("_")[0]``).  A relevant document is a group's own when no run of another group
  has it in its first ``depth``; every run of the group is scored without all of the group's own.
* Each run is scored on ``measure`` through :func:`metrics.evaluate` (trec_eval's semantics: the removed
  documents are unjudged, so not relevant; a query left with no judgment at all is no longer evaluated).
  Its rank is among the other runs as scored on the full qrels (1 the best; a tie counts for the run).
* ``Judged@k`` (``judged_at``): the share of the run's first k documents the full qrels judge, as
  :mod:`metrics.analysis.coverage` reports it (the registry's ``Judged`` family).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from metrics.engine.settings import Settings
from metrics.judgments.common import not_computable, qrels_frame, report_progress, runs_frames

__all__ = ["PoolBias", "leave_one_out", "top_of"]


@dataclass
class PoolBias:
    """What :func:`leave_one_out` found.  ``runs``: a frame ``run, group, unique_relevant`` (the
    relevant documents of the group's own that this run retrieved in its first ``depth``),
    ``removed`` (the judgments taken out for its group), ``score, score_loo, change`` (score_loo minus
    score), ``rank, rank_loo``, ``Judged@k``; runs in the order given."""

    measure: str
    depth: int
    judged_at: int
    runs: pd.DataFrame
    not_computable: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)


def top_of(run, depth: int | None):
    """``run``'s first ``depth`` documents of every query (all with None) in trec_eval's order: a frame
    ``query_id, doc_id, rank`` (1 the first), duplicates of a document in a query kept once (its first)."""
    frame = run[["query_id", "doc_id", "score"]].astype({"query_id": str, "doc_id": str})
    frame = frame.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
    frame = frame.drop_duplicates(["query_id", "doc_id"], keep="first")
    frame = frame.assign(rank=frame.groupby("query_id", sort=False).cumcount() + 1)
    if depth is not None:
        frame = frame[frame["rank"] <= depth]
    return frame[["query_id", "doc_id", "rank"]]


def _group_of(groups, run: str) -> str:
    if groups is None:
        return run
    if callable(groups):
        return str(groups(run))
    return str(groups.get(run, run))


def leave_one_out(
    runs,
    qrels,
    measure="map",
    depth: int = 100,
    groups=None,
    *,
    judged_at: int = 10,
    settings: Settings | None = None,
    progress=None,
) -> PoolBias:
    """Leave-one-run-out (or one group out) over ``runs`` (anything :func:`metrics.evaluate` takes): see
    the module's note and :class:`PoolBias`.  ``progress(fraction)`` returning False raises
    :class:`metrics.errors.Cancelled`.  ``settings``: what every run is scored under (None: trec_eval's);
    their relevance level also says which documents are the relevant ones a run contributed."""
    import pandas as pd

    from metrics.engine.evaluate import evaluate

    if depth < 1 or judged_at < 1:
        raise ValueError(f"depth and judged_at must be 1 or more, not {depth} and {judged_at}")
    runs = runs_frames(runs)
    names = list(runs)
    judged = qrels_frame(qrels).drop_duplicates(["query_id", "doc_id"], keep="last")
    group = {run: _group_of(groups, run) for run in names}
    report_progress(progress, 0.0)
    settings = Settings.of(settings)
    relevance_level = settings.relevance_level
    full = evaluate(judged, runs, [measure, f"Judged@{judged_at}"], settings=settings)
    name, judged_name = full.measure_names()
    summary = full.summary().reindex(index=names)
    score = summary[name].to_numpy(dtype=np.float64)
    tops = {run: top_of(runs[run], depth).assign(run=run, group=group[run]) for run in names}
    pool = pd.concat(tops.values(), ignore_index=True) if tops else pd.DataFrame(columns=["query_id", "doc_id"])
    relevant = judged[judged["relevance"] >= relevance_level][["query_id", "doc_id"]]
    pooled = pool.merge(relevant, on=["query_id", "doc_id"])
    contributors = pooled.groupby(["query_id", "doc_id"])["group"].nunique().rename("groups").reset_index()
    own = pooled.merge(contributors[contributors["groups"] == 1], on=["query_id", "doc_id"])
    loo = np.full(len(names), np.nan)
    removed = np.zeros(len(names), dtype=np.int64)
    unique = np.zeros(len(names), dtype=np.int64)
    why: dict[str, str] = {}
    members: dict[str, list[str]] = {}
    for run in names:
        members.setdefault(group[run], []).append(run)
    for done, (g, its_runs) in enumerate(members.items()):
        mine = own[own["group"] == g][["query_id", "doc_id"]].drop_duplicates()
        keys = judged.merge(mine, on=["query_id", "doc_id"], how="left", indicator=True)["_merge"].to_numpy()
        reduced = judged[keys == "left_only"]
        if len(reduced):
            from metrics.errors import NoSharedQueries

            try:
                ev = evaluate(reduced, {r: runs[r] for r in its_runs}, [measure], settings=settings)
            except NoSharedQueries as exc:
                ev = exc.evaluation
            values = ev.summary().reindex(index=its_runs)[ev.measure_names()[0]].to_numpy(dtype=np.float64)
        else:
            values = np.full(len(its_runs), np.nan)
            why["score_loo"] = not_computable(f"group {g!r} contributed every judgment: no qrels are left")
        for r, v in zip(its_runs, values):
            i = names.index(r)
            loo[i] = v
            removed[i] = len(mine)
            unique[i] = len(own[own["run"] == r][["query_id", "doc_id"]].drop_duplicates())
        report_progress(progress, (done + 1) / len(members))
    ranks = np.full(len(names), np.nan)
    ranks_loo = np.full(len(names), np.nan)
    for i in range(len(names)):
        others = np.delete(score, i)
        others = others[np.isfinite(others)]
        if np.isfinite(score[i]):
            ranks[i] = 1 + int((others > score[i]).sum())
        if np.isfinite(loo[i]):
            ranks_loo[i] = 1 + int((others > loo[i]).sum())
    out = pd.DataFrame(
        {
            "run": names,
            "group": [group[r] for r in names],
            "unique_relevant": unique,
            "removed": removed,
            "score": score,
            "score_loo": loo,
            "change": loo - score,
            "rank": pd.array(ranks, dtype="Int64"),
            "rank_loo": pd.array(ranks_loo, dtype="Int64"),
            judged_name: summary[judged_name].to_numpy(dtype=np.float64),
        }
    )
    notes = []
    if len(members) == 1:
        notes.append(
            "one group only: every relevant document it retrieved is its own, and its rank has no other run to be "
            "compared with"
        )
    return PoolBias(measure=name, depth=depth, judged_at=judged_at, runs=out, not_computable=why, notes=notes)
