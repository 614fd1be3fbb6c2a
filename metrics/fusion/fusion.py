"""Fusion of runs, all queries and documents at once (numpy segment operations, no loop per query).

Each run is first normalised per query (``norm``), then the runs' scores for each (query, document)
are combined (``method``).  The rules are ranx's (``ranx.fuse``), which the tests compare with:

Normalisations (per run and query, over the documents the run retrieved for it):

* ``min-max``: ``(s - min) / max(max - min, 1e-9)``;
* ``sum``: ``(s - min) / max(sum - n * min, 1e-9)``;
* ``zmuv`` (z-score): ``(s - mean) / max(std, 1e-9)``, the population standard deviation;
* ``max``: ``s / max(max, 1e-9)``;
* ``rank``: ``1 - i / n``, ``i`` the 0-based rank of the document, ``n`` the documents retrieved;
* ``none``: the scores as they are.

Methods (a document a run did not retrieve for the query contributes nothing):

* ``combsum``: the sum of the normalised scores; ``combmnz``: that sum times the number of runs that
  retrieved the document; ``combanz``: the sum divided by that number (their mean);
* ``combmax``, ``combmin``: the largest and smallest of the scores of the runs that retrieved it;
* ``wsum``: ``sum(w_i * s_i)`` with one weight per run (``weights``);
* ``rrf``: reciprocal rank fusion, ``sum(1 / (k + rank_i))`` over the runs that retrieved the
  document, ``rank_i`` from 1 (``k`` defaults to 60); the normalisation does not change ranks and
  is ignored.

Ranks (``rank``, ``rrf``) follow trec_eval's order: score descending, ties by document id in
descending byte order.  ranx breaks ties by its sort's internal order, so on runs with tied scores
the two agree exactly only on the methods that read scores.

A query that a run does not retrieve for counts as an empty ranking for that run (ranx asks every run
to hold the same queries).  The fused run holds every query and document of any of the runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["METHODS", "NORMS", "canonical_method", "canonical_norm", "fuse"]

#: a denominator's floor (ranx's), so that a query whose scores are all equal normalises to 0
EPS = 1e-9


@dataclass(frozen=True)
class _Name:
    """A fusion method's name, what it does in words, and the other spellings it is known by."""

    code: str
    description: str
    aliases: tuple[str, ...] = ()


METHODS = (
    _Name("combsum", "CombSUM: the sum of the scores", ("sum", "comb_sum")),
    _Name("combmnz", "CombMNZ: the sum times the number of runs retrieving the document", ("mnz", "comb_mnz")),
    _Name("combmax", "CombMAX: the largest score", ("max", "comb_max")),
    _Name("combmin", "CombMIN: the smallest score", ("min", "comb_min")),
    _Name("combanz", "CombANZ: the mean score over the runs retrieving the document", ("anz", "comb_anz")),
    _Name("rrf", "reciprocal rank fusion: the sum of 1 / (k + rank)", ("reciprocal-rank",)),
    _Name("wsum", "weighted sum: the sum of weight * score", ("weighted", "weighted-sum", "weighted_sum")),
)
NORMS = (
    _Name("min-max", "(s - min) / (max - min)", ("minmax", "min_max")),
    _Name("sum", "(s - min) / (sum - n min)"),
    _Name("zmuv", "z-score: (s - mean) / std", ("z-score", "zscore", "z")),
    _Name("max", "s / max"),
    _Name("rank", "1 - (rank - 1) / n", ()),
    _Name("none", "the scores as they are", ("",)),
)


def _canonical(value, names: tuple[_Name, ...], what: str) -> str:
    key = "none" if value is None else str(value).strip().lower()
    for n in names:
        if key == n.code or key in n.aliases:
            return n.code
    raise ValueError(f"unknown fusion {what} {value!r}; expected one of {', '.join(n.code for n in names)}")


def canonical_method(value) -> str:
    """The code of the fusion method named ``value`` (``"comb_sum"`` -> ``"combsum"``); ValueError if none."""
    return _canonical(value, METHODS, "method")


def canonical_norm(value) -> str:
    """The code of the normalisation named ``value`` (``"z-score"`` -> ``"zmuv"``, None -> ``"none"``)."""
    return _canonical(value, NORMS, "normalisation")


@dataclass
class _Rows:
    """Every run's rows together, put in (run, query, trec_eval) order."""

    run: np.ndarray  # run index per row
    qcode: np.ndarray  # code of the query id (ids in sorted order)
    dcode: np.ndarray  # code of the document id (ids in sorted order)
    score: np.ndarray
    queries: np.ndarray  # query id per code
    docs: np.ndarray  # document id per code
    starts: np.ndarray  # first row of each (run, query) group
    group: np.ndarray  # group index per row


def _rows(frames: list[pd.DataFrame]) -> _Rows:
    import pandas as pd

    sizes = np.array([len(f) for f in frames], dtype=np.int64)
    run = np.repeat(np.arange(len(frames), dtype=np.int64), sizes)
    # sorted codes: code order is the ids' order (code points, which for UTF-8 is byte order)
    qcode, queries = pd.factorize(pd.concat([f["query_id"] for f in frames], ignore_index=True), sort=True)
    dcode, docs = pd.factorize(pd.concat([f["doc_id"] for f in frames], ignore_index=True), sort=True)
    score = np.concatenate([f["score"].to_numpy(dtype=np.float64) for f in frames])
    order = np.lexsort((-dcode, -score, qcode, run))  # trec_eval's order within each run and query
    run, qcode, dcode, score = run[order], qcode[order], dcode[order], score[order]
    n = len(run)
    new = np.ones(n, dtype=bool)
    new[1:] = (run[1:] != run[:-1]) | (qcode[1:] != qcode[:-1])
    starts = np.flatnonzero(new)
    group = np.cumsum(new) - 1
    return _Rows(
        run, qcode.astype(np.int64), dcode.astype(np.int64), score, np.asarray(queries), np.asarray(docs), starts, group
    )


