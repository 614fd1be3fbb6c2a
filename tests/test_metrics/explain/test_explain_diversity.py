"""metrics.explain explains the diversity measures: every explained value is evaluate_diversity's, per query
and for the mean, over generated intent qrels and runs (tied scores, unjudged documents, negative grades,
documents relevant to several intents, queries without a relevant document, levels 1 and 2), the rows add
up to it, and the text is the working of the hand-worked example of tests/intent_data.py."""

from __future__ import annotations

import json
import math
import random
import re

import pandas as pd
import pytest
from intent_data import INTENTS, QRELS, RUN_A, RUN_B

import metrics
from metrics.cli import ir_eval
from metrics.engine.settings import Settings
from metrics.explain import PreparedDiversity, UnknownQuery, explain_diversity
from metrics.explain import diversity as explain_module
from metrics.explain.query import Working
from metrics.measures.diversity import parse_diversity

MEASURES = [
    "alpha_nDCG@1",
    "alpha_nDCG@3",
    "alpha_nDCG@10",
    "alpha_nDCG(alpha=0.8)@5",
    "ERR_IA@1",
    "ERR_IA@4",
    "ERR_IA(alpha=0.3)@10",
    "P_IA@1",
    "P_IA@5",
    "P_IA@20",
    "StRecall@2",
    "StRecall@10",
    "NRBP",
    "NRBP(alpha=0.3,beta=0.8)",
    "P_IA(rel=2)@5",
    "alpha_DCG@1",
    "alpha_DCG@5",
    "alpha_DCG(alpha=0.8)@10",
    "nERR_IA@1",
    "nERR_IA@4",
    "nERR_IA(alpha=0.3)@10",
    "nNRBP",
    "nNRBP(alpha=0.3,beta=0.8)",
    "AP_IA",
    "AP_IA(rel=2)",
]


def generated(seed: int):
    """Intent qrels of 8 queries (1-4 intents, grades -1..3, a document judged for several intents, query
    q7 with no grade >= 1) and two runs with scores tied often and documents the qrels do not judge."""
    rng = random.Random(seed)
    rows = []
    for q in range(8):
        for i in range(rng.randint(1, 4)):
            for d in rng.sample(range(12), rng.randint(1, 6)):
                grade = rng.choice([-1, 0, 1, 1, 2, 3]) if q != 7 else rng.choice([-1, 0])
                rows.append((f"q{q}", f"s{i}", f"d{d}", grade))
    qrels = pd.DataFrame(rows, columns=["query_id", "intent", "doc_id", "relevance"])
    runs = {}
    for r in range(2):
        lines = [
            (f"q{q}", f"d{d}", float(rng.randint(0, 4)))
            for q in range(9)  # q8: in the runs only
            if not (r == 1 and q == 3)  # the second run lacks q3
            for d in rng.sample(range(16), rng.randint(1, 14))
        ]
        runs[f"r{r}"] = pd.DataFrame(lines, columns=["query_id", "doc_id", "score"])
    return qrels, runs


def _rows(e, title_start: str) -> list[dict]:
    return [list(t.rows) for t in e.tables if t.title.startswith(title_start)][0]


def _intents_S(e) -> int:
    return sum(1 for r in _rows(e, "Intents") if r["relevant judged"] > 0)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


