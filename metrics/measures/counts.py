"""Counts and identification: runid, num_q, num_ret, num_rel, num_rel_ret,
num_nonrel_judged_ret, relstring."""

from __future__ import annotations

import numpy as np

from metrics.measures.registry import DoubleParams, count, measure, no_summary, total
from metrics.ranking.judged import NONPOOL, UNJUDGED


def _run_tag(values, r):
    """The run's tag: the tag column of its last line, as trec_eval reports it."""
    return r.run_id


@measure("runid", kind="text", per_query=False, aggregate=_run_tag)
def runid(r):
    """Run tag of the run (the tag column of its last line, as trec_eval reports it), as text; summary row only."""
    return np.full(r.n_queries, r.run_id, dtype=object)


@measure("num_q", kind="long", per_query=False, aggregate=count, ir_measures="NumQ", neutral=True)
def num_q(r):
    """Number of queries averaged over: 1 per query; the summary is the count
    of evaluated queries (of qrels queries with -c)."""
    return np.ones(r.n_queries)


@measure("num_ret", kind="long", aggregate=total, ir_measures="NumRet", neutral=True)
def num_ret(r):
    """Number of documents retrieved (after -M and -J).  Summary: sum.
    0 for a -c placeholder query."""
    return np.where(r.placeholder, 0, r.num_ret).astype(np.float64)


def _num_rel_total(values, r):
    # trec_eval -c: count of qrels lines with grade > 0 over all qrels queries,
    # whatever the relevance level.
    return float(r.num_qrels_positive) if r.complete else float(np.sum(values))


@measure("num_rel", kind="long", aggregate=_num_rel_total, ir_measures="NumRel", neutral=True)
def num_rel(r):
    """Number of judged documents with grade >= relevance level (retrieved or
    not).  Summary: sum; with -c, the number of qrels entries with grade > 0."""
    return r.num_rel.astype(np.float64)


@measure("num_rel_ret", kind="long", aggregate=total, label="Relevant retrieved", ir_measures="NumRelRet")
def num_rel_ret(r):
    """Number of retrieved documents with grade >= relevance level.  Summary: sum."""
    return r.num_rel_ret.astype(np.float64)


@measure("num_nonrel_judged_ret", kind="long", aggregate=total, neutral=True)
def num_nonrel_judged_ret(r):
    """Retrieved documents judged with grade below the relevance level
    (num_ret - not in qrels - in qrels unjudged - relevant).  Summary: sum."""
    return (r.num_ret - r.num_nonpool - r.num_unjudged - r.num_rel_ret).astype(np.float64)


@measure("relstring", kind="text", params=DoubleParams(10.0), aggregate=no_summary, summary=False)
def relstring(r, params):
    """Relevance codes of the first N (default 10) retrieved documents as a
    string: the grade for 0..9, '>' above 9, '-' not in the qrels, '.' in the
    qrels but unjudged, '<' other negative grades.  Empty for a -c placeholder
    query.  Per-query only."""
    length = int(params[0])  # C (long) cast: truncation toward zero
    chars = np.full(len(r.rel), ord("<"), dtype=np.uint8)
    rel = r.rel
    chars[rel > 9] = ord(">")
    small = (rel >= 0) & (rel <= 9)
    chars[small] = (ord("0") + rel[small]).astype(np.uint8)
    chars[rel == NONPOOL] = ord("-")
    chars[rel == UNJUDGED] = ord(".")
    buf = chars.tobytes()
    n = np.clip(np.minimum(length, r.num_ret), 0, None)
    if tuple(params) == (10.0,):
        # trec_eval clears the string of a -c placeholder query only under
        # the plain name "relstring" (not "relstring_20")
        n = np.where(r.placeholder, 0, n)
    starts = r.offsets[:-1]
    return np.array([buf[s : s + k].decode("ascii") for s, k in zip(starts.tolist(), n.tolist())], dtype=object)
