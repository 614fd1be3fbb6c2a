"""Qrels and runs given as DataFrames (ours, PyTerrier's, ranx's columns), checked as files are;
and the frames the readers return, made from the columns of the one reader (:mod:`metrics.io.columns`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import numpy as np

from metrics.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

from metrics.io.formats import _QRELS, HEADER_NAMES, _Format, str_dtype


def frame_of(qid, doc, value_name, values, path) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame({"query_id": text_column(qid), "doc_id": text_column(doc), value_name: values}, copy=False)
    if path is not None:
        frame.attrs["path"] = path
    return frame


def text_column(ids) -> pd.Series:
    """A frame's id column: ``ids`` given as text (an arrow array, a list), or as id bytes: arrow-backed
    ``str`` when every id is UTF-8, else Python ``str`` holding the other bytes as lone surrogates
    (:func:`~metrics.io.ids.ids_to_text`), so that the frame is scored from the file's own bytes."""
    import pandas as pd

    from metrics.io.ids import ids_to_arrow, ids_to_text

    is_bytes = isinstance(ids, np.ndarray) and (
        ids.dtype.kind == "S" or (ids.dtype == object and (not len(ids) or isinstance(ids[0], bytes)))
    )
    if is_bytes:
        arrow = ids_to_arrow(ids, lossless=True)
        if arrow is not None:
            return pd.Series(arrow, dtype=str_dtype(), copy=False)
        ids = ids_to_text(ids)
    else:
        try:
            return pd.Series(ids, dtype=str_dtype(), copy=False)
        except UnicodeEncodeError:  # text keeping bytes that are not UTF-8 as lone surrogates
            pass
    return pd.Series(ids, dtype=pd.StringDtype("python", na_value=np.nan))


def text_values(series: pd.Series) -> np.ndarray:
    """A column's values as Python text (an object array): numbers as pandas writes them, and ids that
    keep bytes that are not UTF-8 as lone surrogates left so (``astype(str)`` would make them arrow
    strings, which refuse lone surrogates)."""
    import pandas as pd

    if isinstance(series.dtype, pd.StringDtype):
        return series.to_numpy(dtype=object)
    return series.astype(str).to_numpy(dtype=object)


def frame_from_columns(cols) -> pd.DataFrame:
    """The DataFrame of :class:`~metrics.io.columns.Columns` as the readers return it: ``query_id``,
    ``doc_id`` (``str``) and ``relevance`` (int64) or ``score`` (float64); a run's ``attrs`` hold its
    ``name`` and ``run_id``.  Ids that are not UTF-8 are kept as lone surrogates (PEP 383), so that the
    frame gives back the file's bytes when it is scored."""
    if cols.kind == "run":
        value_name, values = "score", np.asarray(cols.value, dtype=np.float64)
    else:
        value_name, values = "relevance", np.asarray(cols.value, dtype=np.int64)
    frame = frame_of(cols.qid, cols.doc, value_name, values, cols.path)
    if cols.kind == "run":
        frame.attrs["name"] = cols.name
        frame.attrs["run_id"] = cols.run_id
    return frame


#: the column names a frame may use, first found first taken: ours, then those a file's header may
#: give (:data:`~metrics.io.formats.HEADER_NAMES`: PyTerrier's, ir_measures', ranx's, BEIR's,
#: whose qrels call the grade ``score``)
_ALIASES = {
    "query_id": ("query_id", *HEADER_NAMES["qid"]),
    "doc_id": ("doc_id", *HEADER_NAMES["doc"]),
    "score": ("score",),
    "relevance": (*HEADER_NAMES["grade"], "score"),
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


def _string_column(series: pd.Series, column: str, what: str) -> np.ndarray:
    """A frame's id column as id bytes (:func:`~metrics.io.ids.ids_from_series`), refused when an id is
    missing or empty."""
    import pandas as pd

    from metrics.io.ids import ids_from_series

    missing = series.isna().to_numpy()
    if missing.any():
        raise InputError(
            f"{what} DataFrame has a missing {column} at position {int(np.flatnonzero(missing)[0])}",
            expected=f"a {column} in every row",
        )
    if not isinstance(series.dtype, pd.StringDtype):  # numbers and objects as pandas writes them
        try:
            series = series.astype(str_dtype())
        except UnicodeEncodeError:  # text that keeps bytes that are not UTF-8 (ids_to_text)
            pass
    ids = ids_from_series(series)
    if len(ids) and bool((ids == b"").any()):
        raise InputError(f"{what} DataFrame has an empty {column}", expected=f"a non-empty {column}")
    return ids


def _frame_duplicates(qid: np.ndarray, doc: np.ndarray, what: str) -> None:
    """Refuse a repeated (query, document) pair, naming both positions (the one rule of
    :mod:`metrics.io.columns`)."""
    from metrics.io.checks import _duplicate_error, _first_duplicate
    from metrics.io.table import Columns

    cols = Columns("run", qid, doc, np.zeros(len(qid)))
    if _first_duplicate(cols) is not None:
        raise _duplicate_error(cols, None, what)


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
    whole = rel if pd.api.types.is_integer_dtype(rel.dtype) else numeric  # (checked above: whole numbers)
    _frame_duplicates(qid, doc, what)
    grades = np.asarray(whole, dtype=np.int64)
    return frame_of(qid, doc, "relevance", grades, df.attrs.get("path"))


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
    frame = frame_of(qid, doc, "score", score, df.attrs.get("path"))
    frame.attrs["name"] = name or df.attrs.get("name") or "run"
    return frame


def _ranked_run(qrels: pd.DataFrame, name: str) -> pd.DataFrame:
    import pandas as pd

    from metrics.io.ids import ids_from_series
    from metrics.io.table import query_codes, ranked_scores

    run = pd.DataFrame(
        {
            "query_id": qrels["query_id"],
            "doc_id": qrels["doc_id"],
            "score": ranked_scores(query_codes(ids_from_series(qrels["query_id"]))[1]),
        }
    )
    if "path" in qrels.attrs:
        run.attrs["path"] = qrels.attrs["path"]
    run.attrs["name"] = name
    return run
