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

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

NONPOOL = -1
UNJUDGED = -2
PLACEHOLDER_DOC = "ceci_nest_pas_un_docno"

__all__ = [
    "JudgedRanking",
    "EncodedQrels",
    "encode_qrels",
    "build_ranking",
    "rank_order",
    "arrow_strings",
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


def _byte_order_sorted(values) -> list[str]:
    # Python compares str by code point, which is UTF-8 byte order (strcmp).
    return sorted(values)


def arrow_strings(col) -> pa.ChunkedArray:
    """A column of ids as an arrow string array, chunked as pandas keeps it.

    Zero-copy for arrow-backed columns: the chunks are not combined (that
    would copy every id once more); arrow's kernels work chunk by chunk.
    """
    try:
        arr = pa.array(col)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        arr = pa.array(col.astype(str))
    if not isinstance(arr, pa.ChunkedArray):
        arr = pa.chunked_array([arr])
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = pc.cast(arr, pa.string())
    return arr


def _codes(values, value_set: pa.Array) -> np.ndarray:
    """Position (int32) of each value in value_set, -1 where absent.

    One arrow call for all chunks (it hashes ``value_set`` once per call),
    then chunk by chunk into one numpy array.
    """
    idx = pc.index_in(values, value_set=value_set)
    chunks = idx.chunks if isinstance(idx, pa.ChunkedArray) else [idx]
    out = np.empty(len(values), dtype=np.int32)
    start = 0
    for chunk in chunks:
        out[start : start + len(chunk)] = chunk.fill_null(-1).to_numpy(zero_copy_only=False)
        start += len(chunk)
    return out


@dataclass(frozen=True, eq=False)
class EncodedQrels:
    """The qrels as integer codes, ready to be joined with any number of runs.

    Encoding the qrels (their distinct queries and documents, and the sorted
    (query, document) keys) is most of the work of joining a small run; an
    :class:`metrics.Evaluator` does it once for all the runs it evaluates.
    """

    qid_type: pa.DataType
    doc_type: pa.DataType
    queries: list  # qrels query ids in byte order (trec_eval's order)
    query_set: pa.Array
    num_queries: int
    doc_set: pa.Array  # distinct judged document ids
    nd: int
    qcode: np.ndarray  # per qrels line: query code
    rel: np.ndarray  # per qrels line: grade
    key_sorted: np.ndarray  # sorted query * nd + document keys
    rel_sorted: np.ndarray  # grades in that order
    num_positive: int


def encode_qrels(qrels: pd.DataFrame) -> EncodedQrels:
    """Encode a qrels frame (query_id, doc_id, relevance) for :func:`build_ranking`."""
    q_qid = arrow_strings(qrels["query_id"])
    q_doc = arrow_strings(qrels["doc_id"])
    q_rel = qrels["relevance"].to_numpy(dtype=np.int64)
    queries = _byte_order_sorted(pc.unique(q_qid).to_pylist())
    query_set = pa.array(queries, type=q_qid.type)
    q_qcode = _codes(q_qid, query_set).astype(np.int64)
    doc_set = pc.unique(q_doc)
    nd = max(len(doc_set), 1)
    q_key = q_qcode * nd + _codes(q_doc, doc_set).astype(np.int64)
    korder = np.argsort(q_key, kind="stable")
    return EncodedQrels(
        qid_type=q_qid.type,
        doc_type=q_doc.type,
        queries=queries,
        query_set=query_set,
        num_queries=len(queries),
        doc_set=doc_set if isinstance(doc_set, pa.Array) else doc_set.combine_chunks(),
        nd=nd,
        qcode=_frozen(q_qcode),
        rel=_frozen(q_rel),
        key_sorted=_frozen(q_key[korder]),
        rel_sorted=_frozen(q_rel[korder]),
        num_positive=int(np.count_nonzero(q_rel > 0)),
    )


def build_ranking(
    qrels: pd.DataFrame | EncodedQrels,
    run: pd.DataFrame,
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

    ``qrels``: columns query_id, doc_id, relevance (one line per (query, doc)),
    or the same already encoded (:func:`encode_qrels`);
    ``run``: columns query_id, doc_id, score (one line per (query, doc)).
    Duplicate lines are the readers' business and are not checked here.
    ``max_docs`` (trec_eval ``-M``) keeps the first ``max_docs`` ranks of each
    query, after the sort.  ``judged_only`` (``-J``) then drops retrieved
    documents that are not judged (codes < 0), closing up the ranks.
    Messages about skipped queries are appended to ``warnings``.
    ``num_docs_in_coll`` (``-N``) is recorded for ``utility``.

    The result holds no reference to ``run``: once the caller drops the run
    frame its memory is free.
    """
    if run_id is None:
        run_id = str(run.attrs.get("name", "")) if hasattr(run, "attrs") else ""
    relevance_level = int(relevance_level)

    # ---------------------------------------------------------------- qrels
    enc = qrels if isinstance(qrels, EncodedQrels) else encode_qrels(qrels)
    qrels_queries, query_set, nq_all = enc.queries, enc.query_set, enc.num_queries
    doc_set, nd, q_qcode, q_rel = enc.doc_set, enc.nd, enc.qcode, enc.rel
    q_key_sorted, q_rel_sorted, num_qrels_positive = enc.key_sorted, enc.rel_sorted, enc.num_positive

    # ------------------------------------------------------------------ run
    # query and document codes (int32: 7M-line runs are common), no copies
    # of the id strings
    r_qcode = _codes(pc.cast(arrow_strings(run["query_id"]), enc.qid_type), query_set)
    r_doc = pc.cast(arrow_strings(run["doc_id"]), enc.doc_type)
    r_score = run["score"].to_numpy(dtype=np.float64)
    keep = r_qcode >= 0
    if not keep.all():
        r_qcode = r_qcode[keep]
        r_doc = r_doc.filter(pa.array(keep))
        r_score = r_score[keep]
    del keep

    present = np.zeros(nq_all, dtype=bool)
    present[r_qcode] = True
    missing = np.nonzero(~present)[0]
    placeholder_q = np.zeros(nq_all, dtype=bool)
    if len(missing):
        if complete:
            placeholder_q[missing] = True
            r_qcode = np.concatenate([r_qcode, missing.astype(np.int32)])
            r_doc = pa.chunked_array(
                r_doc.chunks + [pa.array([PLACEHOLDER_DOC] * len(missing), type=r_doc.type)], type=r_doc.type
            )
            r_score = np.concatenate([r_score, np.ones(len(missing))])
        elif warnings is not None:
            names = [qrels_queries[i] for i in missing]
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
    # only documents that occur somewhere in the qrels need a lookup
    s_dcode = _codes(r_doc, doc_set)[order]
    del r_doc, order
    rel = np.full(len(s_dcode), NONPOOL, dtype=_code_dtype(q_rel))
    cand = np.nonzero(s_dcode >= 0)[0]
    if len(cand) and len(q_key_sorted):
        key = s_qcode[cand].astype(np.int64) * nd + s_dcode[cand]
        hit = np.minimum(np.searchsorted(q_key_sorted, key), len(q_key_sorted) - 1)
        found = q_key_sorted[hit] == key
        g = q_rel_sorted[hit[found]]
        rel[cand[found]] = np.where(g < 0, UNJUDGED, g)
    del s_dcode, cand

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

    # ------------------------------------------------------------ rel levels
    ev_q = q_qcode if remap is None else remap[q_qcode]
    judged = (q_rel >= 0) & (ev_q >= 0)
    max_grade = int(q_rel[judged].max()) if judged.any() else -1
    width = max_grade + 1
    if width > 0:
        rel_levels = np.bincount(ev_q[judged] * width + q_rel[judged], minlength=nq * width)
        rel_levels = rel_levels.reshape(nq, width).astype(np.int64)
        nz = rel_levels > 0
        num_rel_levels = np.where(nz.any(axis=1), width - np.argmax(nz[:, ::-1], axis=1), 0).astype(np.int64)
    else:
        rel_levels = np.zeros((nq, 0), dtype=np.int64)
        num_rel_levels = np.zeros(nq, dtype=np.int64)
    num_rel, num_rel_ret, relcum = _level_counts(rel, offsets, qidx, rel_levels, relevance_level)

    return JudgedRanking(
        run_id=run_id,
        query_ids=_frozen(np.array([qrels_queries[i] for i in evaluated], dtype=object)),
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
        num_qrels_positive=num_qrels_positive,
        num_docs_in_coll=int(num_docs_in_coll),
    )


def rank_order(qcode: np.ndarray, score: np.ndarray, doc) -> np.ndarray:
    """Indices putting rows in (query, score desc, doc id desc bytes) order.

    ``qcode``: query code per row (queries come out in ascending code
    order); ``doc``: the doc ids (arrow array or chunked array) for breaking
    score ties.
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
    docs = _take(doc, order[rows])
    table = pa.table({"g": pa.array(gid), "d": docs})
    sub = pc.sort_indices(table, sort_keys=[("g", "ascending"), ("d", "descending")]).to_numpy()
    order[rows] = order[rows[sub]]
    return order


def _take(arr, indices: np.ndarray):
    """``arr.take(indices)``; a chunked array is taken from chunk by chunk
    (arrow's own take first concatenates all chunks of a string column)."""
    if not isinstance(arr, pa.ChunkedArray) or arr.num_chunks <= 1:
        return arr.take(pa.array(indices))
    bounds = np.cumsum([len(c) for c in arr.chunks])
    which = np.searchsorted(bounds, indices, side="right")
    by_chunk = np.argsort(which, kind="stable")
    parts = []
    for k in np.unique(which):  # one step per chunk holding some of the rows
        local = indices[which == k] - (bounds[k - 1] if k else 0)
        parts.append(arr.chunk(int(k)).take(pa.array(local)))
    grouped = pa.concat_arrays(parts) if parts else pa.array([], type=arr.type)
    # grouped holds the rows in by_chunk order; put them back
    inverse = np.empty(len(indices), dtype=np.int64)
    inverse[by_chunk] = np.arange(len(indices))
    return grouped.take(pa.array(inverse))


def _grouped_order(qcode: np.ndarray, score: np.ndarray):
    """The ranking order when each query's rows are contiguous and sorted by
    score descending (the usual run file): the query blocks put in query
    order, ties not yet settled.  None for other files."""
    n = len(qcode)
    starts = np.flatnonzero(qcode[1:] != qcode[:-1]) + 1
    starts = np.concatenate([[0], starts])
    block_q = qcode[starts]
    if len(np.unique(block_q)) != len(block_q):
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
