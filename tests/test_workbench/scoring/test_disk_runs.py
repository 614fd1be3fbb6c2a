"""Runs the window scores from disk (workbench.scoring.disk_runs): past a memory budget a run file is not
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
from metrics.io.table import Columns
from workbench.scoring import disk_runs
from workbench.scoring import evaluation as analysis
from workbench.scoring import service as scoring
from workbench.scoring.defaults import SETTINGS
from workbench.state import drilldown as drilldown_model
from workbench.state import early as scoring_ahead
from workbench.state.loading import load_file
from workbench.state.session import SessionModel

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
    model.files.open_files([str(qrels), str(paths[3]), str(bad)], start=started.append)
    assert [e.hold for e in started] == [False, False, False]
    for e in started:
        model.files.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None, e.hold))
        model.files.announce_loaded()
    entry = model.workspace.entry(str(bad))
    assert isinstance(entry.run, disk_runs.RunOnDisk) and entry.is_run
    assert isinstance(model.workspace.entry(str(qrels)).qrels, Columns)  # qrels are always read
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
    monkeypatch.setattr(cache.service.workers, "pool", lambda: pytest.fail("scored again"))
    again = analysis.compute(request)
    pd.testing.assert_frame_equal(first.summary, again.summary)
    cache.close()


def test_loading_without_holding_reads_only_the_start_of_a_run(files):
    qrels, paths = files
    stat, loaded = load_file(str(paths[4]), None, None, False)  # gzip
    assert isinstance(loaded.run, disk_runs.RunOnDisk) and loaded.run.attrs["name"] == "sys4"
    assert stat[0] == os.path.getsize(paths[4])
    _, q = load_file(str(qrels), None, None, False)
    assert q.kind == "qrels" and isinstance(q.qrels, Columns)
    assert disk_runs.head_of_run(str(qrels), None) is None
    assert disk_runs.head_of_run(str(paths[0]), "ranked") is None


def test_files_are_held_while_they_fit_in_the_budget(files, monkeypatch):
    qrels, paths = files
    size = os.path.getsize(paths[0])
    monkeypatch.setattr(disk_runs, "HOLD_BYTES", os.path.getsize(qrels) + 2 * size + 10)
    model = SessionModel()
    started = []
    model.files.open_files([str(qrels), *map(str, paths[:5])], start=started.append)
    assert [e.hold for e in started] == [True, True, True, False, False, False]
    for e in started:
        model.files.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None, e.hold))
    held = [isinstance(e.run, Columns) for e in model.workspace.run_entries()]
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
    shown = model.followups.drilldown_runs()
    assert set(shown) == best  # no baseline in this workspace
    # the baseline is shown beside the best; a run without a score (NaN) comes last
    runs, scores = ["a", "b", "c", "d"], {"a": 0.1, "b": float("nan"), "c": 0.9, "d": 0.5}
    assert drilldown_model.best_runs(runs, scores, "a", limit=2) == ["a", "c", "d"]
    assert drilldown_model.best_runs(runs, scores, None, limit=3) == ["a", "c", "d"]
    assert drilldown_model.best_runs(runs, {}, None, limit=2) == ["a", "b"]
    assert shown == [r for r in model.results.runs if r in shown]
    worst = on_query.idxmin()
    assert worst not in shown
    model.followups.choose_drilldown_run(worst, True)
    assert worst in model.followups.drilldown_runs()
    model.followups.choose_drilldown_run(shown[0], False)
    assert shown[0] not in model.followups.drilldown_runs()


def test_files_are_held_while_they_are_few(files, monkeypatch):
    qrels, paths = files
    monkeypatch.setattr(disk_runs, "HOLD_FILES", 3)
    model = SessionModel()
    started = []
    model.files.open_files([str(qrels), *map(str, paths[:2])], start=started.append)
    more = []
    model.files.open_files([str(p) for p in paths[2:5]], start=more.append)  # the slots left by the first files
    assert [e.hold for e in started] == [True, True, True] and [e.hold for e in more] == [False, False, False]


def test_files_opened_together_beyond_the_slots_left_are_all_on_disk(files, monkeypatch):
    """A folder of more runs than the window holds is scored from disk as a whole (by every core),
    not partly read into the window first."""
    qrels, paths = files
    monkeypatch.setattr(disk_runs, "HOLD_FILES", 4)
    model = SessionModel()
    started = []
    model.files.open_files([str(qrels), *map(str, paths[:5])], start=started.append)
    assert [e.hold for e in started] == [False] * 6
    for e in started:
        model.files.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None, e.hold))
    assert isinstance(model.workspace.qrels_entry().qrels, Columns)  # the qrels are read as ever
    assert all(isinstance(e.run, disk_runs.RunOnDisk) for e in model.workspace.run_entries())
    model.files.open_files([str(p) for p in paths[5:7]], start=started.append)  # few enough for the slots left
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


def _counting_submits(monkeypatch) -> list:
    """The labels of the runs sent to worker processes (every pool made from now on)."""
    sent: list[str] = []
    real_pool = disk_runs.Workers.pool

    def pool(self):
        made = real_pool(self)
        if not hasattr(made, "counted"):
            real_submit = made.submit
            made.submit = lambda fn, *args: (sent.append(args[1]) if args else None) or real_submit(fn, *args)
            made.counted = True
        return made

    monkeypatch.setattr(disk_runs.Workers, "pool", pool)
    return sent


def test_runs_on_disk_are_scored_ahead_while_files_are_read(files, monkeypatch):
    qrels, paths = files
    # the qrels and two runs held, the rest on disk
    monkeypatch.setattr(disk_runs, "HOLD_BYTES", os.path.getsize(qrels) + 2 * os.path.getsize(paths[0]) + 10)
    model = SessionModel()
    sent = _counting_submits(monkeypatch)
    started = []
    model.files.open_files([str(qrels), *map(str, paths[:6])], start=started.append)
    assert model.prescore_request() is None  # no qrels yet
    for e in started[:1] + started[3:]:  # the qrels and the runs on disk read; two runs held still loading
        model.files.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None, e.hold))
    assert model.workspace.loading()
    ahead = model.prescore_request()
    assert sorted(ahead.runs) == ["sys2", "sys3", "sys4", "sys5"]
    assert all(isinstance(r, disk_runs.RunOnDisk) for r in ahead.runs.values())
    lease = analysis.score_ahead(ahead, model.run_cache.service.lease())  # submitted, not awaited
    assert len(lease.keys) == 4
    for e in started[1:3]:
        model.files.finish_load(e.path, e.generation, load_file(e.path, e.forced_kind, None, e.hold))
    model.apply_results(analysis.compute(model.evaluation_request()))
    assert sorted(sent) == ["sys2", "sys3", "sys4", "sys5"]  # found under way or done: none sent again
    assert model.results.runs == [f"sys{r}" for r in range(6)] and model.results.failed == {}
    lease.close()  # (the session lets go of it once the evaluation is applied: the scores stay kept)
    monkeypatch.setattr(model.run_cache.service.workers, "pool", lambda: pytest.fail("scored again"))
    again = analysis.compute(model.evaluation_request())
    pd.testing.assert_frame_equal(again.summary, model.results.summary)
    model.run_cache.close()


def test_letting_go_of_the_scoring_ahead_stops_nothing_an_evaluation_awaits(files, monkeypatch):
    """The scoring done while files were read is let go (the lease closed, as once the evaluation is applied,
    or at Cancel) while the evaluation awaits the same runs: each run is still sent to the processes once,
    and the scores equal a fresh evaluation's."""
    qrels, paths = files
    cache = analysis.RunCache()
    sent = _counting_submits(monkeypatch)
    runs = _runs(paths, True)
    request = _request(qrels, runs, cache)
    lease = analysis.score_ahead(request, cache.service.lease())
    keys = lease.keys
    assert len(keys) == len(runs) and all(cache.service.holders(k) == 1 for k in keys)
    let_go = threading.Event()

    def let_go_once_awaited() -> None:  # as soon as the evaluation holds every run too
        while not all(cache.service.holders(k) >= 2 or cache.service.holders(k) == 0 for k in keys):
            threading.Event().wait(0.001)
        lease.close()
        let_go.set()

    thread = threading.Thread(target=let_go_once_awaited)
    thread.start()
    results = analysis.compute(request)
    thread.join(60)
    assert let_go.is_set() and sorted(sent) == sorted(runs) and not results.failed
    fresh = analysis.compute(_request(qrels, _runs(paths, True)))
    pd.testing.assert_frame_equal(results.summary, fresh.summary)
    pd.testing.assert_frame_equal(results.evaluation.per_query, fresh.evaluation.per_query)
    cache.close()


