"""Checks every registered measure family passes, as scikit-learn's ``test_common.py`` runs over every
estimator: adding a measure is one registered function (and, for a diversity measure, its declaration and
kernel), and these tests take it up with no change.

For each family of :func:`metrics.measures.registry.every_family`, those judged against ad hoc qrels
(:data:`~metrics.measures.registry.FAMILIES`) and those judged against intent qrels (the diversity families,
:data:`~metrics.measures.registry.INTENT_FAMILIES`), on a generated collection of its kind with tied scores,
unjudged and negatively graded documents, a query without relevant documents, a run-only and a qrels-only
query (and, ad hoc, a query the run gives with no documents):

* its default request parses, and every measure it makes is in the library's results;
* its values do not depend on the order of the run's lines or on the run's name;
* ``ir-eval`` prints, for the summary, the library's value as trec_eval formats it (for a diversity
  family: ``ir-eval -m NAME INTENT_QRELS RUN``);
* its explanation gives the value computed, or says that its working is not written out (never a
  different number); a diversity family is explained exactly when the registry names its explainer;
* the measures page (docs/measures.md, generated from the registry) has its section.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.measures import parse_measures
from metrics.measures.diversity_syntax import parse_diversity
from metrics.measures.registry import FAMILIES, INTENT_FAMILIES, every_family
from tests.conftest import random_collection, run_frame, write_trec

ROOT = Path(__file__).resolve().parents[3]
FAMILY_NAMES = sorted(FAMILIES)
#: the families judged against intent qrels (scored by metrics.evaluate_diversity)
INTENT_NAMES = sorted(INTENT_FAMILIES)
#: every registered family, whatever it is judged against
EVERY = sorted(every_family())
#: the families with a number per query (runid and relstring are text; some are summaries only)
NUMBERED = [f for f in FAMILY_NAMES if FAMILIES[f].per_query and FAMILIES[f].kind != "text"]


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    qrels, run = random_collection(11, n_queries=10, n_docs=40, depth=30, name="common")
    folder = tmp_path_factory.mktemp("common")
    qpath, rpath = write_trec(qrels, run, folder)
    return qrels, run, qpath, rpath


def _request(family: str) -> list[str]:
    try:
        measures = parse_measures([family])
    except (ValueError, KeyError) as exc:  # a family that needs parameters says so
        pytest.fail(f"{family}: its default request does not parse: {exc}")
    assert measures, family
    return [str(m) for m in measures]


def _values(ev, names):
    summary = ev.summary()
    return {n: summary.iloc[0][n] for n in names if n in summary.columns}


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_the_default_request_parses_and_is_computed(family, collection):
    qrels, run, _, _ = collection
    names = _request(family)
    ev = metrics.evaluate(qrels, run, [family], keep_names=False)
    shown = set(ev.summary().columns) | set(ev.measure_names())  # (text, as runid, is not in the frame)
    missing = [n for n in names if n not in shown]
    assert not missing, f"{family}: {missing} not in the results"


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_values_do_not_depend_on_line_order_or_the_run_s_name(family, collection):
    qrels, run, _, _ = collection
    shuffled = run.sample(frac=1.0, random_state=3).reset_index(drop=True)
    renamed = run.assign(run="another") if "run" in run.columns else run
    a = metrics.evaluate(qrels, run, [family]).per_query_wide
    b = metrics.evaluate(qrels, shuffled, [family]).per_query_wide
    c = metrics.evaluate(qrels, renamed, [family]).per_query_wide
    for name in _request(family):
        if FAMILIES[family].kind == "text" or not FAMILIES[family].per_query:
            continue
        x, y, z = (np.asarray(f(name).iloc[:, 0], dtype=float) for f in (a, b, c))
        np.testing.assert_array_equal(x, y, err_msg=f"{family}: line order changed {name}")
        np.testing.assert_array_equal(x, z, err_msg=f"{family}: the run's name changed {name}")


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_ir_eval_prints_the_library_s_value(family, collection, capsys):
    from metrics.cli.ir_eval import main

    qrels, run, qpath, rpath = collection
    assert main(["-m", family, qpath, rpath]) == 0
    printed = {}
    for line in capsys.readouterr().out.splitlines():
        name, query, value = line.split("\t")
        if query.strip() == "all":
            printed[name.strip()] = value.strip()
    ev = metrics.evaluate(qpath, rpath, [family], keep_names=False)
    fam = FAMILIES[family]
    for name, value in _values(ev, _request(family)).items():
        if fam.kind == "text" or name not in printed:
            continue
        shown = f"{int(value)}" if fam.kind == "long" else f"{float(value):.4f}"
        assert printed[name] == shown, (family, name)


@pytest.mark.parametrize("family", NUMBERED)
def test_an_explanation_gives_the_value_computed_or_says_it_cannot(family, collection):
    from metrics.explain import Prepared

    _, _, qpath, rpath = collection
    prepared = Prepared(qpath, rpath)
    ev = metrics.evaluate(qpath, rpath, [family], keep_names=False)
    name = _request(family)[0]
    wide = ev.per_query_wide(name)
    for qid in [str(q) for q in wide.index[:4]]:
        explanation = prepared.explain(name, qid)
        computed = float(wide.loc[qid].iloc[0])
        if explanation.explained:
            assert explanation.value == pytest.approx(computed, abs=1e-12, nan_ok=True), (family, qid)
        else:
            assert explanation.reason, (family, qid)
            if explanation.value is not None and not (isinstance(computed, float) and math.isnan(computed)):
                assert explanation.value == pytest.approx(computed, abs=1e-12), (family, qid)


def test_every_family_with_per_query_values_is_explained():
    """Every family trec_eval prints per query for has its working (a new measure comes with its own)."""
    from metrics.explain.explainers import explained_families

    per_query = {name for name, fam in FAMILIES.items() if fam.per_query}
    missing = sorted(per_query - set(explained_families()))
    assert not missing, f"no explainer for {missing} (metrics/explain/explainers.py)"


def test_the_measures_page_has_a_section_for_every_family():
    page = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    missing = [f for f in EVERY if f"### `{f}`" not in page]
    assert not missing, f"docs/measures.md has no section for {missing} (python -m metrics.measures.reference)"


def test_every_family_is_in_a_group_and_says_what_it_measures():
    families = every_family()
    vague = [f for f in EVERY if not families[f].doc.strip() or not families[f].group]
    assert not vague, f"families without a description or a group: {vague}"


def test_the_collection_has_the_awkward_cases(collection):
    qrels, run, _, _ = collection
    assert (qrels["relevance"] < 0).any() and run.duplicated(["query_id", "score"]).any()
    assert set(run["query_id"]) - set(qrels["query_id"]) and set(qrels["query_id"]) - set(run["query_id"])
    assert isinstance(run, pd.DataFrame)


def test_every_family_says_what_it_is_judged_against():
    families = every_family()
    assert len(families) == len(FAMILIES) + len(INTENT_FAMILIES), "a name registered as both kinds"
    assert {families[f].judged for f in FAMILY_NAMES} == {"qrels"}
    assert {families[f].judged for f in INTENT_NAMES} == {"intents"}


# ------------------------------------------------- the families judged against intent qrels (diversity)


def intent_collection(seed: int, n_queries: int = 10, n_docs: int = 40):
    """Intent qrels and a run: several intents per query, documents relevant to several intents, grades -1..2,
    retrieved documents the qrels do not judge, a query whose grades are all 0, tied scores, a qrels-only
    and a run-only query."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(n_docs)]
    qrels, run = [], []
    for i in range(n_queries):
        q = f"q{i + 1}"
        for j in range(int(rng.integers(2, 5))):
            judged = rng.choice(n_docs, size=int(rng.integers(2, 12)), replace=False)
            grades = np.zeros(len(judged), int) if i == 2 else rng.choice([-1, 0, 0, 1, 1, 2], size=len(judged))
            qrels += [(q, str(j + 1), docs[d], int(g)) for d, g in zip(judged, grades)]
        if i == 4:
            continue  # qrels-only
        retrieved = rng.choice(n_docs, size=int(rng.integers(3, 30)), replace=False)
        scores = rng.integers(1, 6, size=len(retrieved)).astype(float)  # ties
        run += [(q, docs[d], float(s)) for d, s in zip(retrieved, scores)]
    run += [("run_only", docs[0], 1.0)]
    return pd.DataFrame(qrels, columns=["query_id", "intent", "doc_id", "relevance"]), run_frame(run, "common")


