"""metrics.fuse and ir-eval --fuse against ranx's fuse, on generated runs with ties and runs missing queries
and documents (ranx is a test requirement: these tests never skip)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import ranx

import metrics
from metrics.cli.ir_eval import main
from metrics.fusion import METHODS, NORMS, canonical_method

SCORE_METHODS = ("combsum", "combmnz", "combmax", "combmin", "combanz")
RANX_METHOD = {"combsum": "sum", "combmnz": "mnz", "combmax": "max", "combmin": "min", "combanz": "anz"}
RANX_NORM = {"min-max": "min-max", "sum": "sum", "zmuv": "zmuv", "max": "max", "rank": "rank", "none": None}


def _runs(seed: int, n_runs: int = 3, ties: bool = True, missing: bool = True) -> list[dict[str, dict[str, float]]]:
    """Runs over 9 queries: with ``missing`` each run but the first leaves some queries out; each retrieves its
    own subset of each query's pool; with ``ties``, scores from a handful of values (ties within a run and across
    runs)."""
    rng = np.random.default_rng(seed)
    queries = [f"q{i}" for i in range(1, 10)]
    runs = []
    for r in range(n_runs):
        run: dict[str, dict[str, float]] = {}
        for q in queries:
            if missing and r and rng.random() < 0.25:
                continue
            pool = [f"d{q[1:]}_{j:02d}" for j in range(40)]
            docs = rng.choice(pool, size=int(rng.integers(1, 30)), replace=False)
            if ties:
                scores = rng.integers(-3, 6, size=len(docs)) / 2.0
            else:
                scores = rng.normal(10.0 * (r + 1), 3.0, size=len(docs))
            run[q] = {str(d): float(s) for d, s in zip(docs, scores)}
        runs.append(run)
    return runs


def _ranx_runs(runs):
    queries = sorted(set().union(*runs))
    return [ranx.Run({q: dict(run.get(q, {})) for q in queries}, name=f"r{i}") for i, run in enumerate(runs)]


def _ranx_fuse(runs, norm, method, **params):
    """ranx's fuse of ``runs``.  ranx wants every run to hold the same queries, and its normalisations stop at a
    query a run holds no document for (the queries after it come out empty), so each run is normalised by
    ranx over the queries it holds, then given empty rankings for the others and fused by ranx."""
    if norm is not None:
        runs = [ranx.normalize(ranx.Run(run), norm).to_dict() for run in runs]
    return ranx.fuse(_ranx_runs(runs), norm=None, method=method, params=params)


def _as_dict(frame: pd.DataFrame) -> dict[tuple[str, str], float]:
    return {(q, d): s for q, d, s in zip(frame["query_id"], frame["doc_id"], frame["score"])}


def _ranx_dict(run) -> dict[tuple[str, str], float]:
    return {(q, d): s for q, docs in run.to_dict().items() for d, s in docs.items()}


def _assert_same(ours: pd.DataFrame, theirs) -> None:
    a, b = _as_dict(ours), _ranx_dict(theirs)
    assert a.keys() == b.keys()
    worst = max(abs(a[k] - b[k]) for k in a)
    assert worst <= 1e-9, worst


def _trec_order_scores(run):
    """The run with each query's scores replaced by n, n-1, ..., 1 in trec_eval's order (score descending,
    ties by document id descending): the ranks every rank-based method reads, with no tie left to break."""
    out = {}
    for q, docs in run.items():
        order = sorted(docs, key=lambda d: (-docs[d], tuple(-b for b in d.encode())))
        out[q] = {d: float(len(order) - i) for i, d in enumerate(order)}
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("norm", ["min-max", "sum", "zmuv", "max", "none"])
@pytest.mark.parametrize("method", SCORE_METHODS)
def test_score_methods_equal_ranx_with_ties_and_missing_queries(method, norm, seed):
    runs = _runs(seed)
    theirs = _ranx_fuse(runs, RANX_NORM[norm], RANX_METHOD[method])
    _assert_same(metrics.fuse(runs, method, norm=norm), theirs)


@pytest.mark.parametrize("norm", ["min-max", "sum", "zmuv", "max", "none"])
@pytest.mark.parametrize("method", SCORE_METHODS)
def test_ranx_fuse_itself_on_runs_holding_every_query(method, norm):
    runs = _runs(11, missing=False)
    theirs = ranx.fuse(_ranx_runs(runs), norm=RANX_NORM[norm], method=RANX_METHOD[method])
    _assert_same(metrics.fuse(runs, method, norm=norm), theirs)


@pytest.mark.parametrize("norm", ["min-max", "sum", "zmuv", "rank"])
def test_weighted_sum_equals_ranx(norm):
    runs = _runs(4, ties=norm != "rank")
    weights = [0.5, 0.3, 0.2]
    theirs = _ranx_fuse(runs, RANX_NORM[norm], "wsum", weights=weights)
    _assert_same(metrics.fuse(runs, "wsum", norm=norm, weights=weights), theirs)


@pytest.mark.parametrize("k", [60, 10, 0.5])
@pytest.mark.parametrize("ties", [False, True])
def test_rrf_equals_ranx(k, ties):
    runs = _runs(5, ties=ties)
    ours = metrics.fuse(runs, "rrf", k=k)
    # ranx breaks ties by its sort's internal order; given scores that spell out trec_eval's order it ranks
    # as we do, which the tied runs show to be the only difference
    reference = [_trec_order_scores(r) for r in runs] if ties else runs
    _assert_same(ours, _ranx_fuse(reference, "min-max", "rrf", k=k))


@pytest.mark.parametrize("method", SCORE_METHODS)
def test_rank_normalisation_equals_ranx(method):
    runs = _runs(6)
    theirs = _ranx_fuse([_trec_order_scores(r) for r in runs], "rank", RANX_METHOD[method])
    _assert_same(metrics.fuse(runs, method, norm="rank"), theirs)


def test_untied_runs_need_no_reordering_for_rank_methods():
    runs = _runs(7, ties=False, missing=False)
    theirs = ranx.fuse(_ranx_runs(runs), norm="rank", method="mnz")
    _assert_same(metrics.fuse(runs, "combmnz", norm="rank"), theirs)


def test_every_form_of_run_gives_the_same_fusion(tmp_path):
    runs = _runs(8, n_runs=2)
    paths = []
    for i, run in enumerate(runs):
        path = tmp_path / f"r{i}.txt"
        path.write_text("".join(f"{q}\tQ0\t{d}\t1\t{s!r}\tr{i}\n" for q, docs in run.items() for d, s in docs.items()))
        paths.append(path)
    by_dict = metrics.fuse(runs, "combmnz", norm="zmuv")
    by_path = metrics.fuse(paths, "mnz", norm="z-score")
    by_frame = metrics.fuse({"a": metrics.read_run(paths[0]), "b": ranx.Run(runs[1])}, "comb_mnz", norm="zscore")
    for other in (by_path, by_frame):
        pd.testing.assert_frame_equal(by_dict, other, check_exact=False, rtol=0, atol=1e-12)
    assert by_dict.attrs["name"] == "combmnz"
    assert metrics.fuse(runs, "rrf", name="fused").attrs["name"] == "fused"


def test_fused_run_is_in_trec_order_and_keeps_every_query_and_document():
    runs = [{"q1": {"a": 1.0, "b": 2.0}, "q2": {"x": 1.0}}, {"q1": {"c": 3.0, "a": 3.0}, "q3": {"y": 0.0}}]
    fused = metrics.fuse(runs, "combsum", norm="none")
    assert list(zip(fused["query_id"], fused["doc_id"], fused["score"])) == [
        ("q1", "a", 4.0),
        ("q1", "c", 3.0),
        ("q1", "b", 2.0),
        ("q2", "x", 1.0),
        ("q3", "y", 0.0),
    ]
    ev = metrics.evaluate({"q1": {"c": 1}}, fused, ["P@2"])
    assert ev.summary()["P@2"].iloc[0] == 0.5


def test_bad_requests_name_the_choices():
    runs = _runs(9, n_runs=2)
    with pytest.raises(ValueError, match="combsum, combmnz"):
        metrics.fuse(runs, "borda")
    with pytest.raises(ValueError, match="min-max, sum, zmuv"):
        metrics.fuse(runs, norm="l2")
    with pytest.raises(ValueError, match="one weight per run: 2 runs, none"):
        metrics.fuse(runs, "wsum")
    with pytest.raises(ValueError, match="weights are for the weighted sum"):
        metrics.fuse(runs, "rrf", weights=[1, 2])
    with pytest.raises(ValueError, match="at least two runs"):
        metrics.fuse(runs[:1])
    with pytest.raises(ValueError, match="several runs"):
        metrics.fuse(runs[0])
    assert [canonical_method(m.code) for m in METHODS] == [m.code for m in METHODS]
    assert {n.code for n in NORMS} == set(RANX_NORM)


def _write(path, run, tag):
    path.write_text("".join(f"{q} Q0 {d} 0 {s!r} {tag}\n" for q, docs in run.items() for d, s in docs.items()))


def test_cli_writes_the_fused_run(tmp_path, capsys):
    runs = _runs(10, n_runs=3)
    paths = [tmp_path / f"run{i}.txt" for i in range(3)]
    for i, (path, run) in enumerate(zip(paths, runs)):
        _write(path, run, f"r{i}")
    out = tmp_path / "fused.txt"
    argv = ["--fuse", "wsum", "--norm", "sum", "--weights", "2,1,0.5", *map(str, paths), "-o", str(out)]
    assert main(argv) == 0
    back = metrics.read_run(out)
    assert back.attrs["name"] == "wsum"
    expected = metrics.fuse(runs, "wsum", norm="sum", weights=[2, 1, 0.5])
    assert _as_dict(back) == pytest.approx(_as_dict(expected), abs=0, rel=0)
    lines = out.read_text().splitlines()
    assert lines[0].split()[1::2] == ["Q0", "1", "wsum"]
    assert main(["--fuse", "rrf", "-k", "5", "--tag", "my_rrf", str(paths[0]), str(paths[1]), "-o", "-"]) == 0
    printed = capsys.readouterr().out
    assert printed == metrics.io.writers.run_text(metrics.fuse(runs[:2], "rrf", k=5), tag="my_rrf")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--fuse", "borda"], "unknown fusion method 'borda'"),
        (["--fuse", "wsum"], "--weights go with --fuse wsum"),
        (["--fuse", "combsum", "--weights", "1,2"], "--weights go with --fuse wsum"),
        (["--fuse", "wsum", "--weights", "1"], "--weights: 1 given for 2 runs"),
        (["--fuse", "wsum", "--weights", "1;2"], "numbers separated by commas"),
        (["--fuse", "combsum", "--norm", "l1"], "unknown fusion normalisation"),
    ],
)
def test_cli_usage_errors(tmp_path, capsys, argv, message):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    _write(a, {"q1": {"d1": 1.0}}, "a")
    _write(b, {"q1": {"d2": 1.0}}, "b")
    assert main([*argv, str(a), str(b), "-o", str(tmp_path / "out.txt")]) == 1
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out.txt").exists()


def test_cli_never_writes_over_an_input_and_names_a_bad_file(tmp_path, capsys):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    _write(a, {"q1": {"d1": 1.0}}, "a")
    b.write_text("q1 Q0 d1 1 x b\n")
    before = a.read_text()
    assert main(["--fuse", "combsum", str(a), str(a.parent / "." / "a.txt"), "-o", str(a)]) == 1
    assert "never written to" in capsys.readouterr().err
    assert a.read_text() == before
    assert main(["--fuse", "combsum", str(a), str(b), "-o", str(tmp_path / "out.txt")]) == 2
    err = capsys.readouterr().err
    assert "b.txt" in err and "line 1" in err
