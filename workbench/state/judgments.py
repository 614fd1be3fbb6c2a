"""The window's judgments analyses: do the qrels in use and a qrels file held beside them agree, do they
rank the loaded runs alike, and is the pool biased towards the runs that built it
(:mod:`metrics.judgments`).  Plain Python, no Qt: each analysis's settings (one frozen value, compared
to tell a current view from an out-of-date one and stated in its exports), its computation (in a
worker, through :func:`workbench.state.analyses.compute`) and the sentences a view shows where a value
cannot be computed (never a NaN shown as a number).

The qrels in use are "a", the qrels held beside "b", as ``ir-eval --qrels-vs B A`` names them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from metrics.engine.settings import Settings
from metrics.judgments.common import shown

__all__ = [
    "QrelsAgreementSettings",
    "SystemsSettings",
    "PoolSettings",
    "held_choices",
    "qrels_in_use",
    "qrels_agreement",
    "systems",
    "pool_bias",
    "NO_HELD",
]

#: what the views say when no qrels are held beside the ones in use
NO_HELD = (
    "No qrels are held beside the qrels in use: File > Open qrels to compare… opens one "
    "(or choose the kind “other qrels” for a qrels file in Files)."
)


def held_choices(workspace) -> list[tuple[str, int]]:
    """The qrels files held beside the ones in use in ``workspace``: (path, version) each, in list order."""
    return [(e.path, e.version) for e in workspace.held_entries()]


def qrels_in_use(results, workspace) -> tuple[str, int] | None:
    """The qrels in use (a) as the agreement of two qrels names them: those of the scores shown (their name,
    version 0: the scores' identity says when they change), or, without scores (qrels and no run: two qrels
    are compared without any run), the qrels file in use (its path and version); None: no qrels in use."""
    if results is not None:
        return str(results.request.qrels_name or ""), 0
    e = workspace.qrels_entry()
    return (e.path, e.version) if e is not None else None


@dataclass(frozen=True)
class QrelsAgreementSettings:
    """Which two qrels the agreement view compares (their versions, so a file read again is seen) and how many queries
    it lists."""

    held: str  # the path of the qrels held beside (b)
    version: int  # its version: a file read again makes the view out of date
    top: int = 10  # the queries that disagree most, listed
    qrels: str = ""  # the qrels in use (a), as :func:`qrels_in_use` names them
    qrels_version: int = 0

    def stated(self) -> list[tuple[str, str]]:
        a = f"the qrels in use ({self.qrels})" if self.qrels else "the qrels in use"
        return [
            ("judgments", f"{a} (a) against {self.held} (b), on the (query, document) pairs both judge"),
            ("agreement", "Cohen's kappa, unweighted and linearly weighted; Krippendorff's alpha, ordinal"),
            ("negative grades", "counted as not judged by that side"),
        ]


@dataclass(frozen=True)
class SystemsSettings:
    """Which held qrels the systems view sets beside the qrels in use, on which measure, at which alpha."""

    held: str
    version: int
    measure: str
    alpha: float = 0.05  # the paired t-tests of the pairs that flip

    def stated(self) -> list[tuple[str, str]]:
        return [
            ("judgments", f"the runs scored under the qrels in use (a) and under {self.held} (b)"),
            (
                "systems",
                f"{self.measure}; Kendall's tau-b and tau_AP between the orderings; flips tested at {self.alpha:g}",
            ),
        ]


@dataclass(frozen=True)
class PoolSettings:
    """How the pool-bias view leaves runs out: the measure, the pool's depth, Judged@k's k, and how runs group."""

    measure: str
    depth: int = 100
    judged_at: int = 10
    #: runs whose labels agree up to the first ``group_sep`` are one group, left out together ("": each run alone)
    group_sep: str = ""

    def stated(self) -> list[tuple[str, str]]:
        out = "each run" if not self.group_sep else f"each group (runs whose labels agree up to {self.group_sep!r})"
        return [
            ("pool bias", f"leave {out} out (Zobel 1998): the pool is the first {self.depth} documents of each run"),
            ("scored", f"{self.measure} without the relevant documents only it pooled; Judged@{self.judged_at}"),
        ]

    def groups(self) -> Callable[[str], str] | None:
        """The groups of :func:`metrics.judgments.leave_one_out`: a run's label up to the separator."""
        sep = self.group_sep
        return None if not sep else (lambda run: run.split(sep)[0])


