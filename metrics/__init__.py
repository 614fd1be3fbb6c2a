"""Core of ir-workbench: readers, trec_eval-exact measures, curves, comparisons, reports.

Pure numpy/pandas; this package never imports Qt.
"""

from .errors import InputError
from .evaluate import Evaluation, evaluate
from .measures import FAMILIES, Measure, parse_measures
from .ranking import JudgedRanking, build_ranking

__all__ = [
    "evaluate", "Evaluation", "parse_measures", "Measure", "FAMILIES",
    "JudgedRanking", "build_ranking", "InputError",
]