def test_runs_whose_processes_are_stopped_under_them_are_scored_again(files, monkeypatch):
    """The processes are stopped while an evaluation awaits runs they hold (a run nobody waits for any
    more was under way, or a process died): those runs are sent to new processes, and the scores equal a
    fresh evaluation's, rather than the evaluation failing with the broken pool."""
    qrels, paths = files
    cache = analysis.RunCache()
    runs = _runs(paths, True)
    sent = _counting_submits(monkeypatch)
    real_submit = cache.service.submit
    submitted: list = []

    def submit(key, here=None, there=None):
        future = real_submit(key, here, there)
        submitted.append(key)
        if len(submitted) == len(runs):  # every run sent: the processes stopped under them
            cache.service._stop_processes()
        return future

    monkeypatch.setattr(cache.service, "submit", submit)
    results = analysis.compute(_request(qrels, runs, cache))
    monkeypatch.undo()
    assert len(sent) > len(runs)  # some runs were sent again (not all of the ten were done when stopped)
    assert sorted(set(sent)) == sorted(runs) and not results.failed
    fresh = analysis.compute(_request(qrels, _runs(paths, True)))
    pd.testing.assert_frame_equal(results.summary, fresh.summary)
    pd.testing.assert_frame_equal(results.evaluation.per_query, fresh.evaluation.per_query)
    cache.close()


