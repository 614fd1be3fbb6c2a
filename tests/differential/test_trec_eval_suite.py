"""``ir-eval`` reproduces trec_eval 10.0's own test suite byte for byte.

trec_eval's test data are not redistributed with this project.  Point
``TREC_EVAL_SRC`` at a checkout of trec_eval 10.0 (its ``test/`` folder holds
the inputs and the expected outputs of ``make quicktest``) to run these; they
are skipped otherwise.  The preference (``-R prefs``, ``qrels_jg``) and
z-score (``-Z``) cases of that suite are outside ir-eval's scope.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
import trec_eval_ref

from metrics.cli import ir_eval as cli

SRC = trec_eval_ref.SRC

# The ``quicktest`` cases of trec_eval 10.0's Makefile that ir-eval supports.
CASES = [
    ("qrels.test results.test", "out.test"),
    ("qrels.test.with-comments results.test", "out.test"),
    ("qrels.comment.test results.comment.test", "out.comment.test"),
    ("-m all_trec qrels.test results.test", "out.test.a"),
    ("-m all_trec -q qrels.test results.test", "out.test.aq"),
    ("-m all_trec -q -c qrels.test results.trunc", "out.test.aqc"),
    ("-m all_trec -q -c -M100 qrels.test results.trunc", "out.test.aqcM"),
    ("-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test", "out.test.aql"),
    (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test",
        "out.test.meas_params",
    ),
]


@pytest.mark.skipif(not SRC, reason=trec_eval_ref.REASON)
@pytest.mark.parametrize("args, expected", CASES, ids=[c[1] + ":" + c[0][:30] for c in CASES])
def test_reproduces_trec_eval_output(args, expected, capsysbinary):
    test_dir = Path(SRC) / "test"
    argv = [a if not (test_dir / a).is_file() else str(test_dir / a) for a in shlex.split(args)]
    assert cli.main(argv) == 0
    out = capsysbinary.readouterr().out
    assert out.decode() == (test_dir / expected).read_text()
