"""File > Fuse runs: the loaded runs chosen, a fusion method and normalisation, and the file the fused run is
written to; the fusion runs as a job of the session (:mod:`workbench.state.fusing`) and the fused run is
opened as a run like any other."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from workbench.state.fusing import FuseRequest, default_output, fuse_to_file

if TYPE_CHECKING:
    from workbench.qt.session import Session

__all__ = ["FuseDialog"]


class FuseDialog(QDialog):
    """Choose the runs (two or more) and how they are fused; Fuse writes the fused run and opens it."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        from PySide6.QtWidgets import QComboBox

        from metrics.fusion import METHODS, NORMS

        super().__init__(parent)
        self.session = session
        self.setWindowTitle("Fuse runs")
        self.runs = QListWidget(self)
        for label in session.workspace.runs():
            item = QListWidgetItem(label, self.runs)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
        self.method = QComboBox(self)
        for m in METHODS:
            self.method.addItem(f"{m.code}: {m.description}", m.code)
        self.norm = QComboBox(self)
        for n in NORMS:
            self.norm.addItem(f"{n.code}: {n.description}", n.code)
        self.k = QDoubleSpinBox(self)
        self.k.setRange(0.0, 1e6)
        self.k.setValue(60.0)
        self.weights = QLineEdit(self)
        self.weights.setPlaceholderText("one per chosen run, e.g. 0.7, 0.3")
        self.name = QLineEdit(self)
        self.output = QLineEdit(self)
        browse = QPushButton("Choose…", self)
        browse.clicked.connect(self._browse)
        where = QHBoxLayout()
        where.addWidget(self.output, 1)
        where.addWidget(browse)
        self.problem = QLabel(self)
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #a1260d")
        form = QFormLayout()
        form.addRow("Method", self.method)
        form.addRow("Normalisation", self.norm)
        form.addRow("RRF's k", self.k)
        form.addRow("Weights", self.weights)
        form.addRow("Name of the fused run", self.name)
        form.addRow("Write it to", where)
        buttons = QDialogButtonBox(self)
        self.fuse_button = buttons.addButton("&Fuse", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.fuse)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Runs to fuse (two or more):", self))
        layout.addWidget(self.runs, 1)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.method.currentIndexChanged.connect(self._follow_method)
        self.runs.itemChanged.connect(lambda _: self._follow_method())
        self._follow_method()
        self.resize(560, 520)

    # -- the choices -------------------------------------------------------------------------------------
    def choose(self, labels, method: str = "combsum", norm: str = "min-max") -> None:
        """Tick ``labels`` and choose ``method`` and ``norm`` (what a user does with the mouse)."""
        wanted = set(labels)
        for i in range(self.runs.count()):
            item = self.runs.item(i)
            item.setCheckState(Qt.CheckState.Checked if item.text() in wanted else Qt.CheckState.Unchecked)
        self.method.setCurrentIndex(self.method.findData(method))
        self.norm.setCurrentIndex(self.norm.findData(norm))

    def chosen(self) -> list[str]:
        return [
            self.runs.item(i).text()
            for i in range(self.runs.count())
            if self.runs.item(i).checkState() == Qt.CheckState.Checked
        ]

    def _follow_method(self) -> None:
        """RRF's k and the weights only where they apply; a name and a file from the method."""
        method = str(self.method.currentData())
        self.k.setEnabled(method == "rrf")
        self.weights.setEnabled(method == "wsum")
        name = f"fused-{method}"
        if not self.name.text() or self.name.text().startswith("fused-"):
            self.name.setText(name)
        runs = self.session.workspace.run_entries()
        if runs and (not self.output.text() or os.path.basename(self.output.text()).startswith("fused-")):
            folder = os.path.dirname(runs[0].path)
            self.output.setText(default_output(folder, name, [e.path for e in self.session.workspace.entries]))

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Write the fused run to", self.output.text())
        if path:
            self.output.setText(path)

    def request(self) -> FuseRequest:
        """What the dialog asks for; raises ValueError (or the file's refusal) with the reason."""
        labels = self.chosen()
        runs = self.session.workspace.runs()
        weights = None
        if self.weights.isEnabled() and self.weights.text().strip():
            try:
                weights = tuple(float(w) for w in self.weights.text().replace(",", " ").split())
            except ValueError:
                raise ValueError(f"weights are numbers, not {self.weights.text()!r}") from None
        request = FuseRequest(
            runs={label: runs[label] for label in labels},
            method=str(self.method.currentData()),
            norm=str(self.norm.currentData()),
            output=self.output.text().strip(),
            name=self.name.text().strip(),
            k=float(self.k.value()),
            weights=weights,
            protect=tuple(e.path for e in self.session.workspace.entries),
        )
        request.check()
        return request

    # -- the fusion ----------------------------------------------------------------------------------------
    def fuse(self) -> None:
        """Fuse in a job of the session; the fused run is opened once written (a problem is said here)."""
        try:
            request = self.request()
        except (ValueError, OSError) as exc:
            self.problem.setText(str(exc))
            return
        session = self.session
        n = len(request.runs)
        session.run_job(
            lambda progress: fuse_to_file(request, progress),
            f"Fusing {n} runs",
            lambda path: session.reading.open_files([path]),
            lambda exc: session.sigError.emit(f"Fusing runs failed: {exc}"),
        )
        self.accept()