def _name(path: str) -> str:
    return os.path.basename(path)


# ---------------------------------------------------------------------------------------------------------
# the computations (in a worker): (tables, extra) as workbench.state.analyses.compute hands them on
def qrels_agreement(qrels, held: Mapping[str, Any], s: QrelsAgreementSettings, progress: Callable) -> tuple:
    """The qrels in use against those held at ``s.held`` (:func:`metrics.judgments.compare`).  Tables:
    ``summary`` (what, value: text, "n/a (why)" where not computable), ``confusion`` (grades of a down, of
    b across), ``per_query``, ``disputed``; extra: ``result`` and ``verdict`` (a sentence)."""
    from metrics.judgments import compare

    result = compare(qrels, _held(held, s.held), top=s.top)
    why = result.not_computable
    rows = [
        ("Cohen's kappa", shown(result.kappa, why.get("kappa"))),
        ("kappa, linearly weighted", shown(result.weighted_kappa, why.get("weighted_kappa"))),
        ("Krippendorff's alpha (ordinal)", shown(result.alpha, why.get("alpha"))),
        ("pairs graded alike", shown(result.agreement, why.get("agreement"))),
        ("pairs judged by both", shown(result.pairs)),
        ("judged by a only", shown(result.only_a)),
        ("judged by b only", shown(result.only_b)),
        ("negative grades left out (a, b)", f"{result.negative_a}, {result.negative_b}"),
        ("queries judged by both", shown(result.queries_both)),
        ("queries judged by a only, b only", f"{result.queries_only_a}, {result.queries_only_b}"),
    ]
    summary = pd.DataFrame(rows, columns=["what", "value"])
    confusion = result.confusion.copy()
    confusion.columns = [f"b: {g}" for g in confusion.columns]
    confusion = confusion.reset_index().rename(columns={"grade_a": "a \\ b"})
    confusion["a \\ b"] = [f"a: {g}" for g in confusion["a \\ b"]]
    tables = {
        "summary": summary,
        "confusion": confusion,
        "per_query": result.per_query,
        "disputed": result.most_disputed,
        "export": agreement_table(result),
    }
    return tables, {"result": result, "verdict": agreement_verdict(result, _name(s.held))}


def agreement_table(result) -> pd.DataFrame:
    """The per-query agreement with a first row ``all`` over every pair (the CSV export): columns as
    :attr:`metrics.judgments.QrelsAgreement.per_query`'s."""
    import numpy as np

    table = result.confusion.to_numpy(dtype=np.float64)
    grades = np.asarray(result.confusion.index, dtype=np.float64)
    gaps = np.abs(grades[:, None] - np.asarray(result.confusion.columns, dtype=np.float64)[None, :])
    mean_abs = float((table * gaps).sum() / result.pairs) if result.pairs else float("nan")
    overall = {
        "query_id": "all",
        "pairs": result.pairs,
        "only_a": result.only_a,
        "only_b": result.only_b,
        "agreement": result.agreement,
        "mean_abs_diff": mean_abs,
        "kappa": result.kappa,
        "weighted_kappa": result.weighted_kappa,
        "alpha": result.alpha,
    }
    return pd.concat([pd.DataFrame([overall]), result.per_query], ignore_index=True)


def agreement_verdict(result, other: str) -> str:
    """One sentence on what :func:`metrics.judgments.compare` found, in words where a number cannot say it."""
    if result.pairs == 0:
        return (
            f"No (query, document) pair is judged by both the qrels in use and {other}: nothing to compare "
            f"({result.only_a} pairs judged by a only, {result.only_b} by b only)."
        )
    if result.only_a == 0 and result.only_b == 0 and result.agreement == 1.0:
        return f"The qrels in use and {other} are identical: every pair has the same grade in both."
    lead = f"{result.pairs} pairs judged by both, {result.agreement:.1%} graded alike"
    if "kappa" in result.not_computable:
        return f"{lead}; kappa and alpha are {result.not_computable['kappa']}."
    return (
        f"{lead}: Cohen's kappa {result.kappa:.4f} (linearly weighted {result.weighted_kappa:.4f}), "
        f"Krippendorff's alpha {result.alpha:.4f}."
    )