@pytest.fixture(scope="module")
def intents(tmp_path_factory):
    qrels, run = intent_collection(13)
    folder = tmp_path_factory.mktemp("common_intents")
    qpath, rpath = folder / "intents.txt", folder / "run.txt"
    qpath.write_text("".join(f"{q} {i} {d} {g}\n" for q, i, d, g in qrels.itertuples(index=False)))
    rpath.write_text(
        "".join(f"{q} Q0 {d} {r} {s} common\n" for r, (q, d, s) in enumerate(zip(run.query_id, run.doc_id, run.score)))
    )
    return qrels, run, str(qpath), str(rpath)


def _default(family: str) -> str:
    name = INTENT_FAMILIES[family].default_request
    m = parse_diversity(name)
    assert m is not None and m.name == family and str(m) == name, (family, m)
    return name


@pytest.mark.parametrize("family", INTENT_NAMES)
def test_a_diversity_family_s_default_request_parses_and_is_computed(family, intents):
    qrels, run, _, _ = intents
    name = _default(family)
    ev = metrics.evaluate_diversity(qrels, run, [name])
    assert ev.measure_names() == [name]
    wide = ev.per_query_wide(name)
    assert len(wide) == run["query_id"].isin(set(qrels["query_id"])).groupby(run["query_id"]).any().sum()
    assert np.isfinite(np.asarray(wide.iloc[:, 0], dtype=float)).all(), family
    with pytest.raises(ValueError, match="intent"):  # not an ad hoc measure: parse_measures says what to use
        parse_measures(name)


