"""The session: single owner of what the window has loaded, chosen and computed.

Views read the session and subscribe to its signals; they never talk to each
other.  All reading and evaluating runs in workers (:mod:`workbench.workers`)
through ``metrics``; the session only starts them, keeps them alive until they
report, and drops results that a newer request has superseded.

Signals
-------
sigFilesChanged()            files, kinds, labels, order or load status changed
sigBaselineChanged(object)   baseline run label (or None)
sigMeasuresChanged()         measure set or an evaluation option changed
sigResultsChanged(object)    new :class:`workbench.analysis.Results` (or None)
sigQueryChanged(object)      selected query id (None: the mean over queries)
sigFocusMeasureChanged(str)  measure shown per query
sigBusyChanged(bool)         a job started / the last job ended
sigProgress(float, str)      progress of the current job (fraction < 0: unknown)
sigError(str)                something failed (message for the user)
sigMessage(str)              something worth telling in the status bar
sigFileLoaded(str)           a file was loaded (path)
sigFileChangedOnDisk(str, int)  a loaded file changed on disk (path, size in bytes)
sigIdle()                    no job is running any more
sigCompareSettingsChanged()  test, alpha or correction of the comparison changed
sigComparisonChanged(object) new :class:`workbench.significance_model.Comparison` (or None)
sigDrilldownChanged(object)  new :class:`metrics.drilldown.QueryDrilldown` (or None)
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QThreadPool, QTimer, Signal

import metrics.readers
from metrics.errors import Cancelled, InputError
from workbench import analysis, drilldown_model, qtcompat, significance_model
from workbench.workers import Worker
from workbench.workspace import FileEntry, Workspace, expand_paths, normalize

qtcompat.protect_singletons()  # some PySide6 builds lose references to None/True (see qtcompat)

DEFAULT_MEASURES = ("map", "P.10", "ndcg_cut.10", "Rprec", "recip_rank", "bpref", "recall.100")
SAMPLE_DIR = Path(__file__).resolve().parent / "resources" / "sample"


def sample_files() -> list[str]:
    return [str(p) for p in sorted(SAMPLE_DIR.glob("*.txt"))]


def describe_error(path: str, exc: BaseException) -> str:
    """A message naming the file, the line and what was expected, when known."""
    if isinstance(exc, InputError):
        text = str(exc)
        name = os.path.basename(path)
        return text if (name in text or path in text) else f"{name}: {text}"
    if isinstance(exc, MemoryError):
        return f"{os.path.basename(path)}: not enough memory to read this file"
    if isinstance(exc, OSError):
        return f"{os.path.basename(path)}: {exc.strerror or exc}"
    return f"{os.path.basename(path)}: cannot be read ({type(exc).__name__}: {exc})"


def _load_files(items: list[tuple[str, int, str | None]], progress) -> list[tuple[str, int, object]]:
    """Worker body: read every file; one file's failure does not stop the others."""
    sizes = []
    for path, _, _ in items:
        try:
            sizes.append(max(os.path.getsize(path), 1))
        except OSError:
            sizes.append(1)
    total = float(sum(sizes))
    done = 0.0
    out: list[tuple[str, int, object]] = []
    stop = False
    for (path, gen, kind), size in zip(items, sizes):
        if stop:
            out.append((path, gen, Cancelled("cancelled")))
            continue

        def part(fraction, done=done, size=size):
            return progress((done + max(0.0, min(1.0, fraction)) * size) / total)

        try:
            out.append((path, gen, metrics.readers.read_file(path, kind=kind, progress=part)))
        except Cancelled as exc:
            out.append((path, gen, exc))
            stop = True
        except Exception as exc:  # reported to the user, never raised
            out.append((path, gen, exc))
        done += size
        if not stop and progress(done / total) is False:
            stop = True
    return out


