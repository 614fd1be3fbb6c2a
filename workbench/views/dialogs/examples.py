"""Help > Worked examples: the textbooks' worked examples (:mod:`metrics.examples`), each with the numbers
its text prints beside the exact ones and trec_eval's, opened as an ordinary session on request.

The gallery and its numbers are read and computed by a job of the session (never on the window's thread);
opening an example replaces what is loaded with its qrels and run, asks for the measures its numbers are
of, and explains its first number in the Explain dock, where the textbooks' conventions stand beside
trec_eval's value.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from metrics.engine.settings import Settings
from workbench.views.common.qtable import DataFrameModel

__all__ = ["ExampleShown", "WorkedExamplesDialog", "load_gallery"]

#: the most room (in characters) a column of the numbers' table takes before its text is elided
MAX_TEXT_CHARS = 18


@dataclass(frozen=True)
class ExampleShown:
    """One example as the dialog shows it (made in a worker)."""

    name: str
    title: str
    source: str
    convention: str
    qrels: str
    run: str
    table: pd.DataFrame  # metrics.examples.WorkedExample.table(): printed, exact, trec_eval's
    measures: tuple[str, ...]  # the measures its numbers are of (their output names), in the order they come
    first: tuple[str, str]  # (query, measure) of its first number
    settings: Settings  # the example's own: trec_eval's defaults at the example's relevance level


def load_gallery(progress=None) -> list[ExampleShown]:
    """Every example of the gallery with its numbers computed (in a worker: files are read, runs scored)."""
    from metrics.examples import example_names, open_example
    from metrics.measures import parse_measures

    def key(name: str) -> str:  # the one name a measure has in the results (ndcg_cut.10 -> ndcg_cut_10)
        return str(parse_measures([name])[0])

    shown = []
    names = example_names()
    for i, name in enumerate(names):
        ex = open_example(name)
        shown.append(
            ExampleShown(
                name=ex.name,
                title=ex.title,
                source=ex.source,
                convention=ex.convention,
                qrels=str(ex.qrels_path),
                run=str(ex.run_path),
                table=ex.table(),
                measures=tuple(dict.fromkeys(key(n.measure) for n in ex.numbers)),
                first=(ex.numbers[0].query, key(ex.numbers[0].measure)),
                settings=ex.settings,
            )
        )
        if progress is not None and progress((i + 1) / len(names)) is False:
            break
    return shown


class WorkedExamplesDialog(QDialog):
    """The gallery: a list of the examples, the one chosen described with its numbers, and Open."""

    def __init__(self, session, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.setWindowTitle("Worked examples")
        self.examples: list[ExampleShown] = []
        self.names = QListWidget(self)
        self.names.currentRowChanged.connect(self._show)
        self.about = QLabel("Reading the worked examples…", self)
        self.about.setWordWrap(True)
        self.about.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model = DataFrameModel(self)
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.open_button = QPushButton("&Open as a session", self)
        self.open_button.setToolTip(
            "Replace what is loaded with this example's qrels and run, and explain its first number"
        )
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.open_current)
        right = QWidget(self)
        box = QVBoxLayout(right)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.about)
        box.addWidget(self.table, 1)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.names)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        bottom = QHBoxLayout()
        bottom.addWidget(self.open_button)
        bottom.addStretch(1)
        bottom.addWidget(buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(split, 1)
        layout.addLayout(bottom)
        self.resize(980, 460)
        session.run_job(load_gallery, "Reading the worked examples", self._loaded, self._failed, key="examples")

    def _loaded(self, examples: list[ExampleShown]) -> None:
        self.examples = examples
        self.names.clear()
        for ex in examples:
            self.names.addItem(f"{ex.title}  ({ex.name})")
        if examples:
            self.names.setCurrentRow(0)

    def _failed(self, exc: BaseException) -> None:
        self.about.setText(f"The worked examples could not be read: {exc}")

    def _show(self, row: int) -> None:
        if not 0 <= row < len(self.examples):
            return
        ex = self.examples[row]
        self.about.setText(f"{ex.source}\n\n{ex.convention}")
        frame = ex.table.copy()
        frame["agrees"] = frame["agrees"].map({True: "yes", False: "no", None: ""}).fillna("")
        self.model.set_frame(frame)
        self.table.resizeColumnsToContents()
        # a long text (the text's convention, a note) takes at most this much; the rest is in its tooltip,
        # so that trec_eval's columns stay in view at the dialog's own size
        widest = self.table.fontMetrics().horizontalAdvance("0" * MAX_TEXT_CHARS)
        for c in range(self.model.columnCount()):
            self.table.setColumnWidth(c, min(self.table.columnWidth(c), widest))
        self.open_button.setEnabled(True)

    def current(self) -> ExampleShown | None:
        row = self.names.currentRow()
        return self.examples[row] if 0 <= row < len(self.examples) else None

    def open_current(self) -> None:
        """Open the example as an ordinary session: its files, its measures and its own settings (whatever the
        session used before: an example's numbers are of trec_eval's defaults at its relevance level), its
        first number explained."""
        ex = self.current()
        if ex is None:
            return
        s = self.session
        s.reading.clear()
        s.model.use_settings(ex.settings)
        s.model.set_measures(list(ex.measures))
        s.reading.open_files([ex.qrels, ex.run])
        query, measure = ex.first
        s.followups.explain(ex.name, query, measure)  # (explained once the run is scored)
        s.sigMessage.emit(
            f"Worked example {ex.name}: {ex.title} (scored with its own settings: relevance from grade "
            f"{ex.settings.relevance_level}, trec_eval's nDCG)"
        )
        self.accept()
