"""Qrels and runs as users already hold them, turned into the frames the core evaluates.

Accepted for qrels (:func:`qrels_frame`) and runs (:func:`run_frame`), besides a path:

* DataFrames with our columns (``query_id``, ``doc_id``, ``relevance`` /
  ``score``), PyTerrier's (``qid``, ``docno``, ``label`` / ``score``) or ranx's
  and ir_datasets' (``q_id``, ``doc_id``; ``relevance``, ``score``);
* dicts of dicts, ``{qid: {docid: grade}}`` and ``{qid: {docid: score}}``
  (pytrec_eval's and ranx's form);
* iterables of objects or named tuples with ``query_id``, ``doc_id`` and
  ``relevance`` or ``score`` (ir_measures' ``Qrel`` and ``ScoredDoc``,
  ir_datasets' ``qrels_iter()``), read once, lazily;
* ranx's ``Qrels`` and ``Run`` (through their ``to_dict()``; ranx is not
  needed to use this module).

Integer ids are fine (they become text, as in a file).  Anything else raises
:class:`metrics.InputError` saying which forms are accepted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from metrics.errors import InputError
from metrics.io.nested import is_nested_run, nested_columns, ranx_dict

QRELS_FORMS = (
    "a path, a DataFrame (query_id, doc_id, relevance; or PyTerrier's qid, docno, label), "
    "{qid: {docid: grade}}, an iterable of (query_id, doc_id, relevance) records, or a ranx Qrels"
)
RUN_FORMS = (
    "a path, a DataFrame (query_id, doc_id, score; or PyTerrier's qid, docno, score), "
    "{qid: {docid: score}}, an iterable of (query_id, doc_id, score) records, or a ranx Run"
)


def _from_records(records: Iterable, value: str) -> pd.DataFrame:
    q: list[str] = []
    d: list[str] = []
    v: list = []
    for r in records:
        q.append(str(r.query_id))
        d.append(str(r.doc_id))
        v.append(getattr(r, value))
    return pd.DataFrame(
        {
            "query_id": pd.Series(q, dtype="str"),
            "doc_id": pd.Series(d, dtype="str"),
            value: np.asarray(v, dtype=np.float64 if value == "score" else np.int64),
        }
    )


def _frame(source, value: str) -> pd.DataFrame:
    """A DataFrame from any accepted in-memory form (never a path: the readers read those)."""
    if isinstance(source, pd.DataFrame):
        return source  # the readers know the column names of our own, PyTerrier's and ranx's frames
    nested = ranx_dict(source) or (source, "")
    if isinstance(nested[0], Mapping):  # read as the engine reads them (metrics.io.nested), then a frame
        from metrics.io.frames import frame_from_columns

        frame = frame_from_columns(nested_columns(nested[0], "run" if value == "score" else "qrels"))
        if nested[1]:  # ranx's Run(name="bm25"): the run's label
            frame.attrs["name"] = frame.attrs["run_id"] = nested[1]
        return frame
    if isinstance(source, Iterable) and not isinstance(source, (bytes, bytearray)):
        return _from_records(source, value)
    raise TypeError


def qrels_frame(source) -> pd.DataFrame:
    """The in-memory qrels ``source`` as a frame with a ``relevance`` column, not yet validated (the reader,
    :func:`metrics.io.readers.read_qrels`, validates it as it does every frame)."""
    try:
        frame = _frame(source, "relevance")
    except (TypeError, AttributeError, ValueError) as exc:
        raise InputError(
            f"cannot read qrels from a {type(source).__name__} ({exc or 'unexpected form'})", expected=QRELS_FORMS
        ) from None
    return frame.rename(columns={"score": "relevance"}) if "relevance" not in frame and "score" in frame else frame


def run_frame(source) -> pd.DataFrame:
    """The in-memory run ``source`` as a frame with a ``score`` column, not yet validated (the reader,
    :func:`metrics.io.readers.read_run`, validates it as it does every frame)."""
    try:
        return _frame(source, "score")
    except (TypeError, AttributeError, ValueError) as exc:
        raise InputError(
            f"cannot read a run from a {type(source).__name__} ({exc or 'unexpected form'})", expected=RUN_FORMS
        ) from None


def is_single_run(runs) -> bool:
    """Whether ``runs`` is one run given as {qid: {docid: score}} (rather than {label: run})."""
    return is_nested_run(runs)
