"""``ir-eval`` as a process: exit codes, one-line messages, no traceback, whatever goes wrong."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d4 1\n"
RUN = "q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq2 Q0 d4 1 5.0 r\n"


@pytest.fixture
def files(tmp_path):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return str(q), str(r)


def ir_eval(*args, stdin=None, stdout=subprocess.PIPE):
    return subprocess.run(
        [sys.executable, "-m", "metrics", *map(str, args)],
        input=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
    )


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err
    return lines[-1]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--compare", "{run}", "--alpha", "5"], "--alpha must lie strictly between 0 and 1, not 5"),
        (["--compare", "{run}", "--permutations", "0"], "--permutations must be between 1 and 10,000,000, not 0"),
        (
            ["-m", "P.99999999999999999999"],
            "measure 'P.99999999999999999999': cutoff 99999999999999999999 is too large",
        ),
        (["-m", "utility.1,2"], "measure 'utility.1,2': improper number of coefficients (need 4, got 2)"),
        (["-m", "ndcg_cut.abc"], "measure 'ndcg_cut.abc': cutoffs must be positive whole numbers, not 'abc'"),
        (["-m", "P(rel=x)@5"], "measure 'P(rel=x)@5': P: rel must be a whole number, not 'x'"),
        (["-m", "nope"], "unknown measure 'nope'"),
        (["-M", "-3"], "-M must be 0 or more, not -3"),
    ],
)
def test_options_and_measures_are_checked_before_any_file_is_read(tmp_path, files, args, message):
    missing = tmp_path / "not_there.txt"  # never opened: the usage error comes first
    out = ir_eval(*[a.format(run=files[1]) for a in args], missing, missing)
    assert out.returncode == 1
    assert one_line(out.stderr) == f"ir-eval: {message}" or one_line(out.stderr).startswith(f"ir-eval: {message}")
    assert "not_there" not in out.stderr


def test_argparse_usage_errors_exit_with_the_usage_status(files):
    out = ir_eval("--no-such-option", *files)
    assert out.returncode == 1 and one_line(out.stderr) == "ir-eval: error: unrecognized arguments: --no-such-option"


def test_version_and_python_dash_m(files):
    out = ir_eval("--version")
    assert out.returncode == 0 and out.stdout.startswith("ir-eval ")
    assert ir_eval("-m", "map", *files).stdout.startswith("map")


def test_bad_input_exits_2_and_names_standard_input(files):
    out = ir_eval(files[0], "-", stdin="q1 Q0 d1 1\n")
    assert out.returncode == 2
    assert one_line(out.stderr).startswith("ir-eval: standard input, line 1: found 4 columns")
    out = ir_eval(files[0], "/no/such/run.txt")
    assert out.returncode == 2 and one_line(out.stderr) == "ir-eval: /no/such/run.txt: no such file"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_a_full_disk_is_one_line_and_its_own_status(files):
    with open("/dev/full", "w") as full:
        out = ir_eval("-q", *files, stdout=full)
    assert out.returncode == 4 and one_line(out.stderr) == "ir-eval: cannot write the output: No space left on device"


def test_a_closed_pipe_is_not_an_error(files, tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "metrics", "-q", "-m", "all_trec", *files],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.read(10)
    proc.stdout.close()  # like `ir-eval ... | head -c 10`
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0 and "Traceback" not in err


def _family(pid: int) -> list[int]:
    """``pid`` and the processes it started, theirs too (``--jobs``: the workers read the runs)."""
    found, todo = [], [pid]
    while todo:
        one = todo.pop()
        found.append(one)
        try:
            with open(f"/proc/{one}/task/{one}/children") as fh:
                todo += [int(child) for child in fh.read().split()]
        except OSError:  # gone meanwhile, or not listed by this system
            pass
    return found


def _wait_until_reading(proc, paths, timeout: float = 60.0) -> None:
    """Until the process, or one it started, has one of ``paths`` open (its files listed in /proc), or it
    has ended; a fixed pause where /proc does not list them (a loaded machine can take longer than any
    pause to start)."""
    if not os.path.isdir(f"/proc/{proc.pid}/fd"):
        time.sleep(1.5)
        return
    wanted = {os.path.realpath(p) for p in paths}
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        for pid in _family(proc.pid):
            fds = f"/proc/{pid}/fd"
            try:
                if any(os.path.realpath(os.path.join(fds, fd)) in wanted for fd in os.listdir(fds)):
                    return
            except OSError:  # a file closed or the process gone while listing
                pass
        time.sleep(0.01)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_is_one_line_and_status_130(tmp_path, files, jobs):
    big, qrels = tmp_path / "big.run", tmp_path / "big.qrels"
    with open(big, "w") as fh:
        tails = [f" Q0 d{d} {d} {1 / d:.6f} r\n" for d in range(1, 2501)]  # the same for every query
        for q in range(400):
            fh.write(str(q) + str(q).join(tails))
    qrels.write_text("".join(f"{q} 0 d{d} 1\n" for q in range(400) for d in (1, 7, 50)))
    cmd = [sys.executable, "-m", "metrics", "--jobs", jobs, "-m", "all_trec", qrels] + [big] * 12
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_until_reading(proc, [qrels, big])  # past start-up (a Ctrl-C while Python imports is Python's)
    time.sleep(0.2)  # well into the work
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and one_line(err) == "ir-eval: interrupted"  # (12 runs of 1M lines: seconds)


def test_an_internal_error_is_one_line_and_the_traceback_only_with_debug(files, tmp_path):
    code = (
        "import sys, metrics.cli.ir_eval as c\n"
        "def boom(*a, **k):\n    raise RuntimeError('boom')\n"
        "c.evaluate = boom\nsys.exit(c.main(sys.argv[1:]))\n"
    )
    script = tmp_path / "boom.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script), *files], capture_output=True, text=True, timeout=60)
    assert out.returncode == 3
    assert one_line(out.stderr) == "ir-eval: internal error: RuntimeError: boom (run with --debug for details)"
    out = subprocess.run([sys.executable, str(script), "--debug", *files], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "Traceback" in out.stderr


def test_the_command_leaves_nothing_unwritten_however_long_its_output(tmp_path):
    """``ir-eval`` leaves without Python's teardown: every line it wrote still reaches a pipe, and the
    exit status is main's."""
    from metrics.cli.ir_eval import main

    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} 0 d{d} {d % 3}\n" for q in range(300) for d in range(0, 60, 3)))
    run.write_text("".join(f"{q} Q0 d{d} {d} {100 - d} r\n" for q in range(300) for d in range(100)))
    args = ["-q", "-m", "all_trec", str(qrels), str(run)]
    out = ir_eval(*args)
    assert out.returncode == 0 and out.stderr == ""
    expected = tmp_path / "expected.txt"
    with open(expected, "w") as fh:
        saved, sys.stdout = sys.stdout, fh
        try:
            assert main(args) == 0
        finally:
            sys.stdout = saved
    assert out.stdout == expected.read_text() and len(out.stdout.splitlines()) > 300 * 90
    assert ir_eval("-q", qrels, tmp_path / "missing.run").returncode == 2


