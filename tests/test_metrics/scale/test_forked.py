"""Several run files shared with forked copies of the process (``ir-eval`` on a few runs, no ``--jobs``):
the output, the errors and the exit status of one process, whatever a copy does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from metrics.scale import forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="copies are forked")


#: the checks of forked.in_order, each run in a fresh interpreter (one thread: a test process may hold others)
CHECKS = """
import os, signal, sys, threading
from metrics.scale import forked

PARENT = os.getpid()


def tagged(task):
    if task.startswith("bad"):
        raise ValueError(f"{task} is bad")
    return task, os.getpid()


def order():  # in order, the first (largest) slice here, each later one from one copy
    tasks = [f"t{i}" for i in range(7)]
    results = list(forked.in_order(tasks, tagged, 3))
    assert [task for task, _ in results] == tasks
    pids = [pid for _, pid in results]
    assert pids[:3] == [PARENT] * 3
    assert len(set(pids[3:5])) == len(set(pids[5:])) == 1 and len(set(pids)) == 3


def failing():  # a copy's failing task is done again here: the results before it, then its error
    given = []
    try:
        for task, _ in forked.in_order(["t0", "t1", "t2", "bad3", "t4"], tagged, 2):
            given.append(task)
    except ValueError as exc:
        assert str(exc) == "bad3 is bad"
    else:
        raise AssertionError("no error")
    assert given == ["t0", "t1", "t2"]


def dies_on(task):
    if task == "t3" and os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer kills
    return task, os.getpid()


def killed():  # a copy killed is made up for here
    results = list(forked.in_order([f"t{i}" for i in range(6)], dies_on, 2))
    assert [task for task, _ in results] == [f"t{i}" for i in range(6)]
    assert {pid for task, pid in results if task >= "t3"} == {PARENT}


def threads():  # another thread running: nothing is forked
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not forked.available()
        results = list(forked.in_order(["t0", "t1", "t2"], tagged, 2))
    finally:
        stop.set()
        other.join()
    assert {pid for _, pid in results} == {PARENT}


def left_early():  # copies left early (the output closed, Ctrl-C) are killed and reaped
    children, fork = [], forked._Copy.fork

    def counted(*args):
        copy = fork(*args)
        children.append(copy.pid)
        return copy

    forked._Copy.fork = counted
    results = forked.in_order([f"t{i}" for i in range(6)], tagged, 3)
    next(results)
    results.close()
    assert len(children) == 2
    for pid in children:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue  # reaped already
        raise AssertionError(f"copy {pid} not reaped")


