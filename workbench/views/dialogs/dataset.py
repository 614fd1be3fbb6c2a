"""Opening an ir_datasets dataset in the window: its qrels and its query texts, from ir_datasets' cache.

The window's File menu offers it with :func:`open_dataset`; the dataset's qrels and query texts are then
loaded as files are (``irds:<id>`` and ``irds:<id>#queries``, :mod:`metrics.io.datasets`)."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget

from metrics.io.datasets import PREFIX, QUERIES

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
        "Dataset id (its qrels and query texts are read from ir_datasets' cache):",
        text=EXAMPLE,
    )
    if not ok:
        return
    for source, kind in dataset_sources(text):
        session.open_files([source], kind=kind)
