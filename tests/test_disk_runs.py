"""Runs the window scores from disk (workbench.model.disk_runs): past a memory budget a run file is not
held but read and scored by worker processes at each evaluation.  The numbers must equal those of
held runs; a bad file is reported with its line and left out; Cancel stops; the drill-down reads them."""

from __future__ import annotations

import gzip
import os
import sys
import threading

import numpy as np
import pandas as pd
import pytest

import metrics
import metrics.io.readers
from metrics.errors import Cancelled
from workbench.model import analysis, disk_runs
from workbench.model import drilldown as drilldown_model
from workbench.model.loading import load_file
from workbench.model.session import SessionModel

MEASURES = ("map", "P.10", "ndcg_cut.10", "Rprec", "recip_rank", "bpref", "recall.100", "num_ret")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A qrels file (``qid 0 docid rel``, grades -1..2) and 10 runs of 15 queries x 60 (tied scores,
    unjudged documents), one tab-separated, one gzip, one missing a query; run 3 is 'base'."""
    tmp = tmp_path_factory.mktemp("disk_runs")
    rng = np.random.default_rng(11)
    qids = [str(q) for q in range(401, 416)]
    lines = [f"{q} 0 d{d} {int(rng.choice([-1, 0, 0, 1, 2]))}" for q in qids for d in rng.permutation(80)[:40]]
    (tmp / "qrels.txt").write_text("\n".join(lines) + "\n")
    runs = []
    for r in range(10):
        rows = []
        for q in qids:
            if r == 2 and q == "405":
                continue
            docs = rng.permutation(90)[:60]
            scores = np.round(rng.random(60), 1)  # ties
            order = np.argsort(-scores, kind="stable")
            sep = "\t" if r == 1 else " "
            rows += [
                sep.join([q, "Q0", f"d{docs[i]}", str(k + 1), f"{scores[i]:.1f}", f"sys{r}"])
                for k, i in enumerate(order)
            ]
        text = "\n".join(rows) + "\n"
        if r == 4:
            path = tmp / f"run{r}.txt.gz"
            path.write_bytes(gzip.compress(text.encode()))
        else:
            path = tmp / f"run{r}.txt"
            path.write_text(text)
        runs.append(path)
    return tmp / "qrels.txt", runs


def _runs(paths, on_disk: bool) -> dict:
    out = {}
    for p in paths:
        if on_disk:
            run = disk_runs.head_of_run(str(p), None)
            assert isinstance(run, disk_runs.RunOnDisk)
        else:
            run = metrics.io.readers.read_run(str(p))
        out[run.attrs["name"]] = run
    return out


def _request(qrels, runs, cache=None) -> analysis.Request:
    return analysis.Request(
        qrels=(metrics.io.readers.read_qrels(str(qrels)),), runs=runs, measures=MEASURES, cache=cache
    )


def test_runs_scored_from_disk_equal_runs_held(files):
    qrels, paths = files
    held = analysis.compute(_request(qrels, _runs(paths, False)))
    # half held, half on disk: both are scored at once, the results in the runs' order
    mixed_runs = {**_runs(paths[:5], False), **_runs(paths[5:], True)}
    mixed = analysis.compute(_request(qrels, mixed_runs))
    assert mixed.failed == {} and mixed.runs == held.runs == [f"sys{r}" for r in range(10)]
    pd.testing.assert_frame_equal(mixed.summary, held.summary)
    pd.testing.assert_frame_equal(mixed.evaluation.per_query, held.evaluation.per_query)
    for m in held.per_query:
        pd.testing.assert_frame_equal(mixed.per_query[m], held.per_query[m])
    assert mixed.coverage == held.coverage and held.coverage["sys2"] == (14, 14)
    for q in [analysis.MEAN, *held.query_ids]:
        for r in held.runs:
            for a, b in ((held.pr, mixed.pr), (held.ndcg, mixed.ndcg)):
                if a.get(q, r) is None:  # sys2 has no query 405
                    assert b.get(q, r) is None and (q, r) == ("405", "sys2")
                else:
                    np.testing.assert_array_equal(a.get(q, r)[1], b.get(q, r)[1])
    # and equal to the library's evaluation of the files
    ev = metrics.evaluate(str(qrels), [str(p) for p in paths], list(MEASURES))
    np.testing.assert_allclose(held.summary.to_numpy(), ev.summary().loc[held.runs, held.measures].to_numpy(), rtol=0)


def test_a_run_on_disk_that_cannot_be_read_is_named_with_its_line_and_left_out(files, tmp_path):
    qrels, paths = files
    lines = paths[0].read_text().splitlines()
    lines[100] = lines[100].rsplit(" ", 2)[0] + " high sys0"  # a score that is no number, line 101
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines) + "\n")
    runs = {"good": disk_runs.head_of_run(str(paths[1]), None), "bad": disk_runs.head_of_run(str(bad), None)}
    res = analysis.compute(_request(qrels, runs))
    assert res.runs == ["good"]
    assert list(res.failed) == ["bad"]
    assert "bad.txt" in res.failed["bad"] and "line 101" in res.failed["bad"] and "'high'" in res.failed["bad"]


def test_the_session_marks_a_run_that_failed_on_disk_and_evaluates_without_it(files, tmp_path, monkeypatch):
    qrels, paths = files
    bad = tmp_path / "bad.txt"
    bad.write_text(paths[0].read_text().replace("sys0", "sys9", 1).replace(" 0.", " x.", 1))
    monkeypatch.setattr(disk_runs, "HOLD_BYTES", 0)  # every run file on disk
    model = SessionModel()
    started = []
    model.open_files([str(qrels), str(paths[3]), str(bad)], start=started.append)
    assert [e.hold for e in started] == [False, False, False]
    for e in started:
        model.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None, e.hold))
        model.announce_loaded()
    entry = model.workspace.entry(str(bad))
    assert isinstance(entry.run, disk_runs.RunOnDisk) and entry.is_run
    assert isinstance(model.workspace.entry(str(qrels)).qrels, pd.DataFrame)  # qrels are always read
    errors, wanted = [], []
    model.events.error.connect(errors.append)
    model.events.evaluation_wanted.connect(lambda: wanted.append(True))
    request = model.evaluation_request()
    model.apply_results(analysis.compute(request))
    assert entry.status == "error" and entry.run is None and "bad.txt" in entry.error
    assert errors == [entry.error] and wanted, errors
    again = model.evaluation_request()
    assert list(again.runs) == ["sys3"]
    model.apply_results(analysis.compute(again))
    assert model.results.runs == ["sys3"] and model.results.failed == {}
    model.run_cache.close()


def test_cancel_stops_the_runs_on_disk(files):
    qrels, paths = files
    seen = []

    def progress(fraction):
        seen.append(fraction)
        return False  # cancel at the first run scored

    with pytest.raises(Cancelled):
        analysis.compute(_request(qrels, _runs(paths, True)), progress)
    assert len(seen) == 1


def test_runs_on_disk_are_kept_between_evaluations(files, monkeypatch):
    qrels, paths = files
    cache = analysis.RunCache()
    runs = _runs(paths[:3], True)
    request = _request(qrels, runs, cache)
    first = analysis.compute(request)
    started = []
    monkeypatch.setattr(analysis, "_DiskScorer", lambda *a: started.append(a) or pytest.fail("scored again"))
    again = analysis.compute(request)
    assert started == []
    pd.testing.assert_frame_equal(first.summary, again.summary)


def test_loading_without_holding_reads_only_the_start_of_a_run(files):
    qrels, paths = files
    stat, loaded = load_file(str(paths[4]), None, None, False)  # gzip
    assert isinstance(loaded.run, disk_runs.RunOnDisk) and loaded.run.attrs["name"] == "sys4"
    assert stat[0] == os.path.getsize(paths[4])
    _, q = load_file(str(qrels), None, None, False)
    assert q.kind == "qrels" and isinstance(q.qrels, pd.DataFrame)
    assert disk_runs.head_of_run(str(qrels), None) is None
    assert disk_runs.head_of_run(str(paths[0]), "ranked") is None


def test_files_are_held_while_they_fit_in_the_budget(files, monkeypatch):
    qrels, paths = files
    size = os.path.getsize(paths[0])
    monkeypatch.setattr(disk_runs, "HOLD_BYTES", os.path.getsize(qrels) + 2 * size + 10)
    model = SessionModel()
    started = []
    model.open_files([str(qrels), *map(str, paths[:5])], start=started.append)
    assert [e.hold for e in started] == [True, True, True, False, False, False]
    for e in started:
        model.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None, e.hold))
    held = [isinstance(e.run, pd.DataFrame) for e in model.workspace.run_entries()]
    assert held == [True, True, False, False, False]


def test_the_drilldown_reads_runs_on_disk_and_shows_the_best_of_many(files):
    qrels, paths = files
    q = metrics.io.readers.read_qrels(str(qrels))
    held = _runs(paths[:3], False)
    disk = _runs(paths[:3], True)
    a = drilldown_model.compute(drilldown_model.Request(q, held, "402", 10, "sys0"))
    b = drilldown_model.compute(drilldown_model.Request(q, disk, "402", 10, "sys0"))
    assert a.runs == b.runs
    for r in a.runs:
        pd.testing.assert_frame_equal(a.rankings[r], b.rankings[r])
    # ten runs: the drill-down ranks the best eight on the query (and the baseline) unless told otherwise
    model = SessionModel()
    model.results = analysis.compute(_request(qrels, _runs(paths, False)))
    model.focus_measure, model.selected_query = "map", "402"
    model.workspace.baseline_path = None
    on_query = model.results.per_query["map"].loc["402"]
    best = set(on_query.sort_values(ascending=False, kind="stable").index[:8])
    shown = model.drilldown_runs()
    assert set(shown) == best  # no baseline in this workspace
    # the baseline is shown beside the best; a run without a score (NaN) comes last
    runs, scores = ["a", "b", "c", "d"], {"a": 0.1, "b": float("nan"), "c": 0.9, "d": 0.5}
    assert drilldown_model.best_runs(runs, scores, "a", limit=2) == ["a", "c", "d"]
    assert drilldown_model.best_runs(runs, scores, None, limit=3) == ["a", "c", "d"]
    assert drilldown_model.best_runs(runs, {}, None, limit=2) == ["a", "b"]
    assert shown == [r for r in model.results.runs if r in shown]
    worst = on_query.idxmin()
    assert worst not in shown
    model.choose_drilldown_run(worst, True)
    assert worst in model.drilldown_runs()
    model.choose_drilldown_run(shown[0], False)
    assert shown[0] not in model.drilldown_runs()


def test_files_are_held_while_they_are_few(files, monkeypatch):
    qrels, paths = files
    monkeypatch.setattr(disk_runs, "HOLD_FILES", 3)
    model = SessionModel()
    started = []
    model.open_files([str(qrels), *map(str, paths[:2])], start=started.append)
    more = []
    model.open_files([str(p) for p in paths[2:5]], start=more.append)  # the slots left by the first files
    assert [e.hold for e in started] == [True, True, True] and [e.hold for e in more] == [False, False, False]


def test_files_opened_together_beyond_the_slots_left_are_all_on_disk(files, monkeypatch):
    """A folder of more runs than the window holds is scored from disk as a whole (by every core),
    not partly read into the window first."""
    qrels, paths = files
    monkeypatch.setattr(disk_runs, "HOLD_FILES", 4)
    model = SessionModel()
    started = []
    model.open_files([str(qrels), *map(str, paths[:5])], start=started.append)
    assert [e.hold for e in started] == [False] * 6
    for e in started:
        model.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None, e.hold))
    assert isinstance(model.workspace.qrels_entry().qrels, pd.DataFrame)  # the qrels are read as ever
    assert all(isinstance(e.run, disk_runs.RunOnDisk) for e in model.workspace.run_entries())
    model.open_files([str(p) for p in paths[5:7]], start=started.append)  # few enough for the slots left
    assert [e.hold for e in started[6:]] == [True, True]


def test_a_run_on_disk_changed_since_it_was_opened_is_not_scored_as_the_one_opened(files, tmp_path):
    qrels, paths = files
    copy = tmp_path / "copy.txt"
    copy.write_text(paths[0].read_text())
    _, loaded = load_file(str(copy), None, None, False)
    assert loaded.run.stat == (os.path.getsize(copy), os.path.getmtime(copy))
    first = analysis.compute(_request(qrels, {"a": loaded.run}))
    assert first.failed == {} and first.runs == ["a"]
    with open(copy, "a") as out:
        out.write("401 Q0 extra 999 -5.0 sys0\n")
    os.utime(copy, (1, 1))  # a different time, whatever the clock's resolution
    again = analysis.compute(_request(qrels, {"a": loaded.run}))  # e.g. after an option changed
    assert again.runs == [] and "changed on disk since it was opened" in again.failed["a"]
    assert "copy.txt" in again.failed["a"]


def test_runs_on_disk_are_scored_ahead_while_files_are_read(files, monkeypatch):
    qrels, paths = files
    # the qrels and two runs held, the rest on disk
    monkeypatch.setattr(disk_runs, "HOLD_BYTES", os.path.getsize(qrels) + 2 * os.path.getsize(paths[0]) + 10)
    model = SessionModel()
    started = []
    model.open_files([str(qrels), *map(str, paths[:6])], start=started.append)
    assert model.prescore_request() is None  # no qrels yet
    for e in started[:1] + started[3:]:  # the qrels and the runs on disk read; two runs held still loading
        model.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None, e.hold))
    assert model.workspace.loading()
    ahead = model.prescore_request()
    assert sorted(ahead.runs) == ["sys2", "sys3", "sys4", "sys5"]
    assert all(isinstance(r, disk_runs.RunOnDisk) for r in ahead.runs.values())
    analysis.compute(ahead)
    for e in started[1:3]:
        model.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None, e.hold))
    counted = []
    real = analysis._DiskScorer

    def counting(workers, qrels, runs, *rest):
        counted.extend(runs)
        return real(workers, qrels, runs, *rest)

    monkeypatch.setattr(analysis, "_DiskScorer", counting)
    model.apply_results(analysis.compute(model.evaluation_request()))
    assert counted == [] and model.results.runs == [f"sys{r}" for r in range(6)]  # scored ahead: none again
    model.run_cache.close()


def test_an_evaluation_awaits_the_runs_a_scoring_ahead_has_under_way(files, monkeypatch):
    """The evaluation that supersedes the scoring done while files were read takes over the runs that
    scoring has sent to the processes: each run is sent once, and the scoring given up cancels nothing
    the evaluation awaits."""
    qrels, paths = files
    cache = analysis.RunCache()
    runs = _runs(paths, True)
    request = _request(qrels, runs, cache)
    pool = cache.workers.pool()
    submitted = []
    real_submit = pool.submit
    pool.submit = lambda fn, *args: submitted.append(args[1]) or real_submit(fn, *args)
    ahead_in, awaited = threading.Event(), threading.Event()
    real_enter = analysis._DiskScorer.__enter__

    def enter(self):
        (awaited if threading.current_thread() is threading.main_thread() else ahead_in).set()
        return real_enter(self)

    monkeypatch.setattr(analysis._DiskScorer, "__enter__", enter)
    outcome = []

    def ahead():
        try:  # gives up at its first run scored once the evaluation awaits the runs (the session discards it)
            analysis.compute(request, lambda _: not awaited.wait(60))
        except Cancelled:
            outcome.append("given up")

    thread = threading.Thread(target=ahead)
    thread.start()
    assert ahead_in.wait(60)
    results = analysis.compute(request)
    thread.join(60)
    assert outcome == ["given up"]
    assert sorted(submitted) == sorted(runs)  # every run sent to the processes once
    fresh = analysis.compute(_request(qrels, _runs(paths, True)))
    pd.testing.assert_frame_equal(results.summary, fresh.summary)
    pd.testing.assert_frame_equal(results.evaluation.per_query, fresh.evaluation.per_query)
    cache.close()


def test_runs_whose_processes_are_stopped_under_them_are_scored_again(files, monkeypatch):
    """Another evaluation's Cancel stops the worker processes while this one awaits runs they hold (the
    evaluation that supersedes a scoring ahead may not have claimed that scoring's runs yet when it stops
    them): those runs are sent to new processes, and the scores equal a fresh evaluation's, rather than
    the evaluation failing with the broken pool (about one window start in forty on a 2-core machine)."""
    qrels, paths = files
    cache = analysis.RunCache()
    runs = _runs(paths, True)
    sent: list[str] = []
    real_pool = disk_runs.Workers.pool

    def pool(self):
        made = real_pool(self)
        if not hasattr(made, "counted"):
            real_submit = made.submit
            made.submit = lambda fn, *args: sent.append(args[1]) or real_submit(fn, *args)
            made.counted = True
        return made

    monkeypatch.setattr(disk_runs.Workers, "pool", pool)
    real_enter = analysis._DiskScorer.__enter__

    def enter(self):  # every run sent: the processes stopped under them, as another evaluation's Cancel does
        cache.workers.stop()
        return real_enter(self)

    monkeypatch.setattr(analysis._DiskScorer, "__enter__", enter)
    results = analysis.compute(_request(qrels, runs, cache))
    monkeypatch.undo()
    assert len(sent) > len(runs)  # some runs were sent again (not all of the ten were done when stopped)
    assert sorted(set(sent)) == sorted(runs) and not results.failed
    fresh = analysis.compute(_request(qrels, _runs(paths, True)))
    pd.testing.assert_frame_equal(results.summary, fresh.summary)
    pd.testing.assert_frame_equal(results.evaluation.per_query, fresh.evaluation.per_query)
    cache.close()


def test_a_run_given_up_while_scored_is_kept_and_one_not_started_is_dropped():
    """A future nothing awaits any more is cancelled if it has not started; one that has finishes, and
    its scores are kept for the next evaluation."""
    from concurrent.futures import Future

    class Run:  # a run object (held by weak reference)
        pass

    scores, run, waiting, started = analysis._Scores(), Run(), Future(), Future()
    started.set_running_or_notify_cancel()
    futures = {"a": waiting, "b": started}
    assert scores.claim("a", run, lambda label, r: futures[label]) is waiting
    assert scores.claim("a", run, lambda label, r: pytest.fail("submitted twice")) is waiting
    assert scores.claim("b", run, lambda label, r: futures[label]) is started
    scores.release("a", waiting)
    assert not waiting.cancelled()  # still claimed once
    scores.release("a", waiting)
    scores.release("b", started)
    assert waiting.cancelled() and not started.cancelled()
    started.set_result(("evaluation", ["pr"], ["atk"], 3))
    kept = scores.get("b", run)
    assert (kept.evaluation, kept.pr, kept.atk, kept.queries) == ("evaluation", ["pr"], ["atk"], 3)
    assert scores.get("a", run) is None
    again = Future()
    assert scores.claim("a", run, lambda label, r: again) is again  # a cancelled one is not handed out


def test_the_processes_start_with_the_window_when_a_folder_holds_more_runs_than_it_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(disk_runs, "HOLD_FILES", 3)
    folder = tmp_path / "runs"
    (folder / "more").mkdir(parents=True)
    for name in ("a.run", "b.run", ".hidden"):
        (folder / name).write_text("1 Q0 d1 1 1.0 r\n")
    assert not disk_runs.start_early([folder])  # two visible files: held, no processes
    (folder / "more" / "c.run").write_text("1 Q0 d1 1 1.0 r\n")
    (folder / "more" / "d.run").write_text("1 Q0 d1 1 1.0 r\n")
    assert disk_runs.start_early([folder, tmp_path / "missing.txt"])
    cache = analysis.RunCache()
    try:
        assert cache.workers._pool is not None  # started before the session, taken by its cache
        assert analysis.RunCache().workers._pool is None  # the next session's start on first use
    finally:
        cache.close()
    assert disk_runs.start_early([folder])
    disk_runs.discard_early()  # no session took them: stopped
    assert analysis.RunCache().workers._pool is None


def test_a_run_on_disk_counts_its_queries_however_its_lines_are_ordered(files, tmp_path):
    """The coverage "(shared / all queries of the run)" of a run scored from disk equals that of the
    run held, also when the file interleaves its queries and has queries the qrels lack."""
    qrels, paths = files
    lines = paths[0].read_text().splitlines()
    lines += [f"999 Q0 d{d} {d + 1} 0.5 sys0" for d in range(3)] + ["998 Q0 d1 1 0.5 sys0"]
    interleaved = tmp_path / "interleaved.txt"
    interleaved.write_text("\n".join(lines[0::2] + lines[1::2]) + "\n")  # every query in two stretches, or more
    on_disk = analysis.compute(_request(qrels, _runs([interleaved], True)))
    held = analysis.compute(_request(qrels, _runs([interleaved], False)))
    assert on_disk.failed == {} and on_disk.coverage == held.coverage == {"sys0": (15, 17)}


def test_a_worker_process_scores_a_run_on_disk_with_numpy_only(files, tmp_path):
    """Runs on disk are scored without pandas or pyarrow in the worker processes (their import would
    double the time of each process's first run, while the window itself starts)."""
    import pickle
    import subprocess
    import sys

    from metrics.io.columns import read_columns
    from metrics.ranking.qrels_index import encode_qrels

    qrels, paths = files
    measures, _ = analysis.parse_each(analysis.ndcg_variant(MEASURES, {}))
    state = tmp_path / "state.pickle"
    with open(state, "wb") as out:
        options = dict(relevance_level=1, k_max=100, ndcg_options={})
        pickle.dump(dict(qrels=encode_qrels(read_columns(str(qrels), "qrels")), measures=measures, **options), out)
    code = (
        "import sys\n"
        "from workbench.model import disk_runs\n"
        f"ev, pr, atk, queries = disk_runs.score({str(state)!r}, 'r', {str(paths[0])!r})\n"
        "print(queries, ev.runs, [m for m in ('pandas', 'pyarrow', 'scipy', 'PySide6') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "15 ['r'] []"


def test_the_evaluation_takes_over_from_the_scoring_ahead_without_an_idle_moment(qtbot, files):
    """When the evaluation supersedes the scoring done while files were read, the window is never idle
    in between: an idle moment would start the inspection of a file, which reads it again and joins it
    with the qrels while the runs are scored."""
    from workbench.session import Session

    qrels, paths = files
    session = Session()
    session.open_files([str(qrels), str(paths[0])])
    qtbot.waitUntil(lambda: session.results is not None and not session.busy, timeout=60000)
    idle = []
    session.sigIdle.connect(lambda: idle.append(session.jobs.keys()))
    release = threading.Event()
    session.jobs.submit("prescore", lambda progress: release.wait(60), "Scoring", lambda _: None, lambda exc: None)
    try:
        session.open_files([str(paths[1])])
        qtbot.waitUntil(lambda: len(session.results.runs) == 2 and not session.busy, timeout=60000)
        assert idle == [[]]  # once, when everything was done
    finally:
        release.set()
        session.model.run_cache.close()


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie waiting for its reaper counts as exited)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc to see processes exit")
@pytest.mark.parametrize("pool", ["window", "window-spawn", "ir-eval"])
def test_worker_processes_exit_when_the_process_that_started_them_dies(tmp_path, pool):
    """A window (or ir-eval --jobs) killed without stopping its processes does not leave them behind."""
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "start.py"
    script.write_text(
        "import os, sys, time\n"
        "if __name__ == '__main__':\n"
        "    if sys.argv[1].startswith('window'):\n"
        "        if sys.argv[1] == 'window-spawn':\n"
        "            import PySide6.QtCore  # Qt loaded: spawned, as a window's session starts them\n"
        "        from workbench.model import disk_runs\n"
        "        pool = disk_runs.Workers().pool()\n"
        "        assert pool._mp_context.get_start_method() == ('spawn' if 'spawn' in sys.argv[1] else 'fork')\n"
        "    else:\n"
        "        import multiprocessing\n"
        "        from concurrent.futures import ProcessPoolExecutor\n"
        "        from metrics.scale.parallel import _init_worker\n"
        "        pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context('fork'),\n"
        "                                   initializer=_init_worker, initargs=(None,) * 6)\n"
        "    [f.result() for f in [pool.submit(time.sleep, 0.3) for _ in range(4)]]\n"
        "    print(*pool._processes, flush=True)\n"
        "    time.sleep(600)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, str(script), pool], stdout=subprocess.PIPE, text=True, env=env)
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) >= 1
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not all(map(_gone, pids)):
            time.sleep(0.05)
        assert all(map(_gone, pids)), [p for p in pids if not _gone(p)]
    finally:
        proc.kill()


def test_a_pool_that_breaks_while_runs_are_sent_gives_up_those_sent(files):
    from concurrent.futures import Future

    class Pool:
        made: list = []

        def submit(self, fn, *args):
            if len(self.made) == 2:
                raise RuntimeError("a process of the pool died")
            self.made.append(Future())
            return self.made[-1]

    class Workers:
        def pool(self):
            return Pool()

        def state_file(self, state):
            return "state"

    _, paths = files
    scores = analysis._Scores()
    with pytest.raises(RuntimeError, match="died"):
        analysis._DiskScorer(Workers(), None, _runs(paths[:4], True), [], {}, scores)
    assert len(Pool.made) == 2 and all(f.cancelled() for f in Pool.made)
    assert scores._pending == {}


_EARLY_SCRIPT = """
import gc, os, sys, threading
from workbench.system import process
process.prepare()
from workbench.model import disk_runs
disk_runs.HOLD_FILES = 2
files = sys.argv[2:]
if sys.argv[1] == "thread":  # another thread running: forking would copy the locks it may hold
    stop = threading.Event()
    threading.Thread(target=stop.wait).start()
assert disk_runs.start_early(files)
workers = disk_runs.workers()
pool = workers.pool()
print(pool._mp_context.get_start_method(), gc.isenabled())
print(pool.submit(gc.isenabled).result(), pool.submit(os.getenv, "OPENBLAS_NUM_THREADS").result())
import pickle
from metrics.io.columns import read_columns
from metrics.measures import parse_measures
from metrics.ranking.qrels_index import encode_qrels
qrels = encode_qrels(read_columns(files[0], "qrels"))
measures = parse_measures(["map", "P.10", "ndcg_cut.10"])
state = workers.state_file(dict(qrels=qrels, measures=measures, relevance_level=1, k_max=20, ndcg_options={}))
scored = [pool.submit(disk_runs.score, state, f"r{i}", p).result() for i, p in enumerate(files[1:])]
with open(os.environ["OUT"], "wb") as out:
    pickle.dump([(ev.per_query, pr, atk, n) for ev, pr, atk, n in scored], out)
workers.shutdown()
if sys.argv[1] == "thread":
    stop.set()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="processes are forked on Linux only")
def test_processes_started_before_the_window_are_forked_and_score_as_spawned_ones(files, tmp_path):
    """Started before Qt and before any other thread (as ``ir-workbench FILES...`` does), the worker
    processes are forked from the window's process, which has imported what scoring needs once; they
    collect garbage although the window does not while it starts, keep one BLAS thread, and score
    exactly as processes spawned (another thread running at that moment) do."""
    import pickle
    import subprocess

    qrels, paths = files
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    env.pop("OPENBLAS_NUM_THREADS", None)
    outcomes = {}
    for how in ("fork", "thread"):
        env["OUT"] = str(tmp_path / f"{how}.pickle")
        done = subprocess.run(
            [sys.executable, "-c", _EARLY_SCRIPT, how, str(qrels), *map(str, paths[:4])],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        lines = done.stdout.split("\n")
        outcomes[how] = lines, pickle.loads((tmp_path / f"{how}.pickle").read_bytes())
    assert outcomes["fork"][0][:2] == ["fork False", "True 1"]  # the window still starting: no collection
    assert outcomes["thread"][0][:2] == ["spawn False", "True 1"]
    forked, spawned = outcomes["fork"][1], outcomes["thread"][1]
    assert len(forked) == len(spawned) == 4
    for (pq_f, pr_f, atk_f, n_f), (pq_s, pr_s, atk_s, n_s) in zip(forked, spawned):
        pd.testing.assert_frame_equal(pq_f, pq_s)
        assert n_f == n_s
        assert repr(pr_f) == repr(pr_s) and repr(atk_f) == repr(atk_s)


def test_processes_are_spawned_once_qt_is_loaded():
    """In a process that has loaded Qt (this one: the window's tests), forking would copy Qt's threads'
    locks: the processes are spawned."""
    import PySide6.QtCore  # noqa: F401

    assert not disk_runs._can_fork()


@pytest.fixture
def early_folder(files, tmp_path, monkeypatch):
    """A folder as given on the command line: the qrels and the 10 runs (more than the window holds)."""
    monkeypatch.setattr(disk_runs, "HOLD_FILES", 3)
    qrels, paths = files
    folder = tmp_path / "study"
    folder.mkdir()
    for p in (qrels, *paths):
        (folder / p.name).write_bytes(p.read_bytes())
    yield folder
    disk_runs.discard_early()


def _scored_early(folder, runs: int) -> dict:
    import time

    assert disk_runs.start_early([folder])
    deadline = time.monotonic() + 60
    while len(disk_runs._EARLY.get("scores", {}).get("runs", {})) < runs and time.monotonic() < deadline:
        time.sleep(0.02)
    early = disk_runs._EARLY["scores"]["runs"]
    assert len(early) == runs
    return dict(early)


def _opened(folder, names) -> tuple:
    """The qrels frame and the runs on disk as the session opens them (with their files' stat)."""
    qrels = metrics.io.readers.read_qrels(str(folder / "qrels.txt"))
    runs = {}
    for name in names:
        run = disk_runs.head_of_run(str(folder / name), None)
        run.stat = disk_runs._stat(str(folder / name))
        runs[run.attrs["name"]] = run
    return qrels, runs


def _request_for(qrels, runs, measures=None, cache=None) -> analysis.Request:
    from workbench.model.defaults import DEFAULT_MEASURES

    return analysis.Request(qrels=(qrels,), runs=runs, measures=measures or DEFAULT_MEASURES, cache=cache)


def test_runs_given_with_the_window_are_scored_before_its_session_and_taken_over(files, early_folder, monkeypatch):
    """``ir-workbench FOLDER``: the runs in it are scored from the window's start with the session's defaults;
    the session's evaluation takes every one of them over and shows what it would have computed itself."""
    names = [p.name for p in files[1]]
    early = _scored_early(early_folder, len(names))
    assert sorted(label for label, _, _ in early.values()) == sorted(f"sys{r}" for r in range(10))
    taken = []
    real = disk_runs.take_early
    monkeypatch.setattr(disk_runs, "take_early", lambda *a: (taken.append(real(*a)), taken[-1])[1])
    qrels, runs = _opened(early_folder, names)
    results = analysis.compute(_request_for(qrels, runs, cache=analysis.RunCache()))
    assert (
        len(taken) == 10
        and all(f is not None for f in taken)
        and {id(f) for f in taken} == {id(f) for _, _, f in early.values()}
    )
    assert disk_runs._EARLY["scores"]["runs"] == {}  # each handed out once
    disk_runs.discard_early()
    again = analysis.compute(_request_for(qrels, runs, cache=analysis.RunCache()))  # none to take: as usual
    assert results.failed == again.failed == {} and results.runs == again.runs
    pd.testing.assert_frame_equal(results.evaluation.per_query, again.evaluation.per_query)
    pd.testing.assert_frame_equal(results.summary, again.summary)
    assert results.coverage == again.coverage
    for q in [analysis.MEAN, *again.query_ids]:
        for r in again.runs:
            for a, b in ((again.pr, results.pr), (again.ndcg, results.ndcg)):
                if a.get(q, r) is not None:
                    np.testing.assert_array_equal(a.get(q, r)[1], b.get(q, r)[1])


@pytest.mark.parametrize("change", ["measures", "qrels touched", "run touched", "label", "two qrels parts"])
def test_a_run_scored_before_the_session_is_not_taken_unless_asked_for_as_it_was_scored(
    files, early_folder, monkeypatch, change
):
    """Other measures, a qrels or run file changed since, another label, other judgments: scored again,
    and the numbers are those of the files as they are."""
    import time

    names = [p.name for p in files[1]]
    _scored_early(early_folder, len(names))
    measures = None
    if change == "measures":
        measures = ("map", "P.5")
    qrels, runs = _opened(early_folder, names)
    if change == "qrels touched":
        st = os.stat(early_folder / "qrels.txt")
        os.utime(early_folder / "qrels.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    if change == "run touched":
        target = early_folder / names[0]
        target.write_text(target.read_text().replace(" 1.0 ", " 0.95 ", 1))
        time.sleep(0.01)
        runs = {label: run for label, run in runs.items()}
        fresh = disk_runs.head_of_run(str(target), None)
        fresh.stat = disk_runs._stat(str(target))
        runs[fresh.attrs["name"]] = fresh
    if change == "label":
        runs = {("renamed" if label == "sys0" else label): run for label, run in runs.items()}
    parts = (qrels,) if change != "two qrels parts" else (qrels, qrels.iloc[:10].copy())
    taken = []
    real = disk_runs.take_early
    monkeypatch.setattr(disk_runs, "take_early", lambda *a: (taken.append(real(*a)), taken[-1])[1])
    request = analysis.Request(qrels=parts, runs=runs, measures=measures or _request_for(qrels, runs).measures)
    results = analysis.compute(request)
    expected = {"measures": 0, "qrels touched": 0, "run touched": 9, "label": 9, "two qrels parts": 0}[change]
    assert sum(f is not None for f in taken) == expected
    disk_runs.discard_early()
    plain = analysis.compute(replace_cache(request))
    pd.testing.assert_frame_equal(results.evaluation.per_query, plain.evaluation.per_query)


def replace_cache(request):
    from dataclasses import replace

    return replace(request, cache=analysis.RunCache())


def test_what_no_session_took_is_let_go(files, early_folder):
    """Once the session has shown its first scores, the runs scored before it that it did not take are let go."""
    from workbench.model.defaults import DEFAULT_MEASURES, parse_each

    names = [p.name for p in files[1]]
    _scored_early(early_folder, len(names))
    qrels, runs = _opened(early_folder, names)
    label, run = next(iter(runs.items()))
    measures, _ = parse_each(DEFAULT_MEASURES)
    options = dict(relevance_level=1, k_max=100, ndcg_options={})
    disk_runs.drop_early()
    assert "scores" not in disk_runs._EARLY
    assert disk_runs.take_early(label, run, (qrels,), measures, options) is None


def test_a_window_started_on_a_folder_shows_the_runs_scored_before_it_as_the_library_scores_them(files, tmp_path):
    """``ir-workbench FOLDER`` end to end, in a process of its own as it starts: the worker processes are
    forked before Qt, score the runs while the window starts, the session takes every one of them over,
    and the summary it shows equals the library's evaluation of the files (qrels with negative grades,
    tied scores, a gzip run, a tab-separated run, a run missing a query)."""
    import json
    import subprocess

    qrels, paths = files
    folder = tmp_path / "study"
    folder.mkdir()
    for p in (qrels, *paths):
        (folder / p.name).write_bytes(p.read_bytes())
    script = tmp_path / "window.py"
    script.write_text(
        "import json, os, sys\n"
        "os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from workbench.system import process\n"
        "process.prepare()\n"
        "from workbench.model import disk_runs\n"
        "disk_runs.HOLD_FILES = 3\n"
        "assert disk_runs.start_early([sys.argv[2]])  # as ir-workbench FOLDER does, before Qt\n"
        "method = disk_runs._EARLY['workers'].pool()._mp_context.get_start_method()\n"
        "taken, real = [], disk_runs.take_early\n"
        "def take(*args):\n"
        "    future = real(*args)\n"
        "    taken.append(future is not None)\n"
        "    return future\n"
        "disk_runs.take_early = take\n"
        "from PySide6.QtCore import QSettings, QTimer\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from workbench.views.main_window import MainWindow\n"
        "w = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat), deferred=True)\n"
        "w.show()\n"
        "w.when_session_ready(lambda: w.session.open_files([sys.argv[2]]))\n"
        "w.when_ready(process.started)\n"
        "def check():\n"
        "    s = w.session if w.session_made else None\n"
        "    if s is not None and s.results is not None and not s.busy and w.built:\n"
        "        out = dict(method=method, taken=taken, early_left='scores' in disk_runs._EARLY,\n"
        "                   summary=s.results.summary.to_dict(), runs=s.results.runs)\n"
        "        print(json.dumps(out), flush=True)\n"
        "        s.shutdown()\n"
        "        os._exit(0)\n"
        "    QTimer.singleShot(20, check)\n"
        "QTimer.singleShot(20, check)\n"
        "QTimer.singleShot(60000, lambda: os._exit(3))\n"
        "app.exec()\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "settings.ini"), str(folder)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    if sys.platform.startswith("linux"):
        assert out["method"] == "fork"
    assert len(out["taken"]) >= 10 and sum(out["taken"]) == 10  # every run scored before the session, taken once
    assert not out["early_left"]  # let go once the scores were shown
    from workbench.model.defaults import DEFAULT_MEASURES

    labels = out["runs"]
    assert sorted(labels) == sorted(f"sys{r}" for r in range(10))
    by_tag = {metrics.io.readers.read_run(str(p)).attrs["name"]: p for p in paths}
    expected = metrics.evaluate(
        str(qrels), {label: str(by_tag[label]) for label in labels}, list(DEFAULT_MEASURES)
    ).summary()
    shown = pd.DataFrame(out["summary"])
    for measure in expected.columns:
        for run in labels:
            assert shown.at[run, measure] == expected.at[run, measure], (run, measure)


def test_cancel_stops_the_runs_scored_before_the_session_too(files, early_folder, qtbot, tmp_path):
    """Cancel in a window started on a folder: the runs its processes score since the start, which no
    evaluation has taken yet, are let go as well (those not started are cancelled)."""
    from PySide6.QtCore import QSettings

    from workbench.views.main_window import MainWindow

    early = _scored_early(early_folder, len(files[1]))
    w = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    try:
        w.session.cancel()
        assert "scores" not in disk_runs._EARLY
        assert all(f.done() or f.running() or f.cancelled() for _, _, f in early.values())  # none left waiting
    finally:
        w.session.shutdown()


def test_the_plan_before_the_session_takes_the_files_as_the_session_does(files, early_folder):
    """Queries (a topics TSV whose lines have six words and more), other files and a second qrels-like file
    are told apart as the session's loading does: no queries file is scored as a run, and without exactly
    one qrels file nothing is scored before the session."""
    (early_folder / "topics.tsv").write_text("".join(f"{q}\twhat is the best way to rank {q}\n" for q in range(5)))
    (early_folder / "notes.md").write_text("# notes\n")
    qrels, runs = disk_runs._early_plan([early_folder])
    assert qrels[0] == str(early_folder / "qrels.txt") and qrels[1] == disk_runs._stat(qrels[0])
    assert sorted(label for label, _ in runs) == sorted(f"sys{r}" for r in range(10))
    assert all(run.stat == disk_runs._stat(run.path) for _, run in runs)
    (early_folder / "more.qrels").write_bytes((early_folder / "qrels.txt").read_bytes())
    assert disk_runs._early_plan([early_folder]) is None  # two qrels files: the session decides
