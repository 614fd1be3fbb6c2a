"""The documents of an ir_datasets dataset (``irds:<id>``) as a collection, read from ir_datasets' local cache.

``metrics.documents("irds:msmarco-passage")``, ``ir-eval --diff ... --docs irds:msmarco-passage`` and the
window (File > Open dataset opens them as ``irds:<id>#docs`` when they are there) index them as they index a
file (:mod:`metrics.documents.store`): by batches into the cache folder's database, found again next time.
A dataset's documents are only read when they are in ir_datasets' cache already: a collection is gigabytes,
and fetching it is ir_datasets' business (``ir_datasets export <id> docs`` fetches it); documents not there
are refused in a line that says so.  Each document's id is ir_datasets' ``doc_id`` (matched byte for byte
as the runs name it), its title its ``title`` field where it has one, its text its ``text`` field, else its
``default_text()``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from metrics.documents.formats import BadRecord, Record
from metrics.errors import InputError
from metrics.io.datasets import DOCS, PREFIX, dataset_records, load_dataset

__all__ = ["FORMAT", "dataset_identity", "dataset_documents"]

#: the code of a dataset's documents among the layouts (:data:`metrics.documents.formats.FORMATS`)
FORMAT = "irds"


def _docs_path(dataset) -> str | None:
    """Where ir_datasets keeps the dataset's documents (None when its handler does not say), without fetching."""
    try:
        handler = dataset.docs_handler()
        path = handler.docs_path(force=False)
    except Exception:  # noqa: BLE001 - a handler that cannot say where: ir_datasets reads them as it does
        return None
    return os.fspath(path) if path else None


def dataset_identity(source: str) -> tuple[int, int]:
    """(size, modification time in ns) of the dataset's documents in ir_datasets' cache: what an index
    made from them is known by (0, 0 when ir_datasets does not say where they are).  An
    :class:`InputError` when they are not in its cache."""
    dataset = load_dataset(source, "docs")
    path = _docs_path(dataset)
    if path is None:
        return 0, 0
    if not os.path.exists(path):
        dataset_id = source[len(PREFIX) :].strip().removesuffix(DOCS)
        raise InputError(
            f"the documents of {dataset_id!r} are not in ir_datasets' local cache",
            path=source,
            expected=f"them fetched first (ir_datasets export {dataset_id} docs), or a collection file",
        )
    info = os.stat(path)
    return int(info.st_size), int(info.st_mtime_ns)


def _text(doc) -> str:
    text = getattr(doc, "text", None)
    if isinstance(text, str):
        return text
    default = getattr(doc, "default_text", None)
    return default() if callable(default) else ""


def dataset_documents(source: str) -> Iterator[tuple[Record | BadRecord, float]]:
    """The dataset's documents as the collection readers give theirs: (record, fraction read) each, the
    fraction from ir_datasets' count of documents where it knows it."""
    dataset = load_dataset(source, "docs")
    try:
        total = int(dataset.docs_count() or 0)
    except Exception:  # noqa: BLE001 - a dataset that cannot count its documents: no fraction
        total = 0
    for i, doc in enumerate(dataset_records(source, dataset, "docs"), start=1):
        docid = str(doc.doc_id)
        title = getattr(doc, "title", "")
        record = Record(
            id=docid.encode("utf-8", "surrogateescape"),
            title=title if isinstance(title, str) else "",
            text=_text(doc),
            replaced=False,
            line=i,
        )
        yield record, (i / total if total else 0.0)
