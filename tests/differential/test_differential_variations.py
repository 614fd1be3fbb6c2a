"""Each named variation of real files (diff_generate.VARIATIONS) on an otherwise plain case, through the
library, the window and one of the command's doors, against trec_eval 10.0 byte for byte."""

from __future__ import annotations

import diff_doors
import diff_generate
import pytest

NAMES = list(diff_generate.VARIATIONS)
COMMANDS = list(diff_doors.COMMAND_DOORS)


@pytest.mark.parametrize("index, name", list(enumerate(NAMES)), ids=NAMES)
def test_variation(index, name, oracle, tmp_path, keep):
    case = diff_generate.variation_case(name, index)
    command = COMMANDS[index % len(COMMANDS)]
    doors = [command, "evaluate", "evaluator", "frames", "window"]
    diff_doors.check(case, doors, tmp_path, keep / name)
