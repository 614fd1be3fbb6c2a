"""Qrels and runs given as DataFrames (ours, PyTerrier's, ranx's columns), checked as files are;
and the frames the readers return."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError

if TYPE_CHECKING:
    import pandas as pd

from .formats import _QRELS, _Format, _show, _str_dtype
from .keys import _first_duplicate, _has_duplicate_keys, _pair_keys, _query_codes


def _frame(qid, doc, value_name, values, path) -> pd.DataFrame:
    import pandas as pd

    _STR = _str_dtype()
    frame = pd.DataFrame(
        {
            "query_id": pd.Series(qid, dtype=_STR, copy=False),
            "doc_id": pd.Series(doc, dtype=_STR, copy=False),
            value_name: values,
        },
        copy=False,
    )
    if path is not None:
        frame.attrs["path"] = path
    return frame


def _ranked_scores(codes: np.ndarray) -> np.ndarray:
    """n - i for the i-th row (from 0) of a query with n rows."""
    if len(codes) == 0:
        return np.zeros(0, dtype=np.float64)
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    starts = np.cumsum(counts) - counts
    position = np.empty(len(codes), dtype=np.int64)
    position[order] = np.arange(len(codes)) - starts[codes[order]]
    return (counts[codes] - position).astype(np.float64)


_ALIASES = {
    "query_id": ("query_id", "qid", "q_id"),
    "doc_id": ("doc_id", "docno", "docid"),
    "score": ("score",),
    "relevance": ("relevance", "label", "rel"),
}


def _pick(df: pd.DataFrame, wanted: tuple[str, ...], what: str) -> list[str]:
    names = []
    for column in wanted:
        for alias in _ALIASES[column]:
            if alias in df.columns:
                names.append(alias)
                break
        else:
            raise InputError(
                f"{what} DataFrame has columns {list(map(str, df.columns))}",
                expected=f"columns {', '.join(wanted)}",
            )
    return names


def _string_column(series: pd.Series, column: str, what: str) -> pa.ChunkedArray:
    _STR = _str_dtype()
    missing = series.isna().to_numpy()
    if missing.any():
        raise InputError(
            f"{what} DataFrame has a missing {column} at position {int(np.flatnonzero(missing)[0])}",
            expected=f"a {column} in every row",
        )
    if series.dtype != _STR:
        series = series.astype(_STR)
    arr = pa.chunked_array([pa.array(series.array, type=pa.large_string())])
    if len(arr) and pc.min(pc.binary_length(arr)).as_py() == 0:
        raise InputError(f"{what} DataFrame has an empty {column}", expected=f"a non-empty {column}")
    return arr


def _frame_duplicates(qid: pa.ChunkedArray, doc: pa.ChunkedArray, what: str) -> None:
    keys = _pair_keys(qid, doc)
    repeated = _has_duplicate_keys(keys.copy())
    dup = None if repeated is None else _first_duplicate(keys, repeated, qid, doc)
    if dup is not None:
        row, first = dup
        raise InputError(
            f"{what} DataFrame has document {_show(doc[row].as_py().encode())} twice for query "
            f"{_show(qid[row].as_py().encode())} (at positions {first} and {row})",
            expected="each document at most once per query",
        )


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _qrels_from_frame(df: pd.DataFrame, fmt: _Format = _QRELS) -> pd.DataFrame:
    import pandas as pd

    what = "qrels" if fmt is _QRELS else "ranked-judgments"
    qcol, dcol, rcol = _pick(df, ("query_id", "doc_id", "relevance"), what)
    qid = _string_column(df[qcol], "query_id", what)
    doc = _string_column(df[dcol], "doc_id", what)
    rel = df[rcol]
    numeric = pd.to_numeric(rel, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(numeric) | (numeric != np.floor(numeric))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{what} DataFrame has relevance {_plain(rel.iloc[row])!r} at position {row}",
            expected="integer grades",
        )
    if not pd.api.types.is_integer_dtype(rel.dtype):
        rel = numeric
    _frame_duplicates(qid, doc, what)
    grades = np.asarray(rel, dtype=np.int64)
    return _frame(qid, doc, "relevance", grades, df.attrs.get("path"))


def _run_from_frame(df: pd.DataFrame, name: Optional[str]) -> pd.DataFrame:
    import pandas as pd

    qcol, dcol, scol = _pick(df, ("query_id", "doc_id", "score"), "run")
    qid = _string_column(df[qcol], "query_id", "run")
    doc = _string_column(df[dcol], "doc_id", "run")
    score = pd.to_numeric(df[scol], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isnan(score).any():
        row = int(np.flatnonzero(np.isnan(score))[0])
        raise InputError(
            f"run DataFrame has score {_plain(df[scol].iloc[row])!r} at position {row}",
            expected="a number that is not NaN",
        )
    _frame_duplicates(qid, doc, "run")
    frame = _frame(qid, doc, "score", score, df.attrs.get("path"))
    frame.attrs["name"] = name or df.attrs.get("name") or "run"
    return frame


def _ranked_run(qrels: pd.DataFrame, name: str) -> pd.DataFrame:
    import pandas as pd

    codes = _query_codes(pa.chunked_array([pa.array(qrels["query_id"].array)]))
    run = pd.DataFrame(
        {
            "query_id": qrels["query_id"],
            "doc_id": qrels["doc_id"],
            "score": _ranked_scores(codes),
        }
    )
    if "path" in qrels.attrs:
        run.attrs["path"] = qrels.attrs["path"]
    run.attrs["name"] = name
    return run
