"""What an everyday evaluation imports: numpy and the modules it uses, nothing else (issue #46).

Each case runs in a fresh interpreter: the modules loaded before it starts (site, .pth files) and numpy's own
are set aside, then ``import metrics``, ``ir-eval``'s ``main`` (``-m map``, ``-m all_trec``, ``-m ndcg_cut.10``
on the bundled sample and on a generated TREC qrels and run) or ``metrics.evaluate`` on dicts runs, and every
module it added must be in the allowed set below.  The heavy ones (the diversity kernels, worker processes,
Dask, pandas, scipy, pyarrow, the analyses, explanations, reports, fusion and comparisons) are named on their
own so that the message says which crept in.  No timers: a module imported is a module paid for.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: never imported by a plain evaluation (each is loaded by the command or call that uses it)
FORBIDDEN = (
    "metrics.measures.diversity",  # the diversity kernels: -m alpha_nDCG@20 and the intent qrels
    "metrics.engine.intents",
    "metrics.scale.parallel",  # worker processes (--jobs, a run of 64 MiB or more)
    "metrics.scale.parts",
    "metrics.scale.distributed",  # --dask
    "multiprocessing",
    "concurrent.futures.process",
    "concurrent.futures",
    "dask",
    "distributed",
    "pandas",
    "scipy",
    "pyarrow",
    "numpy.ma",
    "metrics.analysis",  # --overlap, --coverage, --versus, --traits, --agreement
    "metrics.judgments",  # --qrels-vs, --pool-bias, --reproduce
    "metrics.cli.judgments",
    "metrics.explain",  # --explain
    "metrics.report",
    "metrics.fusion",  # --fuse
    "metrics.compare",  # --compare, --all-pairs
    "metrics.cli.output",  # --format csv/json, --compare, --all-pairs
    "metrics.cli.diversity",  # -m alpha_nDCG@20 (a diversity name is told by the registry)
    "threading",  # reading a gzip file (its reading thread); the window's workers
    "queue",
    "metrics.io.readers",  # the DataFrame readers (pandas)
    "importlib.metadata",
    "subprocess",
    "shutil",
    "json",  # --format json only
    "gzip",  # gzip files only
    "hashlib",  # ids longer than 64 bytes only (loading OpenSSL costs 3 ms)
    "_hashlib",
)

#: the standard library's modules that reading, scoring and printing need (and their C halves)
STDLIB = {
    "argparse",
    "gettext",
    "locale",
    "signal",
    "dataclasses",
    "copy",
    "zlib",
    "typing",
    "collections",
    "contextlib",
    "functools",
    "itertools",
    "math",
    "re",
    "warnings",
    "weakref",
    "_typing",
}

#: the core's modules that an evaluation uses: the command line, the evaluator, the readers, the measures
METRICS = {
    "metrics",
    "metrics.cli",
    "metrics.cli.ir_eval",
    "metrics.cli.common",
    "metrics.cli.analysis",  # the table of the analyses' options (the modules they open are not imported)
    "metrics.stat_methods",  # the table of --test and --correction choices (no scipy)
    "metrics.errors",
    "metrics.lazy_names",  # how the packages' public names are loaded when used
    "metrics.engine",
    "metrics.engine.evaluate",
    "metrics.engine.evaluation",
    "metrics.engine.settings",
    "metrics.io",
    "metrics.io.binaryfiles",
    "metrics.io.checks",
    "metrics.io.columns",
    "metrics.io.detect",
    "metrics.io.formats",
    "metrics.io.ids",
    "metrics.io.labels",
    "metrics.io.lines",
    "metrics.io.nested",
    "metrics.io.numbers",
    "metrics.io.table",
    "metrics.io.textfile",
    "metrics.io.tokens",
    "metrics.ranking",
    "metrics.ranking.judged",
    "metrics.ranking.qrels_index",
    "metrics.ranking.rank_order",
    "metrics.scale",
    "metrics.scale.split",  # the size from which a run is scored in parts (the parts are not imported)
    "metrics.measures",
    "metrics.measures._kernels",
    "metrics.measures.aggregates",
    "metrics.measures.counts",
    "metrics.measures.cwl",
    "metrics.measures.extra",
    "metrics.measures.gains",
    "metrics.measures.interpolated",
    "metrics.measures.irm",
    "metrics.measures.irm_builders",
    "metrics.measures.irm_families",
    "metrics.measures.irm_names",
    "metrics.measures.irm_syntax",
    "metrics.measures.judgments",
    "metrics.measures.names",
    "metrics.measures.order",
    "metrics.measures.params",
    "metrics.measures.precision",
    "metrics.measures.registry",
    "metrics.measures.sets",
}

PROBE = """
import json, sys
before = set(sys.modules)  # what the interpreter loaded at start-up (site, .pth files) is not ours
import numpy  # numpy's own modules are numpy's cost, the floor of any numpy-based tool
numpy_own = set(sys.modules) - before
case = json.loads(sys.argv[1])
if case["kind"] == "import":
    import metrics
