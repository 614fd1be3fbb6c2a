"""The qrels encoded once for every run they are joined with: distinct queries in trec_eval's order,
64-bit (query, document) keys sorted for a binary search, and the join of a ranked run with them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from metrics.io.columns import columns_from_frame
from metrics.io.ids import stretch_heads
from metrics.io.table import Columns, grade_dtype

#: relevance codes of a retrieved document: not in the qrels of its query / listed with a negative grade
NONPOOL = -1
UNJUDGED = -2


def frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


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


# the key filter's table: one bit for each value of the keys' 22 high bits (512 KiB)
_FILTER_BITS = 22
_FILTER_SHIFT = np.uint64(64 - _FILTER_BITS)
# the buckets searched for a key: those of the keys' 17 high bits (512 KiB of int32 starts)
_BUCKET_BITS = 17
_BUCKET_SHIFT = np.uint64(64 - _BUCKET_BITS)
#: keys filtered (and run rows joined) at a time: bounds the temporaries
_JOIN_BLOCK = 1 << 16


def query_codes_of(query_keys: np.ndarray, qid: np.ndarray) -> np.ndarray:
    """Position (int32) of each row's query id in the sorted ``query_keys``, -1 where absent.

    Runs and qrels list a query's lines together, so the ids are looked up once per block of equal
    ids, not once per row.
    """
    n = len(qid)
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    heads = stretch_heads(qid)
    ids, inverse = np.unique(qid[heads], return_inverse=True)
    codes = np.full(len(ids), -1, dtype=np.int32)
    if len(query_keys):
        pos = np.searchsorted(query_keys, ids)
        at = np.minimum(pos, len(query_keys) - 1)
        found = (pos < len(query_keys)) & (query_keys[at] == ids)
        codes[found] = pos[found]
    return np.repeat(codes[inverse.ravel()], np.diff(np.append(heads, n)))


def decode_ids(ids: np.ndarray) -> list[str]:
    """Ids as text: UTF-8, any other byte kept as a lone surrogate (``surrogateescape``), so that the text
    written back with that error handler gives the file's bytes, as trec_eval prints them."""
    return [x.decode("utf-8", "surrogateescape") for x in ids.tolist()]  # one per distinct query


def as_columns(data, kind: str) -> Columns:
    return data if isinstance(data, Columns) else columns_from_frame(data, kind)


