"""File > Export comparison report: CSV, Markdown, LaTeX or an HTML report with the plots.

The figures are drawn for the report on the GUI thread (drawing is GUI work,
:mod:`workbench.views.plots.figures`); they are encoded, and the report assembled and written, in a worker through
:mod:`metrics.report` (atomic writes).  The target is looked at in a worker too: an existing file is replaced
only after confirmation, a file loaded as input never.
"""

from __future__ import annotations

import os
from typing import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
)

from workbench.state import report as report_model
from workbench.state.export import intents_setting


def report_figures(session, query: str | None = None) -> list[tuple[str, bytes]]:
    """The report's figures as PNG files (see :func:`drawn_figures`)."""
    from workbench.views.plots import figures

    return [(caption, figures.encode(drawn)) for caption, drawn in drawn_figures(session, query)]


def drawn_figures(session, query: str | None = None) -> list:
    """The report's figures, drawn for the report (each for :func:`workbench.views.plots.figures.encode`): every
    run, the mean over queries (or ``query``).

    Per-query differences of every run against the baseline (when there is a
    comparison), then precision-recall and NDCG@k; each with a caption that says
    what it shows.  With more runs than a figure tells apart, the best by the
    measure in focus and the baseline are drawn in colour (and alone in the
    differences), the others in grey, as in the window.  GUI work: call on the
    GUI thread.
    """
    from workbench.views.common.run_styles import MAX_CURVES, coloured_runs
    from workbench.views.plots import figures

    results = session.results
    what = f"mean over {len(results.query_ids)} queries" if query is None else f"query {query}"
    # with many runs, the best by the measure in focus and the baseline in colour, the others in grey
    measure = session.focus_measure if session.focus_measure in results.summary.columns else None
    coloured = coloured_runs(
        results.runs, results, measure, session.model.workspace.baseline_label()
    )  # as the plots draw them
    styles = {r: coloured.index(r) if r in coloured else None for r in results.runs}
    runs = ", ".join(coloured)
    if len(coloured) < len(results.runs):
        grey = len(results.runs) - len(coloured)
        runs += f" (the best {MAX_CURVES} by {measure} and the baseline; {grey} more in grey)"
    out = []
    comparison = session.comparison
    if comparison is not None and comparison.is_for(results) and comparison.differences:
        measures = list(comparison.differences)
        measure = session.focus_measure if session.focus_measure in measures else measures[0]
        others = [r for r in coloured if r != comparison.request.baseline and r in comparison.request.runs]
        more = len(comparison.request.runs) - 1 - len(others)
        out.append(
            (
                f"Per-query differences in {measure}: {', '.join(others)} minus the baseline "
                f"{comparison.request.baseline}, queries ordered by mean gain"
                + (f" ({more} other runs not drawn)" if more else ""),
                figures.draw(figures.difference_figure(comparison, measure, runs=others)),
            )
        )
    out.append(
        (
            f"Interpolated precision-recall, {what}, runs {runs}",
            figures.draw(figures.curve_figure(results, "pr", query=query, styles=styles)),
        )
    )
    out.append(
        (
            f"NDCG at every cutoff k up to {results.request.k_max}, {what}, runs {runs}",
            figures.draw(figures.curve_figure(results, "ndcg", query=query, styles=styles)),
        )
    )
    return out


