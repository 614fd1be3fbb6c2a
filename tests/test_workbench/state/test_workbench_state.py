"""The rules of what is current, without Qt: evaluation keys, states and the reasons shown to the user."""

from __future__ import annotations

import types

import pandas as pd

from metrics.engine.settings import Settings
from workbench.state import currency as state
from workbench.state.workspace import FileEntry, Workspace


def _ws(tmp_path, runs=("a", "b")):
    ws = Workspace()
    q = ws.begin_load(tmp_path / "qrels.txt")
    ws.finish_load(q.path, q.generation, "qrels", None, pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []}))
    for name in runs:
        e = ws.begin_load(tmp_path / f"{name}.run")
        run = pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "score": [1.0]})
        run.attrs["name"] = name
        ws.finish_load(e.path, e.generation, "run", run, None)
    return ws


def test_a_key_changes_with_every_file_version_label_and_option(tmp_path):
    ws = _ws(tmp_path)
    key = state.evaluation_key(ws, ("map",), Settings())
    assert key == state.evaluation_key(ws, ["map"], Settings())
    assert key != state.evaluation_key(ws, ("map", "P.10"), Settings())
    assert key != state.evaluation_key(ws, ("map",), Settings(relevance_level=2))
    e = ws.run_entries()[0]
    ws.finish_load(e.path, ws.begin_load(e.path).generation, "run", e.run, None)  # read again
    assert state.evaluation_key(ws, ("map",), Settings()) != key
    assert state.evaluation_key(Workspace(), ("map",), Settings()) is None


def test_the_rules_need_no_qt():
    import subprocess
    import sys

    code = "import sys, workbench.state.currency; print(any(m.startswith('PySide6') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_states_and_reasons(tmp_path):
    ws = _ws(tmp_path)
    key = state.evaluation_key(ws, ("map",), Settings())
    results = types.SimpleNamespace(
        request=types.SimpleNamespace(key=key), evaluation=types.SimpleNamespace(per_query=1)
    )
    assert state.evaluation_state(results, key, evaluating=True) == "computing"
    assert state.evaluation_state(results, key, evaluating=False) == "current"
    assert state.evaluation_state(None, None, evaluating=False) == "empty"
    stale = types.SimpleNamespace(request=types.SimpleNamespace(key=("older",)))
    assert state.evaluation_state(stale, key, evaluating=False) == "outdated"
    assert state.stale_reasons("outdated", stale, None, True, []) == [
        "the scores shown are not those of the files and options now loaded"
    ]
    assert state.stale_reasons("outdated", None, None, True, []) == ["the loaded files are not evaluated"]
    e = ws.run_entries()[0]
    assert state.stale_reasons("current", results, object(), False, [e]) == [
        "the significance marks are not those of the scores shown",
        f"{e.name} changed on disk and was not read again",
    ]


def test_one_rule_makes_labels_unique():
    from metrics.io.labels import unique_label

    assert unique_label("bm25", set()) == "bm25"
    assert unique_label("bm25", {"bm25", "bm25_2"}) == "bm25_3"
    assert unique_label("bm25", {"bm25", "bm25 (2)"}, "{base} ({n})") == "bm25 (3)"
    ws = Workspace()
    for path in ("/a/x.txt", "/b/x.txt", "/c/x.txt"):
        ws.entries.append(FileEntry(path=path, kind="run", status="ok", label=ws.unique_label("x")))
    assert [e.label for e in ws.entries] == ["x", "x (2)", "x (3)"]
