"""``ir-eval --irm``: ir_measures' command line, compared with ``python -m ir_measures`` (0.4.3) itself.

The run written for both has distinct scores (ir_measures' providers do not all break ties as trec_eval
does); the qrels keep negative grades, unjudged documents and queries missing on either side.  Per-query
lines are compared as sets (ir_measures' order depends on its providers), the means to 1e-12 in JSON
(ir_measures adds the per-query values in another order, so the last digit can differ).

No judged_only measure is among them: in one ir_measures 0.4.3 call, its pytrec_eval provider can run
NumRet in a pytrec_eval evaluator that sees only the judged documents once a judged_only measure is
asked for too (NumRet 27 instead of 131 on these files), depending on the process's hash seed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import random_collection, write_trec

from metrics.cli.ir_eval import main
from metrics.cli.irm import printed_name
from tests.test_metrics.measures.test_diversity import intent_collection

ir_measures = pytest.importorskip("ir_measures")

MEASURES = ["MAP nDCG@10", "P(rel=2)@5", "NumRet", "Judged@10", "R@20", "AP(rel=2)", "Compat", "RBP(rel=2)"]


def _files(tmp_path, seed=3):
    qrels, run = random_collection(seed)
    run = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False]).reset_index(drop=True)
    run = run.assign(score=len(run) - np.arange(len(run), dtype=np.float64))
    return write_trec(qrels, run, tmp_path)


def _ours(capsys, *args):
    assert main(["--irm", *args]) == 0
    return capsys.readouterr().out.splitlines()


def _theirs(*args):
    done = subprocess.run([sys.executable, "-m", "ir_measures", *args], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


@pytest.mark.parametrize("options", [[], ["-q"], ["-q", "-n", "-p", "6"], ["-p", "-1", "-q"]], ids=str)
def test_output_is_ir_measures_output(tmp_path, capsys, options):
    qrels, run = _files(tmp_path)
    ours = _ours(capsys, qrels, run, *MEASURES, *options)
    theirs = _theirs(qrels, run, *MEASURES, *options)
    if "-p" in options and "-1" in options:  # every digit: compare the numbers
        split = [dict(((*x.split("\t")[:-1],), float(x.split("\t")[-1])) for x in lines) for lines in (ours, theirs)]
        assert split[0].keys() == split[1].keys()
        for key, value in split[0].items():
            assert value == pytest.approx(split[1][key], abs=1e-12), key
        return
    if "-q" in options:
        assert sorted(ours) == sorted(theirs)
    else:
        assert ours == theirs  # same lines in the same order


def test_jsonl_output(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    ours = [json.loads(x) for x in _ours(capsys, qrels, run, *MEASURES, "-o", "jsonl")]
    theirs = [json.loads(x) for x in _theirs(qrels, run, *MEASURES, "-o", "jsonl")]
    assert [x["measure"] for x in ours] == [x["measure"] for x in theirs]
    for a, b in zip(ours, theirs):
        assert a.keys() == b.keys() and a["value"] == pytest.approx(b["value"], abs=1e-12)


def test_diversity_measures_on_intent_qrels(tmp_path, capsys):
    qrels, run = intent_collection(5)
    qpath = tmp_path / "div.qrels"
    qpath.write_text("".join(f"{q} {i} {d} {g}\n" for q, i, d, g in qrels.itertuples(index=False, name=None)))
    rpath = tmp_path / "div.run"
    rpath.write_text(
        "".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, d, s in zip(run["query_id"], run["doc_id"], run["score"]))
    )
    names = ["alpha_nDCG@20 ERR_IA@10", "P_IA@5", "StRecall@10", "NRBP"]
    ours = _ours(capsys, str(qpath), str(rpath), *names, "-o", "jsonl")
    theirs = _theirs(str(qpath), str(rpath), *names, "-o", "jsonl")
    assert [json.loads(x)["measure"] for x in ours] == [json.loads(x)["measure"] for x in theirs]
    for a, b in zip(ours, theirs):
        assert json.loads(a)["value"] == pytest.approx(json.loads(b)["value"], abs=1e-12)


@pytest.mark.parametrize(
    "name",
    [
        "MAP",
        "NDCG@10",
        "Precision@5",
        "P(rel=1)@5",
        "P(rel=2,judged_only=True)@5",
        "AP(judged_only=False)",
        "RBP(rel=2,p=0.9)@10",
        "RBP(p=0.8)",
        "NumRet(rel=1)",
        "SetP(relative=True)",
        "SetF(beta=1.0)",
        "SetF(beta=0.5)",
        "nDCG(gains={0:0,1:1,2:3})@10",
        "nDCG(dcg='exp-log2')@10",
        "Compat(p=0.95,normalize=False)",
        "alpha_nDCG(alpha=0.5)@20",
        "NRBP(beta=0.8)",
    ],
)
def test_printed_names_are_ir_measures_names(name):
    assert printed_name(name) == str(ir_measures.parse_measure(name))


def test_errors_are_one_line(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    assert main(["--irm", qrels, run, "nDCG@10", "--provider", "pytrec_eval"]) == 1
    assert main(["--irm", qrels, run, "Nope@10"]) == 1
    assert main(["--irm", qrels, run, "alpha_nDCG@10", "AP"]) == 1
    assert main(["--irm", str(tmp_path / "missing"), run, "AP"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 4 and all(line.startswith("ir-eval: ") for line in err), err
    assert "--provider" in err[0] and "Nope@10" in err[1] and "intent" in err[2] and "missing" in err[3]
