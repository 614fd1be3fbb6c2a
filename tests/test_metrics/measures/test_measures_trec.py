"""trec_eval's conventions on small hand-made cases, measure identity and
checks every registered measure gets from the registry."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import qrels_frame, random_collection, run_frame

import metrics
from metrics.measures import FAMILIES, NICKNAMES, parse_measures
from metrics.measures.irm_families import defined_mean
from metrics.ranking.judged import NONPOOL, UNJUDGED, build_ranking


def values(ev, run=None):
    pq = ev.per_query if run is None else ev.per_query[ev.per_query["run"] == run]
    return {(q, m): v for q, m, v in zip(pq["query_id"], pq["measure"], pq["value"])}


def summary(ev):
    return dict(zip(ev.aggregate["measure"], ev.aggregate["value"]))


# ------------------------------------------------------------ the ranking


def test_ties_broken_by_doc_id_descending_bytes():
    # equal scores: strcmp order descending, "d9" > "d10" > "D1" ('d' > 'D')
    qrels = qrels_frame([("1", "d9", 1), ("1", "d10", 0), ("1", "D1", 2)])
    run = run_frame([("1", "D1", 1.0), ("1", "d10", 1.0), ("1", "d9", 1.0), ("1", "x", 2.0)])
    r = build_ranking(qrels, run)
    assert r.rel.tolist() == [NONPOOL, 1, 0, 2]
    ev = metrics.evaluate(qrels, run, ["relstring", "P.2", "recip_rank"])
    assert ev.text["value"].tolist() == ["-102"]
    assert values(ev)[("1", "P_2")] == 0.5
    assert values(ev)[("1", "recip_rank")] == 0.5


def test_scores_compared_as_numbers_not_file_order():
    qrels = qrels_frame([("1", "a", 1)])
    run = run_frame([("1", "b", 9.5), ("1", "a", 10.25), ("1", "c", -3.0)])
    ev = metrics.evaluate(qrels, run, "recip_rank")
    assert values(ev)[("1", "recip_rank")] == 1.0


def test_relevance_codes_and_counts():
    qrels = qrels_frame([("1", "a", 2), ("1", "b", 0), ("1", "c", -1), ("1", "d", 1), ("1", "e", 3)])
    run = run_frame([("1", "a", 5), ("1", "b", 4), ("1", "c", 3), ("1", "z", 2), ("1", "d", 1)])
    r = build_ranking(qrels, run)
    assert r.rel.tolist() == [2, 0, UNJUDGED, NONPOOL, 1]
    assert r.num_ret.tolist() == [5]
    assert r.num_rel.tolist() == [3]  # a, d, e (negative grade is not judged)
    assert r.num_rel_ret.tolist() == [2]
    assert r.rel_levels.tolist() == [[1, 1, 1, 1]]  # grades 0..3, the -1 is not counted
    assert r.num_nonpool.tolist() == [1] and r.num_unjudged.tolist() == [1]
    ev = metrics.evaluate(qrels, run, ["relstring", "num_nonrel_judged_ret", "bpref"])
    assert ev.text["value"].tolist() == ["20.-1"]
    assert values(ev)[("1", "num_nonrel_judged_ret")] == 1
    # bpref: a (no judged non-relevant above) 1, d (b above: 1 - 1/min(1, 3)) 0 -> 1/3
    assert values(ev)[("1", "bpref")] == pytest.approx(1 / 3)


def test_ranking_is_an_immutable_value():
    qrels, run = random_collection(0)
    r = build_ranking(qrels, run)
    with pytest.raises(ValueError):
        r.rel[0] = 5
    with pytest.raises(AttributeError):
        r.run_id = "other"


def test_query_order_is_byte_order_and_run_only_queries_are_ignored():
    qrels = qrels_frame([("b", "x", 1), ("B", "x", 1), ("a10", "x", 1), ("a9", "x", 1)])
    run = run_frame([(q, "x", 1.0) for q in ["a9", "b", "a10", "B", "only_in_run"]])
    ev = metrics.evaluate(qrels, run, "map")
    assert ev.query_ids[ev.runs[0]] == ["B", "a10", "a9", "b"]
    assert summary(ev)["map"] == 1.0


# ------------------------------------------------------------- options


def test_missing_queries_skipped_with_warning_or_placeholder_with_complete():
    qrels = qrels_frame([("1", "a", 1), ("2", "b", 1), ("2", "c", 2)])
    run = run_frame([("1", "a", 1.0), ("1", "z", 0.5)], name="tag")
    ev = metrics.evaluate(qrels, run, ["num_q", "num_ret", "num_rel", "map", "P.1"])
    assert ev.query_ids["tag"] == ["1"]
    assert len(ev.warnings) == 1 and "'2'" not in ev.warnings[0] and "2" in ev.warnings[0]
    assert summary(ev) == {"num_q": 1, "num_ret": 2, "num_rel": 1, "map": 1.0, "P_1": 1.0}

    ev = metrics.evaluate(qrels, run, ["num_q", "num_ret", "num_rel", "map", "P.1", "relstring"], complete=True)
    assert ev.query_ids["tag"] == ["1", "2"] and ev.warnings == []
    assert values(ev)[("2", "num_ret")] == 0  # trec_eval resets num_ret of the placeholder
    assert values(ev)[("2", "map")] == 0.0
    assert summary(ev) == {"num_q": 2, "num_ret": 2, "num_rel": 3, "map": 0.5, "P_1": 0.5}
    assert ev.text.set_index("query_id")["value"].to_dict() == {"1": "1-", "2": ""}


def test_complete_num_rel_summary_counts_positive_grades_whatever_the_level():
    # trec_eval 10.0 m_num_rel.c: under -c the summary counts qrels lines with
    # grade > 0, ignoring -l
    qrels = qrels_frame([("1", "a", 1), ("1", "b", 2), ("2", "c", 1)])
    run = run_frame([("1", "a", 1.0)])
    ev = metrics.evaluate(qrels, run, "num_rel", relevance_level=2, complete=True)
    assert values(ev)[("1", "num_rel")] == 1 and values(ev)[("2", "num_rel")] == 0
    assert summary(ev)["num_rel"] == 3
    ev = metrics.evaluate(qrels, run, "num_rel", relevance_level=2)
    assert summary(ev)["num_rel"] == 1


def test_max_docs_truncates_after_sorting():
    qrels = qrels_frame([("1", "best", 1), ("1", "worst", 1)])
    run = run_frame([("1", "worst", 0.1), ("1", "mid", 0.5), ("1", "best", 0.9)])
    ev = metrics.evaluate(qrels, run, ["num_ret", "num_rel_ret", "P.2"], max_docs=2)
    v = values(ev)
    assert (v[("1", "num_ret")], v[("1", "num_rel_ret")], v[("1", "P_2")]) == (2, 1, 0.5)


def test_relevance_level():
    qrels = qrels_frame([("1", "a", 1), ("1", "b", 2), ("1", "c", 3)])
    run = run_frame([("1", "a", 3.0), ("1", "b", 2.0), ("1", "c", 1.0)])
    ev = metrics.evaluate(qrels, run, ["num_rel", "P.1", "recip_rank", "ndcg_cut.1"], relevance_level=2)
    v = values(ev)
    assert (v[("1", "num_rel")], v[("1", "P_1")], v[("1", "recip_rank")]) == (2, 0.0, 0.5)
    # nDCG gains are the grades whatever the level: 1 / 3 at rank 1
    assert v[("1", "ndcg_cut_1")] == pytest.approx(1 / 3)


def test_judged_only_closes_up_the_ranks():
    qrels = qrels_frame([("1", "a", 1), ("1", "b", 0), ("1", "c", -1)])
    run = run_frame([("1", "x", 4.0), ("1", "c", 3.0), ("1", "a", 2.0), ("1", "b", 1.0)])
    plain = values(metrics.evaluate(qrels, run, ["P.1", "num_ret", "recip_rank"]))
    judged = values(metrics.evaluate(qrels, run, ["P.1", "num_ret", "recip_rank"], judged_only=True))
    assert (plain[("1", "P_1")], plain[("1", "num_ret")], plain[("1", "recip_rank")]) == (0.0, 4, 1 / 3)
    assert (judged[("1", "P_1")], judged[("1", "num_ret")], judged[("1", "recip_rank")]) == (1.0, 2, 1.0)


def test_query_without_relevant_documents_scores_zero():
    qrels = qrels_frame([("1", "a", 0), ("1", "b", 0), ("2", "c", 1)])
    run = run_frame([("1", "a", 2.0), ("1", "z", 1.0), ("2", "c", 1.0)])
    ev = metrics.evaluate(qrels, run, "all_trec")
    # counts, utility and the unjudged-document measures are not effectiveness
    not_zero = {"num_q", "num_ret", "num_nonrel_judged_ret", "utility", "unj", "rbp_resid"}
    for m in ev.measures:
        if m.kind != "text" and m.family not in not_zero:
            assert values(ev)[("1", str(m))] == 0.0, str(m)
    assert summary(ev)["gm_map"] == pytest.approx(math.exp((math.log(1e-5) + math.log(1.0)) / 2))


def test_gm_map_floors_at_min_geo_mean():
    qrels = qrels_frame([("1", "a", 1), ("2", "b", 1)])
    run = run_frame([("1", "a", 1.0), ("2", "x", 1.0)])
    assert summary(metrics.evaluate(qrels, run, "gm_map"))["gm_map"] == pytest.approx(math.sqrt(1e-5))


# ------------------------------------------------------------- identity


@pytest.mark.parametrize(
    "spec",
    [
        "all_trec",
        "official",
        "set",
        "P.5,7,3",
        "ndcg.1=3,2=9",
        "utility.2,-1,0,0",
        "rbp.p=0.8",
        "Rprec_mult.0.2",
        "relstring.20",
        "11pt_avg..25,.5",
        "success.2,5",
        "iprec_at_recall.0.333",
        "dcg",
        "G.0=0.5",
    ],
)
def test_names_round_trip(spec):
    for m in parse_measures(spec):
        assert parse_measures(str(m)) == [m]
        assert hash(m) == hash(parse_measures(str(m))[0])
        assert parse_measures(m.trec_name)[0].family == m.family


def test_trec_eval_output_names():
    names = lambda spec: [m.trec_name for m in parse_measures(spec, trec_rules=True)]  # noqa: E731
    assert names("iprec_at_recall..10,.25") == ["iprec_at_recall_0.10", "iprec_at_recall_0.25"]
    assert names("Rprec_mult.0.2") == ["Rprec_mult_0.20"]
    assert names("P.10,5") == ["P_5", "P_10"]
    assert names("utility.2,-1,0,0") == ["utility_2,-1,0,0"]
    assert names("11pt_avg..25,.5") == ["11pt_avg_.25,.5"]
    assert names("ndcg.1=3,2=9") == ["ndcg_1=3,2=9"]
    assert names("relstring.20") == ["relstring_20"]
    assert names("ndcg") == ["ndcg"] and names("set_F") == ["set_F"]
    assert [str(m) for m in parse_measures("ndcg.1=3.0,2=9")] == ["ndcg_1=3,2=9"]
    assert str(parse_measures("iprec_at_recall.0.333")[0]) == "iprec_at_recall_0.333"


def test_trec_rules_first_parameters_win():
    assert [str(m) for m in parse_measures(["P.5", "P.10"], trec_rules=True)] == ["P_5"]
    assert [str(m) for m in parse_measures(["P.5", "P.10"])] == ["P_5", "P_10"]
    got = [str(m) for m in parse_measures(["official", "P.5"], trec_rules=True)]
    assert "P_5" in got and "P_10" not in got and "map" in got


@pytest.mark.parametrize("bad", ["P.0", "P.5,5", "nosuch", "ndcg.1=3,=2", "P."])
def test_bad_measures_are_refused(bad):
    with pytest.raises(ValueError):
        parse_measures(bad)


def test_official_is_the_default():
    assert parse_measures(None) == parse_measures("official")
    assert [m.family for m in parse_measures("official")][:6] == list(NICKNAMES["official"][:6])


# ------------------------------------------------------------- the API


def test_evaluation_frames():
    qrels, run = random_collection(1)
    other = run.copy()
    other["score"] = -other["score"]
    ev = metrics.evaluate(qrels, [run, other], ["map", "P.5"])
    assert ev.runs == ["rnd", "rnd_2"]
    assert list(ev.per_query.columns) == ["run", "query_id", "measure", "value"]
    assert ev.per_query["value"].dtype == np.float64
    wide = ev.per_query_wide("P_5")
    assert list(wide.columns) == ev.runs and list(wide.index) == ev.query_ids["rnd"]
    s = ev.summary()
    assert list(s.index) == ev.runs and list(s.columns) == ["map", "P_5"]
    assert s.loc["rnd", "map"] == pytest.approx(wide_mean(ev, "map", "rnd"))
    by_dict = metrics.evaluate(qrels, {"x": run}, ["runid", "map"])
    assert by_dict.runs == ["x"]
    assert by_dict.text["value"].tolist() == ["rnd"]  # runid is the run's tag


def wide_mean(ev, measure, run):
    return ev.per_query_wide(measure)[run].mean()


# ------------------------------------------------- checks for every family


def _all_measures():
    return [m for m in parse_measures(sorted(FAMILIES)) if m.kind != "text"]


def _shuffled(df, seed):
    out = df.sample(frac=1, random_state=seed).reset_index(drop=True)
    out.attrs.update(df.attrs)
    return out


@pytest.mark.parametrize("options", [dict(), dict(complete=True, max_docs=15)], ids=["plain", "cM"])
def test_every_measure_ignores_line_order_and_is_finite(options):
    qrels, run = random_collection(5)
    measures = _all_measures()
    a = metrics.evaluate(qrels, run, measures, **options)
    b = metrics.evaluate(_shuffled(qrels, 1), _shuffled(run, 2), measures, **options)
    pd.testing.assert_frame_equal(a.per_query, b.per_query)
    pd.testing.assert_frame_equal(a.aggregate, b.aggregate)
    # measures undefined for some queries (NaN, left out of their mean: ir_measures' Accuracy) are finite
    # where defined; every other value is finite
    may_be_undefined = {str(m) for m in measures if FAMILIES[m.family].aggregate is defined_mean}
    values = a.per_query["value"]
    assert np.isfinite(values[~a.per_query["measure"].isin(may_be_undefined)]).all()
    assert not np.isinf(values).any()
    assert set(a.aggregate["measure"]) == {str(m) for m in measures}
    for m in measures:
        # every evaluated query has a row, -c placeholder queries included, but where a measure has no
        # value (NaN, left out of its mean): no row, as in ir_measures
        rows = (a.per_query["measure"] == str(m)).sum()
        if str(m) in may_be_undefined:
            assert 0 < rows <= len(a.query_ids["rnd"]), m
        else:
            assert rows == len(a.query_ids["rnd"]), m


def test_placeholder_query_scores_zero():
    # -c scores a missing query against one document outside the qrels: every
    # measure of the retrieved documents is 0
    qrels = qrels_frame([("1", "a", 1), ("2", "b", 1)])
    run = run_frame([("1", "a", 1.0)])
    ev = metrics.evaluate(qrels, run, _all_measures(), complete=True)
    for m in ev.measures:
        v = values(ev).get(("2", str(m)), math.nan)  # no row: no value (no relevant document)
        undefined = FAMILIES[m.family].aggregate is defined_mean and math.isnan(v)
        assert v == 0.0 or undefined or m.family in {"num_q", "num_rel", "utility", "ideal_dcg"}, (str(m), v)


def test_query_with_only_negative_grades_inherits_grade_table():
    # trec_eval 10.0 form_res_rels.c leaves its grade table untouched for a
    # query without judged grades >= 0: ideal_dcg repeats the previous query's
    qrels = qrels_frame([("1", "a", 2), ("1", "b", 1), ("2", "c", -1)])
    run = run_frame([("1", "a", 1.0), ("2", "c", 1.0)])
    v = values(metrics.evaluate(qrels, run, ["ideal_dcg", "ndcg"]))
    assert v[("1", "ideal_dcg")] == pytest.approx(2 + 1 / math.log2(3))
    assert v[("2", "ideal_dcg")] == v[("1", "ideal_dcg")]
    assert v[("2", "ndcg")] == 0.0


def test_placeholder_resets_follow_trec_eval_names():
    # under -c, trec_eval clears "relstring" but not "relstring_20" (it
    # matches the printed name), likewise utility and rbp_resid
    qrels = qrels_frame([("1", "a", 1), ("2", "b", 1)])
    run = run_frame([("1", "a", 1.0)])
    ev = metrics.evaluate(
        qrels,
        run,
        ["relstring", "relstring.20", "utility", "utility.1,-1,0,0.5", "rbp_resid", "rbp_resid.p=0.5"],
        complete=True,
    )
    text = {(q, m): v for q, m, v in zip(ev.text["query_id"], ev.text["measure"], ev.text["value"])}
    assert text[("2", "relstring")] == "" and text[("2", "relstring_20")] == "-"
    v = values(ev)
    # one non-relevant doc retrieved, 1 relevant missed: -1 + 0.5 * (0 + 0 - 1 - 1)
    assert v[("2", "utility")] == 0.0 and v[("2", "utility_1,-1,0,0.5")] == -2.0
    assert v[("2", "rbp_resid")] == 0.0 and v[("2", "rbp_resid_p=0.5")] == 1.0
