"""Generate the sample data bundled with the workbench window.

The data is made up: 60 queries, a pool of candidate documents per query with
graded judgments 0-3, and three runs of different quality that rank the pool by
``quality * grade + noise``.  A run's quality varies from query to query around
its own mean, and part of the noise is shared by all runs (they score the same
documents), so a better run wins on most queries but not on all: the per-query
differences show gains and losses.  The documents the runs and qrels name get made-up text
(``collection.tsv``, MS MARCO's layout: sentences of a small vocabulary, a relevant document holding
more of its query's words), and the queries made-up texts (``queries.tsv``); both are drawn from a
generator of their own after the qrels and runs, which stay as they were.  A fixed seed makes the
output reproducible::

    python resources/make_sample.py            # writes workbench/resources/sample/
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

SEED = 20240601
N_QUERIES = 60
POOL = 400  # candidate documents per query
P_JUDGED = (0.15, 0.9)  # chance that a non-relevant / relevant document is judged
DEPTH = 100  # documents retrieved per query and run
RUNS = {  # run tag -> (mean, spread over queries) of how strongly the score follows the grade
    "bm25_rm3": (1.35, 0.55),
    "bm25": (0.95, 0.35),
    "tfidf_title": (0.55, 0.35),
}
SHARED_NOISE = 0.6  # part of the score noise all runs share (correlated runs)

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "workbench" / "resources" / "sample"


def make(out_dir: Path, seed: int = SEED) -> None:
    rng = np.random.default_rng(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    qrels_lines: list[str] = []
    named: list[tuple[str, np.ndarray, np.ndarray, set[int]]] = []  # (qid, ids, grades, documents named)
    run_lines: dict[str, list[str]] = {tag: [] for tag in RUNS}
    for q in range(N_QUERIES):
        qid = str(401 + q)
        docs = np.array([f"DOC-{q:03d}-{d:04d}" for d in range(POOL)])
        # Latent grade of every pool document: most are not relevant.
        grade = rng.choice(4, size=POOL, p=[0.90, 0.05, 0.03, 0.02])
        # Most relevant documents and a sample of the non-relevant ones are judged.
        judged = rng.random(POOL) < np.where(grade > 0, P_JUDGED[1], P_JUDGED[0])
        for d in np.flatnonzero(judged):
            qrels_lines.append(f"{qid} 0 {docs[d]} {grade[d]}")
        used = {int(d) for d in np.flatnonzero(judged)}
        named.append((qid, docs, grade, used))
        difficulty = rng.uniform(0.5, 1.5)
        shared = rng.normal(0.0, 1.0, size=POOL)
        for tag, (mean, spread) in RUNS.items():
            quality = max(0.05, rng.normal(mean, spread))
            noise = SHARED_NOISE * shared + np.sqrt(1.0 - SHARED_NOISE**2) * rng.normal(0.0, 1.0, size=POOL)
            score = quality * grade / difficulty + noise
            order = np.argsort(-score, kind="stable")[:DEPTH]
            used.update(int(d) for d in order)
            for rank, d in enumerate(order, start=1):
                run_lines[tag].append(f"{qid} Q0 {docs[d]} {rank} {score[d]:.4f} {tag}")
    (out_dir / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")
    for tag, lines in run_lines.items():
        (out_dir / f"run_{tag}.txt").write_text("\n".join(lines) + "\n")
    _texts(out_dir, named, np.random.default_rng(seed + 1))


#: the words of the made-up documents and queries
VOCABULARY = (
    "river forest city market engine garden winter harbour signal museum library bridge village school "
    "coffee island mountain railway theatre farmer doctor window painter kitchen lantern orchard violin "
    "glacier desert compass castle meadow pottery weaver sailor tunnel comet planet copper marble silver "
    "storm festival recipe journey harvest archive circuit battery satellite volcano canyon lagoon falcon "
    "honey cedar granite pepper saffron cotton leather timber canvas ribbon mirror candle ladder anchor"
).split()
FILLER = "the a of in and with for on about from near after before during its their this that".split()


def _sentence(rng: np.random.Generator, words: list[str]) -> str:
    body = " ".join(words)
    return body[0].upper() + body[1:] + "."


def _texts(out_dir: Path, named, rng: np.random.Generator) -> None:
    """``queries.tsv`` and ``collection.tsv``: a query is three words of the vocabulary; a document one
    to three sentences, each word a filler or a vocabulary word, a relevant one with its query's words
    (more of them the higher its grade)."""
    query_lines, doc_lines = [], []
    for qid, docs, grade, used in named:
        words = [str(w) for w in rng.choice(VOCABULARY, size=3, replace=False)]
        query_lines.append(f"{qid}\t{' '.join(words)}")
        for d in sorted(used):
            picked: list[str] = []
            for _ in range(int(rng.integers(1, 4))):
                n = int(rng.integers(5, 10))
                picked.append(
                    " ".join(
                        str(rng.choice(FILLER)) if rng.random() < 0.35 else str(rng.choice(VOCABULARY))
                        for _ in range(n)
                    )
                )
            hits = int(grade[d]) + 1 if grade[d] > 0 else int(rng.random() < 0.3)
            for _ in range(hits):
                s = int(rng.integers(len(picked)))
                parts = picked[s].split()
                parts.insert(int(rng.integers(len(parts) + 1)), str(rng.choice(words)))
                picked[s] = " ".join(parts)
            doc_lines.append(f"{docs[d]}\t" + " ".join(_sentence(rng, p.split()) for p in picked))
    (out_dir / "queries.tsv").write_text("\n".join(query_lines) + "\n")
    (out_dir / "collection.tsv").write_text("\n".join(doc_lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    make(args.out, args.seed)


if __name__ == "__main__":
    main()
