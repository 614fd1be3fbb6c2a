"""Scoring before the window exists: ``ir-workbench FOLDER`` with more runs than the window holds.

The service is made before Qt is loaded (its processes forked from there on Linux, see
:func:`workbench.scoring.disk_runs.can_fork`), and the runs are submitted at once, under the keys a new
session's first evaluation will ask for (its default measures and settings, the labels its workspace
gives, the files as they are now): that evaluation's submits find the futures.  Anything else it asks
for is scored as usual.  This is a rule of the session (which files it takes, how it labels them), so it
lives beside the session's state, over the scoring service it feeds.
"""

from __future__ import annotations

from workbench.scoring import disk_runs
from workbench.scoring.service import Lease, ScoreKey, ScoringService, file_identity, run_identity, submit_on_disk
from workbench.state.workspace import Workspace, expand


def start(paths) -> tuple[ScoringService, Lease | None] | None:
    """A service for the window to come and the lease of the runs among ``paths`` it is scoring already,
    when ``paths`` hold more files than the window holds runs; None otherwise (the session makes its own
    service, whose processes start when first needed)."""
    if disk_runs.count_files(paths, disk_runs.HOLD_FILES + 1) <= disk_runs.HOLD_FILES:
        return None
    workers = disk_runs.Workers()
    if disk_runs.can_fork():
        import gc

        disk_runs.prepare()  # imported here once, for every process forked from here on
        gc.freeze()  # (what exists now is not traced again by the processes' collections: not copied)
    workers.warm()
    service = ScoringService(workers)
    # here rather than in a thread beside the window's start: the plan takes about 15 ms (the start of each
    # file), but a thread waited on Qt's import, which holds the interpreter, and the processes sat idle
    return service, _score_ahead(service, list(paths))


def _score_ahead(service: ScoringService, paths: list) -> Lease | None:
    try:
        planned = plan(paths)
        if planned is None:
            return None
        (qrels_path, qrels_stat), runs = planned
        from metrics.engine.evaluate import encoded
        from metrics.engine.settings import MeasureSet
        from workbench.scoring.defaults import DEFAULT_MEASURES, SETTINGS, parse_each

        qrels = encoded(qrels_path)
        if disk_runs.stat_of(qrels_path) != qrels_stat:
            return None  # changed while it was read
        measures, _ = parse_each(DEFAULT_MEASURES)
        qrels_id = (file_identity(qrels_path, qrels_stat[0], qrels_stat[1], "qrels"),)
        lease = service.lease()
        for label, run in runs:
            key = ScoreKey(label, run_identity(run), qrels_id, SETTINGS, MeasureSet(DEFAULT_MEASURES))
            submit_on_disk(lease, key, run, measures, lambda: qrels)
        return lease
    except Exception:  # noqa: BLE001 - the session reads these files itself and says what is wrong
        return None


def plan(paths: list):
    """``((qrels path, its stat), [(label, RunOnDisk)...])``: the one qrels file and the runs among ``paths``
    as a new session would take them (found, detected and labelled by the same code, in the order given);
    None without exactly one qrels file and some run."""
    from metrics.io.detect import detect_kind, holds_queries

    space = Workspace()  # labels as the session's workspace gives them
    qrels, runs = [], []
    for path in expand(paths).files:
        stat = disk_runs.stat_of(path)
        try:
            if holds_queries(path):
                continue  # queries (workbench.state.loading.load_file asks first too)
        except OSError:
            continue
        run = disk_runs.head_of_run(path, None)
        if run is not None and stat is not None:
            run.stat = stat
            entry = space.begin_load(path)
            space.finish_load(path, entry.generation, "run", run, None, stat)
            runs.append((entry.label, run))
            continue
        try:
            if stat is not None and detect_kind(path) == "qrels":
                qrels.append((path, stat))
        except (OSError, ValueError, UnicodeError):
            continue
    return (qrels[0], runs) if len(qrels) == 1 and runs else None
