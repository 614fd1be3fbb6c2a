"""Writing runs and qrels as TREC text, so that a run made or fused in Python opens in the window.

``write_run(run, path)`` writes ``qid Q0 docid rank score tag`` lines, each
query's documents in trec_eval's order (score descending, ties by docid
descending) with ranks from 1; ``write_qrels(qrels, path)`` writes ``qid 0
docid grade``.  Both take any form :mod:`metrics.io.inputs` reads, gzip the output
when the name ends in ``.gz``, and write atomically (:mod:`metrics.io.fileio`).
Scores are written with ``repr`` so that they read back exactly.
"""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd

from metrics.io import fileio
from metrics.io.readers import read_qrels, read_run


def _bytes(text: str, path) -> bytes:
    data = text.encode("utf-8", "surrogateescape")  # (ids read as bytes that are not UTF-8: those bytes)
    return gzip.compress(data, mtime=0) if str(path).lower().endswith(".gz") else data


def run_text(run, *, tag: str | None = None) -> str:
    """``run`` (a run frame or any form of :mod:`metrics.io.inputs`) as the text of a TREC run file."""
    frame = read_run(run) if not isinstance(run, pd.DataFrame) or "query_id" not in run else run
    tag = tag or str(frame.attrs.get("name") or "run")
    if any(c.isspace() for c in tag):
        raise ValueError(f"a run tag cannot hold white space: {tag!r}")
    ordered = frame.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
    rank = ordered.groupby("query_id", sort=False).cumcount().to_numpy() + 1
    scores = [repr(float(s)) for s in ordered["score"].to_numpy(dtype=np.float64)]
    lines = [f"{q} Q0 {d} {r} {s} {tag}\n" for q, d, r, s in zip(ordered["query_id"], ordered["doc_id"], rank, scores)]
    return "".join(lines)


def write_run(run, path, *, tag: str | None = None, overwrite: bool = False):
    """Write ``run`` (a run frame or any form of :mod:`metrics.io.inputs`) as a TREC run file."""
    return fileio.write_bytes(path, _bytes(run_text(run, tag=tag), path), overwrite=overwrite)


def write_qrels(qrels, path, *, overwrite: bool = False):
    """Write ``qrels`` (a qrels frame or any form of :mod:`metrics.io.inputs`) as a TREC qrels file."""
    frame = read_qrels(qrels)
    lines = [f"{q} 0 {d} {int(g)}\n" for q, d, g in zip(frame["query_id"], frame["doc_id"], frame["relevance"])]
    return fileio.write_bytes(path, _bytes("".join(lines), path), overwrite=overwrite)
