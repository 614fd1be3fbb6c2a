"""The diversity measures are scored by the window's one scoring service, as the ad hoc measures are: each run
under a :class:`~workbench.scoring.service.ScoreKey` (the run's identity, the intent qrels', the settings and
the names), kept for the next evaluation by the same :class:`~workbench.scoring.evaluation.RunCache`, and
read and scored in the service's thread (a run on disk too), not in the evaluation's."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

from metrics.engine import intents as engine
from metrics.engine.settings import MeasureSet, Settings
from workbench.scoring.evaluation import Request, RunCache, compute
from workbench.scoring.run_on_disk import RunOnDisk
from workbench.scoring.service import ScoreKey, frame_digest, run_identity

NAMES = ("alpha_nDCG@10", "ERR-IA@5", "NRBP")
COLUMNS = ("query_id", "intent", "doc_id", "relevance")


def _data(runs: int = 5, seed: int = 5):
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(1, 9):
        for j in range(1, int(rng.integers(2, 5))):
            for d in rng.choice(30, size=8, replace=False):
                rows.append((str(q), str(j), f"d{d}", int(rng.choice([-1, 0, 1, 2]))))
    intents = pd.DataFrame(rows, columns=list(COLUMNS))
    out = {}
    for r in range(runs):
        lines = [(str(q), f"d{d}", float(s)) for q in range(1, 9) for d, s in zip(range(30), rng.random(30).round(1))]
        frame = pd.DataFrame(lines, columns=["query_id", "doc_id", "score"])
        frame.attrs["name"] = f"run{r}"
        out[f"run{r}"] = frame
    return intents, out


def _request(intents, runs, cache=None, **kw) -> Request:
    return Request(qrels=(), runs=runs, measures=NAMES, cache=cache, intents=intents, **kw)


@pytest.fixture
def scored(monkeypatch):
    """The labels of the runs scored with the diversity measures, and the threads they were scored in."""
    calls: list[tuple[str, str]] = []
    real = engine.IntentScoring.evaluate

    def counted(self, runs):
        labels = list(runs)
        calls.extend((label, threading.current_thread().name) for label in labels)
        return real(self, runs)

    monkeypatch.setattr(engine.IntentScoring, "evaluate", counted)
    return calls


def _labels(calls) -> list[str]:
    return [label for label, _ in calls]


def test_a_run_added_to_those_scored_is_the_only_one_scored_and_an_option_switched_back_is_kept(scored):
    intents, runs = _data()
    cache = RunCache()
    try:
        first = dict(list(runs.items())[:4])
        compute(_request(intents, first, cache))
        assert _labels(scored) == list(first)
        scored.clear()
        both = compute(_request(intents, runs, cache))
        assert _labels(scored) == ["run4"]
        scored.clear()
        compute(_request(intents, runs, cache, settings=Settings(relevance_level=2)))
        assert sorted(_labels(scored)) == sorted(runs)
        scored.clear()
        compute(_request(intents, runs, cache))  # back to level 1: kept
        assert _labels(scored) == []
        afresh = compute(_request(intents, runs))
        pd.testing.assert_frame_equal(both.summary, afresh.summary)
        for name in both.per_query:
            pd.testing.assert_frame_equal(both.per_query[name], afresh.per_query[name])
    finally:
        cache.close()


def test_the_diversity_scores_are_held_by_the_service_under_score_keys(scored):
    intents, runs = _data(runs=2)
    cache = RunCache()
    try:
        compute(_request(intents, runs, cache))
        source = ("intents", frame_digest(intents, COLUMNS))
        for label, run in runs.items():
            key = ScoreKey(label, run_identity(run), source, Settings(), MeasureSet(NAMES))
            assert cache.service.holders(key) == 1, label  # held once: by the scores kept for the next evaluation
        assert not hasattr(cache, "diversity")  # no cache of their own
    finally:
        cache.close()


def test_a_run_on_disk_is_read_and_scored_in_the_service_s_thread(scored, tmp_path):
    intents, runs = _data(runs=1)
    path = tmp_path / "run0.txt"
    frame = runs["run0"]
    path.write_text("".join(f"{q} Q0 {d} 0 {s} run0\n" for q, d, s in frame.itertuples(index=False)))
    on_disk = {"run0": RunOnDisk(str(path), {"name": "run0", "path": str(path)}, stat=None)}
    cache = RunCache()
    try:
        results = compute(_request(intents, on_disk, cache))
        assert [(label, thread.startswith("scoring")) for label, thread in scored] == [("run0", True)]
        held = compute(_request(intents, runs))
        pd.testing.assert_frame_equal(results.summary, held.summary)
    finally:
        cache.close()


def test_a_run_on_disk_that_cannot_be_read_fails_alone(scored, tmp_path):
    intents, runs = _data(runs=2)
    broken = tmp_path / "broken.txt"
    broken.write_text("this is not a run\n")
    both = {"run0": runs["run0"], "broken": RunOnDisk(str(broken), {"name": "broken", "path": str(broken)})}
    cache = RunCache()
    try:
        results = compute(_request(intents, both, cache))
        assert results.runs == ["run0"] and list(results.failed) == ["broken"]
    finally:
        cache.close()
