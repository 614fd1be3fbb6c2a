"""The peers' names and conventions: cwl_eval's NERR8-NERR11, ranx's bare ``f1``, set measures with a
cutoff, ``--irm``'s order of tied scores per ir_measures provider, no per-query row without a value."""

from __future__ import annotations

import math
import random
import subprocess
import sys

import pytest

import metrics
from metrics.measures import parse_measures


def _tied(tmp_path, seed: int = 11):
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(1, 16):
        docs = list(dict.fromkeys(f"D{rng.randrange(1000)}" for _ in range(40)))
        for d in rng.sample(docs, 12):
            qrels.append(f"{q} 0 {d} {rng.choice([0, 1, 1, 2])}")
        for i, d in enumerate(docs):
            run.append(f"{q} Q0 {d} {i + 1} {rng.choice([1.0, 2.0, 3.0])} t")
    (tmp_path / "q.txt").write_text("\n".join(qrels) + "\n")
    (tmp_path / "r.txt").write_text("\n".join(run) + "\n")
    return tmp_path / "q.txt", tmp_path / "r.txt"


def test_nerr_names_parse_and_write_back():
    for name in ("NERR8(max_rel=3)@10", "NERR9(max_rel=3)@5", "NERR10(p=0.8,max_rel=3)", "NERR11(T=2,max_rel=3)"):
        m = parse_measures([name])[0]
        assert m.family.startswith("nerr")
        assert metrics.measures.irm.ir_measures_name(m) is not None
        assert parse_measures([metrics.measures.irm.ir_measures_name(m)])[0] == m
    with pytest.raises(ValueError):
        parse_measures(["NERR8(max_rel=3)"])  # a cutoff is required, as in ir_measures
    with pytest.raises(ValueError):
        parse_measures(["NERR10(max_rel=3)@10"])


def test_nerr_by_hand(tmp_path):
    """NERR8@3 on grades 1, 0, 2 (max_rel 2): gains .5, 0, 1; c = (.5, 1, 0): W ∝ (1, .5, .5)."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n")
    ev = metrics.evaluate(tmp_path / "q", tmp_path / "r", ["NERR8(max_rel=2)@3"])
    assert ev.summary().iloc[0, 0] == pytest.approx((1 * 0.5 + 0.5 * 0 + 0.5 * 1) / 2)


def test_nerr_equal_ir_measures(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")
    qrels_path, run_path = _tied(tmp_path)
    # distinct scores: the order of ties is not what is checked here
    lines = run_path.read_text().splitlines()
    run_path.write_text("".join(f"{' '.join(x.split()[:4])} {1000 - i} t\n" for i, x in enumerate(lines)))
    names = ["NERR8(max_rel=2)@10", "NERR9(max_rel=2)@5", "NERR10(p=0.8,max_rel=2)", "NERR11(T=2.0,max_rel=2)"]
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    run = list(ir_measures.read_trec_run(str(run_path)))
    ev = metrics.evaluate(qrels_path, run_path, names)
    for name in names:
        m = ir_measures.parse_measure(name)
        want = ir_measures.calc_aggregate([m], qrels, run)[m]
        assert ev.summary()[name].iloc[0] == pytest.approx(want, abs=1e-12)


def test_ranx_bare_f1_is_set_f():
    assert parse_measures(["f1"]) == parse_measures(["set_F"])
    assert parse_measures(["precision"]) == parse_measures(["set_P"])
    assert parse_measures(["f1@10"]) == parse_measures(["F1@10"])


def test_ranx_bare_f1_equals_ranx(tmp_path):
    ranx = pytest.importorskip("ranx")
    qrels_path, run_path = _tied(tmp_path)
    lines = run_path.read_text().splitlines()
    run_path.write_text("".join(f"{' '.join(x.split()[:4])} {1000 - i} t\n" for i, x in enumerate(lines)))
    qrels = ranx.Qrels.from_file(str(qrels_path), kind="trec")
    run = ranx.Run.from_file(str(run_path), kind="trec")
    want = ranx.evaluate(qrels, run, ["f1", "precision"])
    got = metrics.evaluate(qrels_path, run_path, ["f1", "precision"]).summary().iloc[0]
    assert got["f1"] == pytest.approx(want["f1"], abs=1e-12)
    assert got["precision"] == pytest.approx(want["precision"], abs=1e-12)


@pytest.mark.parametrize(
    "name, instead",
    [("SetP(rel=2)@5", "P(rel=2)@5"), ("SetR(rel=2)@5", "R(rel=2)@5"), ("SetP@10", "P@10"), ("SetAP@5", "AP@5")],
)
def test_set_measure_with_a_cutoff_names_what_to_write(name, instead):
    with pytest.raises(ValueError) as e:
        parse_measures([name])
    assert f"write {instead}" in str(e.value)
    parse_measures([instead])


def test_set_measure_with_a_cutoff_is_refused_by_ir_measures_too(tmp_path):
    ir_measures = pytest.importorskip("ir_measures")
    qrels_path, run_path = _tied(tmp_path)
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    run = list(ir_measures.read_trec_run(str(run_path)))
    with pytest.raises(Exception, match="cutoff"):
        ir_measures.calc_aggregate([ir_measures.parse_measure("SetP(rel=2)@5")], qrels, run)


def _irm(*args):
    out = subprocess.run(
        [sys.executable, "-m", "metrics.cli.ir_eval", "--irm", *map(str, args)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_irm_orders_ties_as_each_provider(tmp_path):
    qrels_path, run_path = _tied(tmp_path)
    lib = metrics.evaluate(qrels_path, run_path, ["RR@10"], complete=True).summary().iloc[0, 0]
    irm = float(_irm(qrels_path, run_path, "RR@10").split("\t")[1])
    # ties by document id ascending: the first relevant document of each tie group comes sooner or later
    assert irm != pytest.approx(lib)
    # RR (no cutoff) is pytrec_eval's: trec_eval's order in both
    rr = metrics.evaluate(qrels_path, run_path, ["RR"], complete=True).summary().iloc[0, 0]
    assert float(_irm(qrels_path, run_path, "RR", "-p", "-1").split("\t")[1]) == pytest.approx(rr, abs=1e-15)


def test_irm_ties_equal_ir_measures(tmp_path):
    pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")
    qrels_path, run_path = _tied(tmp_path)
    for name in ("RR@10", "Judged@5", "INST(max_rel=2)", "NERR8(max_rel=2)@10", "Accuracy@5", "P@5", "AP"):
        want = subprocess.run(
            [sys.executable, "-m", "ir_measures", str(qrels_path), str(run_path), name, "-q"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert sorted(_irm(qrels_path, run_path, name, "-q").splitlines()) == sorted(want.splitlines()), name


def test_no_per_query_row_without_a_value(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 x 1 3 t\n")
    ev = metrics.evaluate(tmp_path / "q", tmp_path / "r", ["Accuracy", "P@5"])
    pq = ev.per_query
    assert not pq["value"].isna().any()
    assert set(pq[pq["measure"] == "Accuracy"]["query_id"]) == {"1"}
    assert set(pq[pq["measure"] == "P@5"]["query_id"]) == {"1", "2"}
    assert ev.summary()["Accuracy"].iloc[0] == 1.0
    assert not any(math.isnan(v) for v in pq["value"])
    lines = _irm(tmp_path / "q", tmp_path / "r", "Accuracy", "-q").splitlines()
    assert lines == ["1\tAccuracy\t1.0000", "all\tAccuracy\t1.0000"]
