"""The window's scoring service (workbench.scoring.service), without Qt: one future per key, held by count,
let go (and stopped) once nobody holds it; keys made of the run's and the qrels' content, the settings and
the measures."""

from __future__ import annotations

import gc
import os
import threading
import time

import numpy as np
import pandas as pd
import pytest

from metrics.engine.settings import MeasureSet, Settings
from metrics.errors import Cancelled, checkpoint
from workbench.scoring import service as scoring
from workbench.scoring.run_on_disk import RunOnDisk
from workbench.scoring.service import ScoreKey, ScoringService


def _key(label="a", run=("file", "a.run", 10, 1.0, "run"), level=1, measures=("map",)) -> ScoreKey:
    return ScoreKey(label, run, ("qrels",), Settings(relevance_level=level), MeasureSet(measures))


@pytest.fixture
def service():
    s = ScoringService()
    yield s
    s.close()


def test_a_second_submit_of_a_key_gives_the_same_future_and_does_the_work_once(service):
    done = []
    first = service.submit(_key(), here=lambda: done.append(1) or "scores")
    second = service.submit(_key(), here=lambda: pytest.fail("scored twice"))
    assert first is second and first.result(10) == "scores" and done == [1]
    assert service.holders(_key()) == 2
    third = service.submit(_key(), here=lambda: pytest.fail("scored twice"))  # done: still the same
    assert third is first and service.holders(_key()) == 3


def test_scores_are_let_go_when_the_last_holder_releases_them(service):
    calls = []
    service.submit(_key(), here=lambda: calls.append(1) or len(calls))
    service.submit(_key(), here=lambda: calls.append(1) or len(calls)).result(10)
    service.release(_key())
    assert service.holders(_key()) == 1  # one holder left: kept
    assert service.submit(_key(), here=lambda: pytest.fail("kept")).result(10) == 1
    service.release(_key())
    service.release(_key())
    assert service.holders(_key()) == 0
    assert service.submit(_key(), here=lambda: calls.append(1) or len(calls)).result(10) == 2  # scored anew


def test_work_nobody_waits_for_is_stopped_and_work_not_started_never_runs(service):
    started, stopped = threading.Event(), []

    def long_work():
        started.set()
        try:
            while True:  # a run of millions of lines: heard between its stages
                checkpoint()
                time.sleep(0.005)
        except Cancelled:
            stopped.append(True)
            raise

    running = service.submit(_key("long"), here=long_work)
    queued = service.submit(_key("queued"), here=lambda: pytest.fail("started although let go"))
    assert started.wait(10)
    service.release(_key("long"))
    service.release(_key("queued"))
    assert running.cancelled() and queued.cancelled()
    deadline = time.monotonic() + 10
    while not stopped and time.monotonic() < deadline:
        time.sleep(0.01)
    assert stopped == [True]
    # a key let go is started again by its next submit
    assert service.submit(_key("queued"), here=lambda: "now").result(10) == "now"


def test_a_lease_releases_what_it_holds_when_closed_or_collected(service):
    lease = service.lease()
    future = lease.submit(_key(), here=lambda: "scores")
    assert lease.submit(_key(), here=lambda: pytest.fail("twice")) is future
    assert service.holders(_key()) == 1  # held once by the lease, however often it asked
    other = service.lease()
    other.hold(_key(), future)
    assert service.holders(_key()) == 2
    lease.close()
    assert service.holders(_key()) == 1
    del other
    gc.collect()
    assert service.holders(_key()) == 0
    lease.hold(_key(), future)  # a closed lease holds nothing more (a late keep of a superseded evaluation)
    assert service.holders(_key()) == 0
    with pytest.raises(RuntimeError):
        lease.submit(_key(), here=lambda: "scores")


def test_a_failed_key_is_not_kept_and_is_scored_again(service):
    def broken():
        raise ValueError("bad line")

    failed = service.submit(_key(), here=broken)
    with pytest.raises(ValueError):
        failed.result(10)
    assert service.holders(_key()) == 0
    assert service.submit(_key(), here=lambda: "fixed").result(10) == "fixed"


