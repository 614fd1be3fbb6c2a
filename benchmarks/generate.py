"""Generate MS MARCO-sized evaluation data for the benchmarks.

Writes ``qrels.txt`` and ``run.txt`` (and ``run2.txt`` with ``--runs 2``)
into the output folder (``benchmarks/data`` by default):

* 7,000 queries x 1,000 retrieved documents = 7,000,000 run lines in the
  ``qid Q0 docid rank score tag`` format, scores with six decimals so that
  some ties occur, docids drawn from an 8.8M-passage collection;
* about 10 graded judgments (0-3) per query, about half of them retrieved.

The data are random but seeded, so every machine benchmarks the same files.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

COLLECTION = 8_841_823


def _write(path: Path, columns: dict[str, pa.Array]) -> None:
    table = pa.table(columns)
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    tmp = path.with_suffix(path.suffix + ".part")
    pacsv.write_csv(table, tmp, write_options=options)
    tmp.replace(path)


def generate(
    out: Path, queries: int = 7000, depth: int = 1000, judged: int = 10, runs: int = 1, seed: int = 42
) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    qids = np.sort(rng.choice(np.arange(1, 1_200_000), size=queries, replace=False))
    qid_text = pa.array(qids.astype(str))

    # Judgments: `judged` documents per query (on average), grades 0..3.
    per_query = rng.poisson(judged, size=queries).clip(1, 4 * judged)
    q_of_judgment = np.repeat(np.arange(queries), per_query)
    judged_docs = rng.integers(0, COLLECTION, size=q_of_judgment.size)
    grades = rng.choice(4, size=q_of_judgment.size, p=[0.45, 0.25, 0.2, 0.1])
    # one judgment per (query, doc)
    key = q_of_judgment.astype(np.int64) * COLLECTION + judged_docs
    _, first = np.unique(key, return_index=True)
    first.sort()
    q_of_judgment, judged_docs, grades = q_of_judgment[first], judged_docs[first], grades[first]
    _write(
        out / "qrels.txt",
        {
            "qid": qid_text.take(pa.array(q_of_judgment)),
            "iter": pa.array(np.zeros(q_of_judgment.size, dtype=np.int64)),
            "docid": pa.array(np.char.add("D", judged_docs.astype(str))),
            "rel": pa.array(grades),
        },
    )

    for r in range(runs):
        q_of_row = np.repeat(np.arange(queries), depth)
        docs = rng.integers(0, COLLECTION, size=q_of_row.size)
        # put about half of each query's judged documents into its ranking
        take = rng.random(q_of_judgment.size) < 0.5
        slot = q_of_judgment[take] * depth + rng.integers(0, depth, size=take.sum())
        docs[slot] = judged_docs[take]
        # duplicates within a query are not allowed in a run: re-draw them
        key = q_of_row.astype(np.int64) * COLLECTION + docs
        order = np.argsort(key, kind="stable")
        dup = np.zeros(key.size, dtype=bool)
        dup[order[1:]] = key[order[1:]] == key[order[:-1]]
        docs[dup] = COLLECTION + np.arange(dup.sum())
        scores = np.round(rng.gamma(2.0, 4.0, size=q_of_row.size), 4)
        order = np.lexsort((-scores, q_of_row))
        q_of_row, docs, scores = q_of_row[order], docs[order], scores[order]
        ranks = np.tile(np.arange(1, depth + 1), queries)
        _write(
            out / ("run.txt" if r == 0 else f"run{r + 1}.txt"),
            {
                "qid": qid_text.take(pa.array(q_of_row)),
                "q0": pa.array(np.full(q_of_row.size, "Q0")),
                "docid": pa.array(np.char.add("D", docs.astype(str))),
                "rank": pa.array(ranks),
                "score": pa.array(scores),
                "tag": pa.array(np.full(q_of_row.size, f"bench{r + 1}")),
            },
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "data")
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=10)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args(argv)
    generate(args.out, args.queries, args.depth, args.judged, args.runs, args.seed)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
