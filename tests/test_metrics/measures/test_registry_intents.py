"""The diversity families are the measure registry's, and nowhere else's.

* No module of the core or of the window's plain-Python floors keeps a table of its own of the diversity
  families (their names as the keys or members of a dict, set, tuple or list): each family is declared once,
  in :mod:`metrics.measures.registry`, and the names, labels, tips, kernels and explainers are found there.
* A family registered the way a new one is (its declaration, :func:`intent_measure`, and its kernel,
  :func:`kernel`) parses, scores against intent qrels, is told apart from an ad hoc name by the library, the
  CLI and the window, is printed by ``ir-eval``, says that its working is not written out, and has its
  section on the measures page, with no other change.
"""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.measures import registry
from metrics.measures.diversity_syntax import DIVERSITY_NAMES, DiversityMeasure, parse_diversity
from metrics.measures.registry import INTENT_FAMILIES, intent_measure, kernel, unregister_intent_family

#: the packages whose modules may not keep a table of the diversity families (the window's views build on
#: these; they are Qt, and read their labels through workbench.scoring.intents)
PLAIN = ("metrics", "workbench.scoring", "workbench.state")
#: tables of Python names that happen to be spelled as families: the public API's attributes loaded on first
#: use (``metrics.alpha_nDCG``, an ir_measures-style name object, and the module it comes from)
NOT_FAMILY_TABLES = {("metrics", "_LAZY")}


def _modules():
    for package in PLAIN:
        root = importlib.import_module(package)
        yield root
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            if not info.name.endswith("__main__"):
                yield importlib.import_module(info.name)


def _names_in(value) -> set[str]:
    if isinstance(value, dict):
        members = list(value)
    elif isinstance(value, (set, frozenset, tuple, list)):
        members = list(value)
    else:
        return set()
    return {m for m in members if isinstance(m, str)} & set(INTENT_FAMILIES)


def test_no_module_outside_the_registry_keeps_a_table_of_the_diversity_families():
    own = {id(registry.INTENT_FAMILIES), id(registry.INTENT_SPELLINGS), id(registry.KERNELS)}
    tables = []
    for module in _modules():
        if module is registry:
            continue
        for name, value in vars(module).items():
            if id(value) in own or name.startswith("__") or (module.__name__, name) in NOT_FAMILY_TABLES:
                continue
            found = _names_in(value)
            if len(found) >= 2:
                tables.append(f"{module.__name__}.{name} ({', '.join(sorted(found))})")
    assert not tables, f"tables of the diversity families outside the registry: {tables}"


def test_every_diversity_spelling_parses_to_a_registered_family():
    for spelling, canonical in DIVERSITY_NAMES.items():
        fam = INTENT_FAMILIES[canonical]
        m = parse_diversity(f"{spelling}@5" if fam.cutoff else spelling)
        assert m is not None and m.name == canonical, spelling
    assert DIVERSITY_NAMES is registry.INTENT_SPELLINGS  # the registry's own table, not a copy


def test_a_name_is_registered_once_whatever_it_is_judged_against():
    with pytest.raises(ValueError, match="registered twice"):
        intent_measure("map", cutoff=False, doc="a second map", kernel=__name__)
    with pytest.raises(ValueError, match="registered twice"):
        intent_measure("toy", spellings=("strec",), cutoff=True, doc="strec again", kernel=__name__)
    with pytest.raises(ValueError, match="registered twice"):
        registry.measure("ERR-IA")(lambda r: r)
    assert "toy" not in INTENT_FAMILIES


# ------------------------------------------------------------------------ a family registered as a new one

TOY = "Covered_IA"


def _covered(m: DiversityMeasure, ranked, judged, judged_ids, S: int, ideal: bool = False):
    """The share of the first k ranks that hold a document relevant to some intent."""
    from metrics.measures.diversity import Steps

    k = m.cutoff
    assert k is not None
    rows = ranked[:k]
    total = float(rows.any(axis=1).sum())
    return Steps(total / k, S, rows, total=total, norm=float(k))


@pytest.fixture
def toy():
    intent_measure(
        TOY,
        spellings=("Covered-IA",),
        cutoff=True,
        label="Covered@{k}",
        tip="The share of the first k ranks relevant to some intent.",
        doc="Covered-IA@k: the documents among the first k ranks relevant to at least one intent, over k.",
        kernel=__name__,
    )
    kernel(TOY)(_covered)
    yield INTENT_FAMILIES[TOY]
    unregister_intent_family(TOY)


def _collection():
    qrels = pd.DataFrame(
        [
            ("q1", "1", "a", 1),
            ("q1", "2", "b", 2),
            ("q1", "2", "c", 0),
            ("q2", "1", "x", 1),
            ("q2", "2", "x", -1),
            ("q2", "2", "y", 1),
        ],
        columns=["query_id", "intent", "doc_id", "relevance"],
    )
    run = pd.DataFrame(
        [("q1", "a", 3.0), ("q1", "c", 2.0), ("q1", "b", 1.0), ("q2", "z", 2.0), ("q2", "y", 1.0)],
        columns=["query_id", "doc_id", "score"],
    ).assign(run="toy")
    return qrels, run


