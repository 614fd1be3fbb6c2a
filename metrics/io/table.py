"""A file's fields as numpy columns (:class:`Columns`), made by the one reader (:mod:`metrics.io.columns`)
or from a DataFrame, and what is derived from them alone: a query code per row, the scores of ranked
judgments, the integer type of the grades."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from metrics.io.formats import (
    Layout,
    _stem,
)
from metrics.io.ids import (
    concat,
    ids_from_list,
    pair_keys,
    stretch_heads,
)

__all__ = [
    "Columns",
    "ids_from_list",
    "rows_of_queries",
    "merged_qrels",
    "ranked_run",
    "query_codes",
    "ranked_scores",
    "grade_dtype",
]


@dataclass(eq=False)
class Columns:
    """A qrels file (``value``: grades, in the smallest signed integer type that holds them: int8 for
    the usual ones) or a run (``value``: float64 scores) as columns.

    Rows are in file order.  ``name`` is a run's label (the tag of its first line unless given),
    ``run_id`` the tag of its last line (trec_eval's ``runid``); ``warnings`` are sentences about
    what was accepted but may surprise.
    """

    kind: str
    qid: np.ndarray
    doc: np.ndarray
    value: np.ndarray
    path: Optional[str] = None
    name: str = ""
    run_id: str = ""
    warnings: list = field(default_factory=list)
    #: 64-bit hash of each row's (query, document) pair, as :func:`pair_keys` makes it (kept from the
    #: reader's duplicate check for the join)
    keys: Optional[np.ndarray] = field(default=None, repr=False)
    #: row indices that sort the pair keys, and the keys in that order (kept from the duplicate
    #: check of a qrels file for :func:`metrics.ranking.qrels_index.encode_qrels`, which then sorts nothing;
    #: ``keys`` is then None, made again if asked for), or None
    key_order: Optional[np.ndarray] = field(default=None, repr=False)
    sorted_keys: Optional[np.ndarray] = field(default=None, repr=False)
    #: with ``read_columns(..., fields=True)`` (inspection): a run's rank column and run tag per row, as
    #: bytes (the scoring reads neither), and the file's comment lines
    rank: Optional[np.ndarray] = field(default=None, repr=False)
    tag: Optional[np.ndarray] = field(default=None, repr=False)
    comment_lines: int = 0
    #: where the file's fields were (:class:`~metrics.io.formats.Layout`): TREC's columns, a header's
    #: or JSON's (None: not read from a file)
    layout: Optional[Layout] = field(default=None, repr=False)
    #: a run given as ``{qid: {docid: score}}``: the query ids given with no document (pytrec_eval scores
    #: them, 0 for every measure, and counts them in the mean; a file cannot give a query without a line)
    empty_queries: Optional[np.ndarray] = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.value)

    def query_count(self) -> int:
        """How many distinct query ids the rows hold."""
        return len(query_codes(self.qid)[0])

    def pair_keys(self) -> np.ndarray:
        """The rows' (query, document) hashes: equal pairs, equal keys (a match is only a candidate)."""
        if self.keys is None:
            self.keys = pair_keys(self.qid, self.doc)
        return self.keys


def rows_of_queries(cols: Columns, queries) -> Columns:
    """The rows of ``cols`` whose query id, as a frame shows it, is one of ``queries`` (in file order):
    one query of a large run for its drill-down, without making the whole run a frame."""
    wanted = {str(q) for q in queries}
    names, inverse = np.unique(cols.qid, return_inverse=True)
    keep = np.fromiter((bytes(n).decode("utf-8", "surrogateescape") in wanted for n in names), bool, len(names))
    rows = keep[inverse.ravel()]

    def cut(column: Optional[np.ndarray]) -> Optional[np.ndarray]:
        return None if column is None else column[rows]

    return replace(
        cols,
        qid=cols.qid[rows],
        doc=cols.doc[rows],
        value=cols.value[rows],
        keys=cut(cols.keys),
        key_order=None,
        sorted_keys=None,
        rank=cut(cols.rank),
        tag=cut(cols.tag),
    )


def merged_qrels(parts: list[Columns]) -> Columns:
    """One qrels from several (the judgments of several ranked-judgments files): for a (query, document)
    judged in more than one part, the later part's grade; rows in the parts' order otherwise."""
    if len(parts) == 1:
        return parts[0]
    if not parts:
        raise ValueError("no qrels to merge")
    qid, doc = concat([p.qid for p in parts]), concat([p.doc for p in parts])
    value = np.concatenate([np.asarray(p.value, dtype=np.int64) for p in parts])
    n = len(value)
    order = np.lexsort((np.arange(n), doc, qid))  # equal pairs together, in the parts' order
    last = np.ones(n, dtype=bool)
    if n:
        last[:-1] = (qid[order][1:] != qid[order][:-1]) | (doc[order][1:] != doc[order][:-1])
    rows = np.sort(order[last])
    value = value[rows]
    return Columns("qrels", qid[rows], doc[rows], value.astype(grade_dtype(value), copy=False))


def ranked_run(cols: Columns, name: Optional[str] = None) -> Columns:
    """The run of ranked judgments (:func:`read_columns` with ``kind="ranked"``): the document on the
    i-th line of a query with n lines (i from 0) gets score ``n - i``, so that trec_eval's order (score
    descending) is the file's order, with no ties."""
    codes = query_codes(cols.qid)[1]
    run = Columns("run", cols.qid, cols.doc, ranked_scores(codes), path=cols.path)
    run.name = run.run_id = name or cols.name or (_stem(cols.path) if cols.path else "ranked")
    return run


def query_codes(qid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct query ids, sorted by their bytes; a code per row into them).  A query's lines come
    together in files, so the ids are looked at once per stretch of equal ids, not once per row."""
    if not len(qid):
        return qid[:0], np.zeros(0, dtype=np.int64)
    heads = stretch_heads(qid)
    ids, inverse = np.unique(qid[heads], return_inverse=True)
    return ids, np.repeat(inverse.ravel(), np.diff(np.append(heads, len(qid))))


def ranked_scores(codes: np.ndarray) -> np.ndarray:
    """n - i for the i-th row (from 0) of a query with n rows (``codes``: a code per row for its query)."""
    if len(codes) == 0:
        return np.zeros(0, dtype=np.float64)
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    starts = np.cumsum(counts) - counts
    position = np.empty(len(codes), dtype=np.int64)
    position[order] = np.arange(len(codes)) - starts[codes[order]]
    return (counts[codes] - position).astype(np.float64)


def grade_dtype(grades: np.ndarray) -> np.dtype:
    """Smallest signed integer type holding every grade (int8 for the usual 0..3)."""
    if not len(grades):
        return np.dtype(np.int8)
    low, top = int(grades.min()), int(grades.max())
    for t in (np.int8, np.int16, np.int32):
        if np.iinfo(t).min <= low and top <= np.iinfo(t).max:
            return np.dtype(t)
    return np.dtype(np.int64)
