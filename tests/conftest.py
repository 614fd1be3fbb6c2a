"""Shared fixtures: frame builders and a seeded generator of random qrels and runs."""

from __future__ import annotations

import os
import tempfile

# ranx, a reference of the fusion and ranx-habit tests, compiles its kernels with numba at first use: about
# two minutes of a fresh environment's suite for inputs of a few hundred lines.  Its functions run as the
# Python they are written in instead (the same algorithms, the same float operations in the same order).
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")
# the documents' indexes (metrics.documents: the window's sample opens its collection) go to a cache of the
# tests' own, never the user's
os.environ.setdefault("IR_WORKBENCH_CACHE", tempfile.mkdtemp(prefix="ir-workbench-tests-"))

import numpy as np
import pandas as pd
import pytest


def qrels_frame(rows) -> pd.DataFrame:
    """qrels from (query_id, doc_id, relevance) tuples."""
    q, d, r = zip(*rows) if rows else ((), (), ())
    return pd.DataFrame(
        {
            "query_id": pd.Series(q, dtype="str"),
            "doc_id": pd.Series(d, dtype="str"),
            "relevance": np.asarray(r, dtype=np.int64),
        }
    )


def run_frame(rows, name="run") -> pd.DataFrame:
    """run from (query_id, doc_id, score) tuples."""
    q, d, s = zip(*rows) if rows else ((), (), ())
    df = pd.DataFrame(
        {
            "query_id": pd.Series(q, dtype="str"),
            "doc_id": pd.Series(d, dtype="str"),
            "score": np.asarray(s, dtype=np.float64),
        }
    )
    df.attrs["name"] = name
    return df


def random_collection(seed: int, n_queries: int = 12, n_docs: int = 60, depth: int = 40, name: str = "rnd"):
    """Random qrels and run with the awkward cases trec_eval must handle.

    Grades -1..3 (negative = pooled but unjudged), ties in score, unjudged
    retrieved docs, queries without relevant docs, run-only and qrels-only
    queries, ids whose byte order differs from their numeric order
    ("d9" > "d10", upper case before lower case).
    """
    rng = np.random.default_rng(seed)
    docs = [("D" if i % 7 == 0 else "d") + str(i) for i in range(n_docs)]
    queries = [("Q" if i % 5 == 0 else "q") + str(i + 1) for i in range(n_queries)]
    qrels, run = [], []
    for i, q in enumerate(queries):
        judged = rng.choice(n_docs, size=int(rng.integers(1, n_docs // 2)), replace=False)
        if i % 6 == 1:
            grades = np.zeros(len(judged), dtype=int)  # no relevant docs
        else:
            grades = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], size=len(judged))
        qrels += [(q, docs[d], int(g)) for d, g in zip(judged, grades)]
        if i % 7 == 3:
            continue  # qrels-only query
        k = int(rng.integers(1, depth))
        retrieved = rng.choice(n_docs, size=min(k, n_docs), replace=False)
        scores = np.round(rng.normal(size=len(retrieved)), 1)  # ties
        run += [(q, docs[d], float(s)) for d, s in zip(retrieved, scores)]
    for d in rng.choice(n_docs, size=5, replace=False):  # run-only query
        run.append(("zz_run_only", docs[d], float(rng.normal())))
    return qrels_frame(qrels), run_frame(run, name)


def write_trec(qrels: pd.DataFrame, run: pd.DataFrame, directory) -> tuple[str, str]:
    """Write qrels and run in trec_eval's text formats; return the paths."""
    qpath, rpath = directory / "qrels.txt", directory / "run.txt"
    with open(qpath, "w") as f:
        for q, d, r in zip(qrels["query_id"], qrels["doc_id"], qrels["relevance"]):
            f.write(f"{q} 0 {d} {r}\n")
    with open(rpath, "w") as f:
        for i, (q, d, s) in enumerate(zip(run["query_id"], run["doc_id"], run["score"])):
            f.write(f"{q} Q0 {d} {i} {s!r} {run.attrs.get('name', 'run')}\n")
    return str(qpath), str(rpath)


@pytest.fixture(autouse=True)
def _alone_when_timed(request, tmp_path_factory):
    """With the suite spread over processes (pytest-xdist), a test marked ``alone`` (one that measures the
    window's pauses or a wait in wall-clock time) runs while no other test does: every test holds a shared
    lock on a file of the run's temporary folder, one marked ``alone`` holds it exclusively.  A turnstile
    lock taken first keeps the tests that follow from overtaking one waiting to be alone."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        yield
        return
    import fcntl

    root = tmp_path_factory.getbasetemp().parent  # (one folder per worker below the run's own)
    alone = request.node.get_closest_marker("alone") is not None
    with open(root / "alone.turnstile", "a") as turnstile, open(root / "alone.lock", "a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            if not alone:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            if alone:
                fcntl.flock(turnstile, fcntl.LOCK_UN)


@pytest.fixture(params=[0, 1, 2])
def collection(request):
    return random_collection(request.param)


@pytest.fixture(scope="module")
def cluster():
    """A local Dask cluster of two worker processes, one per test module that asks for it."""
    import distributed  # the test extra installs it

    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, host="127.0.0.1"
    ) as local:
        yield local


# -- leaving -------------------------------------------------------------------------------------------------
# Once the summary is printed the test process leaves at once, with pytest's status, as ir-eval does
# (metrics.cli.ir_eval.run): some tests stop worker processes under a run on purpose, and a process stopped
# while it wrote its result leaves a process pool's thread reading half a message, which the interpreter's
# exit then waits for without end (the suite had passed; the process never ended).


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    session.config._leave_with = int(exitstatus)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    import os
    import sys

    status = getattr(config, "_leave_with", None)
    if status is None:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)
