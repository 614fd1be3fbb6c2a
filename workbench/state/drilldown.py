"""The query drill-down as the window shows it (plain Python, no Qt).

:func:`compute` runs in a worker (:func:`metrics.engine.drilldown.query_drilldown`), and looks up the
documents shown in the collection loaded (:mod:`metrics.documents`: a title and a snippet with the query's
words marked, the text for the tooltip); :func:`ranking_table` and :func:`missing_table` turn its frames
into the text shown, with a *tone* per row naming the colour of the document's grade.
"""

from __future__ import annotations

import dataclasses
import html
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping

import numpy as np
import pandas as pd

from metrics.engine.drilldown import QueryDrilldown, query_drilldown
from metrics.engine.settings import Settings
from metrics.io.ids import shown
from metrics.io.table import Columns
from workbench.scoring.run_on_disk import RunOnDisk

if TYPE_CHECKING:
    from metrics.documents.store import DocumentStore

UNJUDGED_TONE = "unjudged"
UNJUDGED_MARK = "?"
DEFAULT_DEPTH = 20
#: ranked lists shown side by side by default; with more runs, the best on the query and the baseline
MAX_LISTS = 8
#: characters of a snippet shown beside a document, and of its text in the row's tooltip
SNIPPET_CHARS = 90
TIP_CHARS = 2000
NOT_IN_COLLECTION = "not in the collection"
#: where a document another run did not retrieve is in that run
NOT_RETRIEVED = "\u2014"


def best_runs(runs, scores=None, baseline=None, limit: int = MAX_LISTS) -> list[str]:
    """All ``runs`` up to ``limit``; else the ``limit`` best by ``scores`` (run -> value; the first ones
    in order when there are none) and the baseline, in the runs' order."""
    runs = list(runs)
    if len(runs) <= limit:
        return runs
    scores = scores or {}

    def rank(i: int) -> tuple:
        value = scores.get(runs[i])
        return (1, 0.0, i) if value is None or value != value else (0, -value, i)  # no score (or NaN): last

    ranked = sorted(range(len(runs)), key=rank)
    keep = {runs[i] for i in ranked[:limit]} | ({baseline} if baseline in runs else set())
    return [r for r in runs if r in keep]


def best_by(runs, results, measure, baseline=None, limit: int = MAX_LISTS) -> list[str]:
    """:func:`best_runs` of ``runs`` by their mean of ``measure`` in ``results``' summary (the first ones
    in order when it has no such column, or there are no results)."""
    summary = None if results is None else results.summary
    scores = summary[measure].to_dict() if summary is not None and measure in summary.columns else {}
    return best_runs(runs, scores, baseline, limit)


def grade_tone(grade) -> str:
    """Tone of a row by grade: ``"grade0"``, ``"grade1"``, ``"grade2"``, ``"grade3"`` (3 and up), or unjudged."""
    if grade is None or pd.isna(grade):
        return UNJUDGED_TONE
    return f"grade{min(max(int(grade), 0), 3)}"


@dataclass(frozen=True)
class Request:
    """What one query's drill-down is computed from, in its worker: the qrels, the runs shown, the depth,
    the settings and the texts."""

    qrels: Columns | pd.DataFrame
    runs: Mapping[str, Columns | RunOnDisk | pd.DataFrame]
    query_id: str
    depth: int
    baseline: str | None
    #: the settings the runs were scored with (the relevance level, and the rankings as -M and -J cut them)
    settings: Settings = Settings()
    #: the collection loaded (its documents are looked up in the worker) and the query's text
    documents: DocumentStore | None = None
    query_text: str = ""
    #: the runs whose lists the window will show (:meth:`~workbench.state.followups.FollowUpRules.drilldown_runs`):
    #: their tables are made in the worker too (:class:`Tables`)
    lists: tuple[str, ...] = ()