def ctrl_c_while_forking():  # a Ctrl-C handled in the fork's own handlers is told once it is done
    real, forked_pids = os.fork, []

    def fork():
        pid = real()
        forked_pids.append(pid)
        return pid

    os.fork = fork
    # (as logging's handler after a fork: a Ctrl-C raised in one was printed as ignored, and lost)
    os.register_at_fork(after_in_parent=lambda: (os.kill(os.getpid(), signal.SIGINT), sum(range(1000))))
    told = []
    try:
        list(forked.in_order([f"t{i}" for i in range(4)], tagged, 2))
    except KeyboardInterrupt:
        told.append("interrupted")
    assert told == ["interrupted"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    for pid in forked_pids:  # the copy forked then is killed and reaped
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        raise AssertionError(f"copy {pid} not reaped")


globals()[sys.argv[1]]()
print("ok")
"""


@pytest.mark.parametrize("check", ["order", "failing", "killed", "threads", "left_early", "ctrl_c_while_forking"])
def test_in_order(check):
    out = subprocess.run([sys.executable, "-c", CHECKS, check], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout == "ok\n", out.stderr


def test_slices_are_contiguous_and_even_the_larger_first():
    assert forked._slices(5, 2) == [(0, 3), (3, 5)]
    assert forked._slices(2, 8) == [(0, 1), (1, 2)]
    assert forked._slices(1, 2) == [(0, 1)]
    assert forked._slices(6, 1) == [(0, 6)]


# ---------------------------------------------------------------------------------------------- ir-eval


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(3)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} Q0 d{d} {int(rng.integers(0, 3))}\n" for q in range(20) for d in range(50)))
    paths = []
    for i in range(5):
        path = tmp_path / f"run{i}.txt"
        queries = range(20 if i != 3 else 15)  # one run misses queries: its warning comes in order too
        lines = []
        for q in queries:
            scores = np.round(rng.random(80), 2)
            lines += [f"{q} Q0 d{d} {r} {scores[d]} tag{i}\n" for r, d in enumerate(np.argsort(-scores), 1)]
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qrels), paths


def ir_eval(*args, **kw):
    return subprocess.run(
        [sys.executable, "-m", "metrics", *map(str, args)], capture_output=True, text=True, timeout=120, **kw
    )


@pytest.mark.parametrize("flags", [["-q", "-m", "all_trec"], ["-c", "-m", "official"], ["-n", "-m", "P.5"]])
def test_the_output_is_that_of_one_process(runs, flags):
    qrels, paths = runs
    one = ir_eval("--jobs", "1", *flags, qrels, *paths)
    shared = ir_eval(*flags, qrels, *paths)
    assert one.returncode == shared.returncode == 0, shared.stderr
    assert shared.stdout == one.stdout and shared.stderr == one.stderr
    assert "run 'run3.txt'" in one.stderr or "warning" in one.stderr or "-c" in flags


@pytest.mark.parametrize("where", [1, 3])  # in this process's slice, in the copy's
def test_a_bad_run_is_reported_as_by_one_process(runs, tmp_path, where):
    qrels, good = runs
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 0.5 tag\n1 Q0 d2 2 x tag\n")
    paths = good[:where] + [str(bad)] + good[where:]
    one = ir_eval("--jobs", "1", "-m", "map", qrels, *paths)
    shared = ir_eval("-m", "map", qrels, *paths)
    assert one.returncode == shared.returncode == 2
    assert shared.stdout == one.stdout and shared.stderr == one.stderr
    assert "bad.txt, line 2" in shared.stderr and "Traceback" not in shared.stderr
    assert shared.stdout.count("map") == where
    missing = ir_eval("-m", "map", qrels, *good[:3], tmp_path / "missing.txt")
    assert missing.returncode == 2 and "missing.txt" in missing.stderr and "Traceback" not in missing.stderr


KILLED = """
import os, signal, sys
import metrics.scale.parallel as parallel
parent, real = os.getpid(), parallel._score
def dies_on_run3(path):  # a copy killed as the out-of-memory killer kills one
    if path.endswith("run3.txt") and os.getpid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(path)
parallel._score = dies_on_run3
from metrics.cli.ir_eval import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_copy_killed_changes_nothing(runs):
    qrels, paths = runs
    out = subprocess.run(
        [sys.executable, "-c", KILLED, "-m", "map", qrels, *paths], capture_output=True, text=True, timeout=120
    )
    one = ir_eval("--jobs", "1", "-m", "map", qrels, *paths)
    assert out.returncode == 0 and out.stdout == one.stdout and out.stderr == one.stderr


@pytest.mark.parametrize("copies", [4, 8])  # 20 MiB of runs: forked copies; 40 MiB: a pool of workers
def test_ctrl_c_is_one_line_and_leaves_no_process(tmp_path, copies):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} 0 d{d} 1\n" for q in range(200) for d in (1, 7, 50)))
    with open(run, "w") as fh:
        tails = [f" Q0 d{d} {d} {1 / d:.6f} r\n" for d in range(1, 1001)]
        for q in range(200):
            fh.write(str(q) + str(q).join(tails))
    cmd = [sys.executable, "-m", "metrics", "-q", "-m", "all_trec", qrels] + [run] * copies
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline and not _children(proc.pid):
        time.sleep(0.01)  # until a copy or a worker is forked: past start-up, the qrels read
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    if proc.returncode == 130:
        assert err.strip() == "ir-eval: interrupted"
    else:  # a very fast machine finished first
        assert proc.returncode == 0 and "Traceback" not in err
    time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)  # nothing of its session is left


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []
