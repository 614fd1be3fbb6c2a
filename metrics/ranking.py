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

from .columns import Columns, columns_from_frame, pair_keys

NONPOOL = -1
UNJUDGED = -2
PLACEHOLDER_DOC = "ceci_nest_pas_un_docno"

__all__ = [
    "JudgedRanking",
    "EncodedQrels",
    "encode_qrels",
    "build_ranking",
    "rank_order",
    "NONPOOL",
    "UNJUDGED",
    "PLACEHOLDER_DOC",
]


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


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
        num_ret = np.bincount(qidx, minlength=nq).astype(np.int64)
        offsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(num_ret, out=offsets[1:])
        rank = (np.arange(len(rel), dtype=np.int64) - offsets[qidx]).astype(np.int32)
        num_rel, num_rel_ret, relcum = _level_counts(rel, offsets, qidx, self.rel_levels, self.relevance_level)
        zeros = np.zeros(nq, dtype=np.int64)
        return replace(
            self,
            offsets=_frozen(offsets),
            rel=_frozen(rel),
            qidx=_frozen(qidx),
            rank=_frozen(rank),
            num_ret=_frozen(num_ret),
            num_rel=num_rel,
            num_rel_ret=num_rel_ret,
            num_nonpool=_frozen(zeros),
            num_unjudged=_frozen(zeros.copy()),
            relcum=relcum,
            judged_only=True,
        )

    # ------------------------------------------------------------------ kernels
    def segment_starts(self) -> np.ndarray:
        return self.offsets[:-1]

    def isrel(self) -> np.ndarray:
        """Boolean per rank: judged grade >= relevance_level."""
        return self.rel >= self.relevance_level


# Rows per step where a whole-ranking temporary would otherwise be needed
# (keeps those temporaries at a few MB).
_BLOCK = 1 << 20


def _blocks(n: int):
    """(lo, hi) bounds of consecutive blocks of ``_BLOCK`` rows out of n."""
    for lo in range(0, n, _BLOCK):
        yield lo, min(lo + _BLOCK, n)


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
    return _frozen(num_rel), _frozen(num_rel_ret), _frozen(relcum)