@dataclass(frozen=True)
class DocumentText:
    """What the drill-down shows of one document of the collection: its title, a snippet with the query's
    words at ``marks`` (offsets in ``snippet``), the start of its text (at most :data:`TIP_CHARS`) and the
    whole text's length; ``found`` False: the collection does not hold it."""

    title: str = ""
    snippet: str = ""
    marks: tuple[tuple[int, int], ...] = ()
    text: str = ""
    length: int = 0
    found: bool = False

    def snippet_html(self) -> str:
        """The snippet as rich text: escaped, the query's words in bold (a document the collection lacks
        says so, in italics)."""
        if not self.found:
            return f"<i>{NOT_IN_COLLECTION}</i>"
        out, at = [], 0
        for start, end in self.marks:
            out += [html.escape(self.snippet[at:start]), "<b>", html.escape(self.snippet[start:end]), "</b>"]
            at = end
        return "".join(out) + html.escape(self.snippet[at:])


@dataclass(frozen=True)
class Tables:
    """What the lists of a drill-down show, made in its worker for the lists ``lists`` (in the drill-down's
    order): each run's :func:`ranking_table` with its :func:`snippets_html` (``runs``), and the
    :func:`missing_table`.  With 500 runs these took the window's thread a third of a second at each query
    selected."""

    lists: tuple[str, ...]
    runs: dict[str, tuple[pd.DataFrame, list[str], list[str], list[str] | None]]
    missing: tuple[pd.DataFrame, list[str], list[str], list[str] | None]


@dataclass(frozen=True)
class Drilldown(QueryDrilldown):
    """:class:`~metrics.engine.drilldown.QueryDrilldown` with the documents shown as the collection holds
    them (doc id -> :class:`DocumentText`; empty without a collection), the collection's name, and where
    each document shown is in every run: ``places[run][doc]`` its rank in the run's whole ranking of the
    query (not only its first ``depth``), for every document in any run's first ``depth``; a document the
    run did not retrieve is not in its dict."""

    texts: dict[str, DocumentText] = field(default_factory=dict)
    collection: str | None = None
    places: dict[str, dict[str, int]] = field(default_factory=dict)
    #: the tables of the lists the window was to show, made with the drill-down (None: not made)
    tables: Tables | None = None


def document_texts(store: DocumentStore, ids: list[str], query_text: str) -> dict[str, DocumentText]:
    """The :class:`DocumentText` of each of ``ids`` (those the collection lacks say so)."""
    from metrics.documents.snippets import make_snippet

    found = store.get(ids)
    out: dict[str, DocumentText] = {}
    for docid in ids:
        doc = found.get(docid)
        if doc is None:
            out[docid] = DocumentText()
            continue
        snippet = make_snippet(doc.text, query_text, width=SNIPPET_CHARS)
        out[docid] = DocumentText(
            doc.title, snippet.text, tuple(snippet.marks), doc.text[:TIP_CHARS], len(doc.text), True
        )
    return out


def compute(request: Request, progress=None) -> Drilldown:
    """The drill-down; runs scored from disk (:class:`~workbench.scoring.disk_runs.RunOnDisk`) are read here,
    one after the other, with ``progress`` (which may stop the work by returning False).  A
    :class:`Drilldown`: the runs' lists cut at the depth, where each document shown is in every run (its
    rank in the whole ranking), and with a collection the texts of the documents shown."""
    baseline = request.baseline if request.baseline in request.runs else None
    runs = dict(request.runs)
    on_disk = [label for label, run in runs.items() if isinstance(run, RunOnDisk)]
    for i, label in enumerate(on_disk):
        from metrics.errors import Cancelled
        from metrics.io.columns import read_columns
        from metrics.io.table import rows_of_queries

        # the file read whole (and checked), its columns cut to the query's rows at once
        runs[label] = rows_of_queries(read_columns(runs[label].path, "run"), [request.query_id])
        if progress is not None and progress((i + 1) / len(on_disk)) is False:
            raise Cancelled("drill-down cancelled")
    whole = query_drilldown(  # (every rank: where a document shown is in the other runs, however deep)
        request.qrels,
        runs,
        request.query_id,
        depth=None,
        baseline=baseline,
        settings=request.settings,
    )
    depth = int(request.depth)
    rankings = {label: r.iloc[:depth].reset_index(drop=True) for label, r in whole.rankings.items()}
    ids = list(dict.fromkeys(str(d) for r in rankings.values() for d in r["doc_id"].tolist()))
    wanted = set(ids)
    places = {
        label: {str(d): int(k) for d, k in zip(r["doc_id"].tolist(), r["rank"].tolist()) if str(d) in wanted}
        for label, r in whole.rankings.items()
    }
    fields = {f.name: getattr(whole, f.name) for f in dataclasses.fields(whole)}
    fields.update(depth=depth, rankings=rankings)
    store = request.documents
    if store is None:
        drill = Drilldown(**fields, places=places)
    else:
        missing = [str(d) for d in whole.missing["doc_id"].tolist()]  # (relevant, never retrieved: read too)
        texts = document_texts(store, list(dict.fromkeys(ids + missing)), request.query_text)
        drill = Drilldown(**fields, texts=texts, collection=store.path, places=places)
    wanted = set(request.lists)  # (the lists the window shows, in the drill-down's order)
    return dataclasses.replace(drill, tables=make_tables(drill, [r for r in drill.runs if r in wanted]))