@pytest.mark.parametrize("family", INTENT_NAMES)
def test_a_diversity_family_s_values_do_not_depend_on_line_order_or_the_run_s_name(family, intents):
    qrels, run, _, _ = intents
    name = _default(family)
    shuffled = run.sample(frac=1.0, random_state=3).reset_index(drop=True)
    renamed = run.assign(run="another")
    values = [
        np.asarray(metrics.evaluate_diversity(qrels, r, [name]).per_query_wide(name).iloc[:, 0], dtype=float)
        for r in (run, shuffled, renamed)
    ]
    np.testing.assert_array_equal(values[0], values[1], err_msg=f"{family}: line order changed {name}")
    np.testing.assert_array_equal(values[0], values[2], err_msg=f"{family}: the run's name changed {name}")


@pytest.mark.parametrize("family", INTENT_NAMES)
def test_ir_eval_prints_a_diversity_family_s_value(family, intents, capsys):
    from metrics.cli.ir_eval import main

    _, _, qpath, rpath = intents
    name = _default(family)
    assert main(["-m", name, qpath, rpath]) == 0
    printed = {}
    for line in capsys.readouterr().out.splitlines():
        shown, query, value = line.split("\t")
        if query.strip() == "all":
            printed[shown.strip()] = value.strip()
    ev = metrics.evaluate_diversity(qpath, rpath, [name])
    assert printed == {name: f"{float(ev.summary().iloc[0][name]):.4f}"}, family


@pytest.mark.parametrize("family", INTENT_NAMES)
def test_a_diversity_family_s_explanation_gives_the_value_computed_or_says_it_cannot(family, intents):
    from metrics.explain.diversity import PreparedDiversity

    _, _, qpath, rpath = intents
    name = _default(family)
    prepared = PreparedDiversity(qpath, rpath)
    wide = metrics.evaluate_diversity(qpath, rpath, [name]).per_query_wide(name)
    explained = INTENT_FAMILIES[family].explainer is not None
    for qid in [str(q) for q in wide.index]:
        explanation = prepared.explain(name, qid)
        computed = float(wide.loc[qid].iloc[0])
        assert explanation.value == pytest.approx(computed, abs=1e-12), (family, qid)
        if explained:
            assert explanation.explained, (family, qid, explanation.reason)
        else:
            assert not explanation.explained and explanation.reason, (family, qid)
    summary = prepared.explain(name, "all")
    assert summary.explained and summary.value == pytest.approx(float(wide.iloc[:, 0].mean()), abs=1e-12)


@pytest.mark.parametrize("family", INTENT_NAMES)
def test_a_diversity_family_s_kernel_is_found_from_the_registry(family):
    from metrics.measures import diversity

    fam = INTENT_FAMILIES[family]
    kernel = fam.kernel_function()
    assert kernel.__module__ == fam.kernel == diversity.__name__, family
    assert (kernel.__doc__ or "").strip(), f"{family}: its kernel says what it computes"


def test_every_diversity_family_is_explained():
    """Every diversity family of ndeval has its working written out."""
    unexplained = sorted(f for f in INTENT_NAMES if not INTENT_FAMILIES[f].explainer)
    assert not unexplained, f"no explainer for {unexplained} (metrics/explain/intent_rows.py)"
