"""What is in a qrels or run file, before and without any evaluation.

:func:`inspect_file` reads a file and describes it; :func:`inspect_loaded` does
the same for a file already read (the window has it); both give an
:class:`Inspection`, whose :meth:`~Inspection.to_dict` is the JSON of
``ir-eval --inspect``.  A file that cannot be read is still described: its
kind as detected, its first lines, and the reader's error among the problems,
with the line number.

The file is read by the one reader (:func:`metrics.io.columns.read_columns`),
asked to keep a run's rank column and run tags too, and every figure is
computed from its columns with numpy; a run is held against the qrels by the
judged ranking the measures read (:func:`metrics.ranking.judged.build_ranking`).

Figures (keys of :meth:`Inspection.to_dict`):

* every file: ``path``, ``kind``, ``kind_reason``, ``size``, ``lines`` (data
  lines), ``comment_lines``, ``columns``, ``head`` (the first 10 data lines
  with their line numbers), ``queries``, ``problems``;
* runs: ``documents``, ``docs_per_query`` (min / median / max and a histogram),
  ``score_range``, ``tied_scores`` (documents sharing their score with another
  document of the same query: trec_eval orders those by docid, not by the
  rank column), ``tied_queries``, ``rank_contradictions`` (documents whose
  score is higher than that of the document one rank above them in the rank
  column), ``tags`` (lines per run tag);
* qrels: ``judgments``, ``judgments_per_query``, ``grades``,
  ``relevant_per_query``, ``queries_without_relevant``, ``relevance_level``;
* a run inspected with qrels: ``against_qrels`` with ``shared_queries``,
  ``queries_only_in_run``, ``queries_only_in_qrels``, ``judged_at_10``,
  ``judged_at_100`` (mean over shared queries of the judged fraction of the
  top k, in trec_eval's order) and ``judged_depth`` (per query the deepest k
  whose top k are all judged: min / median / max).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np

from metrics.engine.settings import Settings
from metrics.errors import Cancelled, InputError, IntentQrelsError
from metrics.io.columns import columns_from_frame, read_columns
from metrics.io.formats import Ticker
from metrics.io.ids import stretch_heads
from metrics.io.lines import comment_lines, normalise
from metrics.io.numbers import numbers_or_nan
from metrics.io.readers import LoadedColumns, LoadedFile, detect_kind_with_reason
from metrics.io.table import Columns, query_codes, ranked_run
from metrics.io.textfile import MAX_LINE_BYTES, first_binary_byte, open_input, open_stream, without_bom
from metrics.io.textfile import head as _file_head

HEAD_LINES = 10

COLUMNS = {
    "run": ["qid", "iter", "docid", "rank", "score", "tag"],
    "qrels": ["qid", "iter", "docid", "grade"],
    "ranked": ["qid", "iter", "docid", "grade"],
}


@dataclass
class Inspection:
    """What inspecting one file found: its kind and why, its layout, size, figures, first lines and problems."""

    path: str
    kind: str | None
    kind_reason: str = ""
    size: int = 0
    lines: int = 0
    comment_lines: int = 0
    columns: list = field(default_factory=list)
    head: list = field(default_factory=list)
    queries: int = 0
    figures: dict = field(default_factory=dict)  # the kind's own figures (see the module doc)
    against_qrels: dict | None = None
    problems: list = field(default_factory=list)  # {"line", "severity", "message"}
    readable: bool = True  # False: the reader refused the file (its error is among the problems)
    layout: str = "TREC"  # where the fields are: TREC's columns, a header's (BEIR, PyTerrier...), JSON

    def to_dict(self) -> dict:
        out: dict = {
            "path": self.path,
            "kind": self.kind,
            "kind_reason": self.kind_reason,
            "layout": self.layout,
            "size": self.size,
            "lines": self.lines,
            "comment_lines": self.comment_lines,
            "columns": list(self.columns),
            "head": list(self.head),
            "queries": self.queries,
        }
        out.update(self.figures)
        if self.against_qrels is not None:
            out["against_qrels"] = self.against_qrels
        out["problems"] = list(self.problems)
        return out


# ----------------------------------------------------------------------- public API
def inspect_file(
    path, kind: str | None = None, *, qrels=None, settings: Settings | None = None, progress=None
) -> Inspection:
    """Read ``path`` (as ``kind``, or as detected) and describe it; reading errors become problems.
    ``qrels``: qrels to hold a run against: a path, a frame, :class:`~metrics.io.columns.Columns` or a
    ``{qid: {docid: grade}}`` dict (any form :func:`metrics.evaluate` takes).  ``settings``: their
    relevance level says which grades the qrels' figures count as relevant (None: trec_eval's, 1)."""
    display = os.fspath(path)
    try:
        reason = None if kind is None else f"read as {kind}, as asked"
        if kind is None:
            kind, reason = detect_kind_with_reason(display)
        cols = read_columns(display, kind, fields=True, progress=_part(progress, 0.0, 0.9))
    except Cancelled:
        raise
    except IntentQrelsError as exc:
        return _intents(display, exc)
    except (InputError, OSError) as exc:
        return _unreadable(display, kind, exc, _part(progress, 0.9, 1.0))
    return _describe(cols, reason, qrels, Settings.of(settings).relevance_level)


def _intents(path: str, recognised: IntentQrelsError) -> Inspection:
    """Intent (diversity) qrels, recognised where ad hoc qrels were read: their queries, intents, judgments."""
    from metrics.io.formats import INTENTS_LAYOUT

    try:
        cols = read_columns(path, "qrels", layout=INTENTS_LAYOUT)
    except (InputError, OSError) as exc:
        return _unreadable(path, "qrels", exc)
    assert cols.rank is not None  # the intents
    ins = Inspection(path=path, kind="intents", columns=["qid", "intent", "docid", "grade"])
    ins.kind_reason = (
        "documents come again for a query with another intent in column 2: intent (diversity) qrels "
        "for the diversity measures (alpha-nDCG@20, ERR-IA@20, NRBP, P-IA@20, StRecall@20)"
    )
    ins.layout = INTENTS_LAYOUT.name
    ins.size = _size(path)
    ins.lines, ins.comment_lines = _line_counts(path)
    ins.head = _head(path)
    names, codes = _query_codes(cols.qid)
    ins.queries = len(names)
    pairs = np.unique(np.stack([codes, np.unique(cols.rank, return_inverse=True)[1].ravel()]), axis=1)
    per_query = np.bincount(pairs[0], minlength=len(names))
    grades, counts = np.unique(np.asarray(cols.value), return_counts=True)
    ins.figures = {
        "judgments": int(len(cols)),
        "intents_per_query": _spread(per_query),
        "grades": {str(int(g)): int(n) for g, n in zip(grades, counts)},
    }
    ins.problems.append(
        {
            "line": recognised.line,
            "severity": "info",
            "message": "not ad hoc qrels: the other measures need the ad hoc qrels (each document once per query)",
        }
    )
    return ins


def inspect_loaded(
    loaded: LoadedFile | LoadedColumns,
    *,
    qrels=None,
    settings: Settings | None = None,
    progress=None,
    kind_reason: str | None = None,
) -> Inspection:
    """Describe a file already read (a :class:`~metrics.io.readers.LoadedFile` or ``LoadedColumns``): it is
    read again by the same reader, which keeps a run's rank and tag columns this time (scoring reads neither)."""
    path = os.fspath(loaded.path)
    try:
        cols = read_columns(path, loaded.kind, fields=True, progress=_part(progress, 0.0, 0.9))
    except Cancelled:
        raise
    except (InputError, OSError) as exc:  # changed on disk since it was read
        return _unreadable(path, loaded.kind, exc)
    return _describe(cols, kind_reason, qrels, Settings.of(settings).relevance_level)


