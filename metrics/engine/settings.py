"""The evaluation settings (trec_eval's options) and how they are said in a line.

Every export states them in full (:mod:`metrics.report.provenance`, which starts from these defaults);
an :class:`~metrics.Evaluation` says in a line which ones differ from trec_eval's
(:meth:`~metrics.Evaluation.describe_settings`, shown above its table in a notebook).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["DEFAULTS", "in_short", "settings_of"]

#: trec_eval's defaults of the settings that change a number (``-l``, ``-c``, ``-M``, ``-J``, ``-N``)
DEFAULTS = dict(relevance_level=1, complete=False, max_docs=None, judged_only=False, num_docs_in_coll=0)


def settings_of(source) -> dict:
    """The settings of an :class:`~metrics.Evaluation` or a settings dict (empty for None)."""
    if source is None:
        return {}
    if isinstance(source, Mapping):
        return dict(source)
    return dict(getattr(source, "settings", {}) or {})


def in_short(settings) -> str:
    """The settings that differ from trec_eval's defaults, in a line (``relevant from grade 2 (-l 2); ...``),
    or "trec_eval's defaults": what a notebook's table says above it."""
    s = {**DEFAULTS, **settings_of(settings)}
    words = []
    if s["relevance_level"] != 1:
        words.append(f"relevant from grade {s['relevance_level']} (-l {s['relevance_level']})")
    if s["complete"]:
        words.append("queries of the qrels missing from a run score 0 (-c)")
    if s["max_docs"]:
        words.append(f"first {s['max_docs']} documents of each ranking (-M {s['max_docs']})")
    if s["judged_only"]:
        words.append("unjudged documents dropped (-J)")
    if s["num_docs_in_coll"]:
        words.append(f"{s['num_docs_in_coll']} documents in the collection (-N)")
    return "; ".join(words) if words else "trec_eval's defaults"
