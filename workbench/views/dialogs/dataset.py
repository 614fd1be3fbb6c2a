"""Opening an ir_datasets dataset in the window: its qrels, its query texts and, when ir_datasets' cache holds
them, its documents.

The window's File menu offers it with :func:`open_dataset`; the dataset's qrels and query texts are then
loaded as files are (``irds:<id>`` and ``irds:<id>#queries``, :mod:`metrics.io.datasets`), and its
documents (``irds:<id>#docs``) as the collection when a worker finds them in the cache."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget

from metrics.io.datasets import DOCS, PREFIX, QUERIES

if TYPE_CHECKING:
    from workbench.qt.session import Session

TITLE = "Open an ir_datasets dataset"
EXAMPLE = "msmarco-passage/trec-dl-2019/judged"


def dataset_sources(text: str) -> list[tuple[str, str]]:
    """(source, kind) to load for the dataset id ``text`` (with or without ``irds:``): its qrels and its
    query texts; none for an empty id."""
    dataset_id = text.strip()
    dataset_id = dataset_id[len(PREFIX) :] if dataset_id.startswith(PREFIX) else dataset_id
    if not dataset_id:
        return []
    return [(PREFIX + dataset_id, "qrels"), (PREFIX + dataset_id + QUERIES, "queries")]


def open_dataset(parent: QWidget | None, session: Session) -> None:
    """Ask for an ir_datasets id (in a dialog over ``parent``) and open the dataset's qrels and query texts
    in ``session``."""
    if importlib.util.find_spec("ir_datasets") is None:
        QMessageBox.information(
            parent,
            TITLE,
            "Opening a dataset needs the ir_datasets package: pip install 'ir-workbench[irds]'",
        )
        return
    text, ok = QInputDialog.getText(
        parent,
        TITLE,
        "Dataset id (its qrels, query texts and, when there, documents are read from ir_datasets' cache):",
        text=EXAMPLE,
    )
    if not ok:
        return
    sources = dataset_sources(text)
    for source, kind in sources:
        session.reading.open_files([source], kind=kind)
    if sources:
        documents_if_cached(session, sources[0][0] + DOCS)


def documents_if_cached(session: Session, source: str) -> None:
    """Open the dataset's documents ``source`` (``irds:<id>#docs``) as the collection when they are in
    ir_datasets' cache: looked for in a worker (ir_datasets' import and the look take a second); documents
    not there are left alone (a collection is gigabytes: fetching it is ir_datasets' business)."""

    def look(progress) -> bool:
        from metrics.documents.datasets import dataset_identity
        from metrics.errors import InputError

        try:
            dataset_identity(source)
        except InputError:
            return False
        return True

    session.run_job(
        look,
        "Looking for the dataset's documents",
        lambda found: found and session.reading.open_files([source], kind="collection"),
        on_failed=lambda _: None,  # (no documents: the qrels and the query texts are opened all the same)
    )
