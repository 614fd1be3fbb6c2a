"""``ir-eval -m alpha_nDCG@20 INTENT_QRELS RUN...``: the diversity measures in trec_eval's layout, against
intent qrels (``qid intent docid grade``); mixing them with ad hoc measures or qrels is refused, saying
what to do."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from intent_data import INTENTS, write_files

import metrics
from metrics.cli import ir_eval as cli

LINE = re.compile(r"(?P<name>\S.{21,}?)\t(?P<query>\S+)\t(?P<value>-?\d+\.\d{4})")


@pytest.fixture
def files(tmp_path):
    paths = write_files(tmp_path)
    return {**paths, "a": paths["runA"], "b": paths["runB"]}


def run_cli(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_per_query_and_mean_lines_in_trec_eval_layout(files, capsys):
    names = ["alpha_nDCG@20", "ERR-IA@20", "NRBP", "P_IA@20", "StRecall@20"]
    argv = ["-q", "-m", "alpha_nDCG@20", "-m", "ERR-IA@20 NRBP", "-m", "P_IA@20", "-m", "StRecall@20"]
    code, out, err = run_cli([*argv, files["intents"], files["a"], files["b"]], capsys)
    assert code == 0, err
    ev = metrics.evaluate_diversity(str(files["intents"]), {"sysA": str(files["a"]), "sysB": str(files["b"])}, names)
    expected = []
    for run, queries in (("sysA", ("101", "102", "103", "104")), ("sysB", ("101", "102", "103"))):
        pq = ev.per_query[ev.per_query["run"] == run]
        values = {(q, m): v for q, m, v in zip(pq["query_id"], pq["measure"], pq["value"])}
        means = ev.summary().loc[run]
        # trec_eval's rows: per query, measures in the order given, then the "all" rows, run after run
        expected += [f"{m:<22}\t{q}\t{values[(q, m)]:6.4f}" for q in queries for m in names]
        expected += [f"{m:<22}\tall\t{means[m]:6.4f}" for m in names]
    assert out.splitlines() == expected
    assert all(LINE.fullmatch(line) for line in expected)
    # worked out by hand (tests/gui/test_gui_diversity.py): subtopic recall and intent-aware precision
    assert "StRecall@20           \tall\t0.6875" in out.splitlines()[:25]
    assert "StRecall@20           \tall\t0.8056" in out.splitlines()[25:]
    assert "P_IA@20               \t101\t0.0833" in out.splitlines()
    assert "warning: run 'sysB': 1 qrels query without results skipped: 104" in err


def test_options_of_trec_eval_that_apply(files, capsys):
    code, out, _ = run_cli(["-c", "-q", "-m", "StRecall@20", files["intents"], files["b"]], capsys)
    assert code == 0
    assert out.splitlines() == [
        "StRecall@20           \t101\t0.6667",
        "StRecall@20           \t102\t1.0000",
        "StRecall@20           \t103\t0.7500",
        "StRecall@20           \t104\t0.0000",  # -c: a qrels query the run lacks scores 0 and counts
        "StRecall@20           \tall\t0.6042",
    ]
    code, out, _ = run_cli(["-q", "-n", "-m", "NRBP", files["intents"], files["a"]], capsys)
    assert code == 0 and [line.split("\t")[1] for line in out.splitlines()] == ["101", "102", "103", "104"]
    code, out, _ = run_cli(["--format", "csv", "-m", "P-IA@20", files["intents"], files["a"]], capsys)
    assert code == 0 and out.splitlines()[1].startswith("sysA,all,P-IA@20,0.0458333")


def test_what_cannot_be_done_is_refused_saying_what_to_do(files, capsys):
    code, out, err = run_cli(["-m", "alpha_nDCG@20", "-m", "map", files["intents"], files["a"]], capsys)
    assert (code, out) == (1, "")
    assert "alpha_nDCG@20 is a diversity measure" in err and "two calls" in err and "ir-eval -m map QRELS RUN" in err
    code, out, err = run_cli(["-m", "alpha_nDCG@20", files["qrels"], files["a"]], capsys)
    assert (code, out) == (2, "")
    assert "ad hoc qrels, not intent qrels" in err and "qrels.txt" in err
    code, out, err = run_cli(["-m", "map", files["intents"], files["a"]], capsys)
    assert (code, out) == (2, "")
    assert "intent (diversity) qrels" in err and f"ir-eval -m alpha_nDCG@20 {files['intents']} RUN" in err
    code, _, err = run_cli(["-J", "-M", "5", "-m", "P_IA@20", files["intents"], files["a"]], capsys)
    assert code == 1 and "-M, -J: not offered with the diversity measures" in err
    code, _, err = run_cli(["-m", "alpha_nDCG", files["intents"], files["a"]], capsys)
    assert code == 1 and "needs a cutoff" in err
    assert all(len(e.splitlines()) == 1 for e in [err])


def test_intent_qrels_from_standard_input(files):
    out = subprocess.run(
        [sys.executable, "-m", "metrics", "-m", "ERR_IA@20", "-", str(files["a"])],
        input=INTENTS,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    ev = metrics.evaluate_diversity(str(files["intents"]), str(files["a"]), ["ERR_IA@20"])
    assert out.stdout == f"{'ERR_IA@20':<22}\tall\t{ev.summary().iloc[0, 0]:6.4f}\n"


def test_the_relevance_level_applies_to_the_names_that_set_none(files, capsys):
    """``-l 2`` scores ``alpha_nDCG@20`` as ``alpha_nDCG(rel=2)@20`` (as the window's level box does); a name
    that sets its own ``rel`` keeps it."""

    def values(args):
        code, out, err = run_cli(["-q", *args, files["intents"], files["a"]], capsys)
        assert code == 0, err
        rows = [line.split("\t") for line in out.splitlines()]
        return {(re.sub(r"\(rel=\d\)", "", name.strip()), q): float(v) for name, q, v in rows}

    at_2 = values(["-l", "2", "-m", "alpha_nDCG@20", "-m", "P_IA@20", "-m", "ERR_IA(rel=1)@20"])
    named = values(["-m", "alpha_nDCG(rel=2)@20", "-m", "P_IA(rel=2)@20", "-m", "ERR_IA@20"])
    assert at_2 == named and len(at_2) == 15  # 3 measures x (4 queries + all)
    assert at_2 != values(["-m", "alpha_nDCG@20", "-m", "P_IA@20", "-m", "ERR_IA(rel=1)@20"])  # grade 2 tells
