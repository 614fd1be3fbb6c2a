"""Runs shaped like TREC DL 2019's, written for the window's tests: 43 queries, 100 documents a query of
400 (distinct, in rank order, scores falling with the rank), qrels of 50 graded judgments a query."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_dl19_like(folder: Path, names, seed: int, runs_folder: Path | None = None, iteration: str = "0"):
    """``folder/qrels.txt`` (``qid ITERATION docid grade``) and a run ``NAME.txt`` (tag NAME) per name, in
    ``runs_folder`` (``folder`` without one): the qrels' path and the runs' paths."""
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in rng.choice(np.arange(19335, 1_200_000), 43, replace=False)]
    qrels = folder / "qrels.txt"
    qrels.write_text(
        "".join(
            f"{q} {iteration} D{d} {rng.integers(0, 4)}\n" for q in qids for d in rng.choice(400, 50, replace=False)
        )
    )
    where = runs_folder or folder
    where.mkdir(parents=True, exist_ok=True)
    tails = [f" {r} {20.0 - r / 100:.4f} " for r in range(1, 101)]
    paths = []
    for name in names:
        docs = np.argsort(rng.random((43, 400)), axis=1)[:, :100]  # 100 distinct documents a query
        path = where / f"{name}.txt"
        with open(path, "w") as out:
            for q, row in zip(qids, docs.tolist()):
                out.write("".join(f"{q} Q0 D{d}{t}{name}\n" for d, t in zip(row, tails)))
        paths.append(path)
    return qrels, paths
