"""ir-eval --dask and Evaluator.evaluate(client=...): a real LocalCluster, output byte for byte the serial one."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import distributed  # the test extra installs it
import numpy as np
import pandas as pd
import pytest
import trec_eval_ref

import metrics
from metrics import distributed as md
from metrics.cli import main
from metrics.parallel import state

QUERIES = [str(q) for q in (19335, 47923, 87181, 87452, 104861, 130510, 131843, 146187, 148538, 156493, 182539)]


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, host="127.0.0.1"
    ) as local:
        yield local


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster, set_as_default=False) as c:
        yield c


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """DL19-shaped runs (numeric query ids, graded judgments with negative grades, ties, unjudged
    documents) at small depth; the first run is the largest, so later runs finish first on the cluster."""
    folder = tmp_path_factory.mktemp("dl19")
    rng = np.random.default_rng(14)
    qrels = folder / "qrels.txt"
    with open(qrels, "w") as f:
        for q in QUERIES:
            for d in rng.choice(400, size=60, replace=False):
                f.write(f"{q} Q0 D{d} {rng.choice([-1, 0, 0, 1, 1, 2, 3])}\n")
    paths = []
    for i in range(7):
        depth = 400 if i == 0 else 30
        queries = QUERIES[:-3] if i == 3 else QUERIES  # run 3 misses three qrels queries
        lines = []
        for q in queries + (["999999"] if i == 5 else []):  # run 5 has a query without judgments
            docs = rng.choice(400, size=depth, replace=False)
            scores = np.round(rng.normal(10, 2, size=depth), 1)  # ties
            lines += [f"{q} Q0 D{d} {r + 1} {s} tag{i}\n" for r, (d, s) in enumerate(zip(docs, scores))]
        path = folder / f"run{i}.txt"
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qrels), paths


def ir_eval(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    "flags", [["-q", "-m", "all_trec"], ["-c", "-m", "official"], ["-q", "-M", "5", "-l", "2", "-m", "ndcg_cut.3"]]
)
def test_dask_output_is_byte_identical_to_one_process_in_the_order_given(cluster, data, capsys, flags):
    qrels, runs = data
    runs = runs[::2] + runs[1::2]  # not in file order
    serial = ir_eval(capsys, "--jobs", "1", *flags, qrels, *runs)
    before = _tasks(cluster)
    on_cluster = ir_eval(capsys, "--dask", cluster.scheduler_address, *flags, qrels, *runs)
    assert on_cluster == serial and serial[0] == 0
    assert _tasks(cluster) - before == len(runs)  # one task per run
    if "-c" not in flags:
        assert "run 'tag3': 3 qrels queries without results skipped" in serial[2]
    if "all_trec" in flags:
        assert [line.split()[-1] for line in serial[1].splitlines() if line.startswith("runid")] == [
            f"tag{path[-5]}" for path in runs
        ]


@pytest.mark.skipif(not trec_eval_ref.BIN, reason=trec_eval_ref.REASON)
def test_dask_output_is_trec_evals_run_after_run(cluster, data, capsys):
    qrels, runs = data
    complete = [runs[i] for i in (6, 0, 5, 2)]  # every qrels query retrieved (trec_eval 10.0 aborts otherwise)
    code, out, err = ir_eval(capsys, "--dask", cluster.scheduler_address, "-q", "-m", "all_trec", qrels, *complete)
    expected = "".join(
        subprocess.run(
            [trec_eval_ref.BIN, "-q", "-m", "all_trec", qrels, run], capture_output=True, text=True, check=True
        ).stdout
        for run in complete
    )
    assert code == 0 and err == "" and out == expected


def test_ranked_judgments_on_the_cluster_as_in_one_process(cluster, data, capsys, tmp_path):
    qrels, runs = data
    ranked = []
    for i, path in enumerate(runs[:3]):
        rows = [line.split() for line in open(path)]
        out = tmp_path / f"ranked{i}.txt"  # qid Q0 docid grade, best first: the run's order, its rank as grade
        out.write_text("".join(f"{q} Q0 {d} {int(r) % 4} \n" for q, _, d, r, *_ in rows))
        ranked.append(str(out))
    serial = ir_eval(capsys, "--jobs", "1", "--ranked", "-q", "-m", "all_trec", qrels, *ranked)
    assert serial[0] == 0 and "ranked1" in serial[1]  # ranked judgments are named after their file
    ranked[1] = f"file://{ranked[1]}"  # read from a copy that keeps the file's name
    assert ir_eval(capsys, "--dask", cluster.scheduler_address, "--ranked", "-q", "-m", "all_trec", qrels, *ranked) == (
        serial
    )


def _tasks(cluster) -> int:
    prefix = cluster.scheduler.task_prefixes.get("score_task")  # dask drops the leading underscore
    return 0 if prefix is None else prefix.state_counts.get("memory", 0)  # transitions into memory, one per task


def test_the_environment_variable_chooses_the_cluster_and_urls_are_read_by_the_workers(
    cluster, data, capsys, monkeypatch
):
    qrels, runs = data
    serial = ir_eval(capsys, "--jobs", "1", "-q", qrels, *runs)
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", cluster.scheduler_address)
    before = _tasks(cluster)
    assert ir_eval(capsys, "-q", qrels, *(f"file://{path}" for path in runs)) == serial
    assert _tasks(cluster) - before == len(runs)
    assert ir_eval(capsys, "--jobs", "1", "-q", qrels, *runs) == serial  # --jobs: here, not there
    assert _tasks(cluster) - before == len(runs)


def test_bad_and_missing_run_files_are_named_as_given(cluster, data, capsys, tmp_path, monkeypatch):
    qrels, runs = data
    monkeypatch.chdir(tmp_path)  # relative paths: the workers read them made absolute, errors name them as given
    (tmp_path / "bad.txt").write_text("19335 Q0 D1 1 x tag\n")
    for bad, message in [("bad.txt", "ir-eval: bad.txt, line 1: "), ("absent.txt", "ir-eval: absent.txt: ")]:
        args = ["-m", "map", qrels, runs[1], bad, runs[2]]
        code, out, err = ir_eval(capsys, "--dask", cluster.scheduler_address, *args)
        serial = ir_eval(capsys, "--jobs", "1", *args)
        assert code == serial[0] == 2 and err == serial[2] and err.startswith(message) and err.count("\n") == 1
        assert out == ir_eval(capsys, "-m", "map", qrels, runs[1])[1]  # the runs before it, then stop
    code, out, err = ir_eval(capsys, "--dask", cluster.scheduler_address, "-m", "map", qrels, "file:///nowhere/r.txt")
    assert code == 2 and err == "ir-eval: file:///nowhere/r.txt: no such file\n"


def test_ctrl_c_is_one_line_and_status_130_and_the_tasks_are_cancelled(cluster, tmp_path):
    big, qrels = tmp_path / "big.run", tmp_path / "big.qrels"
    with open(big, "w") as fh:
        for q in range(300):
            fh.write("".join(f"{q} Q0 d{d} {d} {1 / d:.6f} r\n" for d in range(1, 2001)))
    qrels.write_text("".join(f"{q} 0 d{d} 1\n" for q in range(300) for d in (1, 7, 50)))
    cmd = [sys.executable, "-m", "metrics", "--dask", cluster.scheduler_address, "-m", "all_trec", qrels] + [big] * 16
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.readline()  # the first runs are written: well into the work
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    if proc.returncode == 130:
        assert err == "ir-eval: interrupted\n"
    else:  # a very fast machine finished first: nothing was interrupted
        assert proc.returncode == 0 and err == ""
    _released(cluster)


def test_the_scattered_state_is_on_every_worker_and_results_come_in_order(cluster, client, data):
    qrels, runs = data
    encoded = metrics.ranking.encode_qrels(metrics.read_qrels(qrels))
    shared = state(encoded, metrics.parse_measures("map"), {}, ranked=False, queries=False, summary=True)
    order = [runs[3], runs[0], runs[3], runs[6]]  # the same run twice: two tasks, two blocks
    results = md.score_runs(client, shared, order)
    first = next(results)
    holders = [ts.who_has for key, ts in cluster.scheduler.tasks.items() if str(key).startswith("dict-")]
    assert [len(h) for h in holders] == [2]  # broadcast: one copy on each worker, sent once
    assert [first.path] + [s.path for s in results] == order
    _released(cluster)


def test_evaluator_with_a_client_gives_the_evaluation_of_one_process(cluster, client, data):
    qrels, runs = data
    frame = metrics.read_run(runs[4])
    frame.attrs.pop("name")  # an unnamed frame is labelled by its position
    twin = metrics.read_run(runs[1], "tag1")  # a second run named tag1: tag1_2
    orphan = metrics.read_run(runs[5])
    orphan = orphan[orphan["query_id"] == "999999"]  # no query with judgments: a warning naming its label
    orphan.attrs.update(name="tag1")
    ev = metrics.evaluator(metrics.read_qrels(qrels), ["map", "nDCG@10", "P.5", "relstring.5", "runid"], complete=False)
    for runs_given in (
        [runs[1], frame, twin, runs[3], orphan, runs[6]],
        {"a": runs[0], 7: frame, "b": twin},
        {q: dict(zip(g["doc_id"], g["score"])) for q, g in frame.groupby("query_id")},  # one run as a dict
        runs[2],
    ):
        got, expected = ev.evaluate(runs_given, client=client), ev.evaluate(runs_given)
        assert got.runs == expected.runs and got.query_ids == expected.query_ids
        assert got.warnings == expected.warnings and got.settings == expected.settings and got.names == expected.names
        for key in ("per_query", "aggregate", "text"):
            pd.testing.assert_frame_equal(getattr(got, key), getattr(expected, key))
    assert expected.runs == ["tag2"]
    assert ev.evaluate([], client=client).runs == []
    _released(cluster)  # the frames sent to the workers and the evaluator are let go


def _released(cluster) -> None:
    for _ in range(100):  # the scheduler hears of releases a moment later
        if not cluster.scheduler.tasks:
            return
        time.sleep(0.05)
    raise AssertionError(f"still held on the cluster: {list(cluster.scheduler.tasks)}")


def test_without_dask_the_flag_says_what_to_install(data, capsys, monkeypatch):
    qrels, runs = data
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    code, out, err = ir_eval(capsys, "--dask", "tcp://127.0.0.1:8786", qrels, *runs)
    assert code == 1 and out == "" and err.count("\n") == 1 and "pip install 'ir-workbench[dask]'" in err
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://127.0.0.1:8786")
    code, out, err = ir_eval(capsys, qrels, *runs)
    assert code == 1 and err.count("\n") == 1 and "ir-workbench[dask]" in err and "$DASK_SCHEDULER_ADDRESS" in err
    assert ir_eval(capsys, "-M", "-1", qrels, *runs)[1:] == ("", "ir-eval: -M must be 0 or more, not -1\n")
    with pytest.raises(md.DaskUnavailable, match=r"ir-workbench\[dask\]"):
        md.connect("tcp://127.0.0.1:8786")


def test_a_scheduler_that_cannot_be_reached_is_one_line(data, capsys):
    qrels, runs = data
    code, out, err = ir_eval(capsys, "--dask", "127.0.0.1", qrels, *runs)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith("ir-eval: cannot reach the Dask scheduler at 127.0.0.1: ")


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--jobs", "2"], "--dask and --jobs"),
        (["--format", "csv"], "--dask prints trec_eval's output"),
        (["--all-pairs"], "--dask prints trec_eval's output"),
    ],
)
def test_options_that_cannot_go_with_dask_are_usage_errors(data, capsys, flags, message):
    qrels, runs = data
    code, out, err = ir_eval(capsys, "--dask", "tcp://127.0.0.1:8786", *flags, qrels, *runs)
    assert code == 1 and out == "" and err.startswith(f"ir-eval: {message}") and err.count("\n") == 1