def _code_dtype(grades: np.ndarray) -> np.dtype:
    """Smallest signed integer type holding the codes -2, -1 and ``grades``
    (negative grades become -2)."""
    top = max(int(grades.max()), 0) if len(grades) else 0
    for t in (np.int8, np.int16, np.int32):
        if top <= np.iinfo(t).max:
            return np.dtype(t)
    return np.dtype(np.int64)


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (``np.unique`` without its import of numpy.ma, which costs more than
    scoring a small run)."""
    values = np.sort(values)
    return values[np.concatenate([[True], values[1:] != values[:-1]])] if len(values) else values


# the key filter's table: 2**22 entries (4 MiB)
_FILTER_MASK = np.uint64((1 << 22) - 1)


def _query_codes(query_keys: np.ndarray, qid: np.ndarray) -> np.ndarray:
    """Position (int32) of each row's query id in the sorted ``query_keys``, -1 where absent.

    Runs and qrels list a query's lines together, so the ids are looked up once per block of equal
    ids, not once per row.
    """
    n = len(qid)
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    heads = np.flatnonzero(qid[1:] != qid[:-1]) + 1
    heads = np.concatenate([np.zeros(1, dtype=np.int64), heads])
    ids, inverse = np.unique(qid[heads], return_inverse=True)
    codes = np.full(len(ids), -1, dtype=np.int32)
    if len(query_keys):
        pos = np.searchsorted(query_keys, ids)
        at = np.minimum(pos, len(query_keys) - 1)
        found = (pos < len(query_keys)) & (query_keys[at] == ids)
        codes[found] = pos[found]
    return np.repeat(codes[inverse.ravel()], np.diff(np.append(heads, n)))


def _decode(ids: np.ndarray) -> list[str]:
    """Ids as text (they are UTF-8: the readers checked)."""
    return [x.decode("utf-8") for x in ids.tolist()]  # one per distinct query


def _as_columns(data, kind: str) -> Columns:
    return data if isinstance(data, Columns) else columns_from_frame(data, kind)


@dataclass(frozen=True, eq=False)
class EncodedQrels:
    """The qrels as integer codes and join keys, ready to be joined with any number of runs.

    Encoding the qrels (their distinct queries in trec_eval's order and the sorted (query,
    document) keys) is most of the work of joining a small run; an :class:`metrics.Evaluator`
    does it once for all the runs it evaluates.  Keys are 64-bit hashes of the pairs, every match
    confirmed on the ids; should two pairs ever share a key, the join switches to exact document
    codes (:meth:`exact_index`).
    """

    queries: list  # qrels query ids in byte order (trec_eval's order), as text
    query_keys: np.ndarray  # the same, as bytes (numpy S or object)
    num_queries: int
    qcode: np.ndarray  # per qrels line: query code
    rel: np.ndarray  # per qrels line: grade
    key_sorted: np.ndarray  # sorted pair keys
    rel_sorted: np.ndarray  # grades in that order
    qcode_sorted: np.ndarray  # query codes in that order
    doc_sorted: np.ndarray  # document ids in that order
    num_positive: int
    collide: bool  # two lines share a key: join on exact codes
    _exact: dict = field(default_factory=dict, repr=False)  # made on first use

    def key_filter(self) -> np.ndarray:
        """Boolean table: True at the low bits of every judged pair key."""
        if "filter" not in self._exact:
            table = np.zeros(int(_FILTER_MASK) + 1, dtype=bool)
            table[self.key_sorted & _FILTER_MASK] = True
            self._exact["filter"] = table
        return self._exact["filter"]

    def exact_index(self):
        """(sorted distinct document ids, their number, sorted exact keys, grades in that order),
        made on first use: the join used when hashes collide."""
        if "doc_set" not in self._exact:
            doc_set, dcode = np.unique(self.doc_sorted, return_inverse=True)
            nd = max(len(doc_set), 1)
            key = self.qcode_sorted.astype(np.int64) * nd + dcode.ravel()
            order = np.argsort(key, kind="stable")
            self._exact.update(doc_set=doc_set, nd=nd, key=key[order], rel=self.rel_sorted[order])
        e = self._exact
        return e["doc_set"], e["nd"], e["key"], e["rel"]


def encode_qrels(qrels) -> EncodedQrels:
    """Encode qrels (:class:`~metrics.columns.Columns` or a frame with query_id, doc_id,
    relevance) for :func:`build_ranking`."""
    cols = _as_columns(qrels, "qrels")
    rel = np.asarray(cols.value, dtype=np.int64)
    n = len(rel)
    if n:
        heads = np.concatenate([np.zeros(1, dtype=np.int64), np.flatnonzero(cols.qid[1:] != cols.qid[:-1]) + 1])
        query_keys = distinct(cols.qid[heads])
    else:
        query_keys = cols.qid[:0]
    qcode = _query_codes(query_keys, cols.qid)
    key = cols.pair_keys()  # kept from the reader's duplicate check
    order = np.argsort(key, kind="stable")
    key = key[order]
    return EncodedQrels(
        queries=_decode(query_keys),
        query_keys=_frozen(query_keys),
        num_queries=len(query_keys),
        qcode=_frozen(qcode),
        rel=_frozen(rel),
        key_sorted=_frozen(key),
        rel_sorted=_frozen(rel[order]),
        qcode_sorted=_frozen(qcode[order]),
        doc_sorted=_frozen(cols.doc[order]),
        num_positive=int(np.count_nonzero(rel > 0)),
        collide=bool(n > 1 and (key[1:] == key[:-1]).any()),
    )


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

    ``qrels``: :class:`~metrics.columns.Columns` or a frame with columns query_id, doc_id,
    relevance (one line per (query, doc)), or the same already encoded (:func:`encode_qrels`);
    ``run``: :class:`~metrics.columns.Columns` or a frame with columns query_id, doc_id, score
    (one line per (query, doc)).  Duplicate lines are the readers' business and are not checked
    here.  ``max_docs`` (trec_eval ``-M``) keeps the first ``max_docs`` ranks of each query,
    after the sort.  ``judged_only`` (``-J``) then drops retrieved documents that are not judged
    (codes < 0), closing up the ranks.  Messages about skipped queries are appended to
    ``warnings``.  ``num_docs_in_coll`` (``-N``) is recorded for ``utility``.

    The result holds no reference to ``run``: once the caller drops the run its memory is free.
    """
    cols = _as_columns(run, "run")
    if run_id is None:
        run_id = cols.run_id or cols.name
    relevance_level = int(relevance_level)
    enc = qrels if isinstance(qrels, EncodedQrels) else encode_qrels(qrels)
    nq_all = enc.num_queries

    # ------------------------------------------------------------------ run
    r_qcode = _query_codes(enc.query_keys, cols.qid)
    r_doc, r_score, r_key = cols.doc, np.asarray(cols.value, dtype=np.float64), cols.pair_keys()
    keep = r_qcode >= 0
    if not keep.all():
        r_qcode, r_doc, r_score, r_key = r_qcode[keep], r_doc[keep], r_score[keep], r_key[keep]
    del keep, cols

    present = np.zeros(nq_all, dtype=bool)
    present[r_qcode] = True
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

    # ----------------------------------------------------------------- sort
    order = rank_order(r_qcode, r_score, r_doc)
    del r_score
    s_qcode = r_qcode[order]
    del r_qcode
    if max_docs is not None:
        counts = np.bincount(s_qcode, minlength=nq_all)
        starts = np.zeros(nq_all, dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        sel = np.arange(len(order), dtype=np.int64) - starts[s_qcode] < int(max_docs)
        order = order[sel]
        s_qcode = s_qcode[sel]

    # ----------------------------------------------------------------- join
    rel = _join(enc, s_qcode, r_doc, r_key, order)
    del r_doc, r_key, order

    qidx = s_qcode if remap is None else remap[s_qcode]
    del s_qcode
    if judged_only:
        sel = rel >= 0
        rel = rel[sel]
        qidx = qidx[sel]

    num_ret = np.bincount(qidx, minlength=nq).astype(np.int64)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(num_ret, out=offsets[1:])
    rank = np.empty(len(rel), dtype=np.int32)
    for lo, hi in _blocks(len(rel)):
        rank[lo:hi] = np.arange(lo, hi) - offsets[qidx[lo:hi]]
    # codes other than NONPOOL are rare: count those, not the others
    pooled = np.nonzero(rel != NONPOOL)[0]
    num_nonpool = num_ret - np.bincount(qidx[pooled], minlength=nq)
    num_unjudged = np.bincount(qidx[pooled[rel[pooled] == UNJUDGED]], minlength=nq).astype(np.int64)
    del pooled
    rel_levels, num_rel_levels = _rel_levels(enc, remap, nq)
    num_rel, num_rel_ret, relcum = _level_counts(rel, offsets, qidx, rel_levels, relevance_level)

    return JudgedRanking(
        run_id=run_id,
        query_ids=_frozen(np.array([enc.queries[i] for i in evaluated], dtype=object)),
        offsets=_frozen(offsets),
        rel=_frozen(rel),
        qidx=_frozen(qidx),
        rank=_frozen(rank),
        num_ret=_frozen(num_ret),
        num_rel=num_rel,
        num_rel_ret=num_rel_ret,
        num_nonpool=_frozen(num_nonpool.astype(np.int64)),
        num_unjudged=_frozen(num_unjudged),
        rel_levels=_frozen(rel_levels),
        num_rel_levels=_frozen(num_rel_levels),
        placeholder=_frozen(placeholder_q[evaluated].copy()),
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
    rel_levels = np.bincount(ev_q[judged] * width + q_rel[judged], minlength=nq * width)
    rel_levels = rel_levels.reshape(nq, width).astype(np.int64)
    nz = rel_levels > 0
    num_rel_levels = np.where(nz.any(axis=1), width - np.argmax(nz[:, ::-1], axis=1), 0).astype(np.int64)
    return rel_levels, num_rel_levels


def _join(enc: EncodedQrels, s_qcode: np.ndarray, r_doc: np.ndarray, r_key, order: np.ndarray) -> np.ndarray:
    """Relevance code per ranked row (rows ``order`` of the run, with pair keys ``r_key``; query
    codes ``s_qcode`` in ranked order)."""
    rel = np.full(len(order), NONPOOL, dtype=_code_dtype(enc.rel))
    if not len(order) or not len(enc.key_sorted):
        return rel
    if not enc.collide:
        # most retrieved documents are not judged: a table of the judged keys' low bits rules out
        # nearly all of them before the binary search (a few percent of false candidates remain)
        key = r_key[order]
        cand = np.flatnonzero(enc.key_filter()[key & _FILTER_MASK])
        key = key[cand]
        hit = np.minimum(np.searchsorted(enc.key_sorted, key), len(enc.key_sorted) - 1)
        match = np.flatnonzero(enc.key_sorted[hit] == key)
        del key
        found, at = cand[match], hit[match]
        confirmed = (enc.doc_sorted[at] == r_doc[order[found]]) & (enc.qcode_sorted[at] == s_qcode[found])
        if confirmed.all():
            g = enc.rel_sorted[at]
            rel[found] = np.where(g < 0, UNJUDGED, g)
            return rel
    # two pairs share a 64-bit key (practically never): exact document codes
    doc_set, nd, key_sorted, rel_sorted = enc.exact_index()
    s_doc = r_doc[order]
    pos = np.searchsorted(doc_set, s_doc)
    cand = np.flatnonzero((pos < len(doc_set)) & (doc_set[np.minimum(pos, len(doc_set) - 1)] == s_doc))
    if len(cand):
        key = s_qcode[cand].astype(np.int64) * nd + pos[cand]
        hit = np.minimum(np.searchsorted(key_sorted, key), len(key_sorted) - 1)
        found = key_sorted[hit] == key
        g = rel_sorted[hit[found]]
        rel[cand[found]] = np.where(g < 0, UNJUDGED, g)
    return rel


def rank_order(qcode: np.ndarray, score: np.ndarray, doc: np.ndarray) -> np.ndarray:
    """Indices putting rows in (query, score desc, doc id desc bytes) order.

    ``qcode``: query code per row (queries come out in ascending code order); ``doc``: the
    document ids as bytes (numpy ``S`` or object array) for breaking score ties.
    """
    n = len(qcode)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    order = _grouped_order(qcode, score)
    if order is None:
        # sort by score (ties are settled below, so it need not be stable),
        # then by query (radix sort up to 65536 queries)
        key = qcode.astype(np.uint16) if qcode.max() < 2**16 else qcode
        order = np.argsort(-score)
        order = order[np.argsort(key[order], kind="stable")]
        del key
    # ties: neighbours with equal scores in the same query (rare, so the
    # query test runs on the equal-score pairs only)
    parts: list[np.ndarray] = []
    for lo, hi in _blocks(n - 1):
        s = score[order[lo : hi + 1]]
        parts.append(lo + np.flatnonzero(s[1:] == s[:-1]))
    eq = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    if len(eq):
        eq = eq[qcode[order[eq]] == qcode[order[eq + 1]]]
    if not len(eq):
        return order
    # rows belonging to a tie group, reordered by doc id, descending bytes
    tie = np.zeros(n, dtype=bool)
    tie[eq] = True
    in_group = np.zeros(n, dtype=bool)
    in_group[eq] = True
    in_group[eq + 1] = True
    rows = np.nonzero(in_group)[0]
    del in_group
    # group id: increments where a row does not tie with the previous one
    starts_group = np.ones(len(rows), dtype=bool)
    starts_group[1:] = ~(tie[rows[1:] - 1] & (rows[1:] == rows[:-1] + 1))
    del tie
    gid = np.cumsum(starts_group)
    # ascending ids within ascending groups, then each group reversed: descending ids
    sub = np.lexsort((doc[order[rows]], gid))
    g = gid[sub]
    reverse = np.searchsorted(g, g, side="left") + np.searchsorted(g, g, side="right") - 1 - np.arange(len(g))
    order[rows] = order[rows[sub[reverse]]]
    return order


def _grouped_order(qcode: np.ndarray, score: np.ndarray):
    """The ranking order when each query's rows are contiguous and sorted by
    score descending (the usual run file): the query blocks put in query
    order, ties not yet settled.  None for other files."""
    n = len(qcode)
    starts = np.flatnonzero(qcode[1:] != qcode[:-1]) + 1
    starts = np.concatenate([[0], starts])
    block_q = qcode[starts]
    sorted_q = np.sort(block_q)
    if (sorted_q[1:] == sorted_q[:-1]).any():
        return None  # a query in several blocks
    rise = np.flatnonzero(score[1:] > score[:-1]) + 1
    if len(rise) and not np.isin(rise, starts).all():
        return None  # scores increase inside a query
    lengths = np.diff(np.append(starts, n))
    by_query = np.argsort(block_q, kind="stable")
    if (by_query == np.arange(len(by_query))).all():
        return np.arange(n, dtype=np.int64)
    # row i of the result comes from row i - new_start + old_start
    new_starts = np.zeros(len(starts), dtype=np.int64)
    np.cumsum(lengths[by_query][:-1], out=new_starts[1:])
    order = np.repeat(starts[by_query] - new_starts, lengths[by_query])
    for lo, hi in _blocks(n):
        order[lo:hi] += np.arange(lo, hi)
    return order