def _describe(cols: Columns, kind_reason: str | None, qrels, relevance_level: int) -> Inspection:
    path, kind = str(cols.path), cols.kind
    ins = Inspection(path=path, kind=kind, columns=list(COLUMNS.get(kind, [])))
    ins.kind_reason = kind_reason or _reason(path, kind)
    ins.size = _size(path)
    ins.problems = [{"line": _line_of(w), "severity": "warning", "message": w} for w in cols.warnings]
    ins.lines, ins.comment_lines, ins.head = len(cols), cols.comment_lines, _head(path, cols.layout)
    layout = cols.layout
    if layout is not None and not layout.trec:
        ins.layout = layout.describe()
        if layout.header:
            ins.columns = list(layout.header)
        elif layout.json:
            ins.columns = ["qid", "docid", "score" if kind == "run" else "grade"]
        if layout.tag is None or layout.rank is None:  # no tags, no rank column to hold the scores against
            cols.tag = cols.rank = None
    names, codes = _query_codes(cols.qid)
    ins.queries = len(names)
    run = cols if kind == "run" else ranked_run(cols) if kind == "ranked" else None
    if run is not None:
        ins.figures.update(_run_figures(run, codes, ins.problems))
    if kind in ("qrels", "ranked"):
        ins.figures.update(_qrels_figures(cols, names, codes, relevance_level))
    if run is not None and qrels is not None:
        ins.against_qrels = against_qrels(run, qrels)
        ins.problems += _coverage_problems(ins.against_qrels, ins.queries)
    return ins


