"""A file of output that cannot be written is an output problem: its error names the file the user gave
(never the hidden temporary file next to it) and ir-eval exits with 4; a file of input that cannot be
read (a FIFO, ``<(zcat ...)``) is an input problem: exit 2, naming it, never "cannot write the output"."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from metrics.cli.ir_eval import main
from metrics.io import fileio

SAMPLE = Path(__file__).resolve().parents[3] / "workbench" / "resources" / "sample"
RUNS = [str(SAMPLE / "run_bm25.txt"), str(SAMPLE / "run_bm25_rm3.txt")]


@pytest.fixture
def read_only_folder(monkeypatch, tmp_path):
    """A folder where no file can be made, whoever runs the tests (root ignores a folder's mode)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    real = os.open

    def refusing(path, flags, *args, **kwargs):
        if os.fspath(path).startswith(str(folder)) and flags & os.O_CREAT:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing)
    return folder


def test_the_error_names_the_file_given_not_the_temporary_one(read_only_folder):
    target = read_only_folder / "fused.run"
    with pytest.raises(OSError) as told:
        fileio.write_bytes(target, b"q Q0 d 1 1 t\n")
    assert told.value.filename == str(target) and ".tmp" not in str(told.value)
    assert fileio.output_path(told.value) == str(target)


def test_ir_eval_exits_with_4_naming_the_output(read_only_folder, capsys):
    target = read_only_folder / "fused.run"
    code = main(["--fuse", "rrf", *RUNS, "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 4
    assert err == f"ir-eval: cannot write the output {target}: {os.strerror(errno.EROFS)}\n"


def test_a_folder_that_is_not_writable_in_a_subprocess(tmp_path):
    if os.geteuid() == 0:  # root writes into a folder of mode 555: /sys refuses it
        if not os.path.isdir("/sys/kernel"):
            pytest.skip("needs a folder this user cannot write")
        target = "/sys/kernel/ir-eval-fused.run"
    else:
        folder = tmp_path / "ro"
        folder.mkdir()
        folder.chmod(0o555)
        target = str(folder / "fused.run")
    done = subprocess.run(
        [sys.executable, "-m", "metrics", "--fuse", "rrf", *RUNS, "-o", target],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 4, done.stderr
    assert done.stderr.startswith(f"ir-eval: cannot write the output {target}: ")
    assert ".tmp" not in done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_input_is_an_input_problem(tmp_path):
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "metrics", "--fuse", "rrf", RUNS[0], str(fifo), "-o", str(tmp_path / "out.run")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert f"{fifo}: not a regular file: a FIFO" in done.stderr and "cannot write the output" not in done.stderr
