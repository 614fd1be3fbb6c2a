"""Generated collections for tests/test_metrics/judgments/: graded qrels with negative grades, a second qrels
that regrades, drops and adds pairs, and runs with tied scores, unjudged documents and missing
queries, written as TREC files where a reference reads files."""

from __future__ import annotations

import numpy as np
import pandas as pd


def make_qrels(rng, queries: int = 24, judged: int = 40, universe: int = 200) -> pd.DataFrame:
    rows = []
    for q in range(queries):
        docs = rng.choice(universe, size=judged, replace=False)
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=judged)
        grades[rng.random(judged) < 0.05] = -1  # "in the pool, not judged"
        rows += [(f"q{q:02d}", f"d{d:03d}", int(g)) for d, g in zip(docs, grades)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def regrade(rng, qrels: pd.DataFrame, universe: int = 200) -> pd.DataFrame:
    """A second assessor: about a fifth of the grades changed by one, some pairs dropped, some added."""
    other = qrels.copy()
    change = rng.random(len(other)) < 0.2
    step = rng.choice([-1, 1], size=len(other))
    other.loc[change, "relevance"] = np.clip(other.loc[change, "relevance"] + step[change], 0, 3)
    other = other[rng.random(len(other)) > 0.08]
    extra = [
        (q, f"d{universe + i:03d}", int(rng.integers(0, 4))) for i, q in enumerate(qrels["query_id"].unique()[::3])
    ]
    return pd.concat([other, pd.DataFrame(extra, columns=other.columns)], ignore_index=True)


def make_run(rng, name: str, queries, depth=(30, 120), universe: int = 200, skip=()) -> pd.DataFrame:
    rows = []
    for q in queries:
        if q in skip:
            continue
        n = int(rng.integers(*depth))
        docs = rng.choice(universe + 40, size=n, replace=False)
        scores = np.round(rng.random(n) * 10, 1)  # one decimal: ties
        rows += [(q, f"d{d:03d}", float(s)) for d, s in zip(docs, scores)]
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    run.attrs["name"] = name
    return run


def write_run(path, run: pd.DataFrame, tag: str = "run") -> str:
    """``run`` as a TREC file, each query's lines by score, highest first (ties in the frame's order)."""
    with open(path, "w") as out:
        for qid, part in run.groupby("query_id", sort=True):
            part = part.sort_values("score", ascending=False, kind="stable")
            for rank, (doc, score) in enumerate(zip(part["doc_id"], part["score"]), 1):
                out.write(f"{qid} Q0 {doc} {rank} {score} {tag}\n")
    return str(path)


def write_qrels(path, qrels: pd.DataFrame) -> str:
    with open(path, "w") as out:
        for q, d, g in qrels.itertuples(index=False):
            out.write(f"{q} 0 {d} {g}\n")
    return str(path)


def collection_of(seed: int = 48):
    rng = np.random.default_rng(seed)
    qrels = make_qrels(rng)
    queries = sorted(qrels["query_id"].unique())
    runs = {
        f"team{t}_{v}": make_run(rng, f"team{t}_{v}", queries[:-1], skip=queries[t : t + 2] if v == "b" else ())
        for t in range(3)
        for v in ("a", "b")
    }
    return qrels, regrade(rng, qrels), runs