def make_tables(drill: QueryDrilldown, lists) -> Tables:
    """The :class:`Tables` of ``drill`` for the lists ``lists`` (in that order)."""
    runs = {run: (*ranking_table(drill, run, list(lists)), snippets_html(drill, run)) for run in lists}
    return Tables(tuple(lists), runs, missing_table(drill))


def tables_for(drill: QueryDrilldown, lists: list[str]) -> Tables:
    """The tables of the lists ``lists`` of ``drill``: those made with it when they are the lists it was
    made for, else made now (another run chosen, a drill-down made elsewhere)."""
    made = drill.tables if isinstance(drill, Drilldown) else None
    if made is not None and list(made.lists) == list(lists):
        return made
    return make_tables(drill, lists)


def format_move(baseline_rank, moved) -> str:
    """``"▲3"`` (rose 3 ranks against the baseline), ``"▼12"`` (fell), ``"="`` (same rank), ``"new"``."""
    if baseline_rank is None or pd.isna(baseline_rank):
        return "new"
    moved = int(moved)
    if moved > 0:
        return f"\u25b2{moved}"
    if moved < 0:
        return f"\u25bc{-moved}"
    return "="


def elsewhere(drill: QueryDrilldown, run: str, lists: list[str]) -> tuple[str, list[str], list[str]] | None:
    """The same document joined across the lists shown (``lists``: their runs, in their order): where each
    document of ``run``'s list is in the other lists, as a column's name, a cell per row and a sentence per
    row for its tooltip; None with fewer than two lists (or ``run`` not one of them).

    A document's place in another run is its rank in that run's whole ranking of the query (so a rank
    beyond the depth shown says how far down the other run has it), :data:`NOT_RETRIEVED` when that run
    did not retrieve it.  Two lists: the column ``in <other run>`` holds that rank.  More lists: the
    column ``in others`` holds the ranks in each other list, in the order shown, separated by spaces
    (``"3 — 12"``); the tooltip names each run."""
    if run not in lists or len(lists) < 2 or not isinstance(drill, Drilldown):
        return None
    others = [r for r in lists if r != run]
    docs = [str(d) for d in drill.rankings[run]["doc_id"].tolist()]
    cells = tips = np.zeros(0, dtype=object)
    for i, other in enumerate(others):  # (a column of texts per other list, joined: thousands of rows stay quick)
        place = drill.places.get(other, {})
        text = np.array([str(place[d]) if d in place else NOT_RETRIEVED for d in docs], dtype=object)
        tip = np.where(text != NOT_RETRIEVED, "rank " + text + f" in {other}", f"not retrieved by {other}")
        cells, tips = (text, tip) if i == 0 else (cells + " " + text, tips + "; " + tip)
    name = f"in {others[0]}" if len(others) == 1 else "in others"
    return name, cells.tolist(), tips.tolist()


