"""The ways into the project, each turning a case's files into trec_eval's output bytes, and the oracle.

Every door takes ``(qrels path, run paths, trec_eval flags, work folder)`` and returns an
:class:`Outcome`.  The expected bytes are trec_eval 10.0's ``-q -m all_trec`` output for each run,
one after the other.  Text the library returns (``str``) is turned into bytes with UTF-8 and
``surrogateescape`` (:func:`as_bytes`): ids that are not UTF-8 come back as the bytes they were.
"""

from __future__ import annotations

import difflib
import gzip
import json
import os
import shutil
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
REPO = TESTS.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

import trec_eval_ref  # noqa: E402

MEASURES = ("-q", "-m", "all_trec")
VENV_BIN = REPO / ".venv" / "bin"


def ir_eval_command() -> list:
    """``ir-eval`` as installed beside this interpreter (the project's virtualenv), else on the PATH."""
    for folder in (Path(sys.executable).parent, VENV_BIN):
        exe = folder / "ir-eval"
        if exe.is_file():
            return [str(exe)]
    found = shutil.which("ir-eval")
    return [found] if found else [sys.executable, "-m", "metrics"]


@dataclass
class Outcome:
    rc: int
    out: bytes
    err: str = ""


def as_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def options_of(flags) -> dict:
    """trec_eval's flags as the library's options."""
    flags = list(flags)
    opts: dict = {}
    i = 0
    while i < len(flags):
        f = flags[i]
        if f == "-c":
            opts["complete"] = True
        elif f == "-J":
            opts["judged_only"] = True
        elif f == "-M":
            opts["max_docs"] = int(flags[i + 1])
            i += 1
        elif f == "-l":
            opts["relevance_level"] = int(flags[i + 1])
            i += 1
        else:
            raise ValueError(f"no option for trec_eval flag {f}")
        i += 1
    return opts


# ---------------------------------------------------------------------------------------------- oracle