def against_qrels(run, qrels) -> dict:
    """How a run meets a qrels file: shared queries, judged fraction at 10 and 100, judged depth (in
    trec_eval's order, from the judged ranking the measures read).  Runs and qrels are
    :class:`~metrics.io.columns.Columns` or frames; the qrels also a path or any form
    :func:`metrics.evaluate` takes (``{qid: {docid: grade}}``, ranx's Qrels ...)."""
    from metrics.engine.evaluate import as_qrels
    from metrics.ranking.judged import build_ranking
    from metrics.ranking.qrels_index import NONPOOL

    run = run if isinstance(run, Columns) else columns_from_frame(run, "run")
    qrels = as_qrels(qrels)
    qrels = qrels if isinstance(qrels, Columns) else columns_from_frame(qrels, "qrels")
    run_q, qrels_q = set(_query_codes(run.qid)[0]), set(_query_codes(qrels.qid)[0])
    shared = run_q & qrels_q
    out: dict = {
        "shared_queries": len(shared),
        "queries_only_in_run": _sorted_ids(run_q - qrels_q),
        "queries_only_in_qrels": _sorted_ids(qrels_q - run_q),
        "judged_at_10": None,
        "judged_at_100": None,
        "judged_depth": None,
    }
    if not shared:
        return out
    ranking = build_ranking(qrels, run)
    judged = ranking.rel != NONPOOL  # in the qrels of its query, whatever its grade
    nq = ranking.n_queries
    for k in (10, 100):
        top = ranking.rank < k
        shown = np.bincount(ranking.qidx[top], minlength=nq)
        hits = np.bincount(ranking.qidx[top & judged], minlength=nq)
        out[f"judged_at_{k}"] = float(np.mean(hits[shown > 0] / shown[shown > 0]))
    depth = ranking.num_ret.copy()  # every document judged: the whole ranking
    unjudged = np.flatnonzero(~judged)
    first = stretch_heads(ranking.qidx[unjudged])  # the first unjudged rank of each query
    depth[ranking.qidx[unjudged[first]]] = ranking.rank[unjudged[first]]
    out["judged_depth"] = _spread(depth)
    return out


# ------------------------------------------------------------------------- helpers
def _part(progress, start: float, end: float):
    if progress is None:
        return None
    return lambda f: progress(start + (end - start) * max(0.0, min(1.0, float(f))))


def _reason(path: str, kind: str) -> str:
    try:
        detected, reason = detect_kind_with_reason(path)
    except (InputError, OSError):
        return f"read as {kind}"
    return reason if detected == kind else f"read as {kind}, as chosen ({reason})"


def _line_of(text: str):
    m = re.search(r"\bline (\d+)", text)
    return int(m.group(1)) if m else None


