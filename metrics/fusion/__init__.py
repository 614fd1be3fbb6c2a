"""Fusion of runs: CombSUM, CombMNZ, CombMAX, CombMIN, CombANZ, reciprocal rank fusion and weighted sums,
after min-max, sum, z-score, max or rank normalisation, with ranx's rules (:mod:`metrics.fusion.fusion`).

>>> import metrics
>>> fused = metrics.fuse([bm25, dense], "rrf")             # doctest: +SKIP
>>> fused = metrics.fuse(["a.run", "b.run"], "wsum", norm="zmuv", weights=[0.7, 0.3])  # doctest: +SKIP
>>> metrics.write_run(fused, "fused.run")                 # doctest: +SKIP
"""

from metrics.fusion.fusion import METHODS, NORMS, canonical_method, canonical_norm, fuse

__all__ = ["METHODS", "NORMS", "canonical_method", "canonical_norm", "fuse"]
