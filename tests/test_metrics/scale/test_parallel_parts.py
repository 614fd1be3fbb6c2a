"""One large run scored in parts (query ranges of the file) by --jobs and on a Dask cluster: the output
is byte for byte that of one process, and of trec_eval; files that cannot be split are scored whole."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys

import numpy as np
import pytest
import trec_eval_ref

from metrics.cli.ir_eval import main
from metrics.engine.settings import Settings
from metrics.io.columns import read_columns
from metrics.measures import parse_measures
from metrics.ranking.judged import encode_qrels
from metrics.scale import parallel as mp
from metrics.scale import parts as split_parts

SPLIT = "400000"  # bytes: the runs below (1.7 and 7 MB) are cut in two, one part per process or worker
# ir-eval in a process of its own, which says how many runs were merged from parts and how many not
RUNNER = """
import sys
import metrics.scale.parts as split_parts
merged = []
original = split_parts.merge
def merge(*args, **kwargs):
    result = original(*args, **kwargs)
    merged.append(result is not None)
    return result
split_parts.merge = merge
from metrics.cli.ir_eval import main
code = main(sys.argv[1:])
sys.stderr.write(f"merged: {merged}\\n")
sys.exit(code)
"""


def _run_lines(rng, queries, depth, tag):
    lines = []
    for q in queries:
        docs = rng.choice(3000, size=depth, replace=False)
        scores = np.round(rng.normal(10, 2, size=depth), 1)  # ties
        lines.append([f"{q} Q0 D{d} {r + 1} {s} {tag(q)}\n" for r, (d, s) in enumerate(zip(docs, scores))])
    return lines


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """250 queries x 1,000 documents (ties, mostly unjudged), query ids whose file order is not trec_eval's;
    qrels of 253 queries (3 not in the run; one with negative grades only, one with a grade 4 where the
    others stop at 3), the last query's tag not the first's.  small.txt: its first 60 queries, and
    mixed.txt the same lines with each query in two halves far apart (not grouped by query)."""
    folder = tmp_path_factory.mktemp("parts")
    rng = np.random.default_rng(21)
    queries = [str(q) for q in rng.choice(200_000, size=253, replace=False)]
    run_queries = queries[:250]
    qrels_rows = []
    for i, q in enumerate(queries):
        docs = rng.choice(3000, size=60, replace=False)
        grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=60)
        if i == 40:
            grades = np.full(60, -1)  # gain measures give it the grades of the query before it
        if i == 200:
            grades[0] = 4  # the highest grade is in one query only
        qrels_rows += [f"{q} 0 D{d} {g}\n" for d, g in zip(docs, grades)]
    (folder / "qrels.txt").write_text("".join(qrels_rows))
    (folder / "qrels_run.txt").write_text("".join(r for r in qrels_rows if r.split()[0] in set(run_queries)))
    blocks = _run_lines(rng, run_queries, 1000, lambda q: "last" if q == run_queries[-1] else "parts")
    (folder / "run.txt").write_text("".join(line for block in blocks for line in block))
    (folder / "small.txt").write_text("".join(line for block in blocks[:60] for line in block))
    halves = [block[:500] for block in blocks[:60]] + [block[500:] for block in blocks[:60]]
    (folder / "mixed.txt").write_text("".join(line for half in halves for line in half))
    return folder


def ir_eval_process(*args, split=SPLIT, cwd=None):
    env = dict(os.environ, **{split_parts.SPLIT_ENV: split})
    out = subprocess.run(
        [sys.executable, "-c", RUNNER, *map(str, args)], capture_output=True, text=True, timeout=120, env=env, cwd=cwd
    )
    err, _, merged = out.stderr.rstrip("\n").rpartition("\n")
    return out.returncode, out.stdout, err + "\n" if err else "", merged


def ir_eval(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("flags", [["-q", "-m", "all_trec"], ["-c", "-q", "-m", "all_trec"]])
def test_jobs_score_one_large_run_in_parts_as_one_process(data, capsys, flags):
    serial = ir_eval(capsys, "--jobs", "1", *flags, data / "qrels.txt", data / "run.txt")
    code, out, err, merged = ir_eval_process("--jobs", "2", *flags, data / "qrels.txt", data / "run.txt")
    assert merged == "merged: [True]"  # scored in parts, not again in one task
    assert (code, out, err) == serial and code == 0
    assert "the run tag changes from 'parts' (first line) to 'last' (last line)" in err
    assert out.count("runid                 \tall\tlast\n") == 1
    if "-c" not in flags:
        assert "3 qrels queries without results skipped" in err


@pytest.mark.skipif(not trec_eval_ref.BIN, reason=trec_eval_ref.REASON)
@pytest.mark.parametrize("flags, qrels", [(["-c", "-q"], "qrels.txt"), (["-q"], "qrels_run.txt")])
def test_a_run_scored_in_parts_is_trec_evals(data, flags, qrels):
    """trec_eval 10.0 stops at a qrels query the run lacks without -c: there, the qrels of the run's queries."""
    args = [*flags, "-m", "all_trec", data / qrels, data / "run.txt"]
    code, out, _, merged = ir_eval_process("--jobs", "2", *args)
    expected = subprocess.run([trec_eval_ref.BIN, *map(str, args)], capture_output=True, text=True, check=True)
    assert merged == "merged: [True]" and code == 0 and out == expected.stdout


