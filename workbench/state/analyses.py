"""The window's "why runs differ" analyses: what each is computed from, its settings, the computation
(calling :mod:`metrics.analysis`), and whether what a view shows is still current.  Plain Python, no Qt:
the views run :func:`compute` in a worker and only lay out what it returns.

Every analysis is computed from the :class:`Inputs` of the results shown (the qrels, the runs and the
evaluation the window scored) and one frozen settings value; an outcome remembers both, so a view can
tell (:func:`state`) whether it shows the analysis of the scores shown now with the settings chosen now.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pandas as pd

from metrics.analysis.coverage import DEFAULT_GAP, UNDERESTIMATED
from metrics.analysis.overlap import DEFAULT_PERSISTENCE
from metrics.engine.settings import Settings
from workbench.scoring.run_on_disk import RunOnDisk
from workbench.state import judgments
from workbench.state.judgments import PoolSettings, QrelsAgreementSettings, SystemsSettings

__all__ = [
    "Inputs",
    "inputs_of",
    "qrels_inputs",
    "OverlapSettings",
    "CoverageSettings",
    "VersusSettings",
    "QueriesSettings",
    "query_texts",
    "AgreementSettings",
    "ContrastSettings",
    "CONTRAST_BY",
    "QrelsAgreementSettings",
    "SystemsSettings",
    "PoolSettings",
    "Outcome",
    "compute",
    "state",
    "STATE_TEXT",
    "measure_cutoffs",
    "coverage_cutoffs",
    "beads",
    "Beads",
    "export_header",
    "UNDERESTIMATED",
]


@dataclass(frozen=True, eq=False)
class Inputs:
    """What every analysis of the results shown is computed from; a value a worker can own.

    ``runs``: label -> run frame, or the path of a run scored from disk (read again by the analysis);
    ``evaluation``: the window's :class:`metrics.Evaluation`; ``summary``: its summary as the window shows
    it (runs that share no query with the qrels are NaN); ``queries``: query texts loaded (id -> text);
    ``held``: the qrels held beside the ones in use (path -> columns), which the judgments' analyses
    compare them with."""

    qrels: Any
    runs: Mapping[str, Any]
    evaluation: Any
    summary: pd.DataFrame
    measures: tuple[str, ...]
    settings: Settings  # what the runs were scored with (the analyses score under the same)
    qrels_name: str | None
    queries: Mapping[str, str] = field(default_factory=dict)
    results: Any = None  # the Results these come from (identity: what "current" is compared with)
    held: Mapping[str, Any] = field(default_factory=dict)


def inputs_of(
    results, queries: Mapping[str, str] | None = None, held: Mapping[str, Any] | None = None
) -> Inputs | None:
    """The :class:`Inputs` of ``results`` (a :class:`workbench.scoring.results.Results`); None without results
    or runs.  A run the window scored from disk is handed over as its path; ``held``: the qrels held beside
    (:meth:`workbench.state.workspace.Workspace.held_qrels`)."""
    if results is None or not results.runs:
        return None
    request = results.request
    runs: dict[str, Any] = {}
    for label in results.runs:
        run = request.runs.get(label)
        if run is None:
            continue
        runs[label] = run.path if isinstance(run, RunOnDisk) else run
    return Inputs(
        qrels=request.qrels,
        runs=runs,
        evaluation=results.evaluation,
        summary=results.summary,
        measures=tuple(results.measures),
        settings=request.settings,
        qrels_name=request.qrels_name,
        queries=dict(queries or {}),
        results=results,
        held=dict(held or {}),
    )


def qrels_inputs(workspace, settings: Settings) -> Inputs | None:
    """The :class:`Inputs` of an analysis that needs no scores (two qrels compared), when there are none:
    the qrels file in use and those held beside; None without a qrels file in use."""
    e = workspace.qrels_entry()
    if e is None or e.qrels is None:
        return None
    return Inputs(
        qrels=e.qrels,
        runs={},
        evaluation=None,
        summary=pd.DataFrame(),
        measures=(),
        settings=settings,
        qrels_name=e.path,
        held=workspace.held_qrels(),
    )


# ---------------------------------------------------------------------------------------------------------
# settings: one frozen value per analysis (compared to tell current from out of date, stated in exports)
@dataclass(frozen=True)
class OverlapSettings:
    """What the overlap view compares: the top K documents of each run, and RBO's persistence."""

    depth: int = 10  # K: the top documents compared
    p: float = DEFAULT_PERSISTENCE  # RBO's persistence

    def stated(self) -> list[tuple[str, str]]:
        return [("overlap", f"top K = {self.depth} of each run in trec_eval's order; RBO_ext with p = {self.p:g}")]


