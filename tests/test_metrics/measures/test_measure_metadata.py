"""What the registry knows about each family, and the questions the window and the reports ask it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import metrics
from metrics.measures import FAMILIES, display_label, family_named, is_count, is_neutral, parse_measures
from metrics.measures.extra import NDCG_DEFAULTS
from metrics.measures.registry import MEASURE_ORDER, TREC_EVAL_TABLE
from tests.trec_eval_ref import REASON, SRC
from workbench.scoring.evaluation import ndcg_variant


@pytest.mark.skipif(SRC is None, reason=REASON)
def test_the_output_order_is_trec_evals_measure_table():
    text = (Path(SRC) / "measures.c").read_text()
    table = text[text.index("te_trec_measures[]") :]
    table = table[: table.index("};")]
    assert TREC_EVAL_TABLE == tuple(re.findall(r"&te_meas_(\w+)", table))


def test_every_family_is_placed_and_orders_follow_the_list():
    listed = [name for name in MEASURE_ORDER if name in FAMILIES]
    assert sorted(FAMILIES, key=lambda n: FAMILIES[n].order)[: len(listed)] == listed
    orders = [FAMILIES[n].order for n in listed]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)


def test_a_family_not_listed_comes_after_the_listed_ones(monkeypatch):
    from metrics.measures import registry

    monkeypatch.setattr(registry, "FAMILIES", dict(registry.FAMILIES))

    @registry.measure("zz_test_family")
    def zz(r):
        """A family for this test."""

    @registry.measure("zz_test_placed", order=3.5)
    def zz2(r):
        """Placed by hand between num_rel and num_rel_ret."""

    fam = registry.FAMILIES["zz_test_family"]
    assert fam.order > max(f.order for n, f in registry.FAMILIES.items() if n in MEASURE_ORDER)
    assert fam.group == "test_measure_metadata" and fam.doc == "A family for this test."
    assert registry.FAMILIES["num_rel"].order < registry.FAMILIES["zz_test_placed"].order
    assert registry.FAMILIES["zz_test_placed"].order < registry.FAMILIES["num_rel_ret"].order


def test_counts_are_the_long_families_whatever_their_name():
    longs = {n for n, f in FAMILIES.items() if f.kind == "long"}
    assert longs == {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
    for name in ("num_ret", "num_rel_ret(rel=2)", "NumRet", "NumRel", "num_q"):
        assert is_count(name), name
    for name in ("map", "P_10", "nDCG@10", "runid", "relstring", "run", "query_id", "", "num_unknown"):
        assert not is_count(name), name
    assert family_named("nDCG@10").name == "ndcg_cut" and family_named("no such thing") is None


def test_neutral_measures_have_no_best_value():
    assert {n for n, f in FAMILIES.items() if f.neutral} == {
        "runid",
        "relstring",
        "num_q",
        "num_ret",
        "num_rel",
        "num_nonrel_judged_ret",
    }
    assert is_neutral("num_ret") and is_neutral("relstring_20") and is_neutral("NumQ")
    assert not is_neutral("num_rel_ret") and not is_neutral("map") and not is_neutral("nonsense")


def test_labels_come_from_the_registry():
    assert display_label("map") == "MAP (mean average precision)"
    assert display_label("P.5") == "P@5" and display_label("P_20") == "P@20"
    assert display_label("ndcg_cut.10") == "NDCG@10" and display_label("nDCG@20") == "NDCG@20"
    assert display_label("recall.1000") == "Recall@1000"
    assert display_label("P_5(rel=2)") == "P_5(rel=2)"  # a variant keeps its own name
    assert display_label("ERR") == "ERR"  # no label registered: the canonical name
    assert display_label("not a measure") == "not a measure"


def test_ir_measures_names_and_defaults_are_registry_facts():
    assert FAMILIES["map"].ir_measures == "AP" and "MAP" in FAMILIES["map"].aliases
    assert parse_measures("MAP") == parse_measures("AP") == parse_measures("map")
    assert FAMILIES["P"].defaults == (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    assert FAMILIES["ndcg_ext"].options == {**NDCG_DEFAULTS, "gains": ""}


def test_ndcg_variant_asks_the_registry():
    opts = {"gain": "exp"}
    assert ndcg_variant(("NDCG@10", "ndcg_cut_5", "ndcg"), opts) == (
        "ndcg_ext_10(gain=exp)",
        "ndcg_ext_5(gain=exp)",
        "ndcg_ext(gain=exp)",
    )
    # nDCG with gain values or a level of its own, and other measures, stay as asked
    kept = ("ndcg.1=3,2=9", "ndcg_cut_10(rel=2)", "map", "not a measure")
    assert ndcg_variant(kept, opts) == kept
    # the defaults, however written, change nothing
    assert ndcg_variant(("ndcg",), {"gain": "linear", "base": 2.0, "ideal": "all"}) == ("ndcg",)
    ev = metrics.evaluate({"q": {"a": 2, "b": 1}}, {"q": {"a": 1.0, "b": 2.0}}, list(ndcg_variant(("nDCG@10",), opts)))
    assert list(ev.summary().columns) == ["ndcg_ext_10(gain=exp)"]


def test_ndcg_defaults_are_written_once():
    from metrics.measures.extra import NDCG_DEFAULTS, NdcgOptions, ndcg_options
    from workbench.views.panels.measures import NDCG_CHOICES

    assert {k: v for k, v in FAMILIES["ndcg_ext"].options.items() if k != "gains"} == NDCG_DEFAULTS
    assert ndcg_options() == NdcgOptions() and NdcgOptions().is_trec
    # the window offers trec_eval's choice first (what a new session shows)
    for name, choices in NDCG_CHOICES:
        assert choices[0][1] == NDCG_DEFAULTS[name]


def test_p_values_and_marks_are_written_by_one_module():
    import math

    from metrics.presentation import HIGHER, LOWER, format_pvalue, format_pvalue_cell, significance_marker

    assert [format_pvalue(p) for p in (None, math.nan, 0.0, 3e-5, 0.01234, 1.0)] == [
        "n/a",
        "n/a",
        "0.0000",
        "3.0e-05",
        "0.0123",
        "1.0000",
    ]
    assert format_pvalue_cell(0.0004) == "p<0.001" and format_pvalue_cell(0.0123) == "p=0.012"
    assert significance_marker({"significant": True, "delta": 0.1}) == HIGHER == "\u2020"
    assert significance_marker({"significant": True, "delta": -0.1}) == LOWER == "\u2021"
    assert significance_marker({"significant": True, "delta": -0.1}, ascii_only=True) == "-"
    assert significance_marker({"significant": False, "delta": 0.1}) == "" and significance_marker(None) == ""