def check_rows_add_up(e, name: str) -> None:
    """The numbers of the tables give the value (up to the last bits of a different order of sums)."""
    m = parse_diversity(name)
    k = m.cutoff
    ranking = list(e.tables[0].rows)
    assert [r["rank"] for r in ranking] == list(range(1, len(ranking) + 1))
    if len(e.tables) == 1:  # S = 0
        assert e.value == 0.0 and any("S = 0" in line for line in e.summary)
        return
    S = _intents_S(e)
    assert any(line.startswith(f"S = {S} of the query's") for line in e.summary)
    if m.name in ("alpha_nDCG", "ERR_IA", "NRBP", "alpha_DCG", "nERR_IA", "nNRBP"):
        check_gains_add_up(ranking)
    if m.name in ("nERR_IA", "nNRBP"):
        ideal = _rows(e, "The ideal ranking")
        check_gains_add_up(ideal)
        gains = [r["gain"] for r in ideal]
        assert gains == sorted(gains, reverse=True) and len({r["docid"] for r in ideal}) == len(ideal)
        assert all(r["relevant to"] for r in ideal)  # only relevant documents gain
        total = sum(r["contribution"] for r in ranking)
        itotal = sum(r["contribution"] for r in ideal)
        # the ranking's and the ideal's ERR-IA (NRBP) share their scale: the value is the ratio of the sums
        assert _close(e.value, total / itotal if total else 0.0)
        in_ideal = {r["intent"]: 0 for r in _rows(e, "Intents")}
        for r in ideal:
            for intent in r["relevant to"].split(", "):
                in_ideal[intent] += 1
        judged = {r["intent"]: r["relevant judged"] for r in _rows(e, "Intents")}
        if m.name == "nERR_IA":
            assert len(ideal) <= k and all(in_ideal[i] <= judged[i] for i in judged)
        else:  # every judged document relevant to an intent, whatever the cutoff
            assert in_ideal == judged
    if m.name == "alpha_nDCG":
        for r in ranking:
            assert _close(r["contribution"], r["gain"] / r["discount"])
        dcg = sum(r["contribution"] for r in ranking)
        ideal = _rows(e, "The ideal ranking")
        idcg = sum(r["contribution"] for r in ideal)
        gains = [r["gain"] for r in ideal]
        assert gains == sorted(gains, reverse=True)  # the greedy ideal never gains more further down
        assert _close(e.value, dcg / idcg if dcg else 0.0)
    elif m.name == "ERR_IA":
        total = sum(r["contribution"] for r in ranking)
        best = sum((1 - m.alpha) ** i / (i + 1) for i in range(k))
        assert _close(e.value, total / (S * best) if k > 1 else total)
        if k > 1:  # the mean over the S intents of each one's normalised ERR
            assert _close(e.value, sum(r.get("ERR / best", 0.0) for r in _rows(e, "Intents")) / S)
    elif m.name == "P_IA":
        pairs = sum(r["relevant pairs"] for r in ranking)
        assert e.value == pairs / (k * S)
        assert _close(e.value, sum(r.get("precision", 0.0) for r in _rows(e, "Intents")) / S)
    elif m.name == "StRecall":
        covered = ranking[-1]["covered so far"] if ranking else 0
        assert e.value == covered / S
        assert covered == sum(1 for r in _rows(e, "Intents") if r[f"relevant in the top {k}"] > 0)
    elif m.name == "NRBP":
        total = sum(r["contribution"] for r in ranking)
        assert _close(e.value, total * (1 - (1 - m.alpha) * m.beta) / S)
    elif m.name == "alpha_DCG":
        for r in ranking:
            assert _close(r["contribution"], r["gain"] / r["discount"])
        dcg = sum(r["contribution"] for r in ranking)
        ideal_ideal = S * sum((1 - m.alpha) ** i / math.log2(i + 2) for i in range(k))
        assert _close(e.value, dcg / ideal_ideal if k > 1 else dcg)
    elif m.name == "AP_IA":
        pairs = _rows(e, "Relevant (rank, intent) pairs")
        assert len(pairs) == sum(len(r["relevant to"].split(", ")) for r in ranking if r["relevant to"])
        sums: dict[str, float] = {}
        for r in pairs:
            assert r["intent"] in ranking[r["rank"] - 1]["relevant to"].split(", ")
            assert r["precision"] == r["relevant so far"] / r["rank"]
            sums[r["intent"]] = sums.get(r["intent"], 0.0) + r["precision"]
            assert _close(r["intent's running sum"], sums[r["intent"]])
        aps = []
        for r in _rows(e, "Intents"):
            if r["relevant judged"]:
                assert _close(r["AP"], sums.get(r["intent"], 0.0) / r["relevant judged"])
                aps.append(r["AP"])
            else:
                assert r["AP"] is None and r["intent"] not in sums
        assert len(aps) == S and _close(e.value, sum(aps) / S)
    elif m.name not in ("nERR_IA", "nNRBP"):  # (checked above)
        raise AssertionError(f"{m.name}: its rows are not checked here")