@dataclass(frozen=True)
class CoverageSettings:
    """What the coverage view measures: Judged@k at these cutoffs, and the gap that says a run is below the others."""

    cutoffs: tuple[int, ...] = (10,)  # the first is compared with the other runs
    gap: float = DEFAULT_GAP

    def stated(self) -> list[tuple[str, str]]:
        ks = ", ".join(str(k) for k in self.cutoffs)
        return [
            ("coverage", f"Judged@k (ir_measures) at k = {ks}"),
            ("flag", f"mean Judged@{self.cutoffs[0]} more than {self.gap:g} below the median of the other runs'"),
        ]


@dataclass(frozen=True)
class VersusSettings:
    """What the A-against-B view compares: two runs on one measure, and the margin of a tie."""

    measure: str
    run_a: str
    run_b: str
    tie: float = 0.0

    def stated(self) -> list[tuple[str, str]]:
        return [("versus", f"{self.run_a} (A) against {self.run_b} (B) on {self.measure}; tie margin {self.tie:g}")]


@dataclass(frozen=True)
class QueriesSettings:
    """What the queries view ranks by (a measure over the runs), how many it lists, and the query texts it reads."""

    measure: str
    n: int = 5
    #: the query text files loaded, (path, version) each: the queries' length comes from them
    texts: tuple[tuple[str, int], ...] = ()

    def stated(self) -> list[tuple[str, str]]:
        said = [("queries", f"difficulty by {self.measure} over the runs; {self.n} hardest, easiest, disputed")]
        return said + [("query texts", ", ".join(path for path, _ in self.texts))] if self.texts else said


def query_texts(workspace) -> tuple[tuple[str, int], ...]:
    """The query text files of ``workspace`` read (their path and version), for :class:`QueriesSettings`."""
    return tuple((e.path, e.version) for e in workspace.entries if e.kind == "queries" and e.status == "ok")


@dataclass(frozen=True)
class AgreementSettings:
    """The measures whose orderings of the runs the measure-agreement view compares."""

    measures: tuple[str, ...] = ()

    def stated(self) -> list[tuple[str, str]]:
        return [("agreement", "Kendall's tau-b between the runs' orderings by " + ", ".join(self.measures))]


#: the unsupervised contrasts "where to look first" offers besides the measures: name -> what it is named
CONTRAST_BY = {"rbo": "RBO", "tau_ap": "tau_AP"}


@dataclass(frozen=True)
class ContrastSettings:
    """Where to look first: the queries ranked by how much run B differs from run A, ``by`` a measure
    (B's value less A's, the largest difference either way first) or by an unsupervised contrast of their
    first ``depth`` documents (:data:`CONTRAST_BY`: ``rbo``, RBO_ext with persistence ``p``, or
    ``tau_ap``, B's list against A's; the lowest first)."""

    by: str
    run_a: str
    run_b: str
    depth: int = 10
    p: float = DEFAULT_PERSISTENCE

    @property
    def unsupervised(self) -> bool:
        return self.by in CONTRAST_BY

    def stated(self) -> list[tuple[str, str]]:
        from metrics.analysis.contrast import CONTRASTS

        pair = f"{self.run_a} (A) against {self.run_b} (B)"
        if self.by == "rbo":
            how = f"{CONTRASTS['rbo']}; top {self.depth}, p = {self.p:g}"
        elif self.by == "tau_ap":
            how = f"{CONTRASTS['tau_ap']}; top {self.depth}"
        else:
            how = f"{self.by}: B's value less A's, the largest difference either way first"
        return [("where to look first", f"{pair}; {how}")]