def test_a_file_not_grouped_by_query_is_scored_in_one_task(data, capsys):
    args = ["-c", "-q", "-m", "official", data / "qrels.txt", data / "mixed.txt"]
    code, out, err, merged = ir_eval_process("--jobs", "2", *args)
    assert merged == "merged: [False]"
    assert (code, out, err) == ir_eval(capsys, "--jobs", "1", *args) and code == 0
    assert out == ir_eval(capsys, *args[:-1], data / "small.txt")[1]  # the same lines


def _broken(data, tmp_path, name, change) -> str:
    lines = (data / "small.txt").read_text().splitlines(keepends=True)
    change(lines)
    path = tmp_path / name
    path.write_text("".join(lines))
    return str(path)


def _bad_score(lines):
    at = len(lines) * 3 // 4  # in the middle of the second part
    q, q0, doc, rank, _, tag = lines[at].split()
    lines[at] = f"{q} {q0} {doc} {rank} 1.2.3 {tag}\n"


def _last_tag(lines):
    lines[-1] = lines[-1].replace("parts", "end")


def _duplicate(lines):
    q, q0, doc, *_ = lines[5].split()  # a document of the first query, again at the end of the file
    lines.append(f"{q} {q0} {doc} 1001 0.5 parts\n")


def test_errors_name_the_line_as_one_process_does(data, capsys, tmp_path):
    for name, change, message in [
        ("bad.txt", _bad_score, ", line 45001: "),
        ("duplicate.txt", _duplicate, "line 60001"),
    ]:
        path = _broken(data, tmp_path, name, change)
        serial = ir_eval(capsys, "--jobs", "1", "-m", "map", data / "qrels.txt", path)
        code, out, err, merged = ir_eval_process("--jobs", "2", "-m", "map", data / "qrels.txt", path)
        assert (code, out, err) == serial and code == 2 and message in err and err.count("\n") == 1
        assert merged == "merged: [False]"


# ----------------------------------------------------------------------------------------- Dask


def _tasks(cluster) -> int:
    prefix = cluster.scheduler.task_prefixes.get("score_task")
    return 0 if prefix is None else prefix.state_counts.get("memory", 0) + prefix.state_counts.get("erred", 0)


@pytest.fixture
def merges(monkeypatch):
    done: list = []
    original = split_parts.merge

    def merge(*args, **kwargs):
        result = original(*args, **kwargs)
        done.append(result is not None)
        return result

    monkeypatch.setattr(split_parts, "merge", merge)
    monkeypatch.setenv(split_parts.SPLIT_ENV, SPLIT)
    return done


@pytest.mark.parametrize("flags", [["-q", "-m", "all_trec"], ["-c", "-q", "-m", "all_trec"]])
def test_dask_scores_one_large_run_in_parts_as_one_process(cluster, data, capsys, merges, flags):
    args = [*flags, data / "qrels.txt", data / "run.txt"]
    serial = ir_eval(capsys, "--jobs", "1", *args)
    before = _tasks(cluster)
    assert ir_eval(capsys, "--dask", cluster.scheduler_address, *args) == serial and serial[0] == 0
    assert merges == [True]  # merged here, not scored again in one task
    # one task per worker thread, and the first part again: without -c its queries lack the grade 4 of
    # the run's, with -c the query before its query with negative grades only is not among them
    assert _tasks(cluster) - before == 3