def test_a_pool_that_cannot_take_work_fails_that_key_only(service, monkeypatch):
    def pool():
        raise RuntimeError("a process of the pool died")

    monkeypatch.setattr(service.workers, "pool", pool)
    future = service.submit(_key("there"), there=lambda: (os.getpid,))
    with pytest.raises(RuntimeError, match="died"):
        future.result(10)
    assert service.holders(_key("there")) == 0
    assert service.submit(_key("here"), here=lambda: 1).result(10) == 1


def test_a_process_scoring_what_nobody_waits_for_is_stopped_and_the_others_go_on(service):
    """Processes cannot stop one task: they are stopped, and the work still held is sent to new ones."""
    abandoned = service.submit(_key("slow"), there=lambda: (time.sleep, 60))
    deadline = time.monotonic() + 30
    while not service._entries[_key("slow")].inner.running() and time.monotonic() < deadline:
        time.sleep(0.01)
    held = service.submit(_key("held"), there=lambda: (time.sleep, 1.0))
    service.release(_key("slow"))
    assert abandoned.cancelled() and service._stops == 1
    assert held.result(60) is None and not held.cancelled()
    assert service._entries[_key("held")].generation == 1  # sent again, to the processes started after the stop


def test_a_changed_file_or_other_settings_make_another_key():
    run = RunOnDisk("/x/a.run", {"name": "a"}, (100, 1.0))
    same = RunOnDisk("/x/a.run", {"name": "a"}, (100, 1.0))
    changed = RunOnDisk("/x/a.run", {"name": "a"}, (100, 2.0))
    assert scoring.run_identity(run) == scoring.run_identity(same) != scoring.run_identity(changed)
    assert scoring.file_identity("a.run", 100, 1.0, "run") != scoring.file_identity("a.run", 100, 1.5, "run")
    assert scoring.file_identity("a.run", 100, 1.0, "run") != scoring.file_identity("a.run", 100, 1.0, "ranked")
    assert _key() == _key() and hash(_key()) == hash(_key())
    assert _key(level=2) != _key() and _key(measures=("map", "P.10")) != _key() and _key(label="b") != _key()
    frame = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})
    copy = frame.copy()
    assert scoring.run_identity(frame) == scoring.run_identity(copy)  # the same content: the same run
    copy.loc[1, "score"] = np.nextafter(1.0, 2.0)
    assert scoring.run_identity(frame) != scoring.run_identity(copy)
    given = ("file", "/x/b.run", 5, 1.0, "run")
    assert scoring.run_identity(frame, given) == given


def test_the_service_owns_no_state_of_the_module():
    """Two services share nothing (no module-level state): a key of one is unknown to the other."""
    a, b = ScoringService(), ScoringService()
    try:
        a.submit(_key(), here=lambda: 1).result(10)
        assert a.holders(_key()) == 1 and b.holders(_key()) == 0
        assert b.submit(_key(), here=lambda: 2).result(10) == 2
    finally:
        a.close()
        b.close()


def test_holders_add_up_when_threads_submit_and_release_at_once(service):
    """Evaluations, the scores kept and the scoring ahead submit and release the same keys from their own
    threads: every key ends held by nobody, each future with its key's scores or cancelled."""
    import random

    errors: list = []

    def owner(seed: int) -> None:
        rng = random.Random(seed)
        try:
            for _ in range(200):
                lease = service.lease()
                keys = [_key(f"r{rng.randrange(8)}") for _ in range(rng.randrange(1, 5))]
                futures = [lease.submit(k, here=lambda k=k: k.label) for k in keys]
                if rng.random() < 0.5:
                    for k, f in zip(keys, futures):
                        assert f.result(10) == k.label
                lease.close()
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)

    threads = [threading.Thread(target=owner, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == [] and not any(t.is_alive() for t in threads)
    assert all(service.holders(_key(f"r{i}")) == 0 for i in range(8))
