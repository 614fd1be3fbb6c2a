"""Inspection ends on a file without newlines: a 3 MB single line, a gzip bomb (200 MB of zeros in about
200 KB), /dev/zero.  The line counting of a refused file stops at the first NUL byte and at a line longer
than the readers' bound (MAX_LINE_BYTES), holds one line's start at most, and hears a cancel per block."""

from __future__ import annotations

import gzip
import subprocess
import sys
import tracemalloc

import pytest

from metrics.errors import Cancelled
from metrics.inspect.files import inspect_file
from metrics.io.textfile import MAX_LINE_BYTES


def _bomb(path, byte: bytes, megabytes: int = 200):
    with gzip.open(path, "wb", compresslevel=9) as f:
        block = byte * (1 << 20)
        for _ in range(megabytes):
            f.write(block)
    return str(path)


def test_a_3_mb_file_without_newline_is_described_and_refused(tmp_path):
    path = tmp_path / "one_line.txt"
    path.write_bytes(b"a" * 3_000_000)
    ins = inspect_file(str(path))
    assert not ins.readable and ins.size == 3_000_000
    [problem] = ins.problems
    assert problem["line"] == 1 and str(path) in problem["message"]
    assert ins.lines == 1


@pytest.mark.parametrize("byte", [b"\0", b"0"])
def test_a_gzip_bomb_is_not_inflated_whole(tmp_path, byte):
    path = _bomb(tmp_path / "bomb.gz", byte)
    tracemalloc.start()
    try:
        ins = inspect_file(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not ins.readable and ins.problems[0]["line"] == 1 and path in ins.problems[0]["message"]
    assert peak < MAX_LINE_BYTES * 3  # one line's worth, not the 200 MB it inflates to (1.2 GB held before)


def test_counting_the_lines_of_a_refused_file_can_be_cancelled(tmp_path):
    path = _bomb(tmp_path / "bomb.gz", b"0", megabytes=64)
    seen: list[float] = []

    def progress(fraction: float):
        seen.append(fraction)
        return fraction < 0.9  # the reader has refused it: stop while its lines are counted

    with pytest.raises(Cancelled):
        inspect_file(path, progress=progress)
    assert max(seen) >= 0.9


def test_ir_eval_inspect_dev_zero_refuses_at_once():
    done = subprocess.run(
        [sys.executable, "-m", "metrics", "--inspect", "/dev/zero"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "/dev/zero: not a regular file: a character device" in done.stdout