def _unreadable(path: str, kind, exc: BaseException, progress=None) -> Inspection:
    ins = Inspection(path=path, kind=kind, size=_size(path))
    try:
        ins.kind, ins.kind_reason = detect_kind_with_reason(path) if kind is None else (kind, "as chosen")
    except (InputError, OSError):
        ins.kind_reason = "not recognised"
    ins.columns = list(COLUMNS.get(ins.kind or "", []))
    try:
        ins.lines, ins.comment_lines = _line_counts(path, progress)
        ins.head = _head(path)
    except (OSError, InputError, EOFError, ValueError):
        pass
    line = getattr(exc, "line", None)
    message = str(exc) if isinstance(exc, InputError) else f"{getattr(exc, 'strerror', None) or exc}"
    ins.problems.append({"line": line, "severity": "error", "message": message})
    ins.readable = False
    return ins


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _head(path: str, layout=None) -> list:
    """The first data lines (at most :data:`HEAD_LINES`, from the file's first 64 KiB) with their line
    numbers and fields (split as ``layout`` says; a header line is not shown); bytes that are not UTF-8
    shown with replacement characters."""
    from metrics.io.tokens import tokenizer

    if layout is not None and layout.json:
        return []  # JSON, a dataset: no lines of fields
    data = without_bom(_file_head(path), path)
    lines = data.split(b"\n")
    if len(data) == 65536 and len(lines) > 1:
        lines = lines[:-1]  # cut by the limit
    out = []
    split = tokenizer(layout) if layout is not None else bytes.split
    header = layout is not None and bool(layout.header)
    for number, line in enumerate(lines, 1):
        fields = split(line)
        if fields and not fields[0].startswith(b"#"):
            if header:
                header = False
                continue
            out.append({"line": number, "fields": [f.decode("utf-8", "replace") for f in fields]})
            if len(out) == HEAD_LINES:
                break
    return out


def _line_counts(path: str, progress=None) -> tuple[int, int]:
    """(data lines, comment lines) of a file the reader refused, counted a block at a time up to its first NUL
    byte or line longer than the readers' :data:`MAX_LINE_BYTES` (no newlines, a gzip bomb); ``progress``
    is called per block (``False``: :class:`~metrics.errors.Cancelled`)."""
    tick = Ticker(progress)
    data_lines = comments = 0
    carry = b""  # the start (at most 1 MiB: enough to tell a comment or a data line) of an unfinished line
    carry_bytes = 0  # that line's length so far
    with open_input(path) as raw:
        size = max(os.fstat(raw.fileno()).st_size, 1)
        stream = open_stream(raw)[1]
        while True:
            tick(raw.tell() / size)
            block = stream.read(1 << 20)
            nul = first_binary_byte(block)
            if nul >= 0:  # binary from here on: the lines before it are counted, no more
                block = block[:nul]
            end = not block or nul >= 0
            if not end and b"\n" not in block:  # the unfinished line goes on
                carry += block[: max(0, (1 << 20) - len(carry))]
                carry_bytes += len(block)
                if carry_bytes <= MAX_LINE_BYTES:
                    continue
                end = True  # a line longer than any reader reads: counted as one, no more read
                block = b""
            text = carry + block
            cut = len(text) if end else text.rfind(b"\n") + 1
            text, carry = text[:cut], text[cut:]
            carry_bytes = len(carry)
            if text and not text.endswith(b"\n"):
                text += b"\n"
            comments += comment_lines(text)
            data_lines += sum(1 for line in normalise(text).split(b"\n")[:-1] if line) if text else 0
            if end:
                return data_lines, comments


def _query_codes(qid: np.ndarray) -> tuple[list, np.ndarray]:
    """(the distinct query ids as text, sorted by their bytes; a code per row into them)."""
    ids, codes = query_codes(qid)
    return [bytes(x).decode("utf-8", "replace") for x in ids.tolist()], codes


def _spread(values) -> dict:
    values = np.asarray(values, dtype=float)
    if not len(values):
        return {"min": None, "median": None, "max": None}
    med = float(np.median(values))
    return {"min": _num(values.min()), "median": _num(med), "max": _num(values.max())}


def _num(v):
    v = float(v)
    return int(v) if v.is_integer() else v


def _sorted_ids(values) -> list[str]:
    def key(q):
        try:
            return (0, float(q), q)
        except ValueError:
            return (1, 0.0, q)

    return sorted((str(v) for v in values), key=key)