def systems(
    qrels,
    runs: Mapping[str, Any],
    held: Mapping[str, Any],
    s: SystemsSettings,
    settings: Settings,
    progress: Callable,
) -> tuple:
    """Every run scored on ``s.measure`` under the qrels in use and under those held at ``s.held``
    (:func:`metrics.judgments.system_agreement`).  Tables: ``scores`` and ``flips``; extra: ``result``,
    ``verdict`` (a sentence), ``notes`` (the result's, whole) and ``stated`` (tau and tau_AP as the export
    states them)."""
    from metrics.judgments import system_agreement

    result = system_agreement(
        dict(runs),
        qrels,
        _held(held, s.held),
        s.measure,
        alpha=s.alpha,
        settings=settings,
        progress=progress,
    )
    why = result.not_computable
    stated = [
        ("tau", shown(result.tau, why.get("tau"))),
        ("tau p-value", shown(result.tau_p, why.get("tau_p"))),
        ("tau_AP (a the reference)", shown(result.tau_ap, why.get("tau_ap"))),
        ("tau_AP (b the reference)", shown(result.tau_ap_ba, why.get("tau_ap_ba"))),
        ("pairs that flip", str(len(result.flips))),
    ]
    extra = {"result": result, "verdict": systems_verdict(result, _name(s.held)), "stated": stated}
    extra["notes"] = list(result.notes)
    return {"scores": result.scores, "flips": result.flips}, extra


def systems_verdict(result, other: str) -> str:
    """One sentence on the two orderings of the runs, the reason in words where tau cannot be computed."""
    runs = len(result.scores)
    if "tau" in result.not_computable:
        head = f"Kendall's tau is n/a ({result.not_computable['tau']})"
    else:
        head = f"Kendall's tau {result.tau:.4f} (p = {result.tau_p:.3g})"
    if "tau_ap" in result.not_computable:
        head += f", tau_AP n/a ({result.not_computable['tau_ap']})"
    else:
        head += f", tau_AP {result.tau_ap:.4f} (b against a), {result.tau_ap_ba:.4f} (a against b)"
    flips = len(result.flips)
    if runs >= 2:
        head += f"; {flips} of {runs * (runs - 1) // 2} pairs of runs flip" if flips else "; no pair of runs flips"
    same = result.scores["score_a"].equals(result.scores["score_b"])
    tail = " Every run scores the same under both qrels." if same and runs else ""
    return f"{result.measure} under the qrels in use (a) and {other} (b): {head}.{tail}{_noted(result.notes)}"


def _noted(notes) -> str:
    """The notes of a result, each by its first clause (the whole of each is the sentence's tooltip:
    ``extra["notes"]``)."""
    return "".join(f" Note: {n.split(':')[0]}." for n in notes)


def pool_bias(qrels, runs: Mapping[str, Any], s: PoolSettings, settings: Settings, progress: Callable) -> tuple:
    """Leave-one-run-out over the runs shown (:func:`metrics.judgments.leave_one_out`).  Tables: ``runs``;
    extra: ``result``, ``verdict`` and ``notes``."""
    from metrics.judgments import leave_one_out

    result = leave_one_out(
        dict(runs),
        qrels,
        s.measure,
        s.depth,
        s.groups(),
        judged_at=s.judged_at,
        settings=settings,
        progress=progress,
    )
    return {"runs": result.runs}, {"result": result, "verdict": pool_verdict(result), "notes": list(result.notes)}


def pool_verdict(result) -> str:
    """One sentence on the pool's bias: the run that loses most, and who changes rank."""
    frame = result.runs
    if "score_loo" in result.not_computable:
        lead = f"Left out, a run's {result.measure} is n/a ({result.not_computable['score_loo']})."
    elif frame["change"].notna().any():
        worst = frame.loc[frame["change"].idxmin()]
        lead = (
            f"Left out of the pool (depth {result.depth}), {worst['run']} loses most: {result.measure} "
            f"{worst['score']:.4f} → {worst['score_loo']:.4f} ({worst['change']:+.4f})."
        )
    else:
        lead = f"No run's {result.measure} could be scored without its own relevant documents."
    moved = frame[(frame["rank"] != frame["rank_loo"]).fillna(False).astype(bool)]
    lead += " No run changes rank." if moved.empty else f" {len(moved)} run(s) change rank: {', '.join(moved['run'])}."
    return lead + _noted(result.notes)


def _held(held: Mapping[str, Any], path: str):
    if path not in held:
        raise ValueError(f"{_name(path)} is no longer held beside the qrels in use")
    return held[path]
