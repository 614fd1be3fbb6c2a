"""One grammar of measure names: a trec_eval-shaped name (``name.params`` with a trec_eval family) that
trec_eval refuses is refused here too, naming the spelling meant; a name two tools read differently is
refused naming both; unknown names suggest the nearest; ``ir-eval --list-measures`` lists every name."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import metrics
from metrics.measures.diversity_syntax import parse_diversity
from metrics.measures.reference import name_list
from metrics.measures.registry import is_intent_name

SAMPLE = Path(__file__).resolve().parents[3] / "workbench" / "resources" / "sample"
TREC_EVAL = os.environ.get("TREC_EVAL_BIN")


def _ir_eval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "metrics", *args], capture_output=True, text=True, timeout=120, check=False
    )


def _score(measure: str) -> subprocess.CompletedProcess:
    return _ir_eval("-m", measure, str(SAMPLE / "qrels.txt"), str(SAMPLE / "run_bm25.txt"))


def test_rbp_95_is_refused_naming_both_spellings():
    done = _score("rbp.95")
    assert done.returncode == 1 and done.stdout == ""
    assert "rbp_ext" not in done.stdout
    assert "malformed pair parameters in '95'" in done.stderr
    assert "rbp.p=0.95" in done.stderr and "RBP(p=0.95)" in done.stderr


@pytest.mark.parametrize("name", ["rbp.95", "rbp.8", "rbp@95"])
def test_ranx_rbp_spellings_are_refused_in_the_library(name):
    with pytest.raises(ValueError, match=r"RBP\(p=0\.\d+\)"):
        metrics.parse_measures(name)


def test_rbp_at_95_names_the_persistence_and_the_cutoff():
    with pytest.raises(ValueError, match=r"RBP\(p=0\.95\).*RBP@95"):
        metrics.parse_measures("rbp@95")


@pytest.mark.parametrize(
    ("name", "meant"),
    [("rbp.0.95", "rbp.p=0.95"), ("ndcg.10", "ndcg_cut.10"), ("rbp_resid.9", "rbp_resid.p=0.9")],
)
def test_malformed_trec_names_suggest_the_spelling_meant(name, meant):
    done = _score(name)
    assert done.returncode == 1 and done.stdout == ""
    assert "malformed pair parameters" in done.stderr and f"did you mean {meant}" in done.stderr


@pytest.mark.skipif(not TREC_EVAL, reason="TREC_EVAL_BIN not set")
@pytest.mark.parametrize("name", ["rbp.95", "rbp.0.95", "ndcg.10", "rbp.8"])
def test_trec_eval_refuses_these_names_too(name):
    done = subprocess.run(
        [TREC_EVAL, "-m", name, str(SAMPLE / "qrels.txt"), str(SAMPLE / "run_bm25.txt")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "malformed pair parameters" in done.stderr + done.stdout
    assert "\tall\t" not in done.stdout


def test_the_spellings_meant_are_accepted():
    assert metrics.parse_measures("rbp.p=0.95")[0].family == "rbp"
    assert metrics.parse_measures("RBP(p=0.95)")[0].family == "rbp_ext"
    assert metrics.parse_measures("RBP@95")[0].params == (95,)


@pytest.mark.parametrize(
    ("typo", "nearest"),
    [("mapp", "'map'"), ("recip_rnk", "'recip_rank'"), ("ndgc_cut.10", "'ndcg_cut.10'"), ("nDGC@10", "'nDCG@10'")],
)
def test_unknown_measures_suggest_the_nearest_name(typo, nearest):
    with pytest.raises(ValueError, match=f"unknown measure.*did you mean {nearest}"):
        metrics.parse_measures(typo)
    done = _score(typo)
    assert done.returncode == 1 and f"did you mean {nearest}" in done.stderr


def test_list_measures_lists_every_name_with_its_meaning():
    done = _ir_eval("--list-measures")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    names = {line.split()[0] for line in lines}
    for family in metrics.FAMILIES:
        assert family in names, family
    for name in ("official", "all_trec", "AP", "nDCG", "RBP", "precision@k", "top_k_accuracy@k"):
        assert name in names, name
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)  # every name says what it means
    assert len(lines) == len(name_list())


def test_every_listed_name_without_parameters_is_accepted():
    for name, _ in name_list():
        if name.startswith("rbp.NN"):
            continue
        text = name.replace("@k", "@10")
        assert any(_accepted(t) for t in (text, text + "@10", text + "@0.5")), name


def _accepted(text: str) -> bool:
    """Whether ``text`` names a measure: parse_measures' for ad hoc qrels, parse_diversity's for the
    families judged against intent qrels (which parse_measures refuses, naming evaluate_diversity)."""
    try:
        if is_intent_name(text):
            return parse_diversity(text) is not None
        return bool(metrics.parse_measures(text))
    except ValueError:
        return False


@pytest.mark.parametrize("name", ["dcg_cut(gain=exp)_10", "ndcg_cut(discount=jk)_5", "ndcg(gain=exp)_1=3"])
def test_options_before_the_cutoff_are_refused_naming_the_spelling_meant(name):
    """An output name's options go after its cutoff; written before it, the name was read as another family's
    (``dcg`` with a pair ``cut(gain=0``) and scored: it is refused, naming the spelling meant."""
    family, rest = name.split("(", 1)
    options, cut = rest.split(")", 1)
    with pytest.raises(ValueError, match=re.escape(f"did you mean '{family}{cut}({options})'")):
        metrics.parse_measures([name])
    assert [str(m) for m in metrics.parse_measures([f"{family}{cut}({options})"])] == [f"{family}{cut}({options})"]
