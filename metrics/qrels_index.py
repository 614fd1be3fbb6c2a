"""The qrels encoded once for every run they are joined with: distinct queries in trec_eval's order,
64-bit (query, document) keys sorted for a binary search, and the join of a ranked run with them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .columns import Columns, columns_from_frame

#: relevance codes of a retrieved document: not in the qrels of its query / listed with a negative grade
NONPOOL = -1
UNJUDGED = -2


def _frozen(a: np.ndarray) -> np.ndarray:
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