def ranking_table(
    drill: QueryDrilldown, run: str, lists: list[str] | None = None
) -> tuple[pd.DataFrame, list[str], list[str]]:
    """Rows shown for one run: columns ``rank, doc_id, score, grade`` (and ``moved`` when compared), then
    where each document is in the other lists ``lists`` (:func:`elsewhere`: ``in <run>`` or ``in others``).

    Returns the frame, a tone per row (:func:`grade_tone`) and a tooltip per row.
    Unjudged documents show :data:`UNJUDGED_MARK` as their grade.
    """
    r = drill.rankings[run]
    compared = drill.baseline is not None and run != drill.baseline
    ranks = r["rank"].to_numpy(dtype=np.int64).tolist()
    docs = [shown(str(d)) for d in r["doc_id"].tolist()]  # (bytes that are not UTF-8: replacement characters)
    grades = [None if pd.isna(g) else int(g) for g in r["relevance"].tolist()]
    frame = pd.DataFrame(
        {
            "rank": [str(k) for k in ranks],
            "doc_id": np.asarray(docs, dtype=object),
            "score": r["score"].to_numpy(dtype=float),
            "grade": [UNJUDGED_MARK if g is None else str(g) for g in grades],
        }
    )
    tips = [
        f"{doc} at rank {rank}: " + ("not judged" if g is None else f"grade {g}")
        for doc, rank, g in zip(docs, ranks, grades)
    ]
    if compared:
        baseline_ranks = r["baseline_rank"].tolist()
        for i, br in enumerate(baseline_ranks):
            tips[i] += (
                "; not retrieved by the baseline"
                if pd.isna(br)
                else f"; rank {int(br)} in the baseline {drill.baseline}"
            )
        frame["moved"] = [format_move(b, m) for b, m in zip(baseline_ranks, r["moved"].tolist())]
    joined = elsewhere(drill, run, list(lists or []))
    if joined is not None:
        name, cells, where = joined
        frame[name] = cells
        tips = [f"{tip}; {w}" for tip, w in zip(tips, where)]
    texts = drill.texts if isinstance(drill, Drilldown) and drill.collection is not None else None
    if texts is not None:
        shown_texts = [texts.get(str(d), DocumentText()) for d in r["doc_id"].tolist()]
        if any(t.title for t in shown_texts):  # (a collection without titles: MS MARCO's, Pyserini's)
            frame["title"] = [t.title for t in shown_texts]
        frame["snippet"] = [t.snippet if t.found else NOT_IN_COLLECTION for t in shown_texts]
        tips = [_text_tip(tip, t) for tip, t in zip(tips, shown_texts)]
    tones = [grade_tone(g) for g in r["relevance"]]
    return frame, tones, tips


def _text_tip(head: str, t: DocumentText) -> str:
    """A row's tooltip with the document's text (rich text: Qt wraps it)."""
    if not t.found:
        return f"<p>{html.escape(head)}</p><p><i>{NOT_IN_COLLECTION}</i></p>"
    cut = f"… ({t.length:,} characters in all)" if t.length > len(t.text) else ""
    title = f"<p><b>{html.escape(t.title)}</b></p>" if t.title else ""
    return f"<p>{html.escape(head)}</p>{title}<p>{html.escape(t.text)}{cut}</p>"


def snippets_html(drill: QueryDrilldown, run: str) -> list[str] | None:
    """The snippet of each row of ``run`` as rich text (the query's words bold), None without a collection."""
    if not isinstance(drill, Drilldown) or drill.collection is None:
        return None
    texts = drill.texts
    return [texts.get(str(d), DocumentText()).snippet_html() for d in drill.rankings[run]["doc_id"].tolist()]


# ---------------------------------------------------------------------------------------------------------
# the unjudged documents of the top k, to be judged elsewhere
#: the grade of the qrels lines copied for documents to judge: a negative grade is read as pooled but not
#: judged (by trec_eval and this program), so the lines change no score until a grade replaces it
TO_JUDGE_GRADE = -1


@dataclass(frozen=True)
class Unjudged:
    """A document of the first ``depth`` of the lists shown that the qrels do not judge: its id and, for
    each run shown that lists it there, (run, rank)."""

    doc_id: str
    places: tuple[tuple[str, int], ...]


def unjudged_in_top(drill: QueryDrilldown, lists: list[str]) -> list[Unjudged]:
    """The documents of the lists of ``lists`` (the first ``depth`` of each run's ranking) that the qrels do
    not judge (not in them, or with a negative grade), each once, with the runs that list it and its rank
    in each; the best ranked first (by the highest of its ranks, then the order of the lists)."""
    found: dict[str, list[tuple[str, int]]] = {}
    for run in lists:
        r = drill.rankings.get(run)
        if r is None:
            continue
        for doc, rank, judged in zip(r["doc_id"].tolist(), r["rank"].tolist(), r["judged"].tolist()):
            if not judged:
                found.setdefault(str(doc), []).append((run, int(rank)))
    order = {run: i for i, run in enumerate(lists)}
    items = [Unjudged(doc, tuple(places)) for doc, places in found.items()]
    return sorted(items, key=lambda u: min((rank, order[run]) for run, rank in u.places))


