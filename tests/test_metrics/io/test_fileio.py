"""The one file writer: atomic, usual permissions, never over an input, no leftovers, honest errors."""

from __future__ import annotations

import os
import stat
import time

import pytest

from metrics.io import fileio


def test_new_files_get_the_usual_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        path = fileio.write_text(tmp_path / "summary.csv", "a,b\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644  # not mkstemp's 0600
    assert path.read_text() == "a,b\n"


def test_an_input_file_is_never_replaced(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d 1 1 r\n")
    link = tmp_path / "alias.txt"
    os.symlink(run, link)
    for target in (run, link, tmp_path / "." / "run.txt"):
        with pytest.raises(fileio.ProtectedFileError) as info:
            fileio.write_text(target, "oops", overwrite=True, protect=[str(run)])
        assert "is loaded as input" in str(info.value) and str(target) in str(info.value)
    assert run.read_text() == "1 Q0 d 1 1 r\n"


def test_refuses_to_replace_unless_asked(tmp_path):
    path = tmp_path / "r.md"
    path.write_text("keep")
    with pytest.raises(FileExistsError):
        fileio.write_text(path, "new")
    fileio.write_text(path, "new", overwrite=True)
    assert path.read_text() == "new"


def test_leftovers_of_an_interrupted_write_are_removed(tmp_path):
    target = tmp_path / "report.html"
    old = tmp_path / ".report.html.0123456789ab.tmp"
    fresh = tmp_path / ".report.html.ba9876543210.tmp"  # perhaps another writer at work: kept
    other = tmp_path / ".notes.txt.0123456789ab.tmp"  # another target's: kept
    for p in (old, fresh, other):
        p.write_text("half")
    past = time.time() - 3600
    os.utime(old, (past, past))
    os.utime(other, (past, past))
    fileio.write_text(target, "<html></html>")
    assert not old.exists() and fresh.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == sorted([fresh.name, other.name])


def test_errors_name_the_chosen_file_not_the_temporary_one(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):  # running as a user who may write anyway (root)
            pytest.skip("the folder stays writable for this user")
        with pytest.raises(PermissionError) as info:
            fileio.write_text(folder / "out.csv", "x")
        assert info.value.filename == str(folder / "out.csv")
    finally:
        folder.chmod(0o700)


def test_errors_name_the_chosen_file_when_the_folder_is_missing(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        fileio.write_text(tmp_path / "no" / "such" / "out.csv", "x")
    assert info.value.filename == str(tmp_path / "no" / "such" / "out.csv")