elif case["kind"] == "evaluate":
    import metrics
    qrels = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d4": 1}}
    run = {"q1": {"d1": 1.5, "d2": 1.0, "d9": 0.5}, "q2": {"d4": 0.1, "d5": 0.7}}
    ev = metrics.evaluate(qrels, run, ["map", "ndcg_cut_10", "P_10", "recip_rank", "recall_1000"])
    assert len(ev.trec_lines()) == 5
else:
    import io
    from metrics.cli.ir_eval import main
    out, sys.stdout = sys.stdout, io.StringIO()
    status = main(case["argv"])
    printed, sys.stdout = sys.stdout.getvalue(), out
    assert status == 0 and printed, (status, printed)
added = sorted(set(sys.modules) - before - numpy_own)
print(json.dumps(added))
"""


def _added(case: dict) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(case)], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def _allowed(name: str) -> bool:
    top = name.partition(".")[0]
    if name.startswith("metrics"):
        return name in METRICS
    if top == "numpy":
        return True  # numpy's lazily loaded parts (numpy.ma is forbidden above)
    return top in STDLIB or top.lstrip("_") in STDLIB


def _check(added: list[str]) -> None:
    heavy = [m for m in added if m in FORBIDDEN or m.partition(".")[0] in FORBIDDEN]
    assert not heavy, f"heavy modules imported by a plain evaluation: {heavy}"
    outside = [m for m in added if not _allowed(m)]
    assert not outside, f"modules outside the allowed set (numpy, the stdlib's {sorted(STDLIB)}, metrics'): {outside}"


def _sample() -> tuple[Path, Path]:
    """The bundled sample's qrels and a run of it."""
    folder = ROOT / "workbench" / "resources" / "sample"
    if not (folder / "qrels.txt").is_file():  # moved: found where it is now
        folder = next(p.parent for p in sorted((ROOT / "workbench").rglob("qrels.txt")) if p.parent.name == "sample")
    return folder / "qrels.txt", sorted(folder.glob("run_*.txt"))[0]


def _generated(folder: Path) -> tuple[Path, Path]:
    """A small TREC qrels (``Q0`` in the iteration column, graded) and run (tabs, the usual tag)."""
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    qrels.write_text("".join(f"{q} Q0 D{d} {d % 4}\n" for q in range(101, 106) for d in range(0, 60, 3)))
    run.write_text(
        "".join(
            f"{q}\tQ0\tD{d}\t{r + 1}\t{20 - r / 10:.2f}\tbm25\n"
            for q in range(101, 105)
            for r, d in enumerate(range(40))
        )
    )
    return qrels, run


def test_import_metrics_alone_imports_nothing_more():
    """``import metrics``: the package's names are defined (:mod:`metrics.lazy_names`), nothing is loaded
    (not even numpy's users)."""
    added = _added({"kind": "import"})
    _check(added)
    assert [m for m in added if m.startswith("metrics")] == ["metrics", "metrics.lazy_names"], added


def test_evaluate_on_dicts_in_process():
    _check(_added({"kind": "evaluate"}))


@pytest.mark.parametrize("measure", ["map", "all_trec", "ndcg_cut.10"])
@pytest.mark.parametrize("data", ["sample", "generated"])
def test_ir_eval_imports_only_what_it_uses(tmp_path, measure, data):
    qrels, run = _sample() if data == "sample" else _generated(tmp_path)
    _check(_added({"kind": "ir-eval", "argv": ["-m", measure, str(qrels), str(run)]}))


def test_the_heavy_modules_are_still_there_for_the_commands_that_use_them(tmp_path):
    """The allowed set is not met by chance: ``-m alpha_nDCG@5`` imports the diversity kernels, and a check
    that forbids them would say so."""
    qrels, run = tmp_path / "intents.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"1 {i} D{d} 1\n" for i in (1, 2) for d in range(i, 6, 2)))
    run.write_text("".join(f"1 Q0 D{d} {d} {10 - d} r\n" for d in range(1, 7)))
    added = _added({"kind": "ir-eval", "argv": ["-m", "alpha_nDCG@5", str(qrels), str(run)]})
    assert "metrics.measures.diversity" in added
    with pytest.raises(AssertionError, match="metrics.measures.diversity"):
        _check(added)


def test_ir_eval_version_reads_the_metadata_alone():
    """``ir-eval --version`` looks the version up (:mod:`importlib.metadata`) without the report's tables and
    pandas: a module of ``metrics.report`` imported alone does not load the package's others."""
    probe = (
        "import io, json, sys\n"
        "from metrics.cli.ir_eval import main\n"
        "out, sys.stdout = sys.stdout, io.StringIO()\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "printed, sys.stdout = sys.stdout.getvalue(), out\n"
        "print(json.dumps([printed, sorted(sys.modules)]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    printed, modules = json.loads(done.stdout.splitlines()[-1])
    assert printed.startswith("ir-eval ") and "trec_eval 10.0" in printed
    assert "metrics.report.provenance" in modules  # (where the version is looked up)
    loaded = [m for m in ("pandas", "pyarrow", "scipy", "metrics.report.tables", "metrics.compare") if m in modules]
    assert not loaded, loaded
