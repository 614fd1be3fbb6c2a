"""The intended differences (diff_intended.INTENDED): the project's output on each modified file is
trec_eval 10.0's on the file without the modification, or a refusal naming the file and the line."""

from __future__ import annotations

import subprocess

import diff_doors
import diff_intended
import pytest

ENTRIES = {e.name: e for e in diff_intended.INTENDED}


@pytest.mark.parametrize("name", list(ENTRIES))
def test_intended_difference(name, oracle, tmp_path):
    entry = ENTRIES[name]
    project, reference = entry.make(diff_intended.base_case())
    qrels, runs = project.write(tmp_path / "project")
    if reference is None:
        got = diff_doors.door_cli(qrels, runs, project.flags, tmp_path)
        assert got.rc == 2, f"{entry.why}\nexit {got.rc}: {got.err}"
        assert "line" in got.err and ("qrels.txt" in got.err or "run.txt" in got.err), got.err
        lib = diff_doors.door_evaluate(qrels, runs, project.flags, tmp_path)
        assert lib.rc != 0 and "InputError" in lib.err, lib.err
        return
    ref_qrels, ref_runs = reference.write(tmp_path / "reference")
    want = diff_doors.expected(ref_qrels, ref_runs[:1], reference.flags)
    assert want.rc == 0, want.err
    for door in ("cli", "evaluate"):
        got = diff_doors.DOORS[door](qrels, runs, project.flags, tmp_path)
        assert got.rc == 0, f"{door}: {entry.why}\n{got.err}"
        assert got.out == want.out, f"{door}: {entry.why}\n" + diff_doors.Mismatch(door, (), want, got).diff()
        if door == "cli" and entry.stderr:
            assert entry.stderr in got.err


@pytest.mark.parametrize("name", list(ENTRIES))
def test_trec_eval_does_differ(name, oracle, tmp_path):
    """trec_eval 10.0 reads each modified file otherwise (else the entry is not a difference)."""
    project, reference = ENTRIES[name].make(diff_intended.base_case())
    qrels, runs = project.write(tmp_path / "project")
    raw = subprocess.run([oracle, *diff_doors.MEASURES, *project.flags, qrels, runs[0]], capture_output=True)
    if reference is None:
        assert raw.returncode == 0, raw.stderr  # trec_eval reads what the project refuses
    else:
        ref_qrels, ref_runs = reference.write(tmp_path / "reference")
        want = diff_doors.expected(ref_qrels, ref_runs[:1], reference.flags)
        assert raw.returncode != 0 or raw.stdout != want.out


def test_the_conventions_page_names_every_intended_difference():
    """docs/conventions.md's list of differences from trec_eval and this one name the same differences."""
    page = " ".join((diff_doors.REPO / "docs" / "conventions.md").read_text(encoding="utf-8").split())
    missing = [e.name for e in diff_intended.INTENDED if not e.readme or e.readme not in page]
    assert not missing, f"docs/conventions.md does not name {missing}"