def test_a_registered_diversity_family_parses_and_scores(toy):
    qrels, run = _collection()
    assert parse_diversity("Covered-IA(rel=2)@2") == DiversityMeasure(TOY, 2, rel=2)
    with pytest.raises(ValueError, match="needs a cutoff"):
        parse_diversity(TOY)
    with pytest.raises(ValueError, match="evaluate_diversity"):
        metrics.parse_measures(f"{TOY}@2")
    ev = metrics.evaluate_diversity(qrels, run, [f"{TOY}@2", "Covered-IA@3"])
    wide = ev.per_query_wide(f"{TOY}@2")
    assert dict(zip(wide.index, wide.iloc[:, 0])) == {"q1": 0.5, "q2": 0.5}  # a, c (grade 0); z, y
    assert np.asarray(ev.per_query_wide("Covered-IA@3").iloc[:, 0]).tolist() == [2 / 3, 1 / 3]


def test_a_registered_diversity_family_is_told_apart_everywhere(toy):
    from metrics.cli.diversity import diversity_names
    from metrics.cli.explain import _is_diversity
    from workbench.scoring import intents

    assert registry.judged_against(f"{TOY}@5") == "intents" and registry.judged_against("P_5") == "qrels"
    assert diversity_names(["P_5", "Covered-IA@5", f"{TOY}(alpha=2)@5"]) == ["Covered-IA@5", f"{TOY}(alpha=2)@5"]
    assert _is_diversity(f"{TOY}@5") and not _is_diversity("map")
    assert intents.is_diversity("Covered-IA@10") and intents.family("Covered-IA@10") == TOY
    assert intents.split(["map", f"{TOY}@5"]) == (("map",), (f"{TOY}@5",))
    assert intents.label(f"{TOY}@10") == "Covered@10" and intents.label(f"{TOY}(rel=2)@10") == f"{TOY}(rel=2)@10"
    assert "relevant to some intent" in intents.tip(f"{TOY}@10")


def test_ir_eval_prints_a_registered_diversity_family(toy, tmp_path, capsys):
    from metrics.cli.ir_eval import main

    qrels, run = _collection()
    qpath, rpath = tmp_path / "intents", tmp_path / "run"
    qpath.write_text("".join(f"{q} {i} {d} {g}\n" for q, i, d, g in qrels.itertuples(index=False)))
    rpath.write_text("".join(f"{q} Q0 {d} 0 {s} toy\n" for q, d, s, _ in run.itertuples(index=False)))
    assert main(["-m", f"{TOY}@2", "-q", str(qpath), str(rpath)]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [(n.strip(), q, v) for n, q, v in lines] == [
        (f"{TOY}@2", "q1", "0.5000"),
        (f"{TOY}@2", "q2", "0.5000"),
        (f"{TOY}@2", "all", "0.5000"),
    ]


def test_a_registered_diversity_family_is_explained_or_says_it_is_not(toy):
    from metrics.explain.diversity import PreparedDiversity

    qrels, run = _collection()
    explanation = PreparedDiversity(qrels, run).explain(f"{TOY}@2", "q1")
    assert not explanation.explained and "not written out" in explanation.reason
    assert explanation.value == 0.5


def test_a_registered_diversity_family_has_its_section_on_the_measures_page(toy):
    from metrics.measures.reference import name_list, to_html, to_markdown

    page = to_markdown()
    section = page[page.index(f"### `{TOY}`") :]
    assert section.splitlines()[2] == toy.doc
    assert f"default request `{TOY}@20`" in section and "also written `Covered-IA`" in section
    assert f"<h3 id='{TOY}'>" in to_html()
    listed = dict(name_list())
    assert listed[TOY] == f"{toy.doc.rstrip('.')}; prints {TOY}@20" and TOY in listed["Covered-IA"]


def test_a_family_without_its_kernel_says_which_module_lacks_it():
    intent_measure("Lacking_IA", cutoff=False, doc="declared, its kernel never registered", kernel=__name__)
    try:
        with pytest.raises(LookupError, match="registers no kernel for Lacking_IA"):
            INTENT_FAMILIES["Lacking_IA"].kernel_function()
    finally:
        unregister_intent_family("Lacking_IA")
    assert "Lacking_IA" not in DIVERSITY_NAMES


def test_every_explainer_the_registry_names_is_a_function_of_the_explain_floor():
    from metrics.explain.intent_rows import explainer_of

    for name, fam in INTENT_FAMILIES.items():
        explain = explainer_of(name)
        if fam.explainer is None:
            assert explain is None, name
            continue
        assert fam.explainer.startswith("metrics.explain.") and callable(explain), name
        assert f"{explain.__module__}:{explain.__name__}" == fam.explainer, name