def trec_eval(qrels: str, run: str, flags=()) -> Outcome:
    if not trec_eval_ref.BIN:
        raise RuntimeError(trec_eval_ref.REASON)
    p = subprocess.run([trec_eval_ref.BIN, *MEASURES, *flags, qrels, run], capture_output=True, timeout=300)
    return Outcome(p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"))


def expected(qrels: str, runs, flags=()) -> Outcome:
    """trec_eval's output for each run, concatenated (rc: the first failure's)."""
    out = b""
    for run in runs:
        o = trec_eval(qrels, run, flags)
        if o.rc != 0:
            return o
        out += o.out
    return Outcome(0, out)


# ---------------------------------------------------------------------------------------------- doors


def _ir_eval(args, stdin: bytes | None = None, env: dict | None = None) -> Outcome:
    full_env = dict(os.environ, **(env or {}))
    full_env.pop("DASK_SCHEDULER_ADDRESS", None)
    p = subprocess.run(ir_eval_command() + list(args), input=stdin, capture_output=True, timeout=600, env=full_env)
    return Outcome(p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"))


def door_cli(qrels, runs, flags, work) -> Outcome:
    """``ir-eval`` on the paths."""
    return _ir_eval([*MEASURES, *flags, qrels, runs[0]])


def door_gzip(qrels, runs, flags, work) -> Outcome:
    """``ir-eval`` on gzip-compressed copies of both files."""
    paths = []
    for src in (qrels, runs[0]):
        dst = Path(work) / (Path(src).name + ".gz")
        dst.write_bytes(gzip.compress(Path(src).read_bytes(), mtime=0))
        paths.append(str(dst))
    return _ir_eval([*MEASURES, *flags, *paths])


def door_stdin(qrels, runs, flags, work) -> Outcome:
    """``ir-eval QRELS -`` with the run on standard input."""
    return _ir_eval([*MEASURES, *flags, qrels, "-"], stdin=Path(runs[0]).read_bytes())


def several(runs) -> list:
    """The runs of a door that takes several: all of them, or the one run twice."""
    return list(runs) if len(runs) > 1 else [runs[0], runs[0]]


def door_several(qrels, runs, flags, work) -> Outcome:
    """``ir-eval QRELS RUN RUN...``: one block per run, in order."""
    return _ir_eval([*MEASURES, *flags, "--jobs", "1", qrels, *several(runs)])


def door_forked(qrels, runs, flags, work) -> Outcome:
    """``ir-eval QRELS RUN RUN...`` without ``--jobs``: on two cores or more, the later runs scored by a copy
    of the process forked once the qrels are encoded."""
    return _ir_eval([*MEASURES, *flags, qrels, *several(runs)])


def door_jobs(qrels, runs, flags, work) -> Outcome:
    """``ir-eval --jobs 2 QRELS RUN RUN...``."""
    return _ir_eval([*MEASURES, *flags, "--jobs", "2", qrels, *several(runs)])


def door_split(qrels, runs, flags, work) -> Outcome:
    """One run scored in parts by two processes (``IR_EVAL_SPLIT_BYTES`` far below its size)."""
    size = os.path.getsize(runs[0])
    return _ir_eval(
        [*MEASURES, *flags, "--jobs", "2", qrels, runs[0]], env={"IR_EVAL_SPLIT_BYTES": str(max(1, size // 8))}
    )


def door_json(qrels, runs, flags, work) -> Outcome:
    """``ir-eval --format json``, its numbers written back as trec_eval lines with the project's own
    formatting.  The JSON has no per-query text (``relstring``): :func:`without_query_texts` drops
    those lines from the expected output too; and NaN is ``null``, without trec_eval's sign (``-nan``
    is expected as ``nan``)."""
    o = _ir_eval([*MEASURES, *flags, "--format", "json", qrels, runs[0]])
    if o.rc != 0:
        return o
    try:
        return Outcome(0, json_to_trec(o.out), o.err)
    except Exception:  # noqa: BLE001 - shown as the door's failure
        return Outcome(-1, o.out, "cannot turn the JSON into trec_eval lines:\n" + traceback.format_exc())


def _all_trec():
    import metrics
    from metrics.measures import FAMILIES

    return [(m, FAMILIES[m.family]) for m in metrics.parse_measures(["all_trec"], trec_rules=True)]


def _value(v):
    return float("nan") if v is None else v


def json_to_trec(data: bytes) -> bytes:
    from metrics.engine.evaluation import format_value

    doc = json.loads(data)
    lines = []
    measures = _all_trec()
    for entry in doc["runs"].values():
        for q, values in entry.get("queries", {}).items():
            for m, fam in measures:
                if fam.per_query and m.kind != "text":
                    lines.append(f"{m.trec_name:<22}\t{q}\t{format_value(m.kind, _value(values[str(m)]))}")
        for m, fam in measures:
            if not fam.summary:
                continue
            v = entry["all"][str(m)]
            lines.append(f"{m.trec_name:<22}\tall\t{v if m.kind == 'text' else format_value(m.kind, _value(v))}")
    return b"".join(as_bytes(line) + b"\n" for line in lines)


def without_query_texts(out: bytes) -> bytes:
    """trec_eval's output without the per-query lines of text measures (``relstring``)."""
    texts = {m.trec_name.encode() for m, fam in _all_trec() if fam.per_query and m.kind == "text"}
    keep = []
    for line in out.split(b"\n"):
        parts = line.split(b"\t")
        if len(parts) >= 2 and parts[0].rstrip(b" ") in texts and parts[1] != b"all":
            continue
        keep.append(line)
    return b"\n".join(keep)


def _library(work_fn) -> Outcome:
    try:
        ev = work_fn()
        lines = [line for run in ev.runs for line in ev.trec_lines(run, queries=True)]
        return Outcome(0, b"".join(as_bytes(line) + b"\n" for line in lines))
    except Exception:  # noqa: BLE001 - shown as the door's failure
        return Outcome(-1, b"", traceback.format_exc())


def door_evaluate(qrels, runs, flags, work) -> Outcome:
    """``metrics.evaluate(qrels_path, run_path, "all_trec", **options)``."""
    import metrics

    return _library(lambda: metrics.evaluate(qrels, runs[0], "all_trec", **options_of(flags)))


def door_evaluator(qrels, runs, flags, work) -> Outcome:
    """``metrics.evaluator(qrels_path, "all_trec", **options).evaluate([run paths])``."""
    import metrics

    return _library(lambda: metrics.evaluator(qrels, "all_trec", **options_of(flags)).evaluate(several(runs)))


def door_frames(qrels, runs, flags, work) -> Outcome:
    """``metrics.read_qrels`` and ``metrics.read_run`` frames, then ``metrics.evaluate``."""
    import metrics

    def work_fn():
        return metrics.evaluate(
            metrics.read_qrels(qrels), [metrics.read_run(r) for r in several(runs)], "all_trec", **options_of(flags)
        )

    return _library(work_fn)


def _window(qrels, runs, flags, hold: bool) -> Outcome:
    from metrics.engine.settings import Settings
    from workbench.scoring import evaluation as analysis
    from workbench.state import loading

    def work_fn():
        _, q = loading.load_file(qrels, None, None)
        labels, held = [], {}
        for i, path in enumerate(several(runs)):
            _, r = loading.load_file(path, None, None, hold=hold)
            labels.append(f"run{i}")
            held[labels[-1]] = r.run
        request = analysis.Request(
            qrels=q.qrels,
            runs=held,
            measures=("all_trec",),
            settings=Settings(relevance_level=options_of(flags).get("relevance_level", 1)),
        )
        return analysis.compute(request).evaluation

    return _library(work_fn)


def door_window(qrels, runs, flags, work) -> Outcome:
    """The window's reading of dropped files (``loading.load_file``) and its scoring (``analysis.compute``)."""
    return _window(qrels, runs, flags, hold=True)


def door_window_disk(qrels, runs, flags, work) -> Outcome:
    """The window's runs on disk (``hold=False``): read and scored by its worker processes."""
    return _window(qrels, runs, flags, hold=False)


COMMAND_DOORS = {
    "cli": door_cli,
    "gzip": door_gzip,
    "stdin": door_stdin,
    "several": door_several,
    "forked": door_forked,
    "jobs": door_jobs,
    "split": door_split,
    "json": door_json,
}
LIBRARY_DOORS = {"evaluate": door_evaluate, "evaluator": door_evaluator, "frames": door_frames}
WINDOW_DOORS = {"window": door_window, "window_disk": door_window_disk}
DOORS = {**COMMAND_DOORS, **LIBRARY_DOORS, **WINDOW_DOORS}
MULTI = {"several", "forked", "jobs", "evaluator", "frames", "window", "window_disk"}


def applicable(door: str, flags) -> bool:
    """The window has no -c, -M or -J."""
    if door.startswith("window"):
        return all(f in ("-l",) or f.isdigit() for f in flags)
    return True


# ---------------------------------------------------------------------------------------------- checking


@dataclass
class Mismatch:
    door: str
    flags: tuple
    expected: Outcome
    got: Outcome

    def summary(self) -> str:
        if self.got.rc != 0:
            last = [line for line in self.got.err.strip().splitlines() if line.strip()][-1:] or ["(no message)"]
            return f"{self.door}: exit {self.got.rc}: {last[0][:300]}"
        return f"{self.door}: output differs"

    def diff(self, limit: int = 40) -> str:
        want = self.expected.out.decode("utf-8", "backslashreplace").splitlines()
        have = self.got.out.decode("utf-8", "backslashreplace").splitlines()
        lines = list(difflib.unified_diff(want, have, "trec_eval", self.door, lineterm="", n=1))
        more = f"\n... {len(lines) - limit} more diff lines" if len(lines) > limit else ""
        return "\n".join(line[:400] for line in lines[:limit]) + more


def run_door(door: str, qrels: str, runs, flags, work) -> tuple[Outcome, Outcome]:
    """(expected, got) for one door."""
    used = several(runs) if door in MULTI else [runs[0]]
    want = expected(qrels, used, flags)
    if want.rc != 0:
        raise AssertionError(f"trec_eval refused a generated case (a generator bug): {want.err.strip()[:500]}")
    got = DOORS[door](qrels, list(runs), tuple(flags), work)
    if door == "json":
        want = Outcome(0, without_query_texts(want.out).replace(b"\t  -nan\n", b"\t   nan\n"))
    return want, got


def compare(door: str, qrels: str, runs, flags, work) -> Mismatch | None:
    want, got = run_door(door, qrels, runs, flags, work)
    if got.rc == 0 and got.out == want.out:
        return None
    return Mismatch(door, tuple(flags), want, got)


def save(case, mismatch: Mismatch, folder) -> Path:
    """The case's files, its flags and door, and what differs, in ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    case.write(folder)
    runs = ["run.txt"] + [f"run{i + 1}.txt" for i in range(1, len(case.runs))]
    used = several(runs) if mismatch.door in MULTI else runs[:1]
    command = " ".join(["trec_eval", *MEASURES, *mismatch.flags, "qrels.txt", *used])
    (folder / "flags.txt").write_text(" ".join(mismatch.flags) + "\n")
    (folder / "door.txt").write_text(
        f"door: {mismatch.door} ({DOORS[mismatch.door].__doc__.splitlines()[0]})\n"
        f"expected: {command} (for each run, concatenated)\n{mismatch.summary()}\n"
    )
    (folder / "expected.txt").write_bytes(mismatch.expected.out)
    (folder / "got.txt").write_bytes(mismatch.got.out)
    (folder / "stderr.txt").write_text(mismatch.got.err)
    (folder / "diff.txt").write_text(mismatch.diff(400) + "\n")
    return folder


def check(case, doors, work, keep=None) -> None:
    """Assert that every door gives trec_eval's bytes for ``case``; on a failure the case is saved
    (under ``keep``, else ``work``) and the message says where."""
    qrels, runs = case.write(Path(work) / "case")
    failures = []
    for door in doors:
        if not applicable(door, case.flags):
            continue
        m = compare(door, qrels, runs, case.flags, Path(work))
        if m is not None:
            failures.append(m)
    if failures:
        base = Path(keep or work)
        parts = []
        for i, m in enumerate(failures):
            where = save(case, m, base / f"failure-{i}-{m.door}")
            parts.append(f"{m.summary()}  [flags {' '.join(m.flags) or '(none)'}; saved in {where}]\n{m.diff()}")
        raise AssertionError(f"{len(failures)} door(s) differ from trec_eval 10.0:\n\n" + "\n\n".join(parts))