def _run_figures(run: Columns, codes: np.ndarray, problems: list) -> dict:
    per_query = np.bincount(codes)
    per_query = per_query[per_query > 0]
    counts, edges = np.histogram(per_query, bins=min(12, max(1, len(np.unique(per_query)))))
    scores = np.asarray(run.value, dtype=np.float64)
    # documents sharing their query and score with another one
    order = np.lexsort((scores, codes))
    q, s = codes[order], scores[order]
    same = (q[1:] == q[:-1]) & (s[1:] == s[:-1])
    tied = np.zeros(len(order), dtype=bool)
    tied[:-1] |= same
    tied[1:] |= same
    figures: dict = {
        "documents": int(len(run)),
        "docs_per_query": {
            **_spread(per_query),
            "histogram": {"edges": [_num(e) for e in edges], "counts": counts.tolist()},
        },
        "score_range": [_num(scores.min()), _num(scores.max())] if len(scores) else None,
        "tied_scores": int(tied.sum()),
        "tied_queries": int(len(np.unique(q[tied]))),
        "rank_contradictions": 0,
        "tags": {},
    }
    if run.tag is not None and run.rank is not None:
        names, first, numbers = np.unique(run.tag, return_index=True, return_counts=True)
        by_count = np.lexsort((first, -numbers))  # most lines first, then as they come in the file
        figures["tags"] = {bytes(names[i]).decode("utf-8", "replace"): int(numbers[i]) for i in by_count}
        if len(figures["tags"]) > 1:
            problems.append(
                {
                    "line": None,
                    "severity": "warning",
                    "message": f"{len(figures['tags'])} different run tags in one file (usually one run per file)",
                }
            )
        figures["rank_contradictions"] = _rank_contradictions(numbers_or_nan(run.rank), scores, codes)
        if figures["rank_contradictions"]:
            problems.append(
                {
                    "line": None,
                    "severity": "warning",
                    "message": (
                        f"{figures['rank_contradictions']} documents have a higher score than the document ranked "
                        "just above them: trec_eval ranks by score (then docid) and ignores the rank column"
                    ),
                }
            )
    if figures["tied_scores"]:
        problems.append(
            {
                "line": None,
                "severity": "warning",
                "message": (
                    f"{figures['tied_scores']} documents share their score with another document of the same query: "
                    "trec_eval orders them by docid (descending), whatever their rank column says"
                ),
            }
        )
    return figures


def _rank_contradictions(rank: np.ndarray, score: np.ndarray, qcode: np.ndarray) -> int:
    """Documents whose score is higher than that of the document one rank above them (rank column)."""
    ok = np.isfinite(rank) & np.isfinite(score)
    order = np.lexsort((rank[ok], qcode[ok]))
    q, s = qcode[ok][order], score[ok][order]
    return int(np.count_nonzero((q[1:] == q[:-1]) & (s[1:] > s[:-1])))


def _qrels_figures(qrels: Columns, names: list, codes: np.ndarray, level: int) -> dict:
    grades = np.asarray(qrels.value, dtype=np.int64)
    per_query = np.bincount(codes, minlength=len(names))
    relevant = np.bincount(codes, weights=grades >= level, minlength=len(names)).astype(np.int64)
    values, numbers = np.unique(grades, return_counts=True)
    return {
        "judgments": int(len(grades)),
        "judgments_per_query": _spread(per_query),
        "grades": {int(g): int(n) for g, n in zip(values, numbers)},
        "relevant_per_query": _spread(relevant),
        "queries_without_relevant": _sorted_ids([names[i] for i in np.flatnonzero(relevant == 0)]),
        "relevance_level": int(level),
    }


def _coverage_problems(against: dict, run_queries: int) -> list:
    shared = against["shared_queries"]
    if shared == 0:
        return [
            {
                "line": None,
                "severity": "error",
                "message": "no query of this run is in the qrels: every measure would be 0 "
                "(is it a run of another collection?)",
            }
        ]
    if against["queries_only_in_run"]:
        return [
            {
                "line": None,
                "severity": "warning",
                "message": f"{len(against['queries_only_in_run'])} of the run's {run_queries} queries are not "
                "in the qrels (they are not evaluated)",
            }
        ]
    return []


def json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    return str(value)
