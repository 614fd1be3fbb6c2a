"""The judged ranking: one run against the qrels, for all queries at once.

Every measure reads only this structure, never the raw run or qrels.  It is
trec_eval's ``form_res_rels`` made columnar: the retrieved documents of all
evaluated queries are laid end to end in ranking order, query after query,
and for each rank we keep the relevance code of the document there:

* the judged grade (``>= 0``) when the document is judged in the qrels,
* ``NONPOOL`` (-1) when the document does not occur in the qrels of the query,
* ``UNJUDGED`` (-2) when the qrels list the document with a negative grade
  ("in the pool but not judged", as used by infAP).

Ranking order is trec_eval's: score descending (compared as doubles), ties
broken by document id in *descending* byte order (``strcmp(p2, p1)``).  The
ranks are assigned after that sort, so the order of the lines in the run file
does not matter.

Queries are those of the qrels that also occur in the run, in byte order of
their ids (trec_eval sorts its qrels by ``strcmp`` of the query id).  Run-only
queries are ignored.  Qrels-only queries are skipped with a warning, or, with
``complete=True`` (trec_eval ``-c``), evaluated against a placeholder ranking
exactly as trec_eval 10.0 does: one document ``ceci_nest_pas_un_docno`` with
score 1.0.  Measures that trec_eval resets for such queries (``num_ret``,
``utility``, ``relstring``, ``unj``, ``rbp_resid``) look at
:attr:`JudgedRanking.placeholder`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from metrics.errors import checkpoint
from metrics.io.ids import pair_keys
from metrics.ranking.qrels_index import (  # noqa: F401  (distinct, _grouped_order: importable from here as before)
    NONPOOL,
    UNJUDGED,
    EncodedQrels,
    as_columns,
    distinct,
    encode_qrels,
    frozen,
    join_judgments,
    query_codes_of,
)
from metrics.ranking.rank_order import _blocks, _grouped_order, rank_order  # noqa: F401

PLACEHOLDER_DOC = "ceci_nest_pas_un_docno"

__all__ = [
    "JudgedRanking",
    "EncodedQrels",
    "RunArrays",
    "encode_qrels",
    "build_ranking",
    "rank_order",
    "NONPOOL",
    "UNJUDGED",
    "PLACEHOLDER_DOC",
]


class Memo:
    """Values derived from one ranking that several measure families compute alike (the gains and
    the ideal gains of the ndcg family, average precision of map and gm_map), made once.

    A value is kept while the families computed one after the other ask for it: :meth:`sweep`
    (after each family) forgets the large ones (arrays over the ranks) the last family did not
    use, so that they do not take memory while the other families are computed; small ones (values
    per query) stay with the ranking.  Arrays kept are read-only.
    """

    __slots__ = ("_values", "_used")

    def __init__(self):
        self._values: dict = {}
        self._used: set = set()

    def get(self, key, make):
        """The value under ``key``, made by ``make()`` when not kept."""
        self._used.add(key)
        if key not in self._values:
            value = make()
            for a in value if isinstance(value, tuple) else (value,):
                if isinstance(a, np.ndarray):
                    a.flags.writeable = False
            self._values[key] = value
        return self._values[key]

    def sweep(self) -> None:
        """Forget the large values not asked for since the last sweep."""
        for key in [k for k in self._values if k not in self._used]:
            value = self._values[key]
            if sum(getattr(a, "nbytes", 0) for a in (value if isinstance(value, tuple) else (value,))) > _SMALL:
                del self._values[key]
        self._used.clear()


#: bytes of a value the memo keeps whatever the families computed next (the values of 8k queries)
_SMALL = 1 << 16


@dataclass(frozen=True, eq=False)
class JudgedRanking:
    """Relevance codes per rank for every evaluated query of one run.

    Rank arrays (length ``offsets[-1]``, query after query, best rank first):
    ``rel`` (relevance code, in the smallest signed integer type that holds
    the highest grade of the qrels: int8 for the usual grades), ``qidx``
    (query index of the rank, int32) and ``rank`` (0-based position within
    its query, int32).  The narrow types cut the memory of large rankings
    by more than half; arithmetic on them that could leave their range must
    widen first (comparisons with any Python int are safe).

    Per-query arrays (length ``n_queries``, in :attr:`query_ids` order):
    ``offsets`` (length n+1), ``num_ret``, ``num_rel`` (judged documents with
    grade ``>= relevance_level``), ``num_rel_ret`` (retrieved judged
    documents with grade ``>= relevance_level``: with a negative level,
    unlike ``relcum``, it leaves out the negative codes), ``num_nonpool``,
    ``num_unjudged`` (retrieved, listed in the qrels with a negative grade),
    ``num_rel_levels`` (highest judged grade + 1, 0 if none), ``placeholder``
    (evaluated against trec_eval's ``-c`` placeholder ranking).

    ``rel_levels`` is an ``(n_queries, max_grade + 1)`` matrix: number of
    judged documents of each grade ``>= 0`` in the qrels (retrieved or not),
    the material of ideal rankings.

    All arrays are read-only; the structure is an immutable value.
    """

    run_id: str
    query_ids: np.ndarray
    offsets: np.ndarray
    rel: np.ndarray
    qidx: np.ndarray
    rank: np.ndarray
    num_ret: np.ndarray
    num_rel: np.ndarray
    num_rel_ret: np.ndarray
    num_nonpool: np.ndarray
    num_unjudged: np.ndarray
    rel_levels: np.ndarray
    num_rel_levels: np.ndarray
    placeholder: np.ndarray
    #: running number of relevant documents (grade >= relevance_level) per
    #: rank, inclusive (int32)
    relcum: np.ndarray
    relevance_level: int
    complete: bool
    judged_only: bool
    max_docs: int | None
    #: number of queries in the qrels (trec_eval's ``num_q_rels``)
    num_qrels_queries: int
    #: number of qrels entries with grade > 0 over all qrels queries
    #: (trec_eval's ``num_rel`` summary under ``-c``)
    num_qrels_positive: int
    #: number of documents in the collection (trec_eval ``-N``; only the
    #: fourth coefficient of ``utility`` uses it)
    num_docs_in_coll: int = 0
    #: values several measure families share (not copied by ``replace``: a new ranking, a new memo)
    memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    def with_relevance_level(self, level: int) -> "JudgedRanking":
        """The same ranking with another relevance threshold (num_rel etc. recounted)."""
        level = int(level)
        if level == self.relevance_level:
            return self
        num_rel, num_rel_ret, relcum = _level_counts(self.rel, self.offsets, self.qidx, self.rel_levels, level)
        return replace(self, relevance_level=level, num_rel=num_rel, num_rel_ret=num_rel_ret, relcum=relcum)

    def judged_only_view(self) -> "JudgedRanking":
        """The same ranking without the retrieved documents that are not judged (codes < 0), ranks closed
        up: what :func:`build_ranking` gives with ``judged_only=True`` (trec_eval ``-J``), for measures
        that ask for it alone (ir_measures' ``nDCG(judged_only=True)@10``)."""
        if self.judged_only or not (self.num_nonpool.any() or self.num_unjudged.any()):
            return replace(self, judged_only=True)
        keep = self.rel >= 0
        rel = self.rel[keep]
        qidx = self.qidx[keep]
        nq = self.n_queries
        num_ret, offsets, rank = _layout(qidx, nq)
        num_rel, num_rel_ret, relcum = _level_counts(rel, offsets, qidx, self.rel_levels, self.relevance_level)
        zeros = np.zeros(nq, dtype=np.int64)
        return replace(
            self,
            offsets=frozen(offsets),
            rel=frozen(rel),
            qidx=frozen(qidx),
            rank=frozen(rank),
            num_ret=frozen(num_ret),
            num_rel=num_rel,
            num_rel_ret=num_rel_ret,
            num_nonpool=frozen(zeros),
            num_unjudged=frozen(zeros.copy()),
            relcum=relcum,
            judged_only=True,
        )

    def with_codes(self, rel: np.ndarray, rel_levels: np.ndarray, level: int) -> "JudgedRanking":
        """The same ranks with other relevance codes ``rel`` and grade counts ``rel_levels`` (another
        reading of the judgments, such as the positional relevance of :mod:`metrics.explain.textbook`),
        relevant from grade ``level``; the counts are made again from them."""
        rel = np.asarray(rel, dtype=self.rel.dtype)
        rel_levels = np.asarray(rel_levels, dtype=np.int64)
        num_rel, num_rel_ret, relcum = _level_counts(rel, self.offsets, self.qidx, rel_levels, int(level))
        judged = rel_levels > 0
        highest = np.where(judged.any(axis=1), rel_levels.shape[1] - np.argmax(judged[:, ::-1], axis=1), 0)
        return replace(
            self,
            rel=frozen(rel),
            rel_levels=frozen(rel_levels),
            num_rel_levels=frozen(highest.astype(np.int64)),
            num_rel=num_rel,
            num_rel_ret=num_rel_ret,
            relcum=relcum,
            relevance_level=int(level),
        )

    # ------------------------------------------------------------------ kernels
    def segment_starts(self) -> np.ndarray:
        return self.offsets[:-1]

    def isrel(self) -> np.ndarray:
        """Boolean per rank: judged grade >= relevance_level."""
        return self.rel >= self.relevance_level


def _layout(qidx: np.ndarray, nq: int):
    """(documents per query, offsets of the queries' ranks, 0-based rank of every row) of rows laid
    out query after query (``qidx`` ascending)."""
    num_ret = np.bincount(qidx, minlength=nq).astype(np.int64)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(num_ret, out=offsets[1:])
    rank = np.empty(len(qidx), dtype=np.int32)
    for lo, hi in _blocks(len(qidx)):
        rank[lo:hi] = np.arange(lo, hi) - offsets[qidx[lo:hi]]
    return num_ret, offsets, rank


def _level_counts(rel, offsets, qidx, rel_levels, level):
    """(num_rel, num_rel_ret, relcum) for relevance threshold ``level``."""
    nq = len(offsets) - 1
    lengths = np.diff(offsets)
    # running count over all ranks, then minus the count before each query
    relcum = np.cumsum(rel >= level, dtype=np.int32)
    before = np.zeros(nq, dtype=np.int32)
    ne = lengths > 0
    first = offsets[:-1][ne]
    before[ne] = np.where(first > 0, relcum[np.maximum(first - 1, 0)], 0)
    last = offsets[1:][ne] - 1
    num_rel_ret = np.zeros(nq, dtype=np.int64)
    num_rel_ret[ne] = relcum[last] - before[ne]
    if level < 0:
        # trec_eval counts only judged documents in num_rel_ret, while its
        # per-rank loops (relcum here) take every code >= level as relevant
        outside = np.flatnonzero((rel >= level) & (rel < 0))
        num_rel_ret -= np.bincount(qidx[outside], minlength=nq)
    for lo, hi in _blocks(len(rel)):
        relcum[lo:hi] -= before[qidx[lo:hi]]
    lo = max(level, 0)
    if lo < rel_levels.shape[1]:
        num_rel = rel_levels[:, lo:].sum(axis=1).astype(np.int64)
    else:
        num_rel = np.zeros(nq, dtype=np.int64)
    return frozen(num_rel), frozen(num_rel_ret), frozen(relcum)


class RunArrays:
    """The arrays of a run that :func:`build_ranking` reads, handed over to it: it takes each one out
    (:meth:`take`) when it starts or stops needing it, so that those no one else holds are freed
    while the ranking is built (the query ids once coded, the pair keys once joined, the scores and
    document ids once sorted)."""

    __slots__ = ("qid", "doc", "score", "keys", "run_id", "empty")

    def __init__(self, run):
        cols = as_columns(run, "run")
        self.qid = cols.qid
        self.doc = cols.doc
        self.score = np.asarray(cols.value, dtype=np.float64)
        self.keys = cols.pair_keys()
        self.run_id = cols.run_id or cols.name
        self.empty = cols.empty_queries  # queries given with no document (a dict's): evaluated, 0 retrieved

    def take(self, name: str) -> np.ndarray:
        value = getattr(self, name)
        setattr(self, name, None)
        return value


def build_ranking(
    qrels,
    run,
    *,
    relevance_level: int = 1,
    complete: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    run_id: str | None = None,
    warnings: list | None = None,
    num_docs_in_coll: int = 0,
) -> JudgedRanking:
    """Build the :class:`JudgedRanking` of ``run`` against ``qrels``.

    ``qrels``: :class:`~metrics.io.columns.Columns` or a frame with columns query_id, doc_id,
    relevance (one line per (query, doc)), or the same already encoded (:func:`encode_qrels`);
    ``run``: :class:`~metrics.io.columns.Columns` or a frame with columns query_id, doc_id, score
    (one line per (query, doc)), or its :class:`RunArrays` (emptied here).  Duplicate lines are the
    readers' business and are not checked here.  ``max_docs`` (trec_eval ``-M``) keeps the first
    ``max_docs`` ranks of each query, after the sort.  ``judged_only`` (``-J``) then drops retrieved
    documents that are not judged (codes < 0), closing up the ranks.  Messages about skipped queries
    are appended to ``warnings``.  ``num_docs_in_coll`` (``-N``) is recorded for ``utility``.

    The result holds no reference to ``run``: once the caller drops the run its memory is free.
    """
    src = run if isinstance(run, RunArrays) else RunArrays(run)
    del run
    if run_id is None:
        run_id = src.run_id
    relevance_level = int(relevance_level)
    enc = qrels if isinstance(qrels, EncodedQrels) else encode_qrels(qrels)
    nq_all = enc.num_queries

    # ------------------------------------------------------------------ run
    r_qcode = query_codes_of(enc.query_keys, src.take("qid"))
    r_doc, r_score, r_key = src.take("doc"), src.take("score"), src.take("keys")
    keep = r_qcode >= 0
    if not keep.all():
        r_qcode, r_doc, r_score, r_key = r_qcode[keep], r_doc[keep], r_score[keep], r_key[keep]
    del keep

    present = np.zeros(nq_all, dtype=bool)
    present[r_qcode] = True
    empty = src.take("empty")
    if empty is not None and len(empty):  # a query of the run with no document: evaluated, nothing retrieved
        codes = query_codes_of(enc.query_keys, empty)
        present[codes[codes >= 0]] = True
    missing = np.nonzero(~present)[0]
    placeholder_q = np.zeros(nq_all, dtype=bool)
    if len(missing):
        if complete:
            placeholder_q[missing] = True
            r_qcode = np.concatenate([r_qcode, missing.astype(np.int32)])
            extra = np.array([PLACEHOLDER_DOC.encode()] * len(missing), dtype=object if r_doc.dtype == object else "S")
            r_doc = np.concatenate([r_doc, extra])
            r_score = np.concatenate([r_score, np.ones(len(missing))])
            r_key = np.concatenate([r_key, pair_keys(enc.query_keys[missing], extra)])
        elif warnings is not None:
            names = [enc.queries[i] for i in missing]
            shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
            warnings.append(
                f"run {run_id!r}: {len(names)} qrels "
                f"quer{'y' if len(names) == 1 else 'ies'} without results skipped: {shown}"
            )

    # evaluated queries: compact codes 0..nq-1 in trec order
    evaluated = np.nonzero(present | placeholder_q)[0]
    nq = len(evaluated)
    remap = None
    if nq < nq_all:
        remap = np.full(nq_all, -1, dtype=np.int32)
        remap[evaluated] = np.arange(nq, dtype=np.int32)

    # ----------------------------------------------------------------- join (in file order)
    rel = join_judgments(enc, r_qcode, r_doc, r_key)
    del r_key
    checkpoint()

    # ----------------------------------------------------------------- sort
    order = rank_order(r_qcode, r_score, r_doc)
    del r_score, r_doc
    s_qcode = r_qcode[order]
    del r_qcode
    rel = rel[order]
    del order
    if max_docs is not None:
        counts = np.bincount(s_qcode, minlength=nq_all)
        starts = np.zeros(nq_all, dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        sel = np.arange(len(s_qcode), dtype=np.int64) - starts[s_qcode] < int(max_docs)
        s_qcode = s_qcode[sel]
        rel = rel[sel]

    qidx = s_qcode if remap is None else remap[s_qcode]
    del s_qcode
    if judged_only:
        sel = rel >= 0
        rel = rel[sel]
        qidx = qidx[sel]

    num_ret, offsets, rank = _layout(qidx, nq)
    # codes other than NONPOOL are rare: count those, not the others
    pooled = np.nonzero(rel != NONPOOL)[0]
    num_nonpool = num_ret - np.bincount(qidx[pooled], minlength=nq)
    num_unjudged = np.bincount(qidx[pooled[rel[pooled] == UNJUDGED]], minlength=nq).astype(np.int64)
    del pooled
    rel_levels, num_rel_levels = _rel_levels(enc, remap, nq)
    num_rel, num_rel_ret, relcum = _level_counts(rel, offsets, qidx, rel_levels, relevance_level)

    return JudgedRanking(
        run_id=run_id,
        query_ids=frozen(np.array([enc.queries[i] for i in evaluated], dtype=object)),
        offsets=frozen(offsets),
        rel=frozen(rel),
        qidx=frozen(qidx),
        rank=frozen(rank),
        num_ret=frozen(num_ret),
        num_rel=num_rel,
        num_rel_ret=num_rel_ret,
        num_nonpool=frozen(num_nonpool.astype(np.int64)),
        num_unjudged=frozen(num_unjudged),
        rel_levels=frozen(rel_levels),
        num_rel_levels=frozen(num_rel_levels),
        placeholder=frozen(placeholder_q[evaluated].copy()),
        relcum=relcum,
        relevance_level=relevance_level,
        complete=bool(complete),
        judged_only=bool(judged_only),
        max_docs=None if max_docs is None else int(max_docs),
        num_qrels_queries=nq_all,
        num_qrels_positive=enc.num_positive,
        num_docs_in_coll=int(num_docs_in_coll),
    )


def _rel_levels(enc: EncodedQrels, remap, nq: int):
    """(judged documents per grade and evaluated query, highest grade + 1 per query)."""
    ev_q = enc.qcode if remap is None else remap[enc.qcode]
    q_rel = enc.rel
    judged = (q_rel >= 0) & (ev_q >= 0)
    max_grade = int(q_rel[judged].max()) if judged.any() else -1
    width = max_grade + 1
    if width <= 0:
        return np.zeros((nq, 0), dtype=np.int64), np.zeros(nq, dtype=np.int64)
    rel_levels = np.bincount(ev_q[judged].astype(np.int64) * width + q_rel[judged], minlength=nq * width)
    rel_levels = rel_levels.reshape(nq, width).astype(np.int64)
    nz = rel_levels > 0
    num_rel_levels = np.where(nz.any(axis=1), width - np.argmax(nz[:, ::-1], axis=1), 0).astype(np.int64)
    return rel_levels, num_rel_levels
