"""File > Fuse runs: the runs chosen are fused by metrics.fuse, written to a file (never over a loaded one) and
opened as a run, scored as the library scores the same fusion."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

import metrics  # noqa: E402

TIMEOUT = 30000
MEASURES = ["map", "P_10", "ndcg_cut_10"]


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(9)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} Q0 D{d} {rng.integers(0, 3)}\n" for q in range(1, 9) for d in range(30)))
    runs = {}
    for name in ("bm25", "dense", "splade"):
        path = tmp_path / f"{name}.txt"
        lines = []
        for q in range(1, 9):
            docs = rng.choice(40, 25, replace=False)
            scores = np.round(rng.random(25), 2)  # ties
            lines += [f"{q} Q0 D{d} {r + 1} {s} {name}" for r, (d, s) in enumerate(zip(docs, scores))]
        if name == "dense":  # a query this run does not answer
            lines = [x for x in lines if not x.startswith("8 ")]
        path.write_text("\n".join(lines) + "\n")
        runs[name] = path
    return qrels, runs


@pytest.fixture
def window(qtbot, tmp_path, files):
    w = open_window(qtbot, tmp_path, MEASURES)
    qrels, runs = files
    w.parts.files.open_files([str(qrels), *map(str, runs.values())])
    qtbot.waitUntil(lambda: w.session.results is not None and not w.session.busy, timeout=TIMEOUT)
    yield w
    close_window(w)


@pytest.mark.parametrize("method, norm", [("rrf", "none"), ("combmnz", "zmuv")])
def test_fused_runs_are_written_opened_and_scored_as_the_library_scores_them(qtbot, window, files, method, norm):
    qrels, runs = files
    dialog = window.parts.menus.show_fuse()
    dialog.choose(["bm25", "dense"], method, norm)
    assert dialog.name.text() == f"fused-{method}"
    out = dialog.output.text()
    assert os.path.dirname(out) == str(runs["bm25"].parent) and not os.path.exists(out)
    dialog.fuse_button.click()
    s = window.session
    name = f"fused-{method}"
    qtbot.waitUntil(lambda: s.results is not None and name in s.results.runs and not s.busy, timeout=TIMEOUT)
    fused = metrics.fuse({"bm25": str(runs["bm25"]), "dense": str(runs["dense"])}, method, norm=norm, name=name)
    want = metrics.evaluate(str(qrels), {name: fused}, MEASURES).summary().loc[name]
    got = s.results.summary.loc[name]
    np.testing.assert_allclose(got[want.index].to_numpy(dtype=float), want.to_numpy(dtype=float), rtol=0, atol=1e-12)
    assert s.workspace.entry(out) is not None and s.workspace.entry(out).kind == "run"


def test_the_dialog_refuses_what_cannot_be_fused_and_never_writes_over_a_loaded_file(qtbot, window, files):
    qrels, runs = files
    before = runs["bm25"].read_bytes()
    dialog = window.parts.menus.show_fuse()
    dialog.choose(["bm25"], "combsum")
    dialog.fuse_button.click()
    assert "at least two runs" in dialog.problem.text()
    dialog.choose(["bm25", "splade"], "combsum")
    dialog.output.setText(str(runs["bm25"]))
    dialog.fuse_button.click()
    assert "never written to" in dialog.problem.text() and dialog.isVisible()
    dialog.choose(["bm25", "splade"], "wsum")
    dialog.output.setText(str(runs["bm25"].parent / "w.txt"))
    dialog.weights.setText("0.7")
    dialog.fuse_button.click()
    assert "1 weights for 2 runs" in dialog.problem.text()
    assert runs["bm25"].read_bytes() == before
