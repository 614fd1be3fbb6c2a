"""The window the analysis views are tested in: the generated collection of
``tests/test_workbench/state/test_analysis_views_model.py`` (runs with ties and unjudged documents) written as
TREC files and opened at 1400x900 (fixtures ``files`` and ``window``, imported by the tests that use them)."""

from __future__ import annotations

import pytest
from qt_support import close_window, open_window

from tests.test_workbench.state.test_analysis_views_model import MEASURES, collection

TIMEOUT = 30000


@pytest.fixture
def files(tmp_path):
    qrels, runs = collection()
    folder = tmp_path / "data"
    folder.mkdir()
    qpath = folder / "qrels.txt"
    qpath.write_text(
        "".join(f"{q} 0 {d} {r}\n" for q, d, r in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"]))
    )
    paths = {}
    for name, run in runs.items():
        path = folder / f"{name}.run"
        path.write_text(
            "".join(
                f"{q}\tQ0\t{d}\t{i}\t{s!r}\t{name}\n"
                for i, (q, d, s) in enumerate(zip(run["query_id"], run["doc_id"], run["score"]))
            )
        )
        paths[name] = str(path)
    return str(qpath), paths


@pytest.fixture
def window(qtbot, tmp_path, files):
    w = open_window(qtbot, tmp_path, MEASURES, size=(1400, 900))
    qrels, runs = files
    with qtbot.waitSignal(w.session.sigIdle, timeout=TIMEOUT):
        w.parts.files.open_files([qrels, *runs.values()])
    assert w.session.results is not None and w.session.results.runs == list(runs)
    yield w
    close_window(w)
