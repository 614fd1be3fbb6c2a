"""Workspace files at the edges (plain Python, no window): only regular files are read, whatever a
workspace's path or a file it names is; a read is bounded; what is wrong is said in words; many files gone
are told once."""

from __future__ import annotations

import json
import os
import threading

import pytest

from metrics.errors import InputError
from workbench.state import workspace_file
from workbench.state.session import MISSING_TOLD, SessionModel
from workbench.state.workspace_file import FileItem, WorkspaceDoc


def _read_within(path: str, seconds: float = 10.0):
    """workspace_file.read(path) in a thread: a read that blocks (a FIFO) or never ends (a device) fails
    the test instead of hanging the suite."""
    outcome: list = []
    thread = threading.Thread(target=lambda: outcome.append(_catch(path)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"reading {path} did not end within {seconds} s"
    return outcome[0]


def _catch(path: str):
    try:
        return workspace_file.read(path)
    except InputError as exc:
        return exc


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_or_a_device_as_a_workspace_is_refused_at_once(tmp_path):
    fifo = tmp_path / "w.irwb"
    os.mkfifo(fifo)
    said = _read_within(str(fifo))
    assert isinstance(said, InputError) and "not a regular file: a FIFO" in str(said)
    said = _read_within("/dev/zero")  # (its size reads 0: it was read whole, 3.9 GB in 10 s)
    assert isinstance(said, InputError) and "not a regular file: a character device" in str(said)
    said = _read_within(str(tmp_path))
    assert isinstance(said, InputError) and "a directory" in str(said)


def test_deep_nesting_and_a_huge_k_are_told_in_words(tmp_path):
    deep = tmp_path / "deep.irwb"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    said = _read_within(str(deep))
    assert isinstance(said, InputError) and "nested too deeply" in str(said)  # (was Python's recursion text)
    big_k = tmp_path / "k.irwb"
    text = workspace_file.to_json(WorkspaceDoc(), str(big_k))
    data = json.loads(text)
    data["settings"]["k_max"] = 10**9  # (the evaluation then failed with "Evaluation failed: " and nothing)
    big_k.write_text(json.dumps(data))
    said = _read_within(str(big_k))
    assert isinstance(said, InputError) and '"k_max" must be a whole number from 1 to 10000' in str(said)


def test_ten_thousand_files_gone_are_told_in_a_few_messages(tmp_path):
    doc = WorkspaceDoc(files=[FileItem(path=str(tmp_path / f"gone{i}.run"), kind="run") for i in range(10_000)])
    model = SessionModel()
    errors: list[str] = []
    model.events.error.connect(errors.append)
    model.open_workspace_listed(doc, workspace_file_listing(doc))
    assert len([e for e in model.workspace.entries if e.missing]) == 10_000  # each listed in its row
    assert len(errors) == MISSING_TOLD + 1
    assert errors[-1].startswith(f"{10_000 - MISSING_TOLD} more files named in the workspace are not found")


def workspace_file_listing(doc: WorkspaceDoc):
    from workbench.state.listing import look_at

    return look_at(f.path for f in doc.files)


def test_the_view_of_why_runs_differ_is_kept_and_a_file_without_it_chooses_none(tmp_path):
    path = str(tmp_path / "w.irwb")
    workspace_file.write(WorkspaceDoc(analysis_view="poolBias"), path)
    assert json.loads(open(path).read())["analysis_view"] == "poolBias"
    assert workspace_file.read(path).analysis_view == "poolBias"
    data = json.loads(open(path).read())
    del data["analysis_view"]  # (a file of an earlier version)
    open(path, "w").write(json.dumps(data))
    assert workspace_file.read(path).analysis_view is None
    data["analysis_view"] = 3
    open(path, "w").write(json.dumps(data))
    with pytest.raises(InputError, match='"analysis_view" must be text or null'):
        workspace_file.read(path)