def _normalised(rows: _Rows, norm: str) -> np.ndarray:
    s, starts, group = rows.score, rows.starts, rows.group
    if norm == "none" or len(s) == 0:
        return s
    counts = np.diff(np.append(starts, len(s)))
    if norm == "rank":
        rank0 = np.arange(len(s)) - starts[group]
        return 1.0 - rank0 / counts[group]
    low = np.minimum.reduceat(s, starts)
    if norm == "min-max":
        high = np.maximum.reduceat(s, starts)
        return (s - low[group]) / np.maximum(high - low, EPS)[group]
    if norm == "max":
        return s / np.maximum(np.maximum.reduceat(s, starts), EPS)[group]
    total = np.add.reduceat(s, starts)
    if norm == "sum":
        return (s - low[group]) / np.maximum(total - low * counts, EPS)[group]
    mean = (total / counts)[group]
    std = np.sqrt(np.add.reduceat((s - mean) ** 2, starts) / counts)
    return (s - mean) / np.maximum(std, EPS)[group]  # zmuv


def _as_frames(runs) -> list[pd.DataFrame]:
    from metrics.io.readers import read_run

    if isinstance(runs, Mapping):
        from metrics.io.inputs import is_single_run

        if is_single_run(runs):
            raise ValueError("fuse needs several runs: a list of runs, or {label: run}")
        return [read_run(run, str(label)) for label, run in runs.items()]
    if isinstance(runs, (str, bytes)) or not isinstance(runs, Sequence):
        raise TypeError(f"fuse needs a list of runs (frames, paths, dicts), not a {type(runs).__name__}")
    return [read_run(run) for run in runs]


def fuse(
    runs,
    method: str = "combsum",
    *,
    norm: str | None = "min-max",
    weights: Sequence[float] | None = None,
    k: float = 60,
    name: str | None = None,
) -> pd.DataFrame:
    """Fuse ``runs`` into one run frame (``query_id``, ``doc_id``, ``score``; ``attrs["name"]``).

    ``runs``: a list of runs in any form :func:`metrics.read_run` takes (frames, paths, ``{qid: {docid:
    score}}``, ranx's ``Run``), or ``{label: run}``; at least two.  ``method``: ``combsum``,
    ``combmnz``, ``combmax``, ``combmin``, ``combanz``, ``rrf`` or ``wsum`` (ranx's names ``sum``,
    ``mnz``, ... too); ``norm``: ``min-max`` (the default, as ranx's), ``sum``, ``zmuv`` (z-score),
    ``max``, ``rank`` or ``none``; ``weights``: one per run, for ``wsum`` only; ``k``: RRF's constant.
    The rules are in the module docstring.  The rows come out by query id, then in trec_eval's order.
    """
    from metrics.io.frames import frame_of

    method, norm = canonical_method(method), canonical_norm(norm)
    frames = _as_frames(runs)
    if len(frames) < 2:
        raise ValueError(f"fuse needs at least two runs, not {len(frames)}")
    if method == "wsum":
        if weights is None or len(weights) != len(frames):
            given = "none" if weights is None else len(weights)
            raise ValueError(f"wsum needs one weight per run: {len(frames)} runs, {given} weights")
        w = np.asarray(weights, dtype=np.float64)
        if not np.isfinite(w).all():
            raise ValueError(f"weights must be finite numbers, not {list(weights)}")
    elif weights is not None:
        raise ValueError(f"weights are for the weighted sum (wsum), not {method}")
    if method == "rrf" and not (np.isfinite(k) and k >= 0):
        raise ValueError(f"RRF's k must be 0 or more, not {k}")
    rows = _rows(frames)
    if method == "rrf":
        values = 1.0 / (k + 1.0 + (np.arange(len(rows.score)) - rows.starts[rows.group]))
    else:
        values = _normalised(rows, norm)
    # one slot per (query, document): the rows of each slot in run order
    key = rows.qcode * max(len(rows.docs), 1) + rows.dcode
    pairs, slot = np.unique(key, return_inverse=True)
    slot = slot.reshape(-1)
    fused: np.ndarray
    if method == "wsum":
        fused = np.bincount(slot, weights=values * w[rows.run], minlength=len(pairs))
    elif method in ("combmax", "combmin"):
        by_slot = np.argsort(slot, kind="stable")
        starts = np.flatnonzero(np.diff(slot[by_slot], prepend=-1))
        reduce = np.maximum if method == "combmax" else np.minimum
        fused = reduce.reduceat(values[by_slot], starts) if len(by_slot) else np.zeros(0)
    else:
        fused = np.bincount(slot, weights=values, minlength=len(pairs))
        if method in ("combmnz", "combanz"):
            count = np.bincount(slot, minlength=len(pairs))
            fused = fused * count if method == "combmnz" else fused / count
    qcode, dcode = np.divmod(pairs, max(len(rows.docs), 1))
    order = np.lexsort((-dcode, -fused, qcode))
    frame = frame_of(rows.queries[qcode[order]], rows.docs[dcode[order]], "score", fused[order], None)
    frame.attrs["name"] = name or method
    return frame
