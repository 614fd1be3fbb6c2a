"""Only regular files are read: a FIFO, a pipe (``<(zcat ...)``), a device (``/dev/zero``) or a directory
given to any reader is refused at once, naming the file and what it is (exit 2 in ir-eval), never read
until the end that does not come.  Every call runs in a subprocess with a timeout: a hang fails the test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[3] / "workbench" / "resources" / "sample"
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "run.fifo"
    os.mkfifo(path)
    return str(path)


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)


def _ir_eval(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "metrics", *args], capture_output=True, text=True, timeout=60, check=False
    )


CALLS = [
    "metrics.read_run({path!r})",
    "metrics.read_qrels({path!r})",
    "metrics.read_file({path!r})",
    "metrics.evaluate({path!r}, {path!r})",
    "metrics.io.readers.detect_kind({path!r})",
]


def _library_refuses(call: str, path: str, what: str) -> None:
    code = (
        "import metrics, metrics.io.readers\n"
        "try:\n"
        f"    {call.format(path=path)}\n"
        "except metrics.InputError as exc:\n"
        "    print('refused:', exc)\n"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"refused: {path}: not a regular file: {what}"), done.stdout


@pytest.mark.parametrize("call", CALLS)
def test_the_library_refuses_a_fifo(call, fifo):
    _library_refuses(call, fifo, "a FIFO")


@pytest.mark.parametrize("call", CALLS)
def test_the_library_refuses_a_device_and_a_directory(call, tmp_path):
    _library_refuses(call, "/dev/zero", "a character device")
    _library_refuses(call, str(tmp_path), "a directory")


def test_inspect_file_says_it_is_not_a_regular_file(fifo):
    code = (
        "from metrics.inspect.files import inspect_file\n"
        f"ins = inspect_file({fifo!r})\n"
        "print(ins.readable, ins.problems[0]['message'])\n"
    )
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"False {fifo}: not a regular file: a FIFO")


@pytest.mark.parametrize("position", ["qrels", "run"])
def test_ir_eval_exits_with_2_for_a_fifo(fifo, position):
    files = [fifo, str(SAMPLE / "run_bm25.txt")] if position == "qrels" else [str(SAMPLE / "qrels.txt"), fifo]
    done = _ir_eval(*files)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"ir-eval: {fifo}: not a regular file: a FIFO (named pipe)")
    assert ".gz file itself" in done.stderr
    assert "cannot write the output" not in done.stderr


def test_ir_eval_refuses_dev_zero_and_a_directory(tmp_path):
    for path, what in (("/dev/zero", "a character device"), (str(tmp_path), "a directory")):
        done = _ir_eval(str(SAMPLE / "qrels.txt"), path)
        assert done.returncode == 2 and f"{path}: not a regular file: {what}" in done.stderr


def test_ir_eval_inspect_refuses_dev_zero_at_once():
    done = _ir_eval("--inspect", "/dev/zero")
    assert done.returncode == 2
    assert "/dev/zero: not a regular file: a character device" in done.stdout


def test_process_substitution_is_a_pipe_refused_with_the_way_out():
    if not Path("/bin/bash").exists():
        pytest.skip("needs bash")
    run = SAMPLE / "run_bm25.txt"
    script = f'"{sys.executable}" -m metrics "{SAMPLE / "qrels.txt"}" <(cat "{run}")'
    done = subprocess.run(["/bin/bash", "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert "not a regular file: a pipe (as <(zcat FILE.gz) gives)" in done.stderr
    assert "give the .gz file itself" in done.stderr