def test_help_fits_the_width_it_is_given():
    def longest_line(columns: int) -> int:
        out = subprocess.run(
            [sys.executable, "-m", "metrics", "--help"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "COLUMNS": str(columns)},
        )
        assert out.returncode == 0 and "--jobs" in out.stdout
        return max(map(len, out.stdout.splitlines()))

    assert longest_line(100) <= 100 < longest_line(200) <= 200


BLAS_PROBE = """
import os, sys, types
def run():  # the command, stubbed: what the process is like once numpy is imported
    import numpy
    print(os.environ["OPENBLAS_NUM_THREADS"], len(os.listdir("/proc/self/task")))
    os._exit(0)
sys.modules["metrics.cli.ir_eval"] = types.SimpleNamespace(main=None, run=run)
if sys.argv[1] == "launcher":
    import ir_eval_launcher
    ir_eval_launcher.run()
else:
    import runpy
    runpy.run_module("metrics", run_name="__main__")
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts the threads in /proc")
@pytest.mark.parametrize("door", ["launcher", "python -m metrics"])
@pytest.mark.parametrize("preset", [None, "2"])
def test_the_command_starts_with_one_blas_thread_unless_the_user_chose(door, preset):
    """``ir-eval`` and ``python -m metrics`` ask for one BLAS thread before numpy is imported (OpenBLAS's
    would spin on the other cores for a tenth of a second); a user's ``OPENBLAS_NUM_THREADS`` is kept."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if preset:
        env["OPENBLAS_NUM_THREADS"] = preset
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    out = subprocess.run(
        [sys.executable, "-c", BLAS_PROBE, door], capture_output=True, text=True, timeout=60, env=env, cwd=root
    )
    assert out.returncode == 0, out.stderr
    blas, threads = out.stdout.split()
    assert blas == (preset or "1")
    if not preset:
        assert threads == "1"