AnalysisSettings = (
    OverlapSettings
    | CoverageSettings
    | VersusSettings
    | QueriesSettings
    | AgreementSettings
    | ContrastSettings
    | QrelsAgreementSettings
    | SystemsSettings
    | PoolSettings
)


def measure_cutoffs(measures) -> list[int]:
    """The cutoffs of the cutoff measures among ``measures`` (``P_10``, ``ndcg_cut.10``...), ascending."""
    from metrics.measures import parse_measures
    from metrics.measures.params import LongCutoffs
    from metrics.measures.registry import FAMILIES

    out: set[int] = set()
    for name in measures:
        try:
            parsed = parse_measures([str(name)])
        except (ValueError, KeyError):
            continue
        for m in parsed:
            fam = FAMILIES.get(m.family)
            if fam is not None and isinstance(fam.params, LongCutoffs) and m.family != "Judged":
                out.update(int(k) for k in m.params)
    return sorted(out)


def coverage_cutoffs(measures, first: int = 10) -> tuple[int, ...]:
    """Judged@k's cutoffs for the measures shown: ``first`` (the one compared), then those of the measures."""
    return tuple(dict.fromkeys([first, *measure_cutoffs(measures)]))


# ---------------------------------------------------------------------------------------------------------
# the computation (in a worker)
@dataclass(frozen=True, eq=False)
class Outcome:
    """What one analysis computed, from which inputs and with which settings."""

    kind: str
    inputs: Inputs
    settings: Any
    tables: dict[str, pd.DataFrame]
    extra: dict[str, Any] = field(default_factory=dict)


def compute(kind: str, inputs: Inputs, settings, progress: Callable[[float], bool] | None = None) -> Outcome:
    """Compute analysis ``kind`` (``overlap``, ``coverage``, ``versus``, ``queries``, ``agreement``,
    ``contrast``, and the judgments' ``qrels_agreement``, ``systems``, ``pool_bias``:
    :mod:`workbench.state.judgments`)."""
    work = _KINDS[kind]
    tables, extra = work(inputs, settings, progress or (lambda _: True))
    return Outcome(kind, inputs, settings, tables, extra)


def _step(progress, fraction: float) -> None:
    from metrics.errors import Cancelled

    if progress(fraction) is False:
        raise Cancelled("cancelled")


def _qrels(inputs: Inputs):
    from metrics.engine.evaluate import encoded

    return encoded(inputs.qrels)


def _overlap(inputs: Inputs, s: OverlapSettings, progress):
    from metrics.analysis.overlap import mean_overlap, overlap_matrix, overlap_of
    from metrics.analysis.ranked import loaded_runs, top_documents

    runs = loaded_runs(inputs.runs)
    _step(progress, 0.2)
    top = top_documents(runs, s.depth, _qrels(inputs))
    _step(progress, 0.5)
    table = overlap_of(top, s.p)
    _step(progress, 0.9)
    labels = list(top.runs)
    tables = {
        "overlap": table,
        "means": mean_overlap(table),
        "rbo": overlap_matrix(table, labels, "rbo"),
        "jaccard": overlap_matrix(table, labels, "jaccard"),
    }
    return tables, {"top": top}


