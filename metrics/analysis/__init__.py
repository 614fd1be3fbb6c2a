"""Why runs differ: rank overlap between runs, judgment coverage, one run against another per query,
query traits and difficulty, and whether the measures agree on the order of the runs.  Every function
returns a pandas DataFrame; the numbers come from the same reading, ranking and scoring as the rest of
the core.
"""

from metrics.analysis.overlap import mean_overlap, overlap_matrix, rank_overlap

__all__ = ["rank_overlap", "mean_overlap", "overlap_matrix"]