@dataclass(frozen=True, eq=False)
class EncodedQrels:
    """The qrels as integer codes and join keys, ready to be joined with any number of runs.

    Encoding the qrels (their distinct queries in trec_eval's order and the sorted (query,
    document) keys) is most of the work of joining a small run; an :class:`metrics.Evaluator`
    does it once for all the runs it evaluates.  Keys are 64-bit hashes of the pairs, every match
    confirmed on the ids; should two pairs ever share a key, the join switches to exact document
    codes (:meth:`exact_index`).

    The lines are kept in the order of their keys only (one copy of each column): ``qcode`` and
    ``rel`` are the query code and grade of each line in that order (``qcode_sorted`` and
    ``rel_sorted`` name the same arrays); grades take the smallest integer type that holds them.
    """

    queries: list  # qrels query ids in byte order (trec_eval's order), as text
    query_keys: np.ndarray  # the same, as bytes (numpy S or object)
    num_queries: int
    qcode: np.ndarray  # per qrels line, in key order: query code (int32)
    rel: np.ndarray  # per qrels line, in key order: grade
    key_sorted: np.ndarray  # sorted pair keys
    doc_sorted: np.ndarray  # document ids in key order
    num_positive: int
    collide: bool  # two lines share a key: join on exact codes
    _exact: dict = field(default_factory=dict, repr=False)  # made on first use

    @property
    def rel_sorted(self) -> np.ndarray:
        return self.rel

    @property
    def qcode_sorted(self) -> np.ndarray:
        return self.qcode

    def key_filter(self) -> np.ndarray:
        """Bit table (uint8, :data:`_FILTER_BITS` bits): the bit of the high bits of every judged
        pair key set (:func:`_maybe_judged` reads it)."""
        if "filter" not in self._exact:
            # a range of slots at a time: a boolean mark per slot, packed into bits
            span, keys = 1 << 19, self.key_sorted
            table = np.zeros(1 << (_FILTER_BITS - 3), dtype=np.uint8)
            mark = np.zeros(span, dtype=bool)
            ends = np.searchsorted(keys, np.arange(span, 1 << _FILTER_BITS, span, dtype=np.uint64) << _FILTER_SHIFT)
            for k, (lo, hi) in enumerate(zip([0, *ends.tolist()], [*ends.tolist(), len(keys)])):
                mark[:] = False
                mark[(keys[lo:hi] >> _FILTER_SHIFT).astype(np.intp) - k * span] = True
                table[k * span >> 3 : (k + 1) * span >> 3] = np.packbits(mark, bitorder="little")
            self._exact["filter"] = table
        return self._exact["filter"]

    def key_buckets(self) -> np.ndarray:
        """Where the keys of each value of their :data:`_BUCKET_BITS` high bits start in
        ``key_sorted`` (int32, one more entry for the end): :func:`_find` searches a bucket, not
        all the keys."""
        if "buckets" not in self._exact:
            starts = np.zeros((1 << _BUCKET_BITS) + 1, dtype=np.int32)
            for lo in range(0, len(self.key_sorted), _JOIN_BLOCK):
                slot = (self.key_sorted[lo : lo + _JOIN_BLOCK] >> _BUCKET_SHIFT).astype(np.intp)
                starts[1:] += np.bincount(slot, minlength=1 << _BUCKET_BITS).astype(np.int32)
            np.cumsum(starts, out=starts)
            self._exact["buckets"] = starts
        return self._exact["buckets"]

    def exact_index(self):
        """(sorted distinct document ids, their number, sorted exact keys, grades in that order),
        made on first use: the join used when hashes collide."""
        if "doc_set" not in self._exact:
            doc_set, dcode = np.unique(self.doc_sorted, return_inverse=True)
            nd = max(len(doc_set), 1)
            key = self.qcode.astype(np.int64) * nd + dcode.ravel()
            order = np.argsort(key, kind="stable")
            self._exact.update(doc_set=doc_set, nd=nd, key=key[order], rel=self.rel[order])
        e = self._exact
        return e["doc_set"], e["nd"], e["key"], e["rel"]


