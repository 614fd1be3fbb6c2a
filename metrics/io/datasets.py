"""Qrels, scored documents and query texts of an ir_datasets dataset, named ``irds:<dataset id>`` where a
file is expected: ``ir-eval irds:msmarco-passage/trec-dl-2019/judged run.txt``,
``metrics.read_qrels("irds:msmarco-passage/trec-dl-2019/judged")``, and in the window.

Read through the ``ir_datasets`` package (an optional extra: ``pip install 'ir-workbench[irds]'``) from its
local cache (ir_datasets fetches what its cache lacks, as it always does).  The judgments become the
same :class:`~metrics.io.columns.Columns` a file gives, checked by the same rules (a document once per
query); a run is the dataset's scored documents (``scoreddocs``, e.g. a BM25 top 1000), named after the
dataset.  Errors are :class:`~metrics.errors.InputError` naming the dataset.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterator, Optional

import numpy as np

from metrics.errors import InputError

if TYPE_CHECKING:
    from metrics.io.table import Columns

__all__ = [
    "PREFIX",
    "QUERIES",
    "DOCS",
    "is_dataset",
    "load_dataset",
    "dataset_records",
    "dataset_columns",
    "dataset_queries",
    "dataset_hint",
]

PREFIX = "irds:"
#: after a dataset id: its query texts (``irds:<id>#queries``), where a source names one thing
QUERIES = "#queries"
#: after a dataset id: its documents (``irds:<id>#docs``, a collection: :mod:`metrics.documents.datasets`)
DOCS = "#docs"


def is_dataset(source) -> bool:
    """Whether ``source`` names an ir_datasets dataset (``irds:<id>``) rather than a file."""
    return isinstance(source, str) and source.startswith(PREFIX)


def load_dataset(source: str, has: str):
    """The ir_datasets dataset named by ``source``, which must provide ``has`` ("qrels", "scoreddocs",
    "queries", "docs"); an :class:`InputError` naming it otherwise."""
    dataset_id = source[len(PREFIX) :].strip()
    dataset_id = dataset_id.removesuffix(QUERIES).removesuffix(DOCS)
    try:
        import ir_datasets
    except ImportError:
        raise InputError(
            "reading a dataset needs the ir_datasets package, which is not installed",
            path=source,
            expected="pip install 'ir-workbench[irds]' (or pip install ir_datasets)",
        ) from None
    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise InputError(
            f"ir_datasets knows no dataset {dataset_id!r}",
            path=source,
            expected="an ir_datasets id such as irds:msmarco-passage/trec-dl-2019/judged",
        ) from None
    except Exception as exc:  # noqa: BLE001 - ir_datasets' own failures, said in one line
        raise _not_at_hand(source, dataset_id, has, exc) from None
    if not getattr(dataset, f"has_{has}")():
        raise InputError(f"dataset {dataset_id!r} has no {has}", path=source, expected=f"a dataset with {has}")
    return dataset


#: how to get a dataset's files when ir_datasets could not
_HOW_TO_GET = (
    "the dataset's files in ir_datasets' cache: let ir_datasets download them (it needs the network, and "
    "a dataset behind a licence is fetched by hand as https://ir-datasets.com says for it), or copy them "
    "there ($IR_DATASETS_HOME, by default ~/.ir_datasets)"
)


def _not_at_hand(source: str, dataset_id: str, what: str, exc: BaseException) -> InputError:
    """The one-line error for a dataset whose ``what`` ir_datasets could not give (a download that
    failed, a file missing from its cache)."""
    reason = " ".join(str(exc).split())
    if len(reason) > 160:
        reason = reason[:157] + "..."
    return InputError(
        f"ir_datasets could not give the {what} of {dataset_id!r} ({type(exc).__name__}"
        + (f": {reason})" if reason else ")"),
        path=source,
        expected=_HOW_TO_GET,
    )


def dataset_records(source: str, dataset, what: str) -> Iterator:
    """The dataset's records of ``what`` ("qrels", "scoreddocs", "queries", "docs"), ir_datasets' failures on
    the way (a download, a missing file) turned into :class:`InputError`."""
    dataset_id = source[len(PREFIX) :].strip().removesuffix(QUERIES).removesuffix(DOCS)
    try:
        yield from getattr(dataset, f"{what}_iter")()
    except (InputError, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - ir_datasets' own failures, said in one line
        raise _not_at_hand(source, dataset_id, what, exc) from None


def dataset_hint(path: str) -> str:
    """For a path that does not exist: "; ... write irds:..." when it names a dataset ir_datasets knows
    (empty otherwise, and without ir_datasets installed)."""
    name = os.fspath(path).strip()
    last = name.rstrip("/").rsplit("/", 1)[-1]
    if not name or is_dataset(name) or os.path.isabs(name) or "." in last or os.path.exists(name):
        return ""  # (an id has no suffix: a missing "run.txt" is a file)
    try:
        import ir_datasets

        ir_datasets.registry[name]
    except Exception:  # noqa: BLE001 - not installed, or no such dataset
        return ""
    return f"; {name!r} names an ir_datasets dataset: write irds:{name} to read it"


def _encoded(values: list) -> np.ndarray:
    from metrics.io.table import ids_from_list

    return ids_from_list([str(v).encode("utf-8", "surrogateescape") for v in values])


def dataset_columns(source: str, kind: str, name: Optional[str] = None, *, progress=None) -> Columns:
    """The dataset's qrels (``kind`` "qrels") or scored documents ("run") as
    :class:`~metrics.io.columns.Columns`, checked as a file's are."""
    from metrics.io.checks import _duplicate_error, _first_duplicate
    from metrics.io.formats import Layout, Ticker
    from metrics.io.table import Columns, grade_dtype

    tick = Ticker(progress)
    tick(0.0)
    if kind == "ranked":
        raise InputError("a dataset holds no ranked judgments", path=source, expected="qrels or a run")
    is_run = kind == "run"
    dataset = load_dataset(source, "scoreddocs" if is_run else "qrels")
    qids: list = []
    docs: list = []
    values: list = []
    for r in dataset_records(source, dataset, "scoreddocs" if is_run else "qrels"):
        qids.append(r.query_id)
        docs.append(r.doc_id)
        values.append(r.score if is_run else r.relevance)
    if not qids:
        raise InputError("the dataset holds no judgments" if not is_run else "no scored documents", path=source)
    tick(0.7)
    value = np.asarray(values, dtype=np.float64 if is_run else np.int64)
    if not is_run:
        value = value.astype(grade_dtype(value), copy=False)
    layout = Layout(f"ir_datasets {source[len(PREFIX) :]}", None, 3, 0, 1, 2, json=True)
    cols = Columns(kind, _encoded(qids), _encoded(docs), value, path=source, layout=layout)
    if _first_duplicate(cols) is not None:
        raise _duplicate_error(cols, None, "qrels" if not is_run else "run")
    if is_run:
        cols.name = cols.run_id = name or source[len(PREFIX) :]
    tick(1.0)
    return cols


def dataset_queries(source: str) -> dict[str, str]:
    """The dataset's query texts, ``{query id: text}`` (each query's ``default_text()``)."""
    dataset = load_dataset(source, "queries")
    out = {}
    for q in dataset_records(source, dataset, "queries"):
        text = q.default_text() if hasattr(q, "default_text") else getattr(q, "text", "")
        out[str(q.query_id)] = str(text)
    return out
