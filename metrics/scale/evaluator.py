"""The public :class:`Evaluator`: the engine's, whose runs may also be scored on a Dask cluster.

Scaling out stands on top of the evaluator (:mod:`metrics.engine.evaluate`), which never imports it;
this is where the two meet for ``metrics.evaluator(qrels, measures).evaluate(runs, client=client)``.
"""

from __future__ import annotations

from metrics.engine import evaluate as _engine

__all__ = ["Evaluator", "evaluator"]


class Evaluator(_engine.Evaluator):
    __doc__ = _engine.Evaluator.__doc__

    def evaluate(self, runs, *, client=None) -> _engine.Evaluation:
        """Score ``runs`` (a path, a run frame, a list of them or a dict label -> run), as
        :func:`metrics.evaluate` does.

        ``client``: a ``distributed.Client``; each run is then scored by a worker of its cluster (paths
        and fsspec URLs are read by the workers), with the same result (:mod:`metrics.scale.distributed`)."""
        if client is None:
            return super().evaluate(runs)
        from metrics.scale.distributed import evaluate_on_cluster

        return evaluate_on_cluster(self, runs, client)


def evaluator(qrels, measures=None, **options) -> Evaluator:
    """An :class:`Evaluator` for ``qrels`` and ``measures`` (options as :func:`metrics.evaluate`)."""
    return Evaluator(qrels, measures, **options)