def _maybe_judged(table: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Positions of the ``keys`` whose bit is set in the :meth:`EncodedQrels.key_filter` table."""
    slot = keys >> _FILTER_SHIFT
    bits = table[slot >> np.uint64(3)]
    bits >>= (slot & np.uint64(7)).astype(np.uint8)
    bits &= np.uint8(1)
    return np.flatnonzero(bits)


def _find(enc: EncodedQrels, keys: np.ndarray) -> np.ndarray:
    """``np.searchsorted(enc.key_sorted, keys)``, searching the keys' bucket (a few keys, near one
    another) rather than all the keys: one pass per key of the largest bucket, over the keys still
    short of their place."""
    starts, key_sorted = enc.key_buckets(), enc.key_sorted
    slot = (keys >> _BUCKET_SHIFT).astype(np.intp)
    pos = starts[slot]
    end = starts[slot + 1]
    del slot
    active = np.flatnonzero(pos < end)
    while len(active):
        active = active[key_sorted[pos[active]] < keys[active]]
        pos[active] += 1
        active = active[pos[active] < end[active]]
    return pos


def encode_qrels(qrels, *, consume: bool = False) -> EncodedQrels:
    """Encode qrels (:class:`~metrics.io.columns.Columns` or a frame with query_id, doc_id,
    relevance) for :func:`build_ranking`; encoded qrels are returned as they are.

    The result holds no reference to the columns: once the caller drops them their memory is free.
    ``consume``: the columns are not used again (the reader's, read for this), and their arrays
    are let go one after the other as the encoding no longer needs them."""
    if isinstance(qrels, EncodedQrels):
        return qrels
    cols = as_columns(qrels, "qrels")
    del qrels

    def take(name: str) -> np.ndarray:
        value = getattr(cols, name)
        if consume:
            setattr(cols, name, None)
        return value

    n = len(cols)
    # the keys sorted, and their order: kept from the reader's duplicate check of a qrels file
    # (ties among equal keys, should there be any, are settled by the exact join, whatever their order);
    # made here, before the ids are let go, for qrels that come another way
    order, key = take("key_order"), take("sorted_keys")
    if order is None:
        key = cols.pair_keys()
        order = np.argsort(key)
        key = key[order]
    take("keys")
    qid = take("qid")
    if n:
        heads = stretch_heads(qid)
        query_keys = distinct(qid[heads])
    else:
        query_keys = qid[:0]
    qcode = query_codes_of(query_keys, qid)
    del qid
    qcode = qcode[order]
    value = take("value")
    rel = value[order].astype(grade_dtype(value), copy=False)
    del value
    doc = take("doc")[order]
    del order
    return EncodedQrels(
        queries=decode_ids(query_keys),
        query_keys=frozen(query_keys),
        num_queries=len(query_keys),
        qcode=frozen(qcode),
        rel=frozen(rel),
        key_sorted=frozen(key),
        doc_sorted=frozen(doc),
        num_positive=int(np.count_nonzero(rel > 0)),
        collide=bool(n > 1 and (key[1:] == key[:-1]).any()),
    )


def join_judgments(enc: EncodedQrels, r_qcode: np.ndarray, r_doc: np.ndarray, r_key: np.ndarray) -> np.ndarray:
    """Relevance code per run row (query codes ``r_qcode``, document ids ``r_doc``, pair keys
    ``r_key``), in the rows' order."""
    n = len(r_key)
    rel = np.full(n, NONPOOL, dtype=_code_dtype(enc.rel))
    if not n or not len(enc.key_sorted):
        return rel
    if not enc.collide:
        # most retrieved documents are not judged: a table of the judged keys' high bits rules out
        # nearly all of them before the binary search (a few percent of false candidates remain)
        table, last = enc.key_filter(), len(enc.key_sorted) - 1
        for lo in range(0, n, _JOIN_BLOCK):
            key = r_key[lo : lo + _JOIN_BLOCK]
            cand = _maybe_judged(table, key)
            key = key[cand]
            hit = np.minimum(_find(enc, key), last)
            match = np.flatnonzero(enc.key_sorted[hit] == key)
            found, at = cand[match] + lo, hit[match]
            if not ((enc.doc_sorted[at] == r_doc[found]) & (enc.qcode[at] == r_qcode[found])).all():
                break  # a run's pair shares its key with another pair of the qrels
            g = enc.rel[at]
            rel[found] = np.where(g < 0, UNJUDGED, g)
        else:
            return rel
        rel[:] = NONPOOL
    # two pairs share a 64-bit key (practically never): exact document codes
    doc_set, nd, key_sorted, rel_sorted = enc.exact_index()
    pos = np.searchsorted(doc_set, r_doc)
    cand = np.flatnonzero((pos < len(doc_set)) & (doc_set[np.minimum(pos, len(doc_set) - 1)] == r_doc))
    if len(cand):
        key = r_qcode[cand].astype(np.int64) * nd + pos[cand]
        hit = np.minimum(np.searchsorted(key_sorted, key), len(key_sorted) - 1)
        found = key_sorted[hit] == key
        g = rel_sorted[hit[found]]
        rel[cand[found]] = np.where(g < 0, UNJUDGED, g)
    return rel