def _coverage(inputs: Inputs, s: CoverageSettings, progress):
    from metrics.analysis import condensed_scores, coverage_by_query, judgment_coverage, judgment_holes
    from metrics.analysis.ranked import loaded_runs

    runs = loaded_runs(inputs.runs)
    enc = _qrels(inputs)
    _step(progress, 0.1)
    summary = judgment_coverage(enc, runs, s.cutoffs, gap=s.gap, settings=inputs.settings)
    _step(progress, 0.3)
    by_query = coverage_by_query(enc, runs, s.cutoffs)
    _step(progress, 0.5)
    holes = judgment_holes(enc, runs, max(s.cutoffs))
    _step(progress, 0.6)
    measures = [m for m in inputs.measures]
    condensed = condensed_scores(enc, runs, measures or None, settings=inputs.settings)
    return {"coverage": summary, "by_query": by_query, "holes": holes, "condensed": condensed}, {}


def _versus(inputs: Inputs, s: VersusSettings, progress):
    from metrics.analysis import versus

    table = versus(inputs.evaluation, s.run_a, s.run_b, s.measure, tie=s.tie)
    counts = table["outcome"].value_counts()
    return {"versus": table}, {"counts": {k: int(counts.get(k, 0)) for k in ("win", "loss", "tie")}}


def _queries(inputs: Inputs, s: QueriesSettings, progress):
    from metrics.analysis import query_extremes, query_traits, trait_correlations

    traits = query_traits(
        inputs.evaluation,
        s.measure,
        qrels=_qrels(inputs),
        queries=dict(inputs.queries) or None,
        settings=inputs.settings,
    )
    return {
        "traits": traits,
        "correlations": trait_correlations(traits),
        "extremes": query_extremes(traits, s.n),
    }, {}


def _agreement(inputs: Inputs, s: AgreementSettings, progress):
    from metrics.analysis import measure_agreement, ranking_flips

    measures = list(s.measures) or None
    return {
        "tau": measure_agreement(inputs.summary, measures),
        "tau_p": measure_agreement(inputs.summary, measures, with_p=True),
        "flips": ranking_flips(inputs.summary, measures),
    }, {}


def _contrast(inputs: Inputs, s: ContrastSettings, progress):
    """The queries by how much the two runs differ; with the query texts loaded beside them."""
    from metrics.analysis.contrast import contrast, measure_contrast

    if s.unsupervised:
        from metrics.analysis.ranked import loaded_runs

        runs = loaded_runs({"a": inputs.runs[s.run_a], "b": inputs.runs[s.run_b]})
        _step(progress, 0.3)
        frame = contrast(runs["a"], runs["b"], _qrels(inputs), s.by, s.depth, p=s.p)
    else:
        frame = measure_contrast(inputs.evaluation, s.run_a, s.run_b, s.by)
    frame = frame.assign(text=[inputs.queries.get(str(q), "") for q in frame["query_id"]])
    return {"contrast": frame}, {}


def _qrels_agreement(inputs: Inputs, s: QrelsAgreementSettings, progress):
    return judgments.qrels_agreement(inputs.qrels, inputs.held, s, progress)


def _systems(inputs: Inputs, s: SystemsSettings, progress):
    return judgments.systems(inputs.qrels, inputs.runs, inputs.held, s, inputs.settings, progress)


def _pool_bias(inputs: Inputs, s: PoolSettings, progress):
    return judgments.pool_bias(inputs.qrels, inputs.runs, s, inputs.settings, progress)


_KINDS: dict[str, Callable] = {
    "contrast": _contrast,
    "overlap": _overlap,
    "coverage": _coverage,
    "versus": _versus,
    "queries": _queries,
    "agreement": _agreement,
    "qrels_agreement": _qrels_agreement,
    "systems": _systems,
    "pool_bias": _pool_bias,
}


# ---------------------------------------------------------------------------------------------------------
# one query's runs side by side (BeadPlot's idea)
@dataclass(frozen=True)
class Beads:
    """The first documents of one query in each run, side by side: ``docs[i]``/``rels[i]`` (rank order)
    for ``runs[i]``; ``links``: (column i, rank in column i, column j, rank in column j), 0-based, joining
    each document to the next column to the right that holds it (BeadPlot's threads); ``shared``: per
    column, its documents found in any other."""

    query_id: str
    runs: list[str]
    docs: list[list[str]]
    rels: list[np.ndarray]
    links: list[tuple[int, int, int, int]]
    shared: list[np.ndarray]


