"""metrics.Settings: one frozen, hashable value for every option that changes a number; the key of the
window's caches, what workspaces save, what exports state and what worker processes receive."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.engine.settings import DEFAULTS, MeasureSet, Settings, in_short
from metrics.report.provenance import provenance


def test_equal_settings_hash_alike_whatever_spelling_made_them():
    a = Settings(relevance_level=2, base=2, judged_only="true", k_max="20")
    b = Settings(relevance_level=2, base="2.0", judged_only=True, k_max=20)
    assert a == b and hash(a) == hash(b)
    assert {a: 1}[b] == 1
    assert a != Settings(relevance_level=1, base=2, judged_only=True, k_max=20)
    assert Settings().trec_options() == DEFAULTS
    assert Settings().ndcg_options() == {}
    assert Settings(gain="exp", base=10).ndcg_options() == {"gain": "exp", "base": "10"}


def test_settings_are_frozen_and_checked():
    s = Settings()
    with pytest.raises(AttributeError):
        s.relevance_level = 2  # type: ignore[misc]
    for bad in (dict(max_docs=-1), dict(k_max=0), dict(gain="square"), dict(base=1), dict(judged_only="maybe")):
        with pytest.raises(ValueError):
            Settings(**bad)


def test_settings_pickle_and_round_trip_through_a_dict():
    s = Settings(relevance_level=3, complete=True, max_docs=50, gain="exp", discount="jk", ideal="retrieved")
    again = pickle.loads(pickle.dumps(s))
    assert again == s and hash(again) == hash(s)
    assert Settings.from_dict(s.to_dict()) == s
    # a workspace file of an earlier version: the level, k and an nDCG dict
    old = {"relevance_level": 2, "k_max": 30, "ndcg_options": {"gain": "exp", "discount": None}}
    assert Settings.from_dict(old) == Settings(relevance_level=2, k_max=30, gain="exp")
    with pytest.raises(ValueError, match="relevance_levle"):
        Settings.from_dict({"relevance_levle": 2})
    assert s.with_ndcg({"gain": None}).gain == "linear"
    with pytest.raises(ValueError):
        s.with_ndcg({"colour": "red"})


def test_a_measure_set_is_hashable_and_keeps_its_order():
    a = MeasureSet.of(["map", "P.10"])
    assert a == MeasureSet(("map", "P.10")) and hash(a) == hash(MeasureSet.of(("map", "P.10")))
    assert a != MeasureSet.of(["P.10", "map"])
    assert [str(m) for m in a.parsed()] == ["map", "P_10"]
    assert MeasureSet.of("map") == MeasureSet(("map",)) and list(MeasureSet.of(None)) == []


def _data():
    rng = np.random.default_rng(5)
    qrels = pd.DataFrame(
        [(str(q), f"d{d}", int(rng.choice([-1, 0, 1, 2, 3]))) for q in range(1, 9) for d in range(20)],
        columns=["query_id", "doc_id", "relevance"],
    )
    run = pd.DataFrame(
        [(str(q), f"d{d}", float(np.round(rng.random(), 1))) for q in range(1, 10) for d in rng.permutation(30)[:25]],
        columns=["query_id", "doc_id", "score"],
    )
    run.attrs["name"] = "r"
    return qrels, run


def test_evaluate_takes_settings_or_the_keywords_alike():
    qrels, run = _data()
    measures = ["map", "P.5", "ndcg_cut.10", "bpref", "num_q"]
    kw = dict(relevance_level=2, complete=True, max_docs=10, judged_only=True, num_docs_in_coll=500)
    by_keywords = metrics.evaluate(qrels, run, measures, **kw)
    settings = Settings(**kw)
    by_settings = metrics.evaluate(qrels, run, measures, settings=settings)
    pd.testing.assert_frame_equal(by_keywords.aggregate, by_settings.aggregate)
    pd.testing.assert_frame_equal(by_keywords.per_query, by_settings.per_query)
    assert by_keywords.settings == by_settings.settings == settings
    # and not what trec_eval's defaults give
    assert not by_keywords.aggregate.equals(metrics.evaluate(qrels, run, measures).aggregate)
    ev = metrics.evaluator(qrels, measures, settings=settings)
    pd.testing.assert_frame_equal(ev.evaluate(run).aggregate, by_settings.aggregate)
    with pytest.raises(ValueError, match="relevance_level"):
        metrics.evaluate(qrels, run, measures, relevance_level=2, settings=settings)
    with pytest.raises(TypeError):
        metrics.evaluate(qrels, run, measures, settings={"relevance_level": 2})


def test_exports_and_the_notebook_line_state_the_settings_of_an_evaluation():
    qrels, run = _data()
    ev = metrics.evaluate(qrels, run, ["map"], settings=Settings(relevance_level=2, max_docs=10))
    pairs = dict(provenance(ev))
    assert pairs["relevance level"].startswith("2 (") and "-l 2" in pairs["relevance level"]
    assert pairs["ranks per query"] == "the first 10 (trec_eval -M 10)"
    assert dict(provenance(ev.settings, measures=["map"])) == pairs
    assert dict(provenance(ev.settings.to_dict(), measures=["map"])) == pairs
    assert in_short(ev) == "relevant from grade 2 (-l 2); first 10 documents of each ranking (-M 10)"
    assert in_short(None) == "trec_eval's defaults"


def test_a_worker_process_receives_the_settings_as_one_value():
    from metrics.ranking.judged import encode_qrels
    from metrics.scale.parallel import WorkerState, state

    qrels, _ = _data()
    encoded, measures = encode_qrels(qrels), metrics.parse_measures(["map"])
    s = state(encoded, measures, Settings(relevance_level=2), False, True, True)
    assert isinstance(s, WorkerState) and s.settings == Settings(relevance_level=2)
    assert pickle.loads(pickle.dumps(s)).settings == s.settings
    with pytest.raises(TypeError, match="a metrics.Settings"):  # (options as a dict: one value, one way)
        state(encoded, measures, {"relevance_level": 2}, False, True, True)


def test_a_workspace_saves_the_settings_and_files_of_earlier_versions_are_still_read(tmp_path):
    import json

    from metrics.errors import InputError
    from workbench.state import workspace_file

    old = tmp_path / "old.irwb"
    old.write_text(
        json.dumps(
            {
                "format": "ir-workbench workspace",
                "version": 1,
                "files": [],
                "relevance_level": 2,
                "k_max": 20,
                "ndcg_options": {"gain": "exp"},
            }
        )
    )
    doc = workspace_file.read(str(old))
    assert doc.settings == Settings(relevance_level=2, k_max=20, gain="exp")
    doc.settings = Settings(relevance_level=3, discount="jk", max_docs=50)
    new = tmp_path / "new.irwb"
    new.write_text(workspace_file.to_json(doc, str(new)))
    saved = json.loads(new.read_text())
    assert saved["settings"]["max_docs"] == 50 and saved["relevance_level"] == 3  # (earlier versions read these)
    assert workspace_file.read(str(new)).settings == doc.settings
    saved["settings"]["gain"] = "cubic"
    new.write_text(json.dumps(saved))
    with pytest.raises(InputError, match="new.irwb.*gain"):
        workspace_file.read(str(new))


#: the doors that take trec_eval's options as keywords too (each makes one Settings of them)
KEYWORD_DOORS = {
    "metrics.engine.evaluate.evaluate",
    "metrics.engine.evaluate.Evaluator",
    "metrics.engine.intents.evaluate_diversity",
}
#: every module of these packages is read; a public function or class of them takes ``settings=``
SETTINGS_TAKERS = ("analysis", "explain", "inspect", "judgments", "engine", "compare", "report", "documents")
TREC_OPTIONS = set(Settings().trec_options())


def _public_callables():
    import dataclasses
    import importlib
    import inspect
    import pkgutil

    for floor in SETTINGS_TAKERS:
        package = importlib.import_module(f"metrics.{floor}")
        names = [package.__name__]
        if hasattr(package, "__path__"):
            names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
        for name in names:
            module = importlib.import_module(name)
            for attr, value in vars(module).items():
                if attr.startswith("_") or getattr(value, "__module__", None) != name:
                    continue
                if inspect.isfunction(value) or (inspect.isclass(value) and not dataclasses.is_dataclass(value)):
                    yield f"{name}.{attr}", value  # (a dataclass is a record: a field named so is a value it holds)


def test_only_the_keyword_doors_take_trec_eval_s_options_one_by_one():
    """Explain, the drill-down, inspection, diversity, the curves, the analyses and the judgments take the one
    Settings value; ``relevance_level=`` and its siblings are keywords of the doors that make a Settings."""
    import inspect

    found = []
    for qualified, value in _public_callables():
        try:
            params = inspect.signature(value).parameters
        except (TypeError, ValueError):
            continue
        given = sorted(TREC_OPTIONS & set(params))
        if given and qualified not in KEYWORD_DOORS:
            found.append(f"{qualified}({', '.join(given)})")
    assert not found, "take settings= instead: " + "; ".join(found)


@pytest.mark.parametrize("variant", [{"gain": "exp"}, {"discount": "jk", "base": 3}, {"ideal": "retrieved"}])
def test_an_ndcg_variant_of_the_settings_is_the_ndcg_every_door_computes(variant):
    """Settings(gain="exp") is not dropped: trec_eval's nDCG measures, by any name and in sets, are computed
    as ndcg_ext with those options and named so; the measures that are not nDCG are as before."""
    from conftest import random_collection

    qrels, run = random_collection(3)
    settings = Settings(**variant)
    suffix = "(" + ",".join(f"{k}={v}" for k, v in sorted(settings.ndcg_options().items())) + ")"
    got = metrics.evaluate(qrels, run, ["map", "ndcg_cut.10", "nDCG@5", "ndcg"], settings=settings)
    asked = metrics.evaluate(qrels, run, ["map", f"ndcg_ext_10{suffix}", f"ndcg_ext_5{suffix}", f"ndcg_ext{suffix}"])
    assert got.measure_names() == asked.measure_names()
    pd.testing.assert_frame_equal(got.per_query, asked.per_query)
    whole = metrics.evaluate(qrels, run, "all_trec", settings=settings).summary()
    assert f"ndcg_ext_10{suffix}" in whole.columns and "ndcg_cut_10" not in whole.columns
    assert whole[f"ndcg_ext_10{suffix}"].iloc[0] == asked.summary()[f"ndcg_ext_10{suffix}"].iloc[0]
    assert whole["map"].iloc[0] == asked.summary()["map"].iloc[0]
    # an nDCG with options of its own stays as asked
    own = metrics.evaluate(qrels, run, ["ndcg_ext_10(gain=exp)"], settings=Settings(discount="jk"))
    assert own.measure_names() == ["ndcg_ext_10(gain=exp)"]
