"""ir-eval --dask and Evaluator.evaluate(client=...): a real LocalCluster, output byte for byte the serial one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import distributed  # the test extra installs it
import numpy as np
import pandas as pd
import pytest
import trec_eval_ref

import metrics
from metrics.cli.ir_eval import main
from metrics.scale import distributed as md
from metrics.scale.parallel import state

QUERIES = [str(q) for q in (19335, 47923, 87181, 87452, 104861, 130510, 131843, 146187, 148538, 156493, 182539)]


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


def _tasks(cluster, name: str = "score_task") -> int:
    prefix = cluster.scheduler.task_prefixes.get(name)  # dask drops the leading underscore
    return 0 if prefix is None else prefix.state_counts.get("memory", 0)  # transitions into memory, one per task


# ------------------------------------------------------------------------------- many runs in batches


@pytest.fixture(scope="module")
def many(data, tmp_path_factory):
    """40 small runs of different sizes (so that batches end at their byte limit too), with the quirks
    of ``data``: qrels queries a run lacks, a query without judgments, a tag that changes."""
    qrels, _ = data
    folder = tmp_path_factory.mktemp("many")
    rng = np.random.default_rng(40)
    paths = []
    for i in range(40):
        depth = int(rng.integers(5, 60))
        queries = QUERIES[: 8 + i % 4]  # most runs lack qrels queries: a warning each, in order
        lines = []
        for q in queries + (["999999"] if i % 9 == 4 else []):
            docs = rng.choice(400, size=depth, replace=False)
            scores = np.round(rng.normal(10, 2, size=depth), 1)  # ties
            lines += [f"{q} Q0 D{d} {r + 1} {s} tag{i % 7}\n" for r, (d, s) in enumerate(zip(docs, scores))]
        if i % 13 == 6:
            lines[-1] = lines[-1].replace(f"tag{i % 7}", "other")  # the tag changes on the last line
        path = folder / f"small{i}.txt"
        path.write_text("".join(lines))
        paths.append(str(path))
    return qrels, paths


def _scored(cluster) -> tuple[int, int]:
    """Tasks the scheduler ran so far: those of one run (or part), and those of several runs."""
    return _tasks(cluster), _tasks(cluster, "score_batch")


@pytest.mark.parametrize(
    "flags", [["-m", "all_trec"], ["-q", "-m", "all_trec"], ["-c", "-m", "official"], ["-c", "-q", "-m", "P.5"]]
)
def test_many_small_runs_are_scored_in_batches_byte_identical_to_one_process(cluster, many, capsys, flags):
    qrels, runs = many
    serial = ir_eval(capsys, "--jobs", "1", *flags, qrels, *runs)
    assert serial[0] == 0 and "warning" in serial[2]
    one, several = _scored(cluster)
    assert ir_eval(capsys, "--dask", cluster.scheduler_address, *flags, qrels, *runs) == serial
    one, several = _tasks(cluster) - one, _tasks(cluster, "score_batch") - several
    # 40 runs on 2 worker threads: 2 runs per task (each thread gets 8 tasks or more), no run alone
    assert (one, several) == (0, 20)


def test_batches_end_at_their_byte_limit_and_at_0_every_run_is_a_task(cluster, many, capsys, monkeypatch):
    qrels, runs = many
    serial = ir_eval(capsys, "--jobs", "1", "-q", qrels, *runs)
    monkeypatch.setattr(md, "BATCHES_PER_THREAD", 1)  # up to 20 runs per task
    sizes = [os.path.getsize(path) for path in runs]
    limit = sum(sizes) // 5
    expected = len(list(md._batches(runs, os.path.getsize, 20, limit)))
    assert 5 <= expected < 10
    for value, tasks in [(str(limit), (0, expected)), ("0", (len(runs), 0)), (None, (0, 2))]:
        if value is None:
            monkeypatch.delenv(md.BATCH_ENV)
        else:
            monkeypatch.setenv(md.BATCH_ENV, value)
        one, several = _scored(cluster)
        assert ir_eval(capsys, "--dask", cluster.scheduler_address, "-q", qrels, *runs) == serial
        assert (_tasks(cluster) - one, _tasks(cluster, "score_batch") - several) == tasks, value


def test_a_bad_file_in_a_batch_gives_the_output_and_error_of_one_process(cluster, many, capsys, tmp_path, monkeypatch):
    qrels, runs = many
    monkeypatch.setattr(md, "BATCHES_PER_THREAD", 1)  # 20 runs per task: the bad files are inside a batch
    monkeypatch.chdir(tmp_path)  # named as given, relative
    lines = open(runs[0]).readlines()
    lines[6] = lines[6].replace(" Q0 ", " Q0 D1 x ", 1)  # a line of 7 fields
    Path("bad.txt").write_text("".join(lines))
    Path("text.txt").write_bytes(b"".join(line.encode() for line in lines[:3]) + b"19335 Q0 \x00 1 2 t\n")
    Path("folder").mkdir()
    for bad in ("bad.txt", "text.txt", "absent.txt", "folder"):
        args = ["-q", "-m", "map", "-m", "P.5", qrels, *runs[:9], bad, *runs[9:]]
        several = _tasks(cluster, "score_batch")
        code, out, err = ir_eval(capsys, "--dask", cluster.scheduler_address, *args)
        assert (code, out, err) == ir_eval(capsys, "--jobs", "1", *args), bad
        assert code == 2 and err.splitlines()[-1].startswith(f"ir-eval: {bad}"), err
        assert out == ir_eval(capsys, "-q", "-m", "map", "-m", "P.5", qrels, *runs[:9])[1]  # the runs before it
        if bad in ("bad.txt", "text.txt"):  # in a batch with the runs before it (a file unseen here: alone)
            assert _tasks(cluster, "score_batch") - several >= 1
    assert "bad.txt, line 7" in ir_eval(capsys, "--dask", cluster.scheduler_address, qrels, runs[0], "bad.txt")[2]
    _released(cluster)


def test_urls_and_large_runs_in_parts_are_tasks_of_their_own_among_batches(cluster, many, capsys, monkeypatch):
    qrels, runs = many
    monkeypatch.setattr(md, "BATCHES_PER_THREAD", 1)
    given = [f"file://{path}" if i % 10 == 3 else path for i, path in enumerate(runs)]
    largest = max(os.path.getsize(path) for path in given if "://" not in path)
    monkeypatch.setenv("IR_EVAL_SPLIT_BYTES", str(largest))  # the largest file (not a URL) in 2 parts
    for flags in (["-q", "-m", "all_trec"], ["-c", "-m", "official"]):
        serial = ir_eval(capsys, "--jobs", "1", *flags, qrels, *runs)
        one, several = _scored(cluster)
        assert ir_eval(capsys, "--dask", cluster.scheduler_address, *flags, qrels, *given) == serial
        one, several = _tasks(cluster) - one, _tasks(cluster, "score_batch") - several
        assert one >= 4 + 2 and 5 <= several < 12, (one, several)  # 4 URLs, the 2 parts (and maybe one more)


def test_evaluator_with_a_client_scores_many_paths_in_batches_as_one_process(cluster, client, many, monkeypatch):
    qrels, runs = many
    ev = metrics.evaluator(metrics.read_qrels(qrels), ["map", "nDCG@10", "P.5", "runid"])
    frame = metrics.read_run(runs[7])
    monkeypatch.chdir(os.path.dirname(runs[0]))
    runs = [os.path.basename(path) if i % 2 == 0 else path for i, path in enumerate(runs)]  # warnings name them so
    given = {**{f"r{i}": path for i, path in enumerate(runs)}, "frame": frame}  # a frame: a task of its own
    before = _tasks(cluster, "evaluate_batch")
    got, expected = ev.evaluate(given, client=client), ev.evaluate(given)
    assert _tasks(cluster, "evaluate_batch") - before == 20
    got_list = ev.evaluate(runs, client=client)  # labelled by their tags, made unique, as evaluate does
    assert "small6.txt: the run tag changes from 'tag6' (first line) to 'other' (last line); the run is " in (
        "".join(got.warnings)
    )
    for got, expected in [(got, expected), (got_list, ev.evaluate(runs))]:
        assert got.runs == expected.runs and got.query_ids == expected.query_ids and got.warnings == expected.warnings
        for key in ("per_query", "aggregate", "text"):
            pd.testing.assert_frame_equal(getattr(got, key), getattr(expected, key))
    with pytest.raises(FileNotFoundError, match="absent.txt"):
        ev.evaluate([*runs[:20], "absent.txt", *runs[20:]], client=client)
    _released(cluster)


def test_batches_are_made_lazily_and_hold_what_they_may():
    seen = []

    def items():
        for i in range(10):
            seen.append(i)
            yield i

    batches = md._batches(items(), lambda i: None if i == 5 else i, 3, 15)  # size i bytes, 3 items, 15 bytes
    assert next(batches) == [0, 1, 2] and seen == [0, 1, 2, 3]  # one item beyond, to know the batch is full
    assert list(batches) == [[3, 4], [5], [6, 7], [8], [9]]  # 5: of unknown size; 6 + 7 + 8 > 15; 8 + 9 > 15
    assert list(md._batches(iter([20, 1, 2]), lambda i: i, 3, 15)) == [[20], [1, 2]]  # over the limit: alone
    assert list(md._batches(range(5), lambda i: 1, 1, 100)) == [[i] for i in range(5)]

    def task(shared, x):
        if x == 2:
            raise ValueError(lambda: x)  # does not pickle: sent back as a RuntimeError that says what it was
        return shared + x

    done = md._each(task, 10, [(1,), (2,), (3,)])  # stops at the first error
    assert done[0] == 11 and len(done) == 2 and isinstance(done[1], RuntimeError)
    assert str(done[1]).startswith("ValueError: <function")
    assert md._per_batch(15, 2, md.BATCH_BYTES) == 1  # fewer than 8 runs per worker thread: one task each
    assert md._per_batch(100, 2, md.BATCH_BYTES) == 6 and md._per_batch(10**5, 64, md.BATCH_BYTES) == md.BATCH_FILES
    assert md._per_batch(10**5, 2, 0) == 1


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
        tails = [f" Q0 d{d} {d} {1 / d:.6f} r\n" for d in range(1, 2001)]  # the same for every query
        for q in range(300):
            fh.write(str(q) + str(q).join(tails))
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
    encoded = metrics.ranking.judged.encode_qrels(metrics.read_qrels(qrels))
    measures = metrics.parse_measures("map")
    shared = state(encoded, measures, metrics.Settings(), ranked=False, queries=False, summary=True)
    order = [runs[3], runs[0], runs[3], runs[6]]  # the same run twice: two tasks, two blocks
    client.wait_for_workers(2, timeout=60)  # (a worker of the module's cluster may still be coming back)
    _idle(client)  # (a task the last test cancelled may still run: its worker once missed the broadcast)
    results = md.score_runs(client, shared, order)
    try:
        first = next(results)
        for _ in range(400):  # (the scheduler may hear of the second copy a while after the first result)
            holders = [ts.who_has for key, ts in cluster.scheduler.tasks.items() if str(key).startswith("WorkerState-")]
            if [len(h) for h in holders] == [2]:
                break
            time.sleep(0.05)
        assert [len(h) for h in holders] == [2]  # broadcast: one copy on each worker, sent once
        assert [first.path] + [s.path for s in results] == order
    finally:
        results.close()  # (a failure here leaves no task held for the next test to find)
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
        assert got.paths == expected.paths  # (the files the runs were read from, as given)
        for key in ("per_query", "aggregate", "text"):
            pd.testing.assert_frame_equal(getattr(got, key), getattr(expected, key))
    assert expected.runs == ["tag2"]
    assert ev.evaluate([], client=client).runs == []
    _released(cluster)  # the frames sent to the workers and the evaluator are let go


def _idle(client) -> None:
    """Wait until no worker runs a task (a task cancelled by the scheduler runs on to its end)."""
    for _ in range(600):
        if not any(client.run(lambda dask_worker: len(dask_worker.state.executing)).values()):
            return
        time.sleep(0.05)
    raise AssertionError("a worker is still running a task after 30 s")


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