class Session(QObject):
    sigFilesChanged = Signal()
    sigBaselineChanged = Signal(object)
    sigMeasuresChanged = Signal()
    sigResultsChanged = Signal(object)
    sigQueryChanged = Signal(object)
    sigFocusMeasureChanged = Signal(str)
    sigBusyChanged = Signal(bool)
    sigProgress = Signal(float, str)
    sigError = Signal(str)
    sigMessage = Signal(str)
    sigFileLoaded = Signal(str)
    sigFileChangedOnDisk = Signal(str, int)
    sigIdle = Signal()
    sigCompareSettingsChanged = Signal()
    sigComparisonChanged = Signal(object)
    sigDrilldownChanged = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.workspace = Workspace()
        self.measures: tuple[str, ...] = DEFAULT_MEASURES
        self.relevance_level = 1
        self.k_max = 100
        self.ndcg_options: dict[str, object] = {}
        self.results: analysis.Results | None = None
        self.selected_query: str | None = None
        self.focus_measure: str | None = None
        self.is_sample = False

        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max(2, QThreadPool.globalInstance().maxThreadCount()))
        self._ids = itertools.count(1)
        self._active: dict[int, tuple[Worker, str]] = {}
        self._eval_gen = 0
        self._eval_timer = QTimer(self)
        self._eval_timer.setSingleShot(True)
        self._eval_timer.setInterval(0)
        self._eval_timer.timeout.connect(self._start_evaluation)

        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_changed)
        self._changed: set[str] = set()
        self._change_timer = QTimer(self)
        self._change_timer.setSingleShot(True)
        self._change_timer.setInterval(400)
        self._change_timer.timeout.connect(self._report_changes)

        # comparison with the baseline and the drill-down of the selected query,
        # both computed again in a worker whenever what they depend on changes
        self.compare_settings = significance_model.Settings()
        self.comparison: significance_model.Comparison | None = None
        self.drilldown = None
        self.drilldown_depth = drilldown_model.DEFAULT_DEPTH
        self._cmp_gen = 0
        self._drill_gen = 0
        self.sigResultsChanged.connect(lambda _: (self.request_comparison(), self.request_drilldown()))
        self.sigBaselineChanged.connect(self._on_baseline_for_comparison)
        self.sigQueryChanged.connect(lambda _: self.request_drilldown())

    # ------------------------------------------------------------------
    # loading
    def open_sample(self) -> None:
        """Show the bundled sample (made-up data) instead of whatever is loaded."""
        self.clear()
        self.open_files(sample_files())
        self.is_sample = True

    def clear(self) -> None:
        """Forget every file (loads under way are dropped)."""
        for e in list(self.workspace.entries):
            self._unwatch(e.path)
            e.generation += 1
        self.workspace.entries.clear()
        self.workspace.baseline_path = None
        self.is_sample = False
        self.sigFilesChanged.emit()
        self.sigBaselineChanged.emit(None)
        self.request_evaluation()

    def open_files(self, paths, kind: str | None = None) -> list[str]:
        """Load files (a folder stands for the files in it); returns the paths being loaded."""
        paths = expand_paths(paths)
        if not paths:
            return []
        if self.is_sample:  # the user's own files replace the sample
            self.is_sample = False
            sample = {normalize(p) for p in sample_files()}
            for e in list(self.workspace.entries):
                if e.path in sample and e.path not in paths:
                    self._unwatch(e.path)
                    self.workspace.remove(e.path)
        items = []
        for p in paths:
            e = self.workspace.begin_load(p, kind)
            items.append((e.path, e.generation, e.forced_kind))
        self.sigFilesChanged.emit()
        what = os.path.basename(paths[0]) if len(paths) == 1 else f"{len(paths)} files"
        self._start(lambda progress: _load_files(items, progress), f"Loading {what}", self._on_loaded)
        return [p for p, _, _ in items]

    def reload(self, path: str) -> None:
        e = self.workspace.entry(path)
        if e is not None:
            self.open_files([e.path], kind=e.forced_kind)

    def set_kind(self, path: str, kind: str) -> None:
        """Correct the detected kind of a file; it is read again as that kind."""
        if kind not in ("qrels", "run", "ranked"):
            raise ValueError(kind)
        e = self.workspace.entry(path)
        if e is None:
            return
        if e.kind == kind and e.status == "ok":
            e.forced_kind = kind
            return
        self.open_files([e.path], kind=kind)

    def _on_loaded(self, outcomes) -> None:
        changed = False
        for path, gen, outcome in outcomes:
            if isinstance(outcome, Cancelled):
                if self.workspace.cancel_load(path, gen) is not None:
                    self.sigMessage.emit(f"Loading {os.path.basename(path)} cancelled")
                continue
            if isinstance(outcome, BaseException):
                msg = describe_error(path, outcome)
                if self.workspace.fail_load(path, gen, msg) is not None:
                    self.sigError.emit(msg)
                continue
            e = self.workspace.finish_load(path, gen, outcome.kind, outcome.run, outcome.qrels)
            if e is None:
                continue  # a newer load of this file is under way
            changed = True
            self._watch(e.path)
            self.sigFileLoaded.emit(e.path)
            for warning in getattr(outcome, "warnings", ()):
                self.sigMessage.emit(warning)
        # qrels files replaced by a newer one are no longer watched
        loaded = {e.path for e in self.workspace.entries}
        for p in self._watcher.files():
            if normalize(p) not in loaded:
                self._watcher.removePath(p)
        self.sigFilesChanged.emit()
        self.sigBaselineChanged.emit(self.workspace.baseline_label())
        if changed:
            self.request_evaluation()

    # ------------------------------------------------------------------
    # editing the list of files
    def remove(self, path: str) -> None:
        e = self.workspace.entry(path)
        if e is None:
            return
        self._unwatch(e.path)
        e.generation += 1  # a load still under way is dropped
        self.workspace.remove(e.path)
        self.sigFilesChanged.emit()
        self.sigBaselineChanged.emit(self.workspace.baseline_label())
        self.request_evaluation()

    def rename(self, path: str, label: str) -> str:
        e = self.workspace.entry(path)
        if e is None or e.label == label.strip():
            return e.label if e else label
        used = self.workspace.rename(path, label)
        self.sigFilesChanged.emit()
        self.sigBaselineChanged.emit(self.workspace.baseline_label())
        self.request_evaluation()
        return used

    def move(self, path: str, delta: int) -> None:
        if self.workspace.move(path, delta):
            self.sigFilesChanged.emit()
            self.request_evaluation()

    def set_baseline(self, path: str | None) -> None:
        self.workspace.set_baseline(path)
        self.sigFilesChanged.emit()
        self.sigBaselineChanged.emit(self.workspace.baseline_label())

    def baseline_label(self) -> str | None:
        return self.workspace.baseline_label()

    # ------------------------------------------------------------------
    # measures and options
    def set_measures(self, measures) -> None:
        measures = tuple(m.strip() for m in measures if m and m.strip())
        if measures != self.measures:
            self.measures = measures
            self.sigMeasuresChanged.emit()
            self.request_evaluation()

    def set_relevance_level(self, level: int) -> None:
        if int(level) != self.relevance_level:
            self.relevance_level = int(level)
            self.sigMeasuresChanged.emit()
            self.request_evaluation()

    def set_k_max(self, k: int) -> None:
        if int(k) != self.k_max:
            self.k_max = int(k)
            self.sigMeasuresChanged.emit()
            self.request_evaluation()

    def set_ndcg_option(self, name: str, value) -> None:
        if self.ndcg_options.get(name) != value:
            self.ndcg_options[name] = value
            self.sigMeasuresChanged.emit()
            self.request_evaluation()

    # ------------------------------------------------------------------
    # selection
    def select_query(self, query_id) -> None:
        query_id = None if query_id in (None, "", analysis.MEAN) else str(query_id)
        if query_id != self.selected_query:
            self.selected_query = query_id
            self.sigQueryChanged.emit(query_id)

    def set_focus_measure(self, name: str) -> None:
        if name and name != self.focus_measure:
            self.focus_measure = name
            self.sigFocusMeasureChanged.emit(name)

    # ------------------------------------------------------------------
    # evaluation
    def request_evaluation(self) -> None:
        """Evaluate again soon (several changes in a row give one evaluation)."""
        self._eval_gen += 1  # whatever is running now is superseded
        self._eval_timer.start()

    def _start_evaluation(self) -> None:
        qrels = tuple(self.workspace.qrels_parts())  # merged in the worker
        runs = self.workspace.runs()
        if not qrels or not runs:
            self._eval_gen += 1
            if self.results is not None:
                self.results = None
                self.sigResultsChanged.emit(None)
            if not self.workspace.loading():
                need = "a qrels file" if not qrels else "a run"
                self.sigMessage.emit(f"Load {need} to see scores")
            self._emit_idle_if_done()
            return
        request = analysis.Request(
            qrels=qrels,
            runs=runs,
            measures=self.measures,
            relevance_level=self.relevance_level,
            k_max=self.k_max,
            ndcg_options=tuple(sorted(self.ndcg_options.items())),
            qrels_name=self.workspace.qrels_name(),
        )
        self._eval_gen += 1
        gen = self._eval_gen
        self._start(
            lambda progress: analysis.compute(request, progress),
            f"Evaluating {len(runs)} run{'s' if len(runs) != 1 else ''}",
            lambda res: self._on_evaluated(gen, res),
            lambda exc: self._on_evaluation_failed(gen, exc),
        )

    def _on_evaluated(self, gen: int, results: analysis.Results) -> None:
        if gen != self._eval_gen:
            return  # superseded by a newer request
        self.results = results
        if self.focus_measure not in results.measures and results.measures:
            self.focus_measure = results.measures[0]
            self.sigFocusMeasureChanged.emit(self.focus_measure)
        if self.selected_query is not None and self.selected_query not in set(results.query_ids):
            self.selected_query = None
            self.sigQueryChanged.emit(None)
        self.sigResultsChanged.emit(results)
        if not results.query_ids:
            self.sigError.emit(
                "No query of the qrels has results in the runs: the runs and the qrels do not match "
                "(is the right qrels file loaded?)"
            )
            self.sigMessage.emit("")
            return
        note = ""
        warnings = getattr(results.evaluation, "warnings", None) or []
        if warnings:  # e.g. qrels queries without results, skipped as trec_eval skips them
            note = " — " + "; ".join(warnings[:2]) + (f" (+{len(warnings) - 2} more)" if len(warnings) > 2 else "")
        self.sigMessage.emit(
            f"Evaluated {len(results.runs)} run(s) on {len(results.query_ids)} queries, "
            f"{len(results.measures)} measure(s){note}"
        )

    def _on_evaluation_failed(self, gen: int, exc: BaseException) -> None:
        if gen != self._eval_gen:
            return
        if isinstance(exc, Cancelled):
            self.sigMessage.emit("Evaluation cancelled")
        else:
            self.sigError.emit(f"Evaluation failed: {exc}")

    # ------------------------------------------------------------------
    # comparison with the baseline, and the drill-down of the selected query
    def set_compare_settings(self, **changes) -> None:
        """Change the test, alpha or correction (keyword arguments of :class:`significance_model.Settings`)."""
        settings = dataclasses.replace(self.compare_settings, **changes)
        if settings != self.compare_settings:
            self.compare_settings = settings
            self.sigCompareSettingsChanged.emit()
            self.request_comparison()

    def _on_baseline_for_comparison(self, baseline) -> None:
        if self.comparison is None or self.comparison.baseline != baseline:
            self.request_comparison()
        if self.drilldown is None or self.drilldown.baseline != baseline:
            self.request_drilldown()

    def request_comparison(self) -> None:
        """Compare the runs with the baseline again (in a worker)."""
        self._cmp_gen += 1
        gen = self._cmp_gen
        results = self.results
        baseline = self.baseline_label()
        if (results is None or baseline not in results.runs or len(results.runs) < 2
                or results.evaluation.per_query.empty):
            # nothing to compare: no baseline, a single run, or no query judged and retrieved
            if self.comparison is not None:
                self.comparison = None
                self.sigComparisonChanged.emit(None)
            return
        request = significance_model.Request(
            per_query=results.evaluation.per_query, runs=tuple(results.runs), baseline=baseline,
            settings=self.compare_settings,
        )
        self._start(
            lambda progress: significance_model.compute(request, progress),
            "Comparing with the baseline",
            lambda res: self._on_compared(gen, res),
            lambda exc: self._on_compare_failed(gen, exc),
        )

    def _on_compared(self, gen: int, comparison) -> None:
        if gen != self._cmp_gen:
            return  # superseded
        self.comparison = comparison
        self.sigComparisonChanged.emit(comparison)

    def _on_compare_failed(self, gen: int, exc: BaseException) -> None:
        if gen == self._cmp_gen and not isinstance(exc, Cancelled):
            self.sigError.emit(f"Comparison failed: {exc}")

    def set_drilldown_depth(self, depth: int) -> None:
        if int(depth) != self.drilldown_depth:
            self.drilldown_depth = int(depth)
            self.request_drilldown()

    def request_drilldown(self) -> None:
        """Rank the selected query's documents for every run again (in a worker)."""
        self._drill_gen += 1
        gen = self._drill_gen
        results = self.results
        query = self.selected_query
        if results is None or query is None:
            if self.drilldown is not None:
                self.drilldown = None
                self.sigDrilldownChanged.emit(None)
            return
        baseline = self.baseline_label()
        request = drilldown_model.Request(
            qrels=results.request.qrels, runs=results.request.runs, query_id=query,
            depth=self.drilldown_depth, baseline=baseline if baseline in results.runs else None,
            relevance_level=results.request.relevance_level,
        )
        self._start(
            lambda progress: drilldown_model.compute(request, progress),
            f"Ranking query {query}",
            lambda res: self._on_drilled(gen, res),
            lambda exc: self._on_drill_failed(gen, exc),
        )

    def _on_drilled(self, gen: int, drill) -> None:
        if gen != self._drill_gen:
            return
        self.drilldown = drill
        self.sigDrilldownChanged.emit(drill)

    def _on_drill_failed(self, gen: int, exc: BaseException) -> None:
        if gen == self._drill_gen and not isinstance(exc, Cancelled):
            self.sigError.emit(f"Query drill-down failed: {exc}")

    def start_job(self, fn, what: str, on_finished, on_failed=None):
        """Run ``fn(progress)`` in a worker, shown as busy like every other job."""
        return self._start(fn, what, on_finished, on_failed)

    # ------------------------------------------------------------------
    # jobs
    @property
    def busy(self) -> bool:
        return bool(self._active) or self._eval_timer.isActive()

    def cancel(self) -> None:
        """Stop every job; a cancelled evaluation's result is dropped."""
        for worker, _ in list(self._active.values()):
            worker.cancel()
        if self._eval_timer.isActive():
            self._eval_timer.stop()
        self._eval_gen += 1

    def shutdown(self, timeout_ms: int = 10000) -> None:
        self.cancel()
        self._pool.clear()
        self._pool.waitForDone(timeout_ms)

    def run_job(self, fn, what: str, on_finished, on_failed=None) -> Worker:
        """Run ``fn(progress)`` in a worker like loads and evaluations (progress bar, Cancel).

        ``on_finished(result)`` / ``on_failed(exception)`` run on the GUI thread;
        without ``on_failed`` a failure is reported through ``sigError``.
        """
        return self._start(fn, what, on_finished, on_failed)

    def _start(self, fn, what: str, on_finished, on_failed=None) -> Worker:
        job_id = next(self._ids)
        worker = Worker(fn)
        was_busy = bool(self._active)
        self._active[job_id] = (worker, what)
        worker.signals.sigProgress.connect(lambda f: self.sigProgress.emit(f, what))
        worker.signals.sigFinished.connect(lambda res: self._job_done(job_id, on_finished, res))
        worker.signals.sigFailed.connect(
            lambda exc: self._job_done(job_id, on_failed or self._on_job_failed, exc)
        )
        if not was_busy:
            self.sigBusyChanged.emit(True)
        self.sigProgress.emit(-1.0, what)
        self._pool.start(worker)
        return worker

    def _job_done(self, job_id: int, handler, value) -> None:
        self._active.pop(job_id, None)
        try:
            handler(value)
        finally:
            if self._active:
                _, what = next(reversed(self._active.values()))
                self.sigProgress.emit(-1.0, what)
            else:
                self.sigBusyChanged.emit(False)
            self._emit_idle_if_done()

    def _on_job_failed(self, exc: BaseException) -> None:
        if isinstance(exc, Cancelled):
            self.sigMessage.emit("Cancelled")
        else:
            self.sigError.emit(f"{type(exc).__name__}: {exc}")

    def _emit_idle_if_done(self) -> None:
        if not self._active and not self._eval_timer.isActive():
            self.sigIdle.emit()

    # ------------------------------------------------------------------
    # files changing on disk
    def _watch(self, path: str) -> None:
        if path not in self._watcher.files() and os.path.exists(path):
            self._watcher.addPath(path)

    def _unwatch(self, path: str) -> None:
        if path in self._watcher.files():
            self._watcher.removePath(path)

    def _on_file_changed(self, path: str) -> None:
        self._changed.add(normalize(path))
        self._change_timer.start()

    def _report_changes(self) -> None:
        changed, self._changed = self._changed, set()
        for path in sorted(changed):
            e: FileEntry | None = self.workspace.entry(path)
            if e is None:
                continue
            try:
                st = os.stat(path)
            except OSError:
                continue  # deleted (or being replaced); keep what was loaded
            self._watch(path)  # editors that replace the file drop it from the watcher
            if (st.st_size, st.st_mtime) != (e.size, e.mtime):
                self.sigFileChangedOnDisk.emit(path, int(st.st_size))