def test_dask_scores_an_ungrouped_file_and_a_bad_one_in_one_task(cluster, data, capsys, merges, tmp_path, monkeypatch):
    args = ["-c", "-m", "official", data / "qrels.txt", data / "mixed.txt"]
    before = _tasks(cluster)
    assert ir_eval(capsys, "--dask", cluster.scheduler_address, *args) == ir_eval(capsys, "--jobs", "1", *args)
    assert _tasks(cluster) - before == 3 and merges == [False]  # two parts, then the run in one task
    monkeypatch.chdir(tmp_path)  # relative paths: named as given, in errors and warnings
    bad = os.path.relpath(_broken(data, tmp_path, "bad.txt", _bad_score))
    code, out, err = ir_eval(capsys, "--dask", cluster.scheduler_address, "-m", "map", data / "qrels.txt", bad)
    assert (code, out, err) == ir_eval(capsys, "--jobs", "1", "-m", "map", data / "qrels.txt", bad)
    assert code == 2 and err.startswith(f"ir-eval: {bad}, line 45001: ")
    tagged = _broken(data, tmp_path, "tagged.txt", _last_tag)
    tagged = os.path.relpath(tagged)
    for split in (SPLIT, "1000000000"):  # in parts and in one task
        monkeypatch.setenv(split_parts.SPLIT_ENV, split)
        code, out, err = ir_eval(capsys, "--dask", cluster.scheduler_address, "-m", "map", data / "qrels.txt", tagged)
        assert (code, out, err) == ir_eval(capsys, "--jobs", "1", "-m", "map", data / "qrels.txt", tagged)
        assert err.startswith(f"ir-eval: warning: {tagged}: the run tag changes")


# ------------------------------------------------------------------------------------------ merge


def _awkward(folder, seed: int) -> tuple[str, str]:
    """Queries in an order that is not trec_eval's, some with negative grades only, the highest grade in
    a few queries, qrels queries the run lacks, a run-only query, a CRLF line end and a comment."""
    rng = np.random.default_rng(seed)
    queries = [("Q" if i % 3 == 0 else "q") + f"{rng.integers(0, 500)}_{i}" for i in range(60)]
    with open(folder / "qrels.txt", "w") as f:
        for i, q in enumerate(queries):
            docs = rng.choice(300, size=int(rng.integers(1, 40)), replace=False)
            grades = {1: [-1, -2], 2: [0], 4: [0, 1, 4]}.get(i % 9, [-1, 0, 0, 1, 2])
            f.writelines(f"{q} 0 d{d} {g}\n" for d, g in zip(docs, rng.choice(grades, size=len(docs))))
    with open(folder / "run.txt", "w") as f:
        f.write("# a comment\n")
        for i in rng.permutation(60):
            if i % 11 == 5:
                continue
            depth = int(rng.integers(1, 120))
            docs, scores = rng.choice(300, size=depth, replace=False), np.round(rng.normal(size=depth), 1)
            f.writelines(f"{queries[i]} Q0 d{d} {r} {s} t\n" for r, (d, s) in enumerate(zip(docs, scores)))
        f.write("runonly Q0 d1 1 1.0 t\r\n")
    return str(folder / "qrels.txt"), str(folder / "run.txt")


def test_parts_merge_to_one_tasks_lines_whatever_the_queries_share(tmp_path):
    """Measures that depend on other queries (the highest grade for sdcg and inst, the grades of the
    query before for ideal_dcg) are scored again with what their part lacks (tasks run in-process here)."""
    qrels, run = _awkward(tmp_path, 0)
    enc = encode_qrels(read_columns(qrels, "qrels"))
    names = ["all_trec", "ideal_dcg", "inst", "sdcg", "compat", "Judged", "rbp", "nDCG(judged_only=True)@10"]
    again = []
    for options in ({}, {"complete": True, "max_docs": 7}, {"relevance_level": 2, "judged_only": True}):
        options = dict(dict(relevance_level=1, complete=False, max_docs=None, judged_only=False), **options)
        s = mp.state(enc, parse_measures(names, trec_rules=True), Settings(**options), False, True, True)
        expected = mp.score_file(s, run)

        def task(t, s=s):
            _, path, part, parts, width, before = t
            return mp.score_file(s, path) if part < 0 else split_parts.score_part(s, path, part, parts, width, before)

        for parts in (2, 7):
            [scored] = split_parts.in_parts(
                s, [(run, run, parts)], lambda ts: map(task, ts), lambda t: again.append(t) or task(t)
            )
            assert (scored.lines, scored.warnings, scored.evaluated) == (
                expected.lines,
                expected.warnings,
                expected.evaluated,
            )
    assert not [t for t in again if t[2] < 0]  # never scored in one task
    assert [t for t in again if t[5]] and [t for t in again if not t[5]]  # for the grades before, for the width