class ReportDialog(QDialog):
    """Choose format, contents and file; :meth:`export` does the work (also without the dialog shown).

    The HTML report's figures are drawn for the report (:func:`report_figures`),
    not grabbed from the window: every run, the mean over queries unless the
    user chooses the selected query.
    """

    sigWritten = Signal(str)
    sigFailed = Signal(str)
    sigKept = Signal(str)  # (the user chose to keep the file there)

    def __init__(
        self, session, confirm_overwrite: Callable[[str], bool] | None = None, start_dir: str = "", parent=None
    ):
        super().__init__(parent)
        self.setWindowTitle("Export comparison report")
        self.session = session
        self.confirm_overwrite = confirm_overwrite or (lambda path: False)
        self.format_box = QComboBox(self)
        for code, (text, _) in report_model.FORMATS.items():
            self.format_box.addItem(text, code)
        self.table_box = QComboBox(self)
        for code, text in report_model.TABLES.items():
            self.table_box.addItem(text, code)
        self.plots_check = QCheckBox(
            "Figures: per-query differences of every run against the baseline, "
            "precision-recall and NDCG@k of every run (PNG, 2400 x 1560)",
            self,
        )
        self.plots_check.setChecked(True)
        self.figure_query = QComboBox(self)
        self.figure_query.addItem("the mean over queries", None)
        if session.selected_query is not None:
            self.figure_query.addItem(f"query {session.selected_query} (selected)", session.selected_query)
        self.figure_query.setToolTip("What the precision-recall and NDCG@k figures show")
        self.per_query_check = QCheckBox("Per-query values of every measure", self)
        self.title_edit = QLineEdit("Evaluation report", self)
        self.path_edit = QLineEdit(os.path.join(start_dir or os.getcwd(), "report.html"), self)
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse)
        path_row = QHBoxLayout()
        path_row.addWidget(self.path_edit, 1)
        path_row.addWidget(browse)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Format", self.format_box)
        form.addRow("Table", self.table_box)
        form.addRow("HTML report", self.plots_check)
        form.addRow("Figures show", self.figure_query)
        form.addRow("", self.per_query_check)
        form.addRow("Title", self.title_edit)
        form.addRow("File", path_row)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.export_button = buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self._on_export)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self.format_box.currentIndexChanged.connect(lambda _: self._on_format())
        self.sigWritten.connect(lambda _: self.accept())
        self._on_format()

    # -- form ------------------------------------------------------------
    def _on_format(self) -> None:
        fmt = self.format_box.currentData()
        html = fmt == "html"
        self.table_box.setEnabled(not html)
        self.plots_check.setEnabled(html)
        self.figure_query.setEnabled(html)
        self.per_query_check.setEnabled(html)
        base, _ = os.path.splitext(self.path_edit.text())
        self.path_edit.setText(base + report_model.FORMATS[fmt][1])

    def _browse(self) -> None:
        fmt = self.format_box.currentData()
        text, suffix = report_model.FORMATS[fmt]
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export report",
            self.path_edit.text(),
            f"{text} (*{suffix})",
            options=QFileDialog.Option.DontConfirmOverwrite,
        )
        if path:
            self.path_edit.setText(path)

    def _on_export(self) -> None:
        self.export(
            self.path_edit.text().strip(),
            self.format_box.currentData(),
            table=self.table_box.currentData(),
            plots=self.plots_check.isChecked(),
            per_query=self.per_query_check.isChecked(),
            title=self.title_edit.text().strip() or "Evaluation report",
            query=self.figure_query.currentData(),
        )

    # -- work ------------------------------------------------------------
    def export(
        self,
        path: str,
        fmt: str | None = None,
        *,
        table: str = "comparison",
        plots: bool = True,
        per_query: bool = False,
        title: str = "Evaluation report",
        query: str | None = None,
    ) -> bool:
        """Start writing ``path``; False if there is nothing to write.

        The target is checked in a worker (a file loaded as input is refused; one that exists is
        replaced only if ``confirm_overwrite(path)`` says so); the figures are then drawn on the GUI
        thread and the report written by a worker.  ``sigWritten(path)``, ``sigFailed(message)`` or
        ``sigKept(path)`` (the user keeps the file) follows.
        """
        results = self.session.results
        if results is None:
            return self._fail("Nothing to export yet: load a qrels file and a run first.")
        if not path:
            return self._fail("Choose a file to write.")
        fmt = fmt or report_model.suffix_format(path) or "html"
        comparison = self.session.comparison
        frame = comparison.table if comparison is not None and comparison.is_for(results) else None
        # the comparison shown has no intervals until an export computes them (and the window keeps them)
        unfinished = comparison if frame is not None and not comparison.intervals else None
        if fmt != "html" and table == "comparison" and frame is None:
            return self._fail("No comparison yet: it needs a baseline and at least one other run.")
        from metrics.io import fileio
        from workbench.views.common import export_target

        inputs = [e.path for e in self.session.workspace.entries]
        evaluation, qrels = results.evaluation, results.request.qrels_name
        extra = intents_setting(results.request)
        session = self.session

        def write(overwrite: bool, _: object) -> None:  # (GUI thread: the target is checked, the figures drawn now)
            drawn = drawn_figures(session, query) if fmt == "html" and plots else []

            def work(progress):
                from workbench.state import significance
                from workbench.views.plots import figures

                images = [(caption, figures.encode(image)) for caption, image in drawn]
                completed = None if unfinished is None else significance.with_intervals(unfinished)
                report_model.write_report(
                    path,
                    fmt,
                    evaluation=evaluation,
                    comparison=frame if completed is None else completed.table,
                    table=table,
                    qrels=qrels,
                    images=images,
                    per_query=per_query,
                    title=title,
                    overwrite=overwrite,
                    protect=inputs,
                    extra=extra,
                )
                return completed

            def done(completed) -> None:
                if completed is not None:  # (the next export takes them)
                    session.model.followups.complete_comparison(completed)
                self._written(path)

            self.status.setText(f"Writing {os.path.basename(path)}…")
            session.run_job(work, f"Writing {os.path.basename(path)}", done, self._failed)

        def refused(exc: BaseException) -> None:
            self.export_button.setEnabled(True)
            if isinstance(exc, fileio.ProtectedFileError):
                self._fail(f"{path} is loaded as input and is never written to; choose another file.")
            else:
                self._failed(exc)

        def kept() -> None:
            self.export_button.setEnabled(True)
            self.status.setText(f"{path} kept as it was.")
            self.sigKept.emit(path)

        self.export_button.setEnabled(False)
        self.status.setText(f"Checking {os.path.basename(path)}…")
        export_target.check_then_write(session, path, inputs, self.confirm_overwrite, write, refused, kept)
        return True

    def _written(self, path: str) -> None:
        self.export_button.setEnabled(True)
        self.status.setText(f"Wrote {path}")
        self.sigWritten.emit(path)

    def _failed(self, exc: BaseException) -> None:
        self.export_button.setEnabled(True)
        if isinstance(exc, FileExistsError):
            self._fail(f"{exc.filename} appeared meanwhile; export again to replace it.")
        else:
            self._fail(f"Export failed: {(exc.strerror if isinstance(exc, OSError) else None) or exc}")

    def _fail(self, message: str) -> bool:
        self.status.setText(message)
        self.sigFailed.emit(message)
        return False
