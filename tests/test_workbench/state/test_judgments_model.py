"""The window's judgments analyses in plain Python (workbench.state.judgments through
workbench.state.analyses): their numbers against metrics.judgments on generated qrels with ties,
unjudged documents, negative grades and missing queries; when they are out of date; what their exports
state; and the sentences said where a value cannot be computed.  No Qt."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import qrels_frame, random_collection

from metrics.engine.settings import Settings
from metrics.judgments import compare, leave_one_out, system_agreement
from workbench.scoring import evaluation as window_analysis
from workbench.state import analyses, judgments


def _other(qrels: pd.DataFrame, seed: int = 5) -> pd.DataFrame:
    """A second assessor: some grades changed, some pairs unjudged, a query left out, a pair graded -1."""
    rng = np.random.default_rng(seed)
    b = qrels.copy()
    flip = rng.random(len(b)) < 0.3
    b.loc[flip, "relevance"] = rng.integers(0, 3, int(flip.sum()))
    b = b[rng.random(len(b)) > 0.1]
    b = b[b["query_id"] != sorted(set(b["query_id"]))[0]]
    b = b.reset_index(drop=True)
    b.loc[0, "relevance"] = -1
    return b


@pytest.fixture(scope="module")
def setup():
    qrels, _ = random_collection(4)
    runs = {name: random_collection(4 + 10 * i, name=name)[1] for i, name in enumerate("abc")}
    request = window_analysis.Request(qrels=qrels, runs=runs, measures=("map", "P.5"), qrels_name="qrels.txt")
    results = window_analysis.compute(request)
    other = _other(qrels)
    inputs = analyses.inputs_of(results, held={"/data/other.txt": other})
    return inputs, qrels, other, runs


def test_the_agreement_is_the_cores_and_its_overall_row_adds_up(setup):
    inputs, qrels, other, _ = setup
    s = analyses.QrelsAgreementSettings("/data/other.txt", 1, top=4)
    out = analyses.compute("qrels_agreement", inputs, s)
    expected = compare(qrels, other, top=4)
    pd.testing.assert_frame_equal(out.tables["per_query"], expected.per_query)
    pd.testing.assert_frame_equal(out.tables["disputed"], expected.most_disputed)
    summary = dict(zip(out.tables["summary"]["what"], out.tables["summary"]["value"]))
    assert summary["Cohen's kappa"] == f"{expected.kappa:.4f}"
    assert summary["Krippendorff's alpha (ordinal)"] == f"{expected.alpha:.4f}"
    assert summary["negative grades left out (a, b)"] == f"{expected.negative_a}, {expected.negative_b}"
    assert expected.negative_b > 0
    assert summary["queries judged by a only, b only"] == f"{expected.queries_only_a}, 0"
    export = out.tables["export"]
    assert export.loc[0, "query_id"] == "all" and export.loc[0, "kappa"] == expected.kappa
    # the overall mean |grade a - grade b|, written out from the shared pairs
    judged = [q[q["relevance"] >= 0] for q in (qrels, other)]  # (negative grades are no judgment)
    both = judged[0].merge(judged[1], on=["query_id", "doc_id"], suffixes=("_a", "_b"))
    assert export.loc[0, "mean_abs_diff"] == pytest.approx((both["relevance_a"] - both["relevance_b"]).abs().mean())
    pd.testing.assert_frame_equal(export.iloc[1:].reset_index(drop=True), expected.per_query)
    assert out.extra["verdict"].startswith(f"{expected.pairs} pairs judged by both")


def test_the_systems_are_the_cores_and_the_export_states_tau(setup):
    inputs, qrels, other, runs = setup
    s = analyses.SystemsSettings("/data/other.txt", 1, "P_5", alpha=0.1)
    out = analyses.compute("systems", inputs, s)
    expected = system_agreement(runs, qrels, other, "P_5", alpha=0.1)
    pd.testing.assert_frame_equal(out.tables["scores"], expected.scores)
    pd.testing.assert_frame_equal(out.tables["flips"], expected.flips)
    header = analyses.export_header(out, "systems under two qrels")
    assert f"tau: {expected.tau:.4f}" in header and f"tau_AP (a the reference): {expected.tau_ap:.4f}" in header
    assert "systems: P_5; Kendall's tau-b and tau_AP between the orderings; flips tested at 0.1" in header
    assert f"Kendall's tau {expected.tau:.4f}" in out.extra["verdict"]


def test_the_pool_bias_is_the_cores(setup):
    inputs, qrels, _, runs = setup
    out = analyses.compute("pool_bias", inputs, analyses.PoolSettings("map", depth=15, judged_at=5))
    expected = leave_one_out(runs, qrels, "map", 15, judged_at=5)
    pd.testing.assert_frame_equal(out.tables["runs"], expected.runs)
    assert "loses most" in out.extra["verdict"]
    together = analyses.PoolSettings("map", depth=15, group_sep="_")
    assert together.groups() is not None and together.groups()("bm25_rm3") == "bm25"
    assert analyses.PoolSettings("map").groups() is None
    grouped = analyses.compute("pool_bias", inputs, analyses.PoolSettings("map", depth=15, group_sep="x"))
    expected = leave_one_out(runs, qrels, "map", 15, groups=lambda run: run.split("x")[0])
    pd.testing.assert_frame_equal(grouped.tables["runs"], expected.runs)
    assert "each group (runs whose labels agree up to 'x')" in grouped.settings.stated()[0][1]


def test_a_held_qrels_read_again_or_another_chosen_makes_the_outcome_out_of_date(setup):
    inputs, *_ = setup
    s = analyses.QrelsAgreementSettings("/data/other.txt", 1)
    out = analyses.compute("qrels_agreement", inputs, s)
    assert analyses.state(out, inputs.results, s) == "current"
    assert analyses.state(out, inputs.results, analyses.QrelsAgreementSettings("/data/other.txt", 2)) == "outdated"
    assert analyses.state(out, inputs.results, analyses.QrelsAgreementSettings("/data/third.txt", 1)) == "outdated"
    with pytest.raises(ValueError, match="no longer held"):
        analyses.compute("qrels_agreement", inputs, analyses.QrelsAgreementSettings("/data/third.txt", 1))


def test_what_cannot_be_computed_is_said_in_words_never_as_nan():
    a = qrels_frame([("q1", "d1", 1), ("q1", "d2", 0), ("q2", "d1", 2)])
    elsewhere = qrels_frame([("x1", "d1", 1)])
    s = judgments.QrelsAgreementSettings("/x/elsewhere.txt", 1)
    tables, extra = judgments.qrels_agreement(a, {"/x/elsewhere.txt": elsewhere}, s, lambda _: True)
    values = list(tables["summary"]["value"])
    assert not any("nan" in v.lower() for v in values)
    assert "n/a (not computable: no (query, document) pair is judged by both qrels)" in values
    assert extra["verdict"].startswith("No (query, document) pair is judged by both the qrels in use and elsewhere.txt")

    tables, extra = judgments.qrels_agreement(a, {"/x/elsewhere.txt": a.copy()}, s, lambda _: True)
    assert (
        extra["verdict"] == "The qrels in use and elsewhere.txt are identical: every pair has the same grade in both."
    )

    one_grade = qrels_frame([("q1", "d1", 1), ("q1", "d2", 1)])
    _, extra = judgments.qrels_agreement(one_grade, {"/x/elsewhere.txt": one_grade}, s, lambda _: True)
    assert "identical" in extra["verdict"]
    _, extra = judgments.qrels_agreement(
        one_grade, {"/x/elsewhere.txt": qrels_frame([("q1", "d1", 1), ("q1", "d3", 1)])}, s, lambda _: True
    )
    assert "kappa and alpha are not computable: every shared pair has grade 1 in both qrels" in extra["verdict"]

    run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["d1", "d2", "d1"], "score": [2.0, 1.0, 1.0]})
    ss = judgments.SystemsSettings("/x/elsewhere.txt", 1, "map")
    tables, extra = judgments.systems(a, {"r": run}, {"/x/elsewhere.txt": a.copy()}, ss, Settings(), lambda _: True)
    assert (
        "Kendall's tau is n/a (not computable: it needs two runs scored under both qrels (one run given))"
        in (extra["verdict"])
    )
    assert "Every run scores the same under both qrels" in extra["verdict"]
    stated = dict(extra["stated"])
    assert stated["tau"].startswith("n/a (not computable") and "nan" not in " ".join(stated.values()).lower()


def test_the_held_choices_are_the_held_qrels_in_list_order():
    from workbench.state.workspace import FileEntry, Workspace

    ws = Workspace()
    for name, kind in (("q.txt", "qrels"), ("b.txt", "held"), ("r.run", "run"), ("c.txt", "held")):
        ws.entries.append(FileEntry(path=f"/d/{name}", kind=kind, status="ok", qrels=object(), version=2))  # type: ignore[arg-type]
    assert judgments.held_choices(ws) == [("/d/b.txt", 2), ("/d/c.txt", 2)]


def test_two_qrels_are_compared_without_scores_and_named_by_their_files():
    from workbench.state.workspace import FileEntry, Workspace

    a = qrels_frame([("q1", "d1", 1), ("q1", "d2", 0), ("q2", "d1", 2), ("q2", "d3", 0)])
    b = qrels_frame([("q1", "d1", 0), ("q1", "d2", 0), ("q2", "d1", 2), ("q2", "d3", 1)])
    ws = Workspace()
    ws.entries.append(FileEntry(path="/d/a.txt", kind="qrels", status="ok", qrels=a, version=3))  # type: ignore[arg-type]
    ws.entries.append(FileEntry(path="/d/b.txt", kind="held", status="ok", qrels=b, version=1))  # type: ignore[arg-type]
    assert judgments.qrels_in_use(None, ws) == ("/d/a.txt", 3)
    inputs = analyses.qrels_inputs(ws, Settings())
    assert inputs is not None and inputs.results is None and dict(inputs.held) == {"/d/b.txt": b}
    s = analyses.QrelsAgreementSettings("/d/b.txt", 1, qrels="/d/a.txt", qrels_version=3)
    out = analyses.compute("qrels_agreement", inputs, s)
    assert out.tables["export"].loc[0, "kappa"] == compare(a, b).kappa
    assert analyses.state(out, None, s) == "current"
    assert analyses.state(
        out, None, analyses.QrelsAgreementSettings("/d/b.txt", 1, qrels="/d/a.txt", qrels_version=4)
    ) == ("outdated")
    assert "the qrels in use (/d/a.txt) (a) against /d/b.txt (b)" in analyses.export_header(out, "qrels agreement")[2]
    assert analyses.qrels_inputs(Workspace(), Settings()) is None
