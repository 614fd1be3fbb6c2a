"""Scoring beyond one process: worker processes (:mod:`metrics.scale.parallel`, ``ir-eval --jobs``) and
Dask clusters (:mod:`metrics.scale.distributed`).  Both score through :mod:`metrics.engine` and give
the same numbers as one process.
"""
