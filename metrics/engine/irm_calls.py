"""ir_measures' calls on this library's measures, for its users: results indexed by the measure objects
asked for (``summary()[nDCG@10]``), :func:`calc_aggregate` and :func:`iter_calc`.

* ``metrics.calc_aggregate([nDCG@10, AP], qrels, run)`` -> ``{nDCG@10: 0.61, AP: 0.42}``, keyed by the
  objects (or names) given, as ``ir_measures.calc_aggregate``;
* ``metrics.iter_calc([nDCG@10], qrels, run)`` yields ``Metric(query_id, measure, value)``, as
  ``ir_measures.iter_calc``.

Both are :func:`metrics.evaluate` underneath (trec_eval's conventions, the queries of the run that are
in the qrels, a query given with no document scored 0); ``evaluate``'s keywords pass through.
"""

from __future__ import annotations

from typing import Any, Iterator, NamedTuple

from metrics.engine.measure_frame import MeasureFrame
from metrics.measures.names import foreign_name

__all__ = ["Metric", "MeasureFrame", "calc_aggregate", "iter_calc"]


class Metric(NamedTuple):
    """One value of one measure on one query: ir_measures' ``Metric``."""

    query_id: str
    measure: Any
    value: float


def _asked(measures) -> list:
    return [measures] if isinstance(measures, str) or foreign_name(measures) is not None else list(measures)


def _keys(ev, asked: list) -> list[tuple[Any, str]]:
    """(what was asked, its column) for every measure asked; a name standing for several measures
    (``P.5,10``) gives each under its own name."""
    from metrics.measures import parse_measures

    out = []
    for item in asked:
        found = parse_measures(item if foreign_name(item) is not None else [item])
        if len(found) == 1:
            out.append((item, ev.name(found[0])))
        else:
            out += [(ev.name(m), ev.name(m)) for m in found]
    return out


def calc_aggregate(measures, qrels, run, **options) -> dict:
    """``{measure: value}``, the mean (or the family's summary) of each measure over the run's queries,
    keyed by the measures as given: ``ir_measures.calc_aggregate(measures, qrels, run)``."""
    from metrics.engine.evaluate import evaluate

    asked = _asked(measures)
    ev = evaluate(qrels, run, asked, **options)
    summary = ev.summary().iloc[0]
    return {key: float(summary[column]) for key, column in _keys(ev, asked)}


def iter_calc(measures, qrels, run, **options) -> Iterator[Metric]:
    """``Metric(query_id, measure, value)`` for every query of the run with judgments and every measure
    asked (the measure as given): ``ir_measures.iter_calc(measures, qrels, run)``."""
    from metrics.engine.evaluate import evaluate

    asked = _asked(measures)
    ev = evaluate(qrels, run, asked, **options)
    result = ev.results[0]
    position = {name: j for j, name in enumerate(result.names)}
    keys = [(key, position[column]) for key, column in _keys(ev, asked) if column in position]
    for i, query in enumerate(result.query_ids):
        for key, j in keys:
            value = float(result.values[i, j])
            if value == value:  # NaN: no value for this query (ir_measures yields none)
                yield Metric(query, key, value)
