"""The document store on an MS MARCO-sized collection: how long indexing takes, how much memory it holds,
and how fast 1,000 random lookups are.

Generates ``--passages`` passages (8.8M by default, MS MARCO's count; about 60 words each, 3.1 GB at that
count) as ``docid<TAB>text`` into a temporary folder, indexes them with :func:`metrics.documents` (its
cache in the same folder), then looks up 1,000 random ids five times::

    python benchmarks/documents.py --passages 500000

Peak RSS is the process's (``resource.getrusage``), the generation included (it holds one block of
lines at a time).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which but have an "
    "they you were her she there been one all we their has would when if so no what up can more out about "
    "river forest market engine garden winter harbour signal museum library bridge village school coffee"
).split()


def generate(path: Path, passages: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        block = []
        for i in range(passages):
            block.append(f"{i}\t{' '.join(rng.choices(WORDS, k=rng.randint(40, 80)))}\n")
            if len(block) == 10_000:
                out.write("".join(block))
                block.clear()
        out.write("".join(block))


def peak_rss_mib() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=8_800_000)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="ir-documents-"))
    os.environ["IR_WORKBENCH_CACHE"] = str(folder / "cache")
    import metrics

    try:
        collection = folder / "collection.tsv"
        start = time.perf_counter()
        generate(collection, args.passages)
        size = collection.stat().st_size
        print(f"generated {args.passages:,} passages ({size / 2**20:,.0f} MiB) in {time.perf_counter() - start:.1f} s")
        print(f"peak RSS after generating: {peak_rss_mib():,.0f} MiB")
        start = time.perf_counter()
        store = metrics.documents(collection)
        took = time.perf_counter() - start
        index = store.index.stat().st_size
        print(f"indexed in {took:.1f} s ({args.passages / took:,.0f} passages/s), index {index / 2**20:,.0f} MiB")
        print(f"peak RSS after indexing: {peak_rss_mib():,.0f} MiB")
        start = time.perf_counter()
        again = metrics.documents(collection)
        print(f"found again in {(time.perf_counter() - start) * 1000:.1f} ms (indexed again: {again.built})")
        rng = random.Random(2)
        times = []
        for _ in range(5):
            ids = [str(rng.randrange(args.passages)) for _ in range(1000)]
            start = time.perf_counter()
            found = store.get(ids)
            times.append(time.perf_counter() - start)
            assert len(found) == len(set(ids))
        print(f"1,000 random lookups: best {min(times) * 1000:.1f} ms, worst {max(times) * 1000:.1f} ms (5 rounds)")
        start = time.perf_counter()
        for docid in ids[:100]:
            store.snippet(docid, "river market engine")
        print(f"100 snippets: {(time.perf_counter() - start) * 1000:.1f} ms")
        store.close()
        again.close()
    finally:
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
