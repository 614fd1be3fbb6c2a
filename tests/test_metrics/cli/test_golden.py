"""ir-eval against trec_eval 10.0's recorded output on generated collections.

Each folder under ``tests/test_metrics/cli/golden`` holds a small collection (qrels.txt,
run.txt), the trec_eval arguments (``args``) and what the trec_eval 10.0
binary printed for them (``expected.txt``), recorded by
``tests/test_metrics/cli/golden/record.py``.  These pin 10.0's rules where the pytrec_eval
oracle (trec_eval 9.x) differs or lacks the measure: ``-c`` placeholder rows,
rbp and unj, negative relevance levels, rescaled rbp gains, recall-level
rounding.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from metrics.cli import ir_eval as cli

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "expected.txt").is_file())


def test_cases_are_present():
    assert len(CASES) >= 9


@pytest.mark.parametrize("name", CASES)
def test_matches_trec_eval_10(name, capsysbinary):
    case = GOLDEN / name
    args = shlex.split((case / "args").read_text())
    assert cli.main([*args, str(case / "qrels.txt"), str(case / "run.txt")]) == 0
    out = capsysbinary.readouterr().out
    assert out.decode() == (case / "expected.txt").read_text()
