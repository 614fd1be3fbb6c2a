"""ir-eval --jobs: several processes, output byte-identical to one, in the order given."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest


@pytest.fixture
def many_runs(tmp_path):
    rng = np.random.default_rng(8)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} Q0 d{d} {int(rng.integers(0, 3))}\n" for q in range(30) for d in range(40)))
    paths = []
    for i in range(6):
        path = tmp_path / f"run{i}.txt"
        lines = []
        for q in range(30 if i != 4 else 25):  # one run misses queries: its warning comes in order too
            scores = np.round(rng.random(60), 2)  # ties
            for rank, d in enumerate(np.argsort(-scores), 1):
                lines.append(f"{q} Q0 d{d} {rank} {scores[d]} tag{i % 3}\n")
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qrels), paths


def ir_eval(*args):
    return subprocess.run([sys.executable, "-m", "metrics", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("flags", [["-q", "-m", "all_trec"], ["-c", "-m", "official"], ["-M", "5", "-m", "ndcg_cut.3"]])
def test_jobs_give_byte_identical_output_in_the_order_given(many_runs, flags):
    qrels, runs = many_runs
    one = ir_eval("--jobs", "1", *flags, qrels, *runs)
    two = ir_eval("--jobs", "3", *flags, qrels, *runs)
    assert one.returncode == two.returncode == 0, two.stderr
    assert one.stdout == two.stdout and one.stderr == two.stderr
    assert one.stdout.count("runid") in (0, 6)


def test_a_bad_run_among_many_is_reported_as_in_one_process(many_runs, tmp_path):
    qrels, runs = many_runs
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 x tag\n")
    out = ir_eval("--jobs", "2", "-m", "map", qrels, runs[0], str(bad))
    assert out.returncode == 2 and "bad.txt, line 1" in out.stderr and "Traceback" not in out.stderr
    assert ir_eval("--jobs", "0", qrels, *runs).returncode == 1


def test_runs_are_written_one_by_one_without_jobs(many_runs, tmp_path):
    """Several run files are scored and written one after the other (memory holds one run's values):
    the runs before a bad one are out when it is reported, and the output equals one call per run."""
    qrels, runs = many_runs
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 x tag\n")
    out = ir_eval("-m", "map", "-m", "P.5", qrels, runs[0], runs[1], str(bad), runs[2])
    assert out.returncode == 2 and "bad.txt, line 1" in out.stderr
    singly = [ir_eval("-m", "map", "-m", "P.5", qrels, run).stdout for run in runs[:2]]
    assert out.stdout == "".join(singly) and out.stdout.count("map") == 2


KILLER = """
import os, signal, sys
import metrics.scale.parallel as parallel
real = parallel._score_job
def dies_on_run3(path, *rest):  # a worker killed as the out-of-memory killer kills one
    if path.endswith("run3.txt"):
        os.kill(os.getpid(), signal.SIGKILL)
    return real(path, *rest)
parallel._score_job = dies_on_run3  # (the workers are forked: they score with this)
from metrics.cli.ir_eval import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the workers are forked on Linux")
def test_a_worker_killed_says_so_and_which_runs_are_not_scored(many_runs):
    """``--jobs 2`` with a worker killed (SIGKILL, as the OOM killer does): one line saying a worker process
    died and naming the runs not scored (it said "internal error: BrokenProcessPool ... --debug"), exit 3,
    and the output holds complete blocks of the runs before them only, none of run3 or later."""
    qrels, runs = many_runs
    out = subprocess.run(
        [sys.executable, "-c", KILLER, "--jobs", "2", "-m", "map", qrels, *runs],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 3, out.stderr
    assert out.stderr.count("\n") == 1 and "internal error" not in out.stderr and "Traceback" not in out.stderr
    assert "a worker process died" in out.stderr
    named = out.stderr.split("not scored: ", 1)[1].split("; ", 1)[0].split(", ")
    more = named[-1].split(" and ")  # (five are named, the rest counted: "run4.txt and 1 more")
    named[-1] = more[0]
    first = runs.index(named[0])  # (the runs in flight beside run3 when its worker died are not scored either)
    assert first <= 3 and named == runs[first : first + len(named)]
    assert first + len(named) + (int(more[1].split()[0]) if len(more) > 1 else 0) == len(runs)
    whole = subprocess.run(
        [sys.executable, "-m", "metrics", "-m", "map", qrels, *runs[:first]], capture_output=True, text=True
    )
    assert out.stdout == (whole.stdout if first else "")  # the runs before them, whole, nothing of the others