def unjudged_table(drill: QueryDrilldown, items: list[Unjudged]) -> pd.DataFrame:
    """The rows listing ``items``: ``doc_id``, ``retrieved by`` (``"bm25 3, dense 7"``: each run and its
    rank), and with a collection the document's ``title`` (when the collection has titles) and ``snippet``."""
    frame = pd.DataFrame(
        {
            "doc_id": np.asarray([shown(u.doc_id) for u in items], dtype=object),
            "retrieved by": [", ".join(f"{run} {rank}" for run, rank in u.places) for u in items],
        }
    )
    if isinstance(drill, Drilldown) and drill.collection is not None:
        texts = [drill.texts.get(u.doc_id, DocumentText()) for u in items]
        if any(t.title for t in texts):
            frame["title"] = [t.title for t in texts]
        frame["snippet"] = [t.snippet if t.found else NOT_IN_COLLECTION for t in texts]
    return frame


def qrels_lines(query_id: str, items: list[Unjudged]) -> str:
    """``items`` as TREC qrels lines to be judged: ``qid 0 docid -1`` (:data:`TO_JUDGE_GRADE`, the grade to
    replace), one a line, in the order listed."""
    return "".join(f"{shown(query_id)} 0 {shown(u.doc_id)} {TO_JUDGE_GRADE}\n" for u in items)


def missing_table(drill: QueryDrilldown) -> tuple[pd.DataFrame, list[str], list[str], list[str] | None]:
    """Relevant documents no run retrieved: ``doc_id, grade`` (with a collection, their ``title`` and
    ``snippet``: what the runs missed, to be read), a tone and a tooltip per row, and the snippets' rich
    text (None without a collection)."""
    m = drill.missing
    ids = [str(d) for d in m["doc_id"].tolist()]
    grades = [int(g) for g in m["relevance"]]
    frame = pd.DataFrame(
        {"doc_id": np.asarray([shown(d) for d in ids], dtype=object), "grade": [str(g) for g in grades]}
    )
    tips = [f"{shown(d)}: grade {g}, retrieved by none of the runs" for d, g in zip(ids, grades)]
    snippets = None
    if isinstance(drill, Drilldown) and drill.collection is not None:
        texts = [drill.texts.get(d, DocumentText()) for d in ids]
        if any(t.title for t in texts):
            frame["title"] = [t.title for t in texts]
        frame["snippet"] = [t.snippet if t.found else NOT_IN_COLLECTION for t in texts]
        tips = [_text_tip(tip, t) for tip, t in zip(tips, texts)]
        snippets = [t.snippet_html() for t in texts]
    return frame, [grade_tone(g) for g in grades], tips, snippets


def caption(drill: QueryDrilldown, run: str, score: tuple[str, float] | None = None) -> str:
    """``"run: map 0.4213; 7 relevant in top 20 of 100"`` (the score on the query when given as (measure, value))."""
    shown = len(drill.rankings[run])
    total = drill.num_ret.get(run, shown)
    rel = int((drill.rankings[run]["relevance"].fillna(-1) >= drill.relevance_level).sum())
    what = f"{run}" + (" (baseline)" if run == drill.baseline else "")
    if score is not None and not pd.isna(score[1]):
        what += f": {score[0]} {score[1]:.4f};"
    else:
        what += ":"
    return f"{what} nothing retrieved" if total == 0 else f"{what} {rel} relevant in top {shown} of {total}"


def query_score(results, measure: str | None, query_id: str, run: str) -> tuple[str, float] | None:
    """(measure, value) of ``run`` on ``query_id`` from evaluation results, or None."""
    if results is None or measure is None or measure not in results.per_query:
        return None
    wide = results.per_query[measure]
    if query_id not in wide.index or run not in wide.columns:
        return None
    return measure, float(wide.at[query_id, run])