def test_what_is_split(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(b"1 Q0 d 1 1.0 t\n" * 1000)  # 15,000 bytes
    assert split_parts.partitions(str(path), 2, 15_000) == 2
    assert split_parts.partitions(str(path), 8, 15_000) == 4  # parts of a quarter of the threshold at least
    assert split_parts.partitions(str(path), 8, 1_000) == 8
    assert split_parts.partitions(str(path), 2, 15_001) == 1  # below the threshold
    assert split_parts.partitions(str(path), 1, 1_000) == 1  # one process
    assert split_parts.partitions(str(path), 2, 1_000, ranked=True) == 1
    assert split_parts.partitions(str(tmp_path / "absent.txt"), 2, 1_000) == 1  # its task says it is missing
    packed = tmp_path / "run.txt.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    assert split_parts.partitions(str(packed), 2, 10) == 1
    assert split_parts.split_threshold() == int(os.environ.get(split_parts.SPLIT_ENV) or split_parts.SPLIT_BYTES)


def test_one_query_alone_leaves_the_other_parts_empty(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("7 0 d3 1\n8 0 d1 2\n")
    run.write_text("".join(f"7 Q0 d{d} {d} {1 / (d + 1)} t\n" for d in range(500)))
    enc = encode_qrels(read_columns(str(qrels), "qrels"))
    s = mp.state(enc, parse_measures(["map", "num_q"]), Settings(), False, True, True)
    parts = [split_parts.score_part(s, str(run), k, 3) for k in range(3)]
    assert [len(p.query_ids) for p in parts] == [1, 0, 0]
    assert split_parts.merge(s, str(run), parts, lambda *a: None).lines == mp.score_file(s, str(run)).lines


def test_ranges_hold_every_line_once(tmp_path):
    """A byte-order mark, CRLF line ends, blank and comment lines, blanks around fields, no newline at
    the end: the ranges still cover every line once, whatever their number."""
    rng = np.random.default_rng(5)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {rng.integers(0, 3)}\n" for q in range(30) for d in range(0, 40, 3)))
    lines = [
        f"q{q} Q0 d{d} {d} {rng.integers(0, 9)} t{q // 10}" for q in range(30) for d in range(int(rng.integers(1, 40)))
    ]
    for i in range(0, len(lines), 37):
        lines[i] += "\r" if i % 2 else "   "
        lines.insert(i, "# a comment" if i % 3 else "")
    run.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode())
    enc = encode_qrels(read_columns(str(qrels), "qrels"))
    s = mp.state(enc, parse_measures(["all_trec", "relstring"]), Settings(), False, True, True)
    expected = mp.score_file(s, str(run))
    for parts in range(2, 10):
        got = split_parts.merge(
            s, str(run), [split_parts.score_part(s, str(run), k, parts) for k in range(parts)], lambda *a: None
        )
        assert (got.lines, got.warnings) == (expected.lines, expected.warnings)
    assert "the run tag changes from 't0' (first line) to 't2' (last line)" in expected.warnings[0]


def test_a_run_without_judged_queries_in_parts(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("A 0 d1 1\nB 0 d2 0\n")
    run.write_text("".join(f"Z{q} Q0 d{d} {d} {d / 7:.2f} t\n" for q in range(50) for d in range(100)))
    enc = encode_qrels(read_columns(str(qrels), "qrels"))
    for complete in (False, True):
        s = mp.state(enc, parse_measures(["all_trec"]), Settings(complete=complete), False, True, True)
        got = split_parts.merge(
            s, str(run), [split_parts.score_part(s, str(run), k, 3) for k in range(3)], lambda *a: None
        )
        expected = mp.score_file(s, str(run))
        assert (got.lines, got.warnings, got.evaluated) == (expected.lines, expected.warnings, expected.evaluated)
        assert got.evaluated == complete
