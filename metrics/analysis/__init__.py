"""Why runs differ: rank overlap between runs, judgment coverage, one run against another per query,
query traits and difficulty, where two runs differ most (contrast, tau_AP), and whether the measures
agree on the order of the runs.

Every function returns a pandas DataFrame.  The runs are read, ranked (trec_eval's order) and scored
through the same code as every evaluation: :mod:`metrics.analysis.ranked` puts the runs' top
documents in that order for overlap and for the holes of coverage; the fractions judged, the condensed
scores and the per-query values come from :func:`metrics.evaluate`.
"""

from metrics.analysis.agreement import measure_agreement, ranking_flips
from metrics.analysis.contrast import contrast, tau_ap
from metrics.analysis.coverage import condensed_scores, coverage_by_query, judgment_coverage, judgment_holes
from metrics.analysis.overlap import mean_overlap, overlap_matrix, rank_overlap
from metrics.analysis.queries import query_extremes, query_traits, trait_correlations, versus

__all__ = [
    "rank_overlap",
    "mean_overlap",
    "overlap_matrix",
    "judgment_coverage",
    "coverage_by_query",
    "judgment_holes",
    "condensed_scores",
    "versus",
    "query_traits",
    "trait_correlations",
    "query_extremes",
    "measure_agreement",
    "ranking_flips",
    "contrast",
    "tau_ap",
]
