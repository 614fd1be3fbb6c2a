"""Checks every registered measure family passes, as scikit-learn's ``test_common.py`` runs over every
estimator: adding a measure is one registered function, and these tests take it up with no change.

For each family of :data:`metrics.measures.registry.FAMILIES`, on a generated collection with tied scores,
unjudged and negatively graded documents, a query without relevant documents, a run-only and a qrels-only
query, and a query the run gives with no documents:

* its default request parses, and every measure it makes is in the library's results;
* its values do not depend on the order of the run's lines or on the run's name;
* ``ir-eval`` prints, for the summary, the library's value as trec_eval formats it;
* :class:`metrics.explain.Prepared` explains it to the value computed, or says that its working is not
  written out (never a different number);
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
from metrics.measures.registry import FAMILIES
from tests.conftest import random_collection, write_trec

ROOT = Path(__file__).resolve().parents[3]
FAMILY_NAMES = sorted(FAMILIES)
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
    missing = [f for f in FAMILY_NAMES if f"### `{f}`" not in page]
    assert not missing, f"docs/measures.md has no section for {missing} (python -m metrics.measures.reference)"


def test_every_family_is_in_a_group_and_says_what_it_measures():
    vague = [f for f in FAMILY_NAMES if not FAMILIES[f].doc.strip() or not FAMILIES[f].group]
    assert not vague, f"families without a description or a group: {vague}"


def test_the_collection_has_the_awkward_cases(collection):
    qrels, run, _, _ = collection
    assert (qrels["relevance"] < 0).any() and run.duplicated(["query_id", "score"]).any()
    assert set(run["query_id"]) - set(qrels["query_id"]) and set(qrels["query_id"]) - set(run["query_id"])
    assert isinstance(run, pd.DataFrame)
