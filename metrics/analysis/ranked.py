"""The first documents of every query of many runs, in trec_eval's order, as columns: what rank overlap
compares and where the unjudged documents of a top k are found.

Each run is put in trec_eval's order by :func:`metrics.ranking.rank_order.rank_order` (score
descending, ties by document id in descending byte order), the one home of that order, and its first
``depth`` documents of each query are kept; with qrels, each kept document gets its relevance code
from the qrels' join (:mod:`metrics.ranking.qrels_index`), as the measures see it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.engine.evaluate import as_runs, labelled_runs
from metrics.io.ids import pair_keys
from metrics.io.table import query_codes
from metrics.ranking.qrels_index import (
    NONPOOL,
    EncodedQrels,
    as_columns,
    decode_ids,
    distinct,
    join_judgments,
    query_codes_of,
)
from metrics.ranking.rank_order import rank_order

__all__ = ["TopDocuments", "top_documents", "loaded_runs"]


@dataclass(frozen=True, eq=False)
class TopDocuments:
    """The first ``depth`` documents of each query of each run, one row per (run, query, rank).

    Rows come run after run (in the order given), query after query (codes index ``queries``, in
    trec_eval's byte order of their ids), best rank first.  ``rank`` is 0-based; ``rel`` is the
    relevance code of the document (its grade, :data:`~metrics.ranking.qrels_index.NONPOOL` when the
    qrels of its query do not list it, :data:`~metrics.ranking.qrels_index.UNJUDGED` when listed with a
    negative grade), or None without qrels.  ``lengths[r, q]``: documents kept of query ``q`` in run
    ``r`` (0: the run does not answer it).
    """

    runs: list[str]
    queries: list[str]
    depth: int
    run: np.ndarray
    query: np.ndarray
    rank: np.ndarray
    doc: np.ndarray
    rel: np.ndarray | None
    lengths: np.ndarray


def loaded_runs(runs) -> dict:
    """``runs`` (anything :func:`metrics.evaluate` takes) as a dict label -> run, labelled as the
    evaluation labels them and paths read into columns once: the analyses of the same runs (a
    coverage and the condensed scores beside it) read each file once."""
    return dict(labelled_runs(as_runs(runs), columns=True))


def top_documents(runs, depth: int, qrels: EncodedQrels | None = None, *, judge: bool = True) -> TopDocuments:
    """The first ``depth`` documents of each query of ``runs`` (anything :func:`metrics.evaluate`
    takes: paths, run frames, a list or a dict label -> run), each run ranked in trec_eval's order.

    With ``qrels`` (encoded), only the qrels' queries are kept (as trec_eval evaluates them) and each
    document gets its relevance code (unless ``judge`` is false: ``rel`` is then None); without, every
    query of any run is kept."""
    if depth < 1:
        raise ValueError(f"the depth must be 1 or more, not {depth}")
    labels: list[str] = []
    parts: list[tuple[np.ndarray, ...]] = []
    for label, run in labelled_runs(as_runs(runs), columns=True):
        labels.append(label)
        parts.append(_top_of_run(as_columns(run, "run"), depth, qrels, judge))
        del run
    if qrels is not None:
        keys, queries = qrels.query_keys, list(qrels.queries)
    else:
        keys = distinct(np.concatenate([p[0] for p in parts])) if parts else np.zeros(0, dtype="S1")
        queries = decode_ids(keys)
    runs_col, query_col, rank_col, doc_col, rel_col = [], [], [], [], []
    for r, (ids, qcode, rank, doc, rel) in enumerate(parts):
        code = query_codes_of(keys, ids)[qcode] if len(qcode) else qcode.astype(np.int32)
        keep = code >= 0
        runs_col.append(np.full(int(keep.sum()), r, dtype=np.int32))
        query_col.append(code[keep].astype(np.int32))
        rank_col.append(rank[keep])
        doc_col.append(doc[keep])
        if rel is not None:
            rel_col.append(rel[keep])
    nq, nr = len(queries), len(labels)
    run_a = np.concatenate(runs_col) if runs_col else np.zeros(0, dtype=np.int32)
    query = np.concatenate(query_col) if query_col else np.zeros(0, dtype=np.int32)
    lengths = np.bincount(run_a.astype(np.int64) * nq + query, minlength=nr * nq).reshape(nr, nq)
    return TopDocuments(
        runs=labels,
        queries=queries,
        depth=int(depth),
        run=run_a,
        query=query,
        rank=np.concatenate(rank_col) if rank_col else np.zeros(0, dtype=np.int32),
        doc=np.concatenate(doc_col) if doc_col else np.zeros(0, dtype="S1"),
        rel=(np.concatenate(rel_col) if rel_col else np.zeros(0, dtype=np.int8))
        if qrels is not None and judge
        else None,
        lengths=lengths,
    )


def _top_of_run(cols, depth: int, qrels: EncodedQrels | None, judge: bool):
    """(the run's distinct query ids, then per row kept: code into them, 0-based rank, document id,
    relevance code or None), rows in trec_eval's order, the first ``depth`` of each query."""
    ids, code = query_codes(cols.qid)
    score = np.asarray(cols.value, dtype=np.float64)
    order = rank_order(code, score, cols.doc)
    ranked = code[order]
    counts = np.bincount(ranked, minlength=len(ids))
    starts = np.cumsum(counts) - counts
    rank = np.arange(len(ranked), dtype=np.int64) - starts[ranked]
    keep = np.flatnonzero(rank < depth)
    rows = order[keep]
    qcode, doc = ranked[keep], cols.doc[rows]
    rel = None
    if qrels is not None and judge:
        enc_code = query_codes_of(qrels.query_keys, ids)[qcode] if len(qcode) else qcode.astype(np.int32)
        known = np.flatnonzero(enc_code >= 0)  # (the others are dropped with their queries)
        rel = np.full(len(rows), NONPOOL, dtype=np.int8)
        found = join_judgments(qrels, enc_code[known], doc[known], pair_keys(cols.qid[rows[known]], doc[known]))
        rel = rel.astype(found.dtype)
        rel[known] = found
    return ids, qcode, rank[keep].astype(np.int32), doc, rel
