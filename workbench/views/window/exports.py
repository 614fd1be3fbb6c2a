"""The main window's exports: tables as CSV, plots as images, the report, and the comparison page of two
runs with their documents (dialogs, then a job each)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from metrics.io import fileio
from workbench.views.common import export_target

if TYPE_CHECKING:
    from workbench.qt.kept_settings import KeptSettings
    from workbench.qt.session import Session
    from workbench.scoring.evaluation import Results
    from workbench.state.analyses import ContrastSettings
    from workbench.views.dialogs.report import ReportDialog
    from workbench.views.plots.curves import NdcgAtKPlot, PrecisionRecallPlot
    from workbench.views.tables.scores import PerQueryView
    from workbench.views.window.recent import RecentFiles

# the exports' models (pandas) and the report dialog are imported when used: the main window shows
# itself before they are needed


class ExportActions:
    """File > Export: what ``session`` computed, the table ``per_query`` as shown and the plots ``pr_plot``
    and ``ndcg_plot``, written to files chosen in dialogs (children of ``parent``); the folder of the last
    export is kept in ``settings``.  ``show_error(text)`` reports a failure, ``tell(text)`` says something
    in the status bar, ``exported(path)`` announces a file written.  ``contrast()`` gives the settings of
    the "Where to look first" view when it is open (None otherwise): the comparison page is of its runs."""

    def __init__(
        self,
        parent: QWidget,
        session: Session,
        *,
        settings: KeptSettings,
        recent: RecentFiles,
        per_query: PerQueryView,
        pr_plot: PrecisionRecallPlot,
        ndcg_plot: NdcgAtKPlot,
        show_error: Callable[[str], None],
        tell: Callable[[str], None],
        exported: Callable[[str], None],
        contrast: Callable[[], ContrastSettings | None] = lambda: None,
    ):
        self.parent = parent
        self.session = session
        self.settings = settings
        self.recent = recent
        self.per_query = per_query
        self.pr_plot = pr_plot
        self.ndcg_plot = ndcg_plot
        self._show_error = show_error
        self._tell = tell
        self._announce = exported
        self._contrast = contrast
        self.shown_report: ReportDialog | None = None  # (the latest report dialog opened)

    def _in_export_dir(self, use: Callable[[str], None]) -> None:
        """``use(folder)``: where the last export went (else where the last file came from), the folder
        looked at in a worker."""
        folder = str(self.settings.value("lastExportDir", "") or "")
        export_target.with_folder(self.session, folder, self.recent.last_dir, use)

    def export_dialog(self, what: str) -> None:
        """Ask where to write the export ``what`` (see :meth:`export`), then write it."""
        if self.session.results is None:
            self._show_error("Nothing to export yet: load a qrels file and a run first.")
            return
        if what in ("summary", "per_query", "per_query_table"):
            name = {
                "summary": "summary.csv",
                "per_query": "per_query.csv",
                "per_query_table": f"per_query_{self.per_query.shown_measure()}.csv",
            }[what]
            filt = "CSV (*.csv)"
        else:
            name = "precision_recall.png" if what == "pr" else "ndcg_at_k.png"
            filt = "PNG image (*.png);;SVG image (*.svg)"

        def ask(folder: str) -> None:
            path, _ = QFileDialog.getSaveFileName(
                self.parent,
                "Export",
                os.path.join(folder, name),
                filt,
                options=QFileDialog.Option.DontConfirmOverwrite,
            )
            if path:
                self.export(what, path)

        self._in_export_dir(ask)

    def report_dialog(self) -> None:
        """Open the comparison report dialog (it exports in the background) once its folder is found."""
        from workbench.views.dialogs.report import ReportDialog

        def show(folder: str) -> None:
            dialog = ReportDialog(self.session, lambda path: self.confirm_overwrite(path), folder, self.parent)
            dialog.sigWritten.connect(self._exported)
            dialog.setModal(True)
            dialog.show()
            self.shown_report = dialog

        self._in_export_dir(show)

    # -- the comparison page ------------------------------------------------------------------------
    def page_settings(self, run_b: str | None = None) -> ContrastSettings | None:
        """The two runs of the comparison page and how its queries are ranked: those of the "Where to
        look first" view when it is open, else the baseline (or the first run) against ``run_b`` by RBO of
        their top k (k the drill-down's depth).  None with fewer than two runs."""
        from workbench.state.analyses import ContrastSettings

        shown = self._contrast()
        if shown is not None and run_b is None:
            return shown
        results = self.session.results
        runs = list(results.runs) if results is not None else []
        baseline = self.session.model.workspace.baseline_label()
        a = baseline if baseline in runs else (runs[0] if runs else None)
        others = [r for r in runs if r != a]
        if a is None or not others:
            return None
        b = run_b if run_b in others else others[0]
        return ContrastSettings("rbo", a, b, self.session.drilldown_depth)

    def comparison_page_dialog(self) -> None:
        """File > Export > Comparison page: the runs (asked for when the "Where to look first" view is not
        open), then where to write it."""
        results = self.session.results
        if results is None or len(results.runs) < 2:
            self._show_error("A comparison page needs two runs: load a qrels file and two runs first.")
            return
        settings = self._contrast()
        if settings is None:
            first = self.page_settings()
            assert first is not None
            others = [r for r in results.runs if r != first.run_a]
            run_b, ok = QInputDialog.getItem(
                self.parent, "Comparison page", f"Compare {first.run_a} with:", others, 0, False
            )
            if not ok:
                return
            settings = self.page_settings(run_b)
        assert settings is not None
        chosen = settings

        def ask(folder: str) -> None:
            name = f"{chosen.run_a}_vs_{chosen.run_b}.html".replace(os.sep, "_")
            path, _ = QFileDialog.getSaveFileName(
                self.parent,
                "Export comparison page",
                os.path.join(folder, name),
                "HTML page (*.html)",
                options=QFileDialog.Option.DontConfirmOverwrite,
            )
            if path:
                self.export_comparison_page(path, chosen)

        self._in_export_dir(ask)

    def export_comparison_page(self, path: str, settings: ContrastSettings | None = None) -> bool:
        """Write the comparison page of ``settings`` (by default :meth:`page_settings`) to ``path``: the
        target checked in a worker (never a file loaded; an existing file replaced only once
        ``confirm_overwrite`` agrees), then the page built and written atomically in another
        (:mod:`workbench.state.diff_page`).  Whether it was started."""
        from workbench.state import diff_page

        settings = settings or self.page_settings()
        results = self.session.results
        request = None
        if settings is not None and results is not None:
            request = diff_page.page_request(results, self.session.workspace, settings, self.session.drilldown_depth)
        if request is None:
            self._show_error("A comparison page needs two runs: load a qrels file and two runs first.")
            return False
        inputs = self.input_paths()
        chosen = request

        def write(exists: bool, _: object) -> None:
            self.session.run_job(
                lambda progress: diff_page.write(path, chosen, inputs, progress),
                f"Writing {os.path.basename(path)}",
                lambda _: self._exported(path),
                lambda exc: self._export_failed(path, exc),
            )

        export_target.check_then_write(
            self.session, path, inputs, self.confirm_overwrite, write, lambda exc: self._export_failed(path, exc)
        )
        return True

    def confirm_overwrite(self, path: str) -> bool:
        answer = QMessageBox.question(
            self.parent,
            "Replace file?",
            f"{path} already exists. Replace it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def export(self, what: str, path: str) -> bool:
        """Write an export atomically; an existing file is replaced only after confirmation.

        ``what``: ``"summary"`` (runs x measures), ``"per_query"`` (every measure
        for every run and query), both through :mod:`metrics.report`;
        ``"per_query_table"`` (the per-query table as shown, with the
        differences to the baseline); ``"pr"`` / ``"ndcg"`` (a plot, PNG or SVG
        by suffix, drawn here as it is shown now).  The target is checked in a
        worker (a file loaded as input is refused; one that exists is replaced
        only if ``confirm_overwrite(path)`` says so), then a worker writes it
        (:mod:`workbench.views.common.export_target`): no file system call on the GUI
        thread.  Returns whether the export was started; ``exported(path)``
        announces the written file, a failure is reported with ``show_error``.
        """
        results = self.session.results
        if results is None:
            return False
        inputs = self.input_paths()
        label = f"Exporting {os.path.basename(path)}"

        def done(_: object) -> None:
            self._exported(path)

        def failed(exc: BaseException) -> None:
            self._export_failed(path, exc)

        try:
            if what in ("summary", "per_query", "per_query_table"):
                job = self._table_export_job(what, path, results)

                def write_table(exists: bool, _: object) -> None:
                    self.session.run_job(job, label, done, failed)

                export_target.check_then_write(self.session, path, inputs, self.confirm_overwrite, write_table, failed)
                return True
            if what not in ("pr", "ndcg"):
                raise ValueError(f"unknown export {what!r}")
            from workbench.views.plots import figures
            from workbench.views.plots.curves import file_description, image_format

            fmt = image_format(path)
            plot = self.pr_plot if what == "pr" else self.ndcg_plot
            drawing = plot.drawing_for_file(fmt)  # (as it is shown now)
        except ValueError as exc:
            self._export_failed(path, exc)
            return False

        def write_plot(exists: bool, described: str) -> None:
            try:
                drawn = drawing(described)  # (GUI work; encoded and written by the job)
            except (OSError, ValueError) as exc:
                failed(exc)
                return

            def plot_job(progress: object) -> None:
                fileio.write_bytes(path, figures.encode(drawn, fmt), overwrite=True, protect=inputs)

            self.session.run_job(plot_job, label, done, failed)

        kind = plot.kind
        export_target.check_then_write(
            self.session,
            path,
            inputs,
            self.confirm_overwrite,
            write_plot,
            failed,
            prepare=lambda: file_description(results, kind),
        )
        return True

    def input_paths(self) -> list[str]:
        """Files loaded as input: no export may replace them."""
        return [e.path for e in self.session.workspace.entries]

    def _table_export_job(self, what: str, path: str, results: Results) -> Callable[[object], None]:
        """The work of a table export, as a function for a worker (it reads only values taken now)."""
        from workbench.state.export import settings_of

        qrels_name = results.request.qrels_name
        inputs = self.input_paths()

        def settings() -> list[tuple[str, str]]:  # (in the job: the program's version is looked up on disk)
            return [(k, v) for k, v in settings_of(results) if k != "qrels"]  # (the qrels have a line already)

        if what in ("summary", "per_query"):
            frame = results.evaluation.aggregate if what == "summary" else results.evaluation.per_query

            def report_job(progress: object) -> None:
                import metrics.report  # with scipy: imported for an export, not at start-up

                metrics.report.export(
                    frame,
                    path,
                    format="csv",
                    kind=what,
                    overwrite=True,
                    qrels=qrels_name,
                    protect=inputs,
                    settings=settings(),
                )

            return report_job
        measure = self.per_query.shown_measure()
        if measure not in results.per_query:
            raise ValueError(f"no per-query values of {measure!r}")
        baseline = self.session.model.workspace.baseline_label()
        wide, runs = results.per_query[measure], list(results.runs)

        def table_job(progress: object) -> None:
            from workbench.state import export
            from workbench.state import tables as table_model

            frame, _ = table_model.per_query_table(wide, baseline if baseline in runs else None)
            header = export.per_query_header(qrels_name, runs, measure, baseline, settings())
            export.write_csv(path, frame, header, protect=inputs)

        return table_job

    def _exported(self, path: str) -> None:
        self.settings.set_value("lastExportDir", os.path.dirname(os.path.abspath(path)))
        self._tell(f"Exported {path}")
        self._announce(path)

    def _export_failed(self, path: str, exc: BaseException) -> None:
        reason = (exc.strerror if isinstance(exc, OSError) else None) or exc
        self._show_error(
            f"Export to {path} failed: {os.path.basename(path)} {reason}"
            if isinstance(exc, fileio.ProtectedFileError)
            else f"Export to {path} failed: {reason}"
        )