def check_gains_add_up(ranking: list[dict]) -> None:
    """Each rank's gain is the sum of its terms, one per intent it is relevant to, and the last column runs
    the contributions."""
    running = 0.0
    for r in ranking:
        terms = [t.split("^") for t in r["gain terms"].split(" + ")] if r["gain terms"] else []
        assert _close(r["gain"], sum(float(b) ** int(c) for b, c in terms))
        assert len(terms) == len(r["relevant to"].split(", ")) if r["relevant to"] else not terms
        running += r["contribution"]
        assert _close(list(r.values())[-1], running)
        assert _close(r["contribution"], r["gain"] / r["divided by"]) if "divided by" in r else True
        assert _close(r["contribution"], r["gain"] * r["beta^(rank-1)"]) if "beta^(rank-1)" in r else True


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("level", [1, 2])
def test_every_explained_value_is_evaluate_diversitys(seed, level):
    qrels, runs = generated(seed)
    for complete in (False, True):
        ev = metrics.evaluate_diversity(qrels, runs, MEASURES, relevance_level=level, complete=complete)
        pq = ev.per_query
        summary = ev.summary()
        for label, run in runs.items():
            prepared = PreparedDiversity(
                qrels, run, settings=Settings(relevance_level=level, complete=complete), label=label
            )
            assert prepared.query_ids == ev.query_ids[label]
            for name in ev.measure_names():
                values = pq[(pq["run"] == label) & (pq["measure"] == name)]
                assert len(values) == len(ev.query_ids[label]) > 0
                for qid, value in zip(values["query_id"], values["value"]):
                    e = prepared.explain(name, qid)
                    assert e.explained, e.reason
                    assert e.value == value and (e.measure, e.query_id, e.run) == (name, qid, label)
                    assert e.worked == value, (name, qid, e.worked)  # the rows reach the value exactly
                    assert e.line == f"{name:<22}\t{qid}\t{value:.4f}"
                    check_rows_add_up(e, name)
                mean = prepared.explain(name, "all")
                assert mean.explained and mean.value == float(summary.loc[label, name])
                rows = mean.rows
                assert [r["query"] for r in rows] == ev.query_ids[label]
                assert [r["value"] for r in rows] == list(values["value"])
                assert _close(rows[-1]["running sum"] / len(rows), mean.value)


