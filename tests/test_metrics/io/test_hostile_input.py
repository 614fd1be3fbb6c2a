"""Hostile and odd input is refused early, or read in time linear in its size; never read whole first.

No test here times anything: each is kept fast by construction (a sparse file
that would take minutes to read whole, a gzip stream that inflates to a
gigabyte), so reading too much shows as a test that never ends.
"""

from __future__ import annotations

import gzip
import os
import threading

import pytest

import metrics
from metrics.errors import Cancelled, InputError
from metrics.io.readers import read_file
from metrics.io.textfile import MAX_LINE_BYTES


def test_a_sparse_2_gib_file_of_nul_bytes_is_refused_at_its_first_block(tmp_path):
    path = tmp_path / "zeros.run"
    with open(path, "wb") as fh:
        fh.truncate(2 << 30)  # 2 GiB, no disk used
    seen = []
    with pytest.raises(InputError) as info:
        read_file(str(path), kind="run", progress=lambda f: seen.append(f))
    assert "NUL byte" in str(info.value) and info.value.line == 1
    assert max(seen) < 0.05  # stopped within the first few blocks of 2 GiB


def test_a_file_without_newlines_is_refused_once_a_line_is_too_long(tmp_path):
    path = tmp_path / "one_line.txt"
    with open(path, "wb") as fh:
        fh.write(b"1 Q0 ")
        fh.write(b"a" * (MAX_LINE_BYTES + (4 << 20)))
    with pytest.raises(InputError, match=r"line 1 is longer than 32 MiB without ending") as info:
        read_file(str(path), kind="run")
    assert "one_line.txt" in str(info.value)


def test_a_gzip_bomb_is_refused_without_inflating_it_all(tmp_path):
    path = tmp_path / "bomb.run.gz"
    member = gzip.compress(b"a" * (64 << 20), compresslevel=9)  # 64 MiB in about 64 KiB
    path.write_bytes(member * 16)  # gzip members in a row: 1 GiB of one "line", about 1 MiB on disk
    assert os.path.getsize(path) < 2 << 20
    with pytest.raises(InputError, match="longer than 32 MiB"):
        read_file(str(path), kind="run")


def test_a_10_mb_document_id_is_read(tmp_path):
    long_id = "d" * (10 << 20)
    path = tmp_path / "long.run"
    lines = [f"1 Q0 D{i} {i} {100 - i} r\n" for i in range(1, 50001)] + [f"1 Q0 {long_id} 50001 -1 r\n"]
    path.write_text("".join(lines))
    run = metrics.read_run(str(path))
    assert len(run) == 50001 and len(run["doc_id"].iloc[-1]) == len(long_id)
    qrels = tmp_path / "q.txt"
    qrels.write_text(f"1 0 {long_id} 1\n1 0 D1 1\n")
    ev = metrics.evaluate(metrics.read_qrels(str(qrels)), run, ["num_rel_ret"])
    assert ev.aggregate["value"].tolist() == [2.0]


def test_equal_ids_in_different_chunks_are_the_same_document(tmp_path):
    # a duplicate (query, document) pair is found across lines of very different lengths
    path = tmp_path / "dup.run"
    path.write_text("1 Q0 short 1 3 r\n1 Q0 " + "x" * 5000 + " 2 2 r\n1 Q0 short 3 1 r\n")
    with pytest.raises(InputError, match="a second time"):
        read_file(str(path), kind="run")


def test_cancel_acts_on_a_file_of_one_enormous_line(tmp_path):
    path = tmp_path / "huge_line.txt"
    with open(path, "wb") as fh:
        fh.write(b"x" * (MAX_LINE_BYTES - 1))
        fh.write(b"\n1 Q0 a 1 1 r\n")
    calls = []

    def progress(fraction):
        calls.append(fraction)
        return False  # cancel at the first chance

    with pytest.raises(Cancelled):
        read_file(str(path), kind="run", progress=progress)
    assert len(calls) == 1


def test_reading_in_another_thread_can_be_cancelled_midway(tmp_path):
    path = tmp_path / "big.run"
    with open(path, "w") as fh:
        tails = [f" Q0 d{d} {d} {1 / d:.6f} r\n" for d in range(1, 2001)]  # the same for every query
        for q in range(300):
            fh.write(str(q) + str(q).join(tails))
    stop = threading.Event()
    seen = []

    def progress(fraction):
        seen.append(fraction)
        if fraction > 0:
            stop.set()
        return not stop.is_set()

    with pytest.raises(Cancelled):
        read_file(str(path), kind="run", progress=progress)
    assert seen[-1] < 1.0


def test_a_sparse_2_gib_run_is_refused_at_once_through_ir_eval(tmp_path, capsys):
    """A file of the size that ir-eval scores in parts: refused by one task from its first block, neither
    split nor read line by line by the parts' boundaries (which read it whole before)."""
    from metrics.cli.ir_eval import main

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n")
    zeros = tmp_path / "zeros.run"
    with open(zeros, "wb") as fh:
        fh.truncate(2 << 30)
    for args in ([], ["--jobs", "2"]):
        assert main([*args, str(qrels), str(zeros)]) == 2
        assert "zeros.run, line 1: found a NUL byte" in capsys.readouterr().err


def test_the_parts_boundary_reads_a_bounded_line(tmp_path):
    from metrics.scale.parts import _boundary

    path = tmp_path / "one_line.txt"
    path.write_bytes(b"1 Q0 d 1 1 t\n" + b"x" * (MAX_LINE_BYTES + 10))
    with open(path, "rb") as f:
        assert _boundary(f, 20, os.path.getsize(path)) == os.path.getsize(path)
        assert f.tell() <= 19 + MAX_LINE_BYTES  # from the byte before pos, one bounded line
