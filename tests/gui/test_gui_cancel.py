"""Cancel stops every kind of job within a fraction of a second, one big run included."""

from __future__ import annotations

import os
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

from workbench.scoring import disk_runs  # noqa: E402

#: the waits measured here are wall-clock time: measured while no other test runs
pytestmark = pytest.mark.alone

TIMEOUT = 60000


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """250 queries of 10,000 documents (2.5M lines, 80 MB) and their qrels, as a TREC run is shaped."""
    folder = tmp_path_factory.mktemp("big")
    rng = np.random.default_rng(7)
    nq, depth = 250, 10_000
    qids = np.repeat(np.arange(301, 301 + nq), 400)
    judged = np.concatenate([rng.choice(100_000, 400, replace=False) for _ in range(nq)])
    grades = rng.integers(0, 3, len(judged))
    (folder / "qrels.txt").write_text("".join(f"{q} 0 D{d} {g}\n" for q, d, g in zip(qids, judged, grades)))
    docs = np.concatenate([rng.choice(100_000, depth, replace=False) for _ in range(nq)]).tolist()
    ranks = np.arange(1, depth + 1)
    scores = 20.0 - ranks / depth  # (a TREC run: rank order, distinct scores)
    tails = [f" {r} {s:.5f} big\n" for r, s in zip(ranks.tolist(), scores.tolist())]  # the same for every query
    with open(folder / "run.txt", "w") as out:  # (joined per query: 0.6 s, where numpy's string ops took 5 s)
        for i, q in enumerate(range(301, 301 + nq)):
            head = f"{q} Q0 D"
            out.write("".join([head + str(d) + tail for d, tail in zip(docs[i * depth : (i + 1) * depth], tails)]))
    return folder


def test_a_long_scoring_stops_between_its_stages():
    """What the window's Cancel relies on: the scoring of one run hears it between its stages."""
    import metrics
    from metrics.errors import Cancelled, stop_when

    qrels = {"1": {"a": 1, "b": 0}}
    run = {"1": {"a": 2.0, "b": 1.0, "c": 0.5}}
    assert metrics.evaluate(qrels, run, ["map"]).summary().iloc[0, 0] == 1.0
    with stop_when(lambda: True), pytest.raises(Cancelled):
        metrics.evaluate(qrels, run, ["map"])


def _cancel_when(qtbot, w, job) -> float:
    """Wait until ``job`` runs, press Cancel; the seconds until the window is idle.

    Cancel is pressed as soon as the job is seen running, with no event handled in between, so a job
    that ends quickly on a fast machine cannot end first (its result would only be taken on a later turn
    of the event loop, and is then no longer wanted)."""
    s = w.session
    qtbot.waitUntil(lambda: s.jobs.running(job), timeout=TIMEOUT)
    start = time.monotonic()
    w.parts.progress.cancel_button.click()
    qtbot.waitUntil(lambda: not s.busy, timeout=TIMEOUT)
    return time.monotonic() - start


@pytest.mark.parametrize("on_disk", [False, True], ids=["held", "on disk"])
def test_cancel_during_the_evaluation_of_one_big_run_is_idle_within_a_second(
    qtbot, tmp_path, big, monkeypatch, on_disk
):
    if on_disk:
        monkeypatch.setattr(disk_runs, "HOLD_FILES", 0)  # scored by a worker process from its file
    w = open_window(qtbot, tmp_path, ("map", "ndcg_cut.10", "P.10"))
    try:
        w.parts.files.open_files([str(big / "qrels.txt"), str(big / "run.txt")])
        waited = _cancel_when(qtbot, w, "evaluate")
        assert waited < 1.0
        assert w.session.results is None
        # nothing starts by itself afterwards (the inspection put off for the scores included), and the
        # window says what is not computed
        qtbot.wait(500)
        assert not w.session.busy
        assert "not evaluated" in " ".join(w.session.stale_reasons())
    finally:
        close_window(w)


def test_cancel_during_the_inspection_of_a_big_run_is_idle_within_a_second(qtbot, tmp_path, big):
    w = open_window(qtbot, tmp_path, ("map",))
    try:
        s = w.session
        w.parts.files.open_files([str(big / "qrels.txt"), str(big / "run.txt")])
        qtbot.waitUntil(lambda: s.results is not None, timeout=TIMEOUT)
        s.followups.inspect(str(big / "run.txt"))
        assert _cancel_when(qtbot, w, "inspect") < 1.0
    finally:
        close_window(w)