def test_the_hand_worked_example_of_query_101(tmp_path):
    """sysA on query 101: d1 (intents 1, 2), x1 (tied with d2 at 4.0, ranked first: docid descending, not in
    the qrels), d2 (1), d5 (3), d4 (2)."""
    (tmp_path / "intents.txt").write_text(INTENTS)
    (tmp_path / "a.txt").write_text(RUN_A)
    intents, run = str(tmp_path / "intents.txt"), str(tmp_path / "a.txt")
    e = explain_diversity(intents, run, "alpha_nDCG@5", "101")
    assert e.run == "sysA" and e.explained
    rows = e.rows
    assert [r["docid"] for r in rows] == ["d1", "x1", "d2", "d5", "d4"]
    assert [r["relevant to"] for r in rows] == ["1, 2", "", "1", "3", "2"]
    assert [r["gain terms"] for r in rows] == ["0.5^0 + 0.5^0", "", "0.5^1", "0.5^0", "0.5^1"]
    assert [r["grades"] for r in rows][:2] == ["1: 1, 2: 1", "not in qrels"]
    dcg = 2 + 0.5 / 2 + 1 / math.log2(5) + 0.5 / math.log2(6)
    ideal = _rows(e, "The ideal ranking")
    assert [r["docid"] for r in ideal] == ["d1", "d5", "d4", "d2"]  # d4 and d2 tie at 0.5: the larger docid
    idcg = 2 + 1 / math.log2(3) + 0.5 / 2 + 0.5 / math.log2(5)
    assert math.isclose(e.value, dcg / idcg, rel_tol=1e-12)
    text = e.to_text()
    assert "| 3 | d2 | 1: 2 | 1 | 0.5^1 | 0.5000 | 2.0000 | 0.2500 | 2.2500 |" in text
    assert f"alpha-nDCG@5 = {dcg:.4f} / {idcg:.4f} = {dcg / idcg:.4f}" == "alpha-nDCG@5 = 2.8741 / 3.0963 = 0.9282"
    assert "alpha-nDCG@5 = 2.8741 / 3.0963 = 0.9282" in text
    assert text.splitlines()[-1] == "alpha_nDCG@5          \t101\t0.9282"

    err = explain_diversity(intents, run, "ERR_IA@3", "101")
    assert err.value == pytest.approx(13 / 24, abs=1e-15)  # (2 + 0 + 0.5/3) / (3 * (1 + 0.5/2 + 0.25/3))
    per_intent = {r["intent"]: r["ERR of the intent"] for r in _rows(err, "Intents")}
    assert per_intent == pytest.approx({"1": 1 + 0.5 / 3, "2": 1.0, "3": 0.0})
    assert "ERR-IA@3 = 2.1667 / (3 * 1.3333) = 2.1667 / 4.0000 = 0.5417" in err.to_text()
    assert explain_diversity(intents, run, "P_IA@5", "101").value == 5 / 15
    assert explain_diversity(intents, run, "StRecall@2", "101").value == 2 / 3
    nrbp = explain_diversity(intents, run, "NRBP", "101")
    assert nrbp.value == 0.75 / 3 * (2 + 0.5 * 0.25 + 0.125 + 0.5 * 0.0625)
    assert "NRBP = (1 - 0.5 * 0.5) / 3 * 2.2812 = 0.2500 * 2.2812 = 0.5703" in nrbp.to_text()
    # nERR-IA@3: the run's ERR-IA@3 (13/24, above) over that of the greedy ideal ranking d1, d5, d4
    nerr = explain_diversity(intents, run, "nERR_IA@3", "101")
    assert nerr.explained and [r["docid"] for r in _rows(nerr, "The ideal ranking")] == ["d1", "d5", "d4"]
    assert nerr.value == pytest.approx((13 / 24) / ((2 + 1 / 2 + 0.5 / 3) / 4), abs=1e-15)  # 13/16
    text = nerr.to_text()
    assert "ERR-IA@3 of the ideal ranking = 2.6667 / 4.0000 = 0.6667" in text
    assert "nERR-IA@3 = 0.5417 / 0.6667 = 0.8125" in text
    # nNRBP: every relevant judged document in the ideal ranking, d2 last (tied with d4, the smaller docid)
    nnrbp = explain_diversity(intents, run, "nNRBP", "101")
    assert [r["docid"] for r in _rows(nnrbp, "The ideal ranking")] == ["d1", "d5", "d4", "d2"]
    assert nnrbp.value == pytest.approx(2.28125 / (2 + 0.5 + 0.125 + 0.0625), abs=1e-15)
    assert "nNRBP = 0.5703 / 0.6719 = 0.8488" in nnrbp.to_text()
    # alpha-DCG@3: DCG@3 over S * (1 + 0.5 / log2(3) + 0.25 / 2), not over the ideal ranking's DCG
    adcg = explain_diversity(intents, run, "alpha_DCG@3", "101")
    assert adcg.value == pytest.approx(2.25 / (3 * (1 + 0.5 / math.log2(3) + 0.25 / 2)), rel=1e-14)
    assert "alpha-DCG@3 = 2.2500 / 4.3214 = 0.5207" in adcg.to_text()
    # AP-IA: intent 1 at ranks 1 and 3, intent 2 at 1 and 5, intent 3 at 4 (of 2, 2 and 1 judged relevant)
    ap = explain_diversity(intents, run, "AP_IA", "101")
    aps = {r["intent"]: r["AP"] for r in _rows(ap, "Intents")}
    assert aps == pytest.approx({"1": (1 + 2 / 3) / 2, "2": (1 + 2 / 5) / 2, "3": 1 / 4})
    assert ap.value == pytest.approx(((1 + 2 / 3) / 2 + (1 + 2 / 5) / 2 + 1 / 4) / 3, abs=1e-15)
    assert "| 5 | d4 | 2 | 2 | 0.4000 | 1.4000 |" in ap.to_text()
    assert "AP-IA = (0.8333 + 0.7000 + 0.2500) / 3 = 1.7833 / 3 = 0.5944" in ap.to_text()
    # no relevant document for any intent of 104: S = 0
    none = explain_diversity(intents, run, "alpha_nDCG@5", "104")
    assert none.explained and none.value == 0.0
    assert none.rows[0]["grades"] == "1: 0" and "S = 0, and alpha-nDCG is 0" in none.to_text()
    # the mean over the four queries
    mean = explain_diversity(intents, run, "StRecall@20", "all")
    assert mean.value == (1 + 1 + 0.75 + 0) / 4 and "StRecall@20 = 2.7500 / 4 = 0.6875" in mean.to_text()
    json.dumps(mean.to_dict(), allow_nan=False)
    assert json.loads(json.dumps(e.to_dict()))["rows"][1]["docid"] == "x1"


