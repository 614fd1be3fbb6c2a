"""What is in a qrels or run file, before and without any evaluation.

:func:`inspect_file` reads a file and describes it; :func:`inspect_loaded` does
the same for a file already read (the window has it); both give an
:class:`Inspection`, whose :meth:`~Inspection.to_dict` is the JSON of
``ir-eval --inspect``.  A file that cannot be read is still described: its
kind as detected, its first lines, and the reader's error among the problems,
with the line number.

Besides the frame the readers return, a run's rank column and run tags are
needed (the readers keep neither), so the file is scanned once more, chunk by
chunk, with pyarrow's CSV parser on whitespace-normalised bytes.

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

import json
import os
import re
import sys
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .errors import Cancelled, InputError
from .readers import LoadedFile, detect_kind_with_reason, read_file
from .scan import _scan, _size

COLUMNS = {
    "run": ["qid", "iter", "docid", "rank", "score", "tag"],
    "qrels": ["qid", "iter", "docid", "grade"],
    "ranked": ["qid", "iter", "docid", "grade"],
}


@dataclass
class Inspection:
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

    def to_dict(self) -> dict:
        out: dict = {
            "path": self.path,
            "kind": self.kind,
            "kind_reason": self.kind_reason,
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
    path, kind: str | None = None, *, qrels: pd.DataFrame | None = None, relevance_level: int = 1, progress=None
) -> Inspection:
    """Read ``path`` (as ``kind``, or as detected) and describe it; reading errors become problems."""
    display = os.fspath(path)
    try:
        loaded = read_file(display, kind=kind, progress=_part(progress, 0.0, 0.6))
    except Cancelled:
        raise
    except (InputError, OSError) as exc:
        return _unreadable(display, kind, exc)
    return inspect_loaded(
        loaded,
        qrels=qrels,
        relevance_level=relevance_level,
        progress=_part(progress, 0.6, 1.0),
        kind_reason=None if kind is None else f"read as {kind}, as asked",
    )


def inspect_loaded(
    loaded: LoadedFile,
    *,
    qrels: pd.DataFrame | None = None,
    relevance_level: int = 1,
    progress=None,
    kind_reason: str | None = None,
) -> Inspection:
    """Describe a file already read (a :class:`metrics.readers.LoadedFile`); the file's head and, for a
    run, its rank and tag columns are read again."""
    path, kind = os.fspath(loaded.path), loaded.kind
    ins = Inspection(path=path, kind=kind, columns=list(COLUMNS.get(kind, [])))
    ins.kind_reason = kind_reason or _reason(path, kind)
    ins.size = _size(path)
    ins.problems = [{"line": _line_of(w), "severity": "warning", "message": w} for w in loaded.warnings]
    scan = _scan(path, kind, progress)
    ins.lines, ins.comment_lines, ins.head = scan["lines"], scan["comment_lines"], scan["head"]
    if loaded.run is not None:
        ins.figures.update(_run_figures(loaded.run, scan, ins.problems))
        ins.queries = int(loaded.run["query_id"].nunique())
    if loaded.qrels is not None and kind in ("qrels", "ranked"):
        ins.figures.update(_qrels_figures(loaded.qrels, relevance_level))
        ins.queries = max(ins.queries, int(loaded.qrels["query_id"].nunique()))
    if loaded.run is not None and qrels is not None:
        ins.against_qrels = against_qrels(loaded.run, qrels)
        ins.problems += _coverage_problems(ins.against_qrels, ins.queries)
    return ins


def against_qrels(run: pd.DataFrame, qrels: pd.DataFrame) -> dict:
    """How a run meets a qrels file: shared queries, judged fraction at 10 and 100, judged depth."""
    run_q = pd.unique(run["query_id"])
    qrels_q = pd.unique(qrels["query_id"])
    shared = np.intersect1d(run_q.astype(str), qrels_q.astype(str))
    out = {
        "shared_queries": int(len(shared)),
        "queries_only_in_run": _sorted_ids(np.setdiff1d(run_q.astype(str), qrels_q.astype(str))),
        "queries_only_in_qrels": _sorted_ids(np.setdiff1d(qrels_q.astype(str), run_q.astype(str))),
        "judged_at_10": None,
        "judged_at_100": None,
        "judged_depth": None,
    }
    part = run[run["query_id"].isin(shared)]
    if part.empty:
        return out
    # trec_eval's order: score descending, ties by docid descending
    ordered = part.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
    rank = ordered.groupby("query_id", sort=False).cumcount().to_numpy() + 1
    judged_keys = pd.MultiIndex.from_arrays([qrels["query_id"].astype(str), qrels["doc_id"].astype(str)])
    keys = pd.MultiIndex.from_arrays([ordered["query_id"].astype(str), ordered["doc_id"].astype(str)])
    judged = keys.isin(judged_keys)
    frame = pd.DataFrame({"q": ordered["query_id"].to_numpy(), "rank": rank, "judged": judged})
    for k in (10, 100):
        top = frame[frame["rank"] <= k].groupby("q")["judged"].mean()
        out[f"judged_at_{k}"] = float(top.mean())
    unjudged = frame[~frame["judged"]].groupby("q")["rank"].min() - 1
    depth = frame.groupby("q")["rank"].max()
    depth.loc[unjudged.index] = unjudged
    out["judged_depth"] = _spread(depth.to_numpy())
    return out


def format_text(inspections) -> str:
    """The inspections as text for a terminal."""
    blocks = []
    for ins in inspections:
        d = ins.to_dict() if isinstance(ins, Inspection) else ins
        lines = [
            f"{d['path']}",
            f"  kind          {d['kind'] or 'unknown'} ({d['kind_reason']})",
            f"  size          {d['size']:,} bytes, {d['lines']:,} data lines, {d['comment_lines']:,} comment lines",
            f"  queries       {d['queries']:,}",
        ]
        if "docs_per_query" in d:
            s = d["docs_per_query"]
            lines += [
                f"  documents     {d['documents']:,} ({s['min']} / {s['median']:g} / {s['max']} per query)",
                f"  scores        {d['score_range'][0]:g} to {d['score_range'][1]:g}",
                f"  tied scores   {d['tied_scores']:,} documents in {d['tied_queries']:,} queries",
                f"  rank column   {d['rank_contradictions']:,} documents scored above the one ranked before them",
                "  tags          " + ", ".join(f"{t} ({n:,})" for t, n in d["tags"].items()),
            ]
        if "grades" in d:
            s, r = d["judgments_per_query"], d["relevant_per_query"]
            lines += [
                f"  judgments     {d['judgments']:,} ({s['min']} / {s['median']:g} / {s['max']} per query)",
                "  grades        " + ", ".join(f"{g}: {n:,}" for g, n in d["grades"].items()),
                f"  relevant      {r['min']} / {r['median']:g} / {r['max']} per query "
                f"(grade >= {d['relevance_level']})",
                f"  no relevant   {len(d['queries_without_relevant'])} queries",
            ]
        a = d.get("against_qrels")
        if a:
            depth = a["judged_depth"]
            lines += [
                f"  vs qrels      {a['shared_queries']} shared queries, "
                f"{len(a['queries_only_in_run'])} only in the run, "
                f"{len(a['queries_only_in_qrels'])} only in the qrels"
            ]
            if a["judged_at_10"] is not None:
                lines += [
                    f"  judged        {100 * a['judged_at_10']:.1f}% of the top 10, "
                    f"{100 * a['judged_at_100']:.1f}% of the top 100; judged to depth "
                    f"{depth['min']} / {depth['median']:g} / {depth['max']}"
                ]
        for p in d["problems"]:
            where = f"line {p['line']}: " if p.get("line") else ""
            lines.append(f"  {p['severity']:<13} {where}{p['message']}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


# ------------------------------------------------------------------ ir-eval --inspect
def main(argv: list[str]) -> int:
    """``ir-eval --inspect FILE... [--format text|json] [-l N]``; exit 2 when a file cannot be read."""
    import argparse

    p = argparse.ArgumentParser(
        prog="ir-eval --inspect", description="Describe qrels and run files without evaluating them."
    )
    p.add_argument("--inspect", action="store_true", required=True)
    p.add_argument("files", metavar="FILE", nargs="+")
    p.add_argument("--format", choices=("text", "json"), default="text")
    from .cli import add_level_option

    add_level_option(p)
    args = p.parse_args(argv)
    loaded: list = []
    for path in args.files:
        try:
            loaded.append(read_file(path))
        except (InputError, OSError) as exc:
            loaded.append(exc)
    qrels = next((x.qrels for x in loaded if isinstance(x, LoadedFile) and x.kind == "qrels"), None)
    out = [
        _unreadable(path, None, x)
        if isinstance(x, BaseException)
        else inspect_loaded(x, qrels=qrels if x.kind != "qrels" else None, relevance_level=args.level)
        for path, x in zip(args.files, loaded)
    ]
    if args.format == "json":
        json.dump([i.to_dict() for i in out], sys.stdout, indent=1, default=_json_default)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_text(out))
    return 2 if any(isinstance(x, BaseException) for x in loaded) else 0


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


def _unreadable(path: str, kind, exc: BaseException) -> Inspection:
    ins = Inspection(path=path, kind=kind, size=_size(path))
    try:
        ins.kind, ins.kind_reason = detect_kind_with_reason(path) if kind is None else (kind, "as chosen")
    except (InputError, OSError):
        ins.kind_reason = "not recognised"
    ins.columns = list(COLUMNS.get(ins.kind or "", []))
    try:
        head = _scan(path, None, None)
        ins.lines, ins.comment_lines, ins.head = head["lines"], head["comment_lines"], head["head"]
    except (OSError, InputError, EOFError, ValueError):
        pass
    line = getattr(exc, "line", None)
    message = str(exc) if isinstance(exc, InputError) else f"{getattr(exc, 'strerror', None) or exc}"
    ins.problems.append({"line": line, "severity": "error", "message": message})
    return ins


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


def _run_figures(run: pd.DataFrame, scan: dict, problems: list) -> dict:
    per_query = run.groupby("query_id", sort=False).size().to_numpy()
    counts, edges = np.histogram(per_query, bins=min(12, max(1, len(np.unique(per_query)))))
    scores = run["score"].to_numpy(dtype=float)
    dup = run.duplicated(["query_id", "score"], keep=False).to_numpy()
    figures: dict = {
        "documents": int(len(run)),
        "docs_per_query": {
            **_spread(per_query),
            "histogram": {"edges": [_num(e) for e in edges], "counts": counts.tolist()},
        },
        "score_range": [_num(scores.min()), _num(scores.max())] if len(scores) else None,
        "tied_scores": int(dup.sum()),
        "tied_queries": int(run.loc[dup, "query_id"].nunique()),
        "rank_contradictions": 0,
        "tags": {},
    }
    table = scan.get("table")
    if table is not None and table.num_columns >= 6:
        tags = pc.value_counts(table["f5"]).to_pylist()
        figures["tags"] = {t["values"]: int(t["counts"]) for t in sorted(tags, key=lambda t: -t["counts"])}
        if len(figures["tags"]) > 1:
            problems.append(
                {
                    "line": None,
                    "severity": "warning",
                    "message": f"{len(figures['tags'])} different run tags in one file (usually one run per file)",
                }
            )
        figures["rank_contradictions"] = _rank_contradictions(table)
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


def _rank_contradictions(table: pa.Table) -> int:
    """Documents whose score is higher than that of the document one rank above them (rank column)."""
    rank = _to_float(table["f3"])
    score = _to_float(table["f4"])
    qcode = pc.dictionary_encode(table["f0"]).combine_chunks().indices.to_numpy(zero_copy_only=False)
    ok = np.isfinite(rank) & np.isfinite(score)
    order = np.lexsort((rank[ok], qcode[ok]))
    q, s = qcode[ok][order], score[ok][order]
    return int(np.count_nonzero((q[1:] == q[:-1]) & (s[1:] > s[:-1])))


def _to_float(column) -> np.ndarray:
    """Numbers of a text column; NaN where a field is not a number."""
    text = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    valid = pc.match_substring_regex(text, r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
    values = pc.if_else(valid, text, pa.scalar("nan"))
    return pc.cast(values, pa.float64()).to_numpy(zero_copy_only=False)


def _qrels_figures(qrels: pd.DataFrame, level: int) -> dict:
    per_query = qrels.groupby("query_id", sort=False).size()
    relevant = (qrels["relevance"] >= level).groupby(qrels["query_id"], sort=False).sum()
    grades = qrels["relevance"].value_counts().sort_index()
    return {
        "judgments": int(len(qrels)),
        "judgments_per_query": _spread(per_query.to_numpy()),
        "grades": {int(g): int(n) for g, n in grades.items()},
        "relevant_per_query": _spread(relevant.to_numpy()),
        "queries_without_relevant": _sorted_ids(relevant.index[relevant.to_numpy() == 0]),
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


def _json_default(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    return str(value)
