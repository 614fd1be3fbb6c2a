"""Each named variation of real files (diff_generate.VARIATIONS) on an otherwise plain case, through the
library, the window and one of the command's doors, against trec_eval 10.0 byte for byte."""

from __future__ import annotations

import diff_doors
import diff_generate
import pytest
from diff_generate import Case, Line, TextFile

NAMES = list(diff_generate.VARIATIONS)
COMMANDS = list(diff_doors.COMMAND_DOORS)


@pytest.mark.parametrize("index, name", list(enumerate(NAMES)), ids=NAMES)
def test_variation(index, name, oracle, tmp_path, keep):
    case = diff_generate.variation_case(name, index)
    command = COMMANDS[index % len(COMMANDS)]
    diff_doors.check(case, [command, "evaluate", "evaluator", "frames", "window"], tmp_path, keep / name)
    if not diff_doors.applicable("window", case.flags) and "-c" not in case.flags:  # no -M, -J in the window
        diff_doors.check(case.with_flags(()), ["window"], tmp_path / "window", keep / name)


@pytest.mark.parametrize("sep", [b" ", b"\t", b"  "], ids=["space", "tab", "two-spaces"])
def test_one_line_files(sep, oracle, tmp_path, keep):
    """Files of a single line (one judgment, one retrieved document), the first blank varied."""
    qrels = TextFile([Line((b"q1", b"0", b"d1", b"1"), (sep, b" ", b" "))])
    run = TextFile([Line((b"q1", b"Q0", b"d2", b"1", b"1", b"r"), (sep,) + (b" ",) * 4)])
    case = Case(qrels, [run], ())
    diff_doors.check(case, ["cli", "evaluate", "window"], tmp_path, keep / "one-line")
