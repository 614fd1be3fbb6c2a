"""The evaluator: measures applied to judged rankings, per query and in the mean.

:mod:`metrics.engine.evaluate` (``evaluate``, ``Evaluator``, ``Evaluation``), precision-recall and
cut-off curves (:mod:`metrics.engine.curves`), one query's ranked lists side by side
(:mod:`metrics.engine.drilldown`) and the diversity measures over intent qrels
(:mod:`metrics.engine.intents`).  Scaling out (:mod:`metrics.scale`) stands on top of it and is never
imported by it.
"""
