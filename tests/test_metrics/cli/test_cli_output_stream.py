"""``ir-eval``'s output written as it is formatted: trec_eval's lines and JSON a block of queries at a time,
the same bytes as one piece; NaN as null in JSON; a closed standard output or pipe."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pytest
import trec_eval_ref

from metrics.cli import ir_eval as cli
from metrics.cli import output as cli_output

evaluate_module = importlib.import_module("metrics.engine.evaluation")

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d4 1\nq3 0 d5 1\n"
# q2 retrieves only an unjudged document: with -J its ranking is empty and trec_eval prints -nan
RUN = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq2 Q0 d9 1 5.0 r\nq3 Q0 d5 1 1 r\n"


@pytest.fixture
def nan_files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


@pytest.fixture
def odd_files(tmp_path):
    """Query ids and a run tag that a format template or JSON must not take for its own syntax, queries
    interleaved with the -nan one."""
    qids = ["q%d", 'q"1', "q{0}", "q\\2", "qé", "Ω7", "q2"]
    qrels = "".join(f"{q} 0 d{i} {i % 3}\n{q} 0 e{i} 1\n" for i, q in enumerate(qids))
    run = "".join(f'{q} Q0 {"x" if q == "q2" else "d"}{i} 1 {9 - i} tag%s"\n' for i, q in enumerate(qids))
    paths = tmp_path / "odd.qrels", tmp_path / "odd.run"
    paths[0].write_text(qrels, encoding="utf-8")
    paths[1].write_text(run, encoding="utf-8")
    return str(paths[0]), str(paths[1])


def run_cli(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _no_nan(text):
    raise AssertionError(f"{text} in JSON")


def test_json_writes_nan_as_null_per_query_and_in_the_summary(nan_files, capsys):
    code, trec, _ = run_cli(["-q", "-J", "-m", "all_trec", *nan_files], capsys)
    assert code == 0 and "-nan" in trec
    code, out, err = run_cli(["--format", "json", "-q", "-J", "-m", "all_trec", *nan_files], capsys)
    assert code == 0 and err == ""
    doc = json.loads(out, parse_constant=_no_nan)  # strict JSON: no NaN, Infinity
    run = doc["runs"]["r"]
    rows = [line.split("\t") for line in trec.splitlines()]
    nulls = 0
    for name, qid, text in rows:
        name = name.strip()
        if name in ("relstring", "runid"):
            continue
        got = run["all"][name] if qid == "all" else run["queries"][qid][name]
        if text.strip() in ("nan", "-nan"):
            assert got is None, (name, qid)
            nulls += 1
        else:
            assert got == pytest.approx(float(text), abs=5e-5), (name, qid)
    assert nulls > 10 and run["queries"]["q2"]["iprec_at_recall_0.00"] is None
    assert run["all"]["iprec_at_recall_0.00"] is None  # the mean over q2 too: trec_eval's -nan


@pytest.mark.parametrize(
    "flags",
    [["-q"], [], ["-q", "-n"], ["-n"], ["-q", "-J"], ["-q", "-J", "-m", "map", "-m", "runid"], ["-q", "-m", "runid"]],
)
def test_json_is_json_dumps_layout(odd_files, nan_files, capsys, flags):
    """Written piece by piece, the document is byte for byte what json.dump(indent=1) makes of it."""
    code, out, _ = run_cli(["--format", "json", *flags, odd_files[0], odd_files[1], odd_files[1]], capsys)
    assert code == 0
    doc = json.loads(out, parse_constant=_no_nan)
    assert out == json.dumps(doc, indent=1) + "\n"
    assert len(doc["runs"]) == 2 and next(iter(doc["runs"])) == 'tag%s"'
    if "-q" in flags and flags[-1] != "runid":
        assert set(doc["runs"]['tag%s"']["queries"]) == {"q%d", 'q"1', "q{0}", "q\\2", "qé", "Ω7", "q2"}


def test_json_blocks_of_queries_join_to_one_document(odd_files, capsys, monkeypatch):
    argv = ["--format", "json", "-q", "-J", "-m", "all_trec", *odd_files]
    _, whole, _ = run_cli(argv, capsys)
    monkeypatch.setattr(cli_output, "_JSON_BLOCK", 2)
    _, blocks, _ = run_cli(argv, capsys)
    assert blocks == whole and json.loads(blocks, parse_constant=_no_nan)


def test_trec_text_in_blocks_is_trec_lines(odd_files, monkeypatch):
    import metrics

    ev = metrics.evaluate(odd_files[0], odd_files[1], "all_trec", judged_only=True, keep_names=False)
    whole = "".join(ev.trec_text(queries=True))
    assert whole == "\n".join(ev.trec_lines(queries=True)) + "\n"
    assert "  -nan" in whole and "q%d\t" in whole and "\tq{0}\t" in whole
    monkeypatch.setattr(evaluate_module, "_QUERY_BLOCK", 2)
    pieces = list(ev.trec_text(queries=True))
    assert len(pieces) == 5 and "".join(pieces) == whole  # 4 blocks of queries, then the summary
    assert list(ev.trec_text(queries=True, summary=False)) == pieces[:-1]
    assert list(ev.trec_text(queries=False, summary=False)) == []


@pytest.mark.skipif(not trec_eval_ref.BIN, reason=trec_eval_ref.REASON or "no trec_eval")
@pytest.mark.parametrize("flags", [["-q", "-J"], ["-q"], ["-q", "-c", "-J"]])
def test_trec_output_with_nan_and_odd_ids_is_trec_evals(odd_files, nan_files, capsys, flags):
    for qrels, run in (odd_files, nan_files):
        args = [*flags, "-m", "all_trec", qrels, run]
        expected = subprocess.run([trec_eval_ref.BIN, *args], capture_output=True, check=True).stdout
        code, out, _ = run_cli(args, capsys)
        assert code == 0 and out.encode() == expected


def _ir_eval(*args, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "metrics", *map(str, args)], stderr=subprocess.PIPE, **kwargs)


@pytest.mark.skipif(sys.platform == "win32", reason="closes file descriptor 1 before the command starts")
@pytest.mark.parametrize("extra", [[], ["--format", "json", "-q"], ["--jobs", "2", "-q"]])
def test_a_closed_standard_output_is_one_line_and_the_output_status(nan_files, extra):
    proc = _ir_eval(*extra, *nan_files, *(nan_files[1:] if "--jobs" in extra else []), preexec_fn=lambda: os.close(1))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == cli.EXIT_OUTPUT
    assert err.decode() == "ir-eval: cannot write the output: standard output is closed\n"


@pytest.mark.parametrize("fmt", ["trec", "json", "csv"])
def test_a_pipe_closed_in_the_middle_of_the_output_ends_quietly(tmp_path, fmt):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} 0 d{d} {d % 3}\n" for q in range(300) for d in range(0, 60, 3)))
    run.write_text("".join(f"{q} Q0 d{d} {d} {100 - d} r\n" for q in range(300) for d in range(100)))
    proc = _ir_eval("-q", "-m", "all_trec", "--format", fmt, qrels, run, stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.read(100)) == 100  # the output is megabytes: far more than a pipe holds
    proc.stdout.close()  # like `ir-eval ... | head -c 100`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0 and err == ""


def test_ids_that_are_not_utf8_are_written_back_as_their_bytes_in_a_strict_utf8_locale(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_bytes(b"A\xb0B 0 d1 1\nq2 0 d2 1\n")  # a Latin-1 query id
    run.write_bytes(b"A\xb0B Q0 d1 1 3 r\nq2 Q0 d2 1 3 r\n")
    env = dict(os.environ, PYTHONIOENCODING="utf-8:strict")  # as in an en_US.UTF-8 locale
    proc = _ir_eval("-q", "-m", "map", qrels, run, stdout=subprocess.PIPE, env=env)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b""
    assert out.startswith(b"map                   \tA\xb0B\t1.0000\n")