def test_level_two_negative_grades_and_the_measures_own_level(tmp_path):
    (tmp_path / "intents.txt").write_text(INTENTS)
    (tmp_path / "b.txt").write_text(RUN_B)
    intents, run = str(tmp_path / "intents.txt"), str(tmp_path / "b.txt")
    e = explain_diversity(intents, run, "P_IA@5", "101", settings=Settings(relevance_level=2))
    # at grade 2 only d2 (intent 1) and d5 (intent 3) are relevant: S = 2; sysB: d4, d6 (tied with d5 at 8.0,
    # ranked first), d5, y1
    assert [r["docid"] for r in e.rows] == ["d4", "d6", "d5", "y1"]
    assert [r["grades"] for r in e.rows] == ["2: 1", "3: -1", "3: 2", "not in qrels"]
    assert [r["relevant to"] for r in e.rows] == ["", "", "3", ""]
    assert e.value == 1 / (5 * 2) and "Only 4 documents retrieved" in e.to_text()
    assert "grade >= 2 (-l 2)" in e.conventions[1]
    expected = metrics.evaluate_diversity(intents, run, ["P_IA@5"], relevance_level=2).per_query
    assert e.value == float(expected[expected["query_id"] == "101"]["value"].iloc[0])
    own = explain_diversity(intents, run, "P_IA(rel=2)@5", "101")
    assert own.value == e.value and "grade >= 2 (the measure's own)" in own.conventions[1]
    assert explain_diversity(intents, run, "P_IA@5", "101").value == 2 / 15  # level 1: d4 and d5 (d6: -1)


def test_unknown_queries_and_measures(tmp_path):
    (tmp_path / "intents.txt").write_text(INTENTS)
    (tmp_path / "b.txt").write_text(RUN_B)
    prepared = PreparedDiversity(str(tmp_path / "intents.txt"), str(tmp_path / "b.txt"))
    with pytest.raises(UnknownQuery, match="no results"):  # sysB retrieves nothing for 104
        prepared.explain("NRBP", "104")
    with pytest.raises(UnknownQuery, match="not in the intent qrels"):
        prepared.explain("NRBP", "999")
    with pytest.raises(ValueError, match="unknown diversity measure"):
        prepared.explain("map", "101")
    with pytest.raises(ValueError, match="needs a cutoff"):
        prepared.explain("alpha_nDCG", "101")
    complete = PreparedDiversity(
        str(tmp_path / "intents.txt"), str(tmp_path / "b.txt"), settings=Settings(complete=True)
    )
    e = complete.explain("StRecall@5", "104")
    assert e.explained and e.value == 0.0 and e.rows == ()
    mean = complete.explain("StRecall@5", "all")
    assert mean.rows[-1]["note"] == "not in the run: scores 0" and "-c: the mean is over all 4" in mean.to_text()


def test_a_working_that_does_not_reproduce_the_value_is_not_shown(tmp_path, monkeypatch):
    (tmp_path / "intents.txt").write_text(INTENTS)
    (tmp_path / "a.txt").write_text(RUN_A)
    real = explain_module.working

    def off(q, m, st):
        w = real(q, m, st)
        return Working(w.formula, w.tables, w.summary, w.value + 1e-6, w.conventions)

    monkeypatch.setattr(explain_module, "working", off)
    intents, run = str(tmp_path / "intents.txt"), str(tmp_path / "a.txt")
    e = explain_diversity(intents, run, "ERR_IA@5", "102")
    assert not e.explained and "does not reproduce" in e.reason and e.tables == ()
    pq = metrics.evaluate_diversity(intents, run, ["ERR_IA@5"]).per_query
    assert e.value == float(pq[pq["query_id"] == "102"]["value"].iloc[0]) and e.worked == e.value + 1e-6


def test_ir_eval_explains_a_diversity_measure(tmp_path, capsys):
    for name, text in (("intents", INTENTS), ("qrels", QRELS), ("a", RUN_A)):
        (tmp_path / f"{name}.txt").write_text(text)
    intents, run = str(tmp_path / "intents.txt"), str(tmp_path / "a.txt")
    assert ir_eval.main(["-q", "-l", "2", "-m", "ERR_IA@3", intents, run]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "\t103\t" in line]
    assert ir_eval.main(["--explain", "ERR_IA@3", "--query", "103", "-l", "2", intents, run]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == lines[0] and "grade >= 2 (-l 2)" in out
    assert re.search(r"^\| 1 \| d13 \| 4: 1 \|  \|", out, re.M)  # tied with d10 at 2.0, the larger docid first
    assert ir_eval.main(["--explain", "NRBP", "--query", "all", "--format", "json", intents, run]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["value"] == metrics.evaluate_diversity(intents, run, ["NRBP"]).summary().loc["sysA", "NRBP"]
    assert ir_eval.main(["--explain", "NRBP", "--query", "101", "-M", "3", intents, run]) == 1
    assert "-M: not offered" in capsys.readouterr().err
    assert ir_eval.main(["--explain", "NRBP", "--query", "101", str(tmp_path / "qrels.txt"), run]) == 2
    assert "ad hoc qrels, not intent qrels" in capsys.readouterr().err
    assert ir_eval.main(["--explain", "NRBP", "--query", "105", intents, run]) == 1
    assert "not in the intent qrels" in capsys.readouterr().err