def beads(top, query_id: str, runs: list[str] | None = None) -> Beads:
    """:class:`Beads` of ``query_id`` from ``top`` (:class:`metrics.analysis.ranked.TopDocuments`, judged:
    ``rels`` hold the relevance codes, :data:`~metrics.ranking.qrels_index.NONPOOL` for unjudged)."""
    from metrics.io.ids import ids_to_arrow

    runs = list(top.runs) if runs is None else runs
    q = top.queries.index(query_id) if query_id in top.queries else -1
    docs: list[list[str]] = []
    rels: list[np.ndarray] = []
    for label in runs:
        r = top.runs.index(label)
        rows = np.flatnonzero((top.run == r) & (top.query == q)) if q >= 0 else np.zeros(0, dtype=np.int64)
        rows = rows[np.argsort(top.rank[rows], kind="stable")]
        docs.append([str(d) for d in ids_to_arrow(top.doc[rows]).to_pylist()])
        rels.append(np.asarray(top.rel[rows]) if top.rel is not None else np.zeros(len(rows), dtype=np.int8))
    links: list[tuple[int, int, int, int]] = []
    ahead: dict[str, tuple[int, int]] = {}  # document -> (column, rank) of its nearest place to the right
    for i in range(len(runs) - 1, -1, -1):
        for rank, d in enumerate(docs[i]):
            if d in ahead:
                links.append((i, rank, *ahead[d]))
        ahead.update({d: (i, rank) for rank, d in enumerate(docs[i])})
    links.sort()
    shared = []
    for i, column in enumerate(docs):
        others = {d for j, c in enumerate(docs) if j != i for d in c}
        shared.append(np.array([d in others for d in column], dtype=bool))
    return Beads(str(query_id), runs, docs, rels, links, shared)


# ---------------------------------------------------------------------------------------------------------
# whether what a view shows is current
STATE_TEXT = {
    "empty": "Nothing to analyse yet: load qrels and at least one run.",
    "computing": "Computing…",
    "outdated": "Out of date: the runs, the qrels or the settings changed since this was computed.",
    "current": "",
    "failed": "Could not be computed",
}


def state(
    outcome: Outcome | None, results, settings, *, evaluation_state: str = "current", running: bool = False
) -> str:
    """``"empty"`` (no results to analyse), ``"computing"`` (a job for them is under way), ``"current"`` (the
    outcome shown is that of ``results`` with ``settings``) or ``"outdated"``.  ``evaluation_state``: the
    session's (:meth:`workbench.state.session.SessionModel.evaluation_state`): results that are not those of
    the files and options loaded now make their analysis out of date too."""
    if running:
        return "computing"
    if outcome is None:
        return "empty" if results is None else "outdated"
    current = outcome.inputs.results is results and outcome.settings == settings
    if not current or evaluation_state in ("outdated", "computing"):
        return "outdated"
    return "current"


def export_header(outcome: Outcome, title: str) -> list[str]:
    """The ``# `` lines of an analysis export: what it is, the settings of the evaluation it comes from
    (:func:`metrics.report.provenance.provenance`, as every window export states them), its own, and the
    numbers an analysis states beside its table (``extra["stated"]``: tau beside the runs' scores)."""
    from workbench.state.export import settings_of

    results = outcome.inputs.results
    pairs = list(settings_of(results)) if results is not None else []
    pairs += [("runs", ", ".join(outcome.inputs.runs))]
    pairs += outcome.settings.stated()
    pairs += list(outcome.extra.get("stated", []))
    return [f"ir-workbench {title}", *[f"{k}: {v}" for k, v in pairs]]