def test_the_processes_start_with_the_window_when_a_folder_holds_more_runs_than_it_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(disk_runs, "HOLD_FILES", 3)
    folder = tmp_path / "runs"
    (folder / "more").mkdir(parents=True)
    for name in ("a.run", "b.run", ".hidden"):
        (folder / name).write_text("1 Q0 d1 1 1.0 r\n")
    assert scoring_ahead.start([folder]) is None  # two visible files: held, no processes
    (folder / "more" / "c.run").write_text("1 Q0 d1 1 1.0 r\n")
    (folder / "more" / "d.run").write_text("1 Q0 d1 1 1.0 r\n")
    service, ahead = scoring_ahead.start([folder, tmp_path / "missing.txt"])
    try:
        assert ahead is None  # no qrels among the files: nothing to score before the session
        assert service.workers._pool is not None  # started before the session, for it
        assert analysis.RunCache().workers._pool is None  # a session's own: started on first use
    finally:
        service.close()


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
        pickle.dump(disk_runs.ScoringState(encode_qrels(read_columns(str(qrels), "qrels")), measures, SETTINGS), out)
    code = (
        "import sys\n"
        "from workbench.scoring import disk_runs\n"
        f"scored = disk_runs.score({str(state)!r}, 'r', {str(paths[0])!r})\n"
        "print(scored.queries, scored.evaluation.runs,"
        " [m for m in ('pandas', 'pyarrow', 'scipy', 'PySide6') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "15 ['r'] []"


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
        "        from workbench.scoring import disk_runs\n"
        "        pool = disk_runs.Workers().pool()\n"
        "        assert pool._mp_context.get_start_method() == ('spawn' if 'spawn' in sys.argv[1] else 'fork')\n"
        "    else:\n"
        "        import multiprocessing\n"
        "        from concurrent.futures import ProcessPoolExecutor\n"
        "        from metrics.engine.settings import Settings\n"
        "        from metrics.scale.parallel import _init_worker\n"
        "        init = (None, None, Settings(), None, None, None)\n"
        "        pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context('fork'),\n"
        "                                   initializer=_init_worker, initargs=init)\n"
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


_EARLY_SCRIPT = """
import gc, os, sys, threading
from workbench.system import process
process.prepare()
from workbench.scoring import disk_runs
disk_runs.HOLD_FILES = 2
files = sys.argv[2:]
if sys.argv[1] == "thread":  # another thread running: forking would copy the locks it may hold
    stop = threading.Event()
    threading.Thread(target=stop.wait).start()
from workbench.state import early as scoring_ahead
service, ahead = scoring_ahead.start(files)  # (the runs scored ahead too, meanwhile)
workers = service.workers
pool = workers.pool()
print(pool._mp_context.get_start_method(), gc.isenabled())
print(pool.submit(gc.isenabled).result(), pool.submit(os.getenv, "OPENBLAS_NUM_THREADS").result())
import pickle
from metrics.io.columns import read_columns
from metrics.measures import parse_measures
from metrics.ranking.qrels_index import encode_qrels
qrels = encode_qrels(read_columns(files[0], "qrels"))
measures = parse_measures(["map", "P.10", "ndcg_cut.10"])
from metrics.engine.settings import Settings
state = workers.state_file(disk_runs.ScoringState(qrels, measures, Settings(k_max=20)))
scored = [pool.submit(disk_runs.score, state, f"r{i}", p).result() for i, p in enumerate(files[1:])]
with open(os.environ["OUT"], "wb") as out:
    pickle.dump([(s.evaluation.per_query, s.pr, s.atk, s.queries) for s in scored], out)
service.close()
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

    assert not disk_runs.can_fork()


@pytest.fixture
def early_folder(files, tmp_path, monkeypatch):
    """A folder as given on the command line: the qrels and the 10 runs (more than the window holds)."""
    monkeypatch.setattr(disk_runs, "HOLD_FILES", 3)
    qrels, paths = files
    folder = tmp_path / "study"
    folder.mkdir()
    for p in (qrels, *paths):
        (folder / p.name).write_bytes(p.read_bytes())
    return folder


def _scored_early(folder, runs: int):
    """The service started on ``folder`` and the lease of the runs it scores ahead."""
    service, lease = scoring_ahead.start([folder])
    assert lease is not None and len(lease.keys) == runs
    return service, lease


def _opened(folder, names) -> tuple:
    """The qrels frame and the runs on disk as the session opens them (with their files' stat)."""
    qrels = metrics.io.readers.read_qrels(str(folder / "qrels.txt"))
    qrels.attrs["path"] = str(folder / "qrels.txt")
    runs = {}
    for name in names:
        run = disk_runs.head_of_run(str(folder / name), None)
        run.stat = disk_runs.stat_of(str(folder / name))
        runs[run.attrs["name"]] = run
    return qrels, runs


def _request_for(qrels, runs, measures=None, cache=None) -> analysis.Request:
    """As the session asks: the qrels known by their file as it is now (:func:`scoring.file_identity`)."""
    from workbench.scoring.defaults import DEFAULT_MEASURES

    path = qrels.attrs["path"]
    known = (scoring.file_identity(path, *disk_runs.stat_of(path), "qrels"),)
    return analysis.Request(
        qrels=(qrels,), runs=runs, measures=measures or DEFAULT_MEASURES, cache=cache, qrels_identity=known
    )


def test_runs_given_with_the_window_are_scored_before_its_session_and_found_by_its_evaluation(
    files, early_folder, monkeypatch
):
    """``ir-workbench FOLDER``: the runs in it are scored from the window's start with the session's defaults,
    under the keys of its first evaluation, which finds every one of them (none is sent again) and shows
    what it would have computed itself."""
    names = [p.name for p in files[1]]
    sent = _counting_submits(monkeypatch)
    service, lease = _scored_early(early_folder, len(names))
    assert sorted(k.label for k in lease.keys) == sorted(f"sys{r}" for r in range(10))
    qrels, runs = _opened(early_folder, names)
    try:
        results = analysis.compute(_request_for(qrels, runs, cache=analysis.RunCache(service)))
        assert sorted(sent) == sorted(runs)  # each run sent once: found waiting, under way or done
    finally:
        lease.close()
        service.close()
    again = analysis.compute(_request_for(qrels, runs, cache=analysis.RunCache()))  # another service: as usual
    assert results.failed == again.failed == {} and results.runs == again.runs
    pd.testing.assert_frame_equal(results.evaluation.per_query, again.evaluation.per_query)
    pd.testing.assert_frame_equal(results.summary, again.summary)
    assert results.coverage == again.coverage
    for q in [analysis.MEAN, *again.query_ids]:
        for r in again.runs:
            for a, b in ((again.pr, results.pr), (again.ndcg, results.ndcg)):
                if a.get(q, r) is not None:
                    np.testing.assert_array_equal(a.get(q, r)[1], b.get(q, r)[1])


@pytest.mark.parametrize("change", ["measures", "qrels touched", "run touched", "label", "two qrels parts", "level"])
def test_a_run_scored_before_the_session_is_scored_again_unless_asked_for_as_it_was_scored(
    files, early_folder, monkeypatch, change
):
    """Other measures or settings, a qrels or run file changed since, another label, other judgments: another
    key, scored again, and the numbers are those of the files as they are."""
    import time
    from dataclasses import replace

    from metrics.engine.settings import Settings

    names = [p.name for p in files[1]]
    sent = _counting_submits(monkeypatch)
    service, lease = _scored_early(early_folder, len(names))
    qrels, runs = _opened(early_folder, names)
    if change == "qrels touched":
        st = os.stat(early_folder / "qrels.txt")
        os.utime(early_folder / "qrels.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    if change == "run touched":
        target = early_folder / names[0]
        target.write_text(target.read_text().replace(" 1.0 ", " 0.95 ", 1))
        time.sleep(0.01)
        fresh = disk_runs.head_of_run(str(target), None)
        fresh.stat = disk_runs.stat_of(str(target))
        runs = {**runs, fresh.attrs["name"]: fresh}
    if change == "label":
        runs = {("renamed" if label == "sys0" else label): run for label, run in runs.items()}
    request = _request_for(qrels, runs, ("map", "P.5") if change == "measures" else None)
    if change == "two qrels parts":
        request = replace(request, qrels=(qrels, qrels.iloc[:10].copy()), qrels_identity=None)
    if change == "level":
        request = replace(request, settings=Settings(relevance_level=2))
    try:
        results = analysis.compute(replace(request, cache=analysis.RunCache(service)))
    finally:
        lease.close()
        service.close()
    again = {"measures": 10, "qrels touched": 10, "run touched": 1, "label": 1, "two qrels parts": 10, "level": 10}
    assert len(sent) == 10 + again[change]  # (the runs are sent in the order submitted: those ahead first)
    plain = analysis.compute(replace(request, cache=analysis.RunCache()))
    pd.testing.assert_frame_equal(results.evaluation.per_query, plain.evaluation.per_query)


def test_what_no_evaluation_holds_is_let_go(files, early_folder):
    """The runs scored before the session that no evaluation holds are let go with the lease (once the
    session has shown its first scores, or at Cancel): nothing keeps them, nothing waits for them."""
    names = [p.name for p in files[1]]
    service, lease = _scored_early(early_folder, len(names))
    futures = dict(lease._keys)
    lease.close()
    try:
        assert all(service.holders(key) == 0 for key in futures)
        assert all(f.done() for f in futures.values())  # (cancelled, or done before)
    finally:
        service.close()


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
        "from workbench.scoring import disk_runs\n"
        "from workbench.state import early as scoring_ahead\n"
        "disk_runs.HOLD_FILES = 3\n"
        "sent, real_pool = [], disk_runs.Workers.pool\n"
        "def pool(self):  # the runs sent to the processes, counted from the start\n"
        "    made = real_pool(self)\n"
        "    if not hasattr(made, 'counted'):\n"
        "        real, made.counted = made.submit, True\n"
        "        made.submit = lambda fn, *args: (sent.append(args[1]) if args else None) or real(fn, *args)\n"
        "    return made\n"
        "disk_runs.Workers.pool = pool\n"
        "early = scoring_ahead.start([sys.argv[2]])  # as ir-workbench FOLDER does, before Qt\n"
        "service, ahead = early\n"
        "method = service.workers.pool()._mp_context.get_start_method()\n"
        "ahead_keys = len(ahead.keys)\n"
        "from PySide6.QtCore import QSettings, QTimer\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from workbench.views.window.main_window import MainWindow\n"
        "w = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat), deferred=True)\n"
        "w.show()\n"
        "s = lambda: w.session\n"
        "w.startup.when_session_ready(lambda: (s().use_scoring(*early), s().reading.open_files([sys.argv[2]])))\n"
        "w.startup.when_ready(process.started)\n"
        "def check():\n"
        "    s = w.session if w.session_made else None\n"
        "    if s is not None and s.results is not None and not s.busy and w.built:\n"
        "        out = dict(method=method, ahead=ahead_keys, sent=sent,\n"
        "                   early_left=bool(s.reading.scored_ahead),\n"
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
    assert out["ahead"] == 10 and sorted(out["sent"]) == sorted(f"sys{r}" for r in range(10))  # each sent once
    assert not out["early_left"]  # let go once the scores were shown
    from workbench.scoring.defaults import DEFAULT_MEASURES

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

    from workbench.views.window.main_window import MainWindow

    service, lease = _scored_early(early_folder, len(files[1]))
    futures = dict(lease._keys)
    w = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    try:
        w.session.use_scoring(service, lease)
        w.session.cancel()
        assert all(service.holders(key) == 0 for key in futures)  # nothing holds them
        assert all(f.done() for f in futures.values())  # none left waiting: cancelled, or done before
    finally:
        w.session.shutdown()


def test_the_plan_before_the_session_takes_the_files_as_the_session_does(files, early_folder):
    """Queries (a topics TSV whose lines have six words and more), other files and a second qrels-like file
    are told apart as the session's loading does: no queries file is scored as a run, and without exactly
    one qrels file nothing is scored before the session."""
    (early_folder / "topics.tsv").write_text("".join(f"{q}\twhat is the best way to rank {q}\n" for q in range(5)))
    (early_folder / "notes.md").write_text("# notes\n")
    qrels, runs = scoring_ahead.plan([early_folder])
    assert qrels[0] == str(early_folder / "qrels.txt") and qrels[1] == disk_runs.stat_of(qrels[0])
    assert sorted(label for label, _ in runs) == sorted(f"sys{r}" for r in range(10))
    assert all(run.stat == disk_runs.stat_of(run.path) for _, run in runs)
    (early_folder / "more.qrels").write_bytes((early_folder / "qrels.txt").read_bytes())
    assert scoring_ahead.plan([early_folder]) is None  # two qrels files: the session decides


def test_runs_scored_ahead_are_held_together_until_the_evaluation(qtbot, files):
    """A window opened on a folder scores all its runs ahead from its start (one lease); while the files are
    read, the runs read so far are scored ahead too (another lease, of fewer runs).  Both are held until
    the evaluation is applied: letting go of the first let go of the runs only it held, and stopped the
    processes scoring them."""
    from workbench.qt.session import Session

    qrels, paths = files
    session = Session()
    try:
        service = session.model.run_cache.service
        every = analysis.score_ahead(_request(qrels, _runs(paths[:2], True), session.model.run_cache), service.lease())
        session.reading.hold_scored_ahead(every)
        read = analysis.score_ahead(_request(qrels, _runs(paths[:1], True), session.model.run_cache), service.lease())
        session.reading.take_scored_ahead(read)
        assert len(every.keys) == 2 and all(service.holders(k) >= 1 for k in every.keys)
        session.reading.let_go_of_scoring_ahead()
        assert all(service.holders(k) == 0 for k in every.keys)
    finally:
        session.shutdown()


def test_runs_scored_ahead_that_arrive_after_cancel_are_let_go(qtbot, files):
    """The scoring ahead is submitted in a job of its own; when that job ends after Cancel, what it
    submitted is let go at once rather than held until the next evaluation."""
    from workbench.qt.session import Session

    qrels, paths = files
    session = Session()
    try:
        request = _request(qrels, _runs(paths[:2], True), session.model.run_cache)
        lease = analysis.score_ahead(request, session.model.run_cache.service.lease())
        keys = lease.keys
        assert len(keys) == 2 and all(session.model.run_cache.service.holders(k) == 1 for k in keys)
        session.cancel()
        session.reading.take_scored_ahead(lease)
        assert session.reading.scored_ahead == []
        assert all(session.model.run_cache.service.holders(k) == 0 for k in keys)
    finally:
        session.shutdown()
