"""How the numbers of an export were made: the settings that change a number, as (name, text) pairs.

One list for every format: CSV writes it as ``# `` comment lines, Markdown and LaTeX as lines under the
table (LaTeX in its caption's note), HTML as a ``<dl>``; the window's exports and ``ir-eval``'s reports
take it from the evaluation they write.  A reader of the file can tell a map at relevance level 2 from
trec_eval's default one without the program that made it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from metrics.engine.settings import Settings

#: the nDCG variants named in a measure (``ndcg_ext_10(gain=exp)``), and what each choice means
_VARIANT = re.compile(r"\((.*)\)\s*$")
_VARIANT_TEXT = {
    ("gain", "linear"): "gain = grade (trec_eval)",
    ("gain", "exp"): "gain = 2^grade - 1",
    ("discount", "log"): "discount log2(rank + 1) (trec_eval)",
    ("discount", "jk"): "discount log2(rank), rank 1 undiscounted (Järvelin-Kekäläinen)",
    ("ideal", "all"): "ideal ranking of all judged documents (trec_eval)",
    ("ideal", "retrieved"): "ideal ranking of the retrieved documents only",
}


def version() -> str:
    """The version of this program, as exports name it."""
    from importlib import metadata

    try:
        return metadata.version("ir-workbench")
    except metadata.PackageNotFoundError:
        return "unknown"


def _measure_names(source, measures) -> list[str]:
    if measures is not None:
        return [str(m) for m in measures]
    names = getattr(source, "measure_names", None)
    return list(names()) if callable(names) else []


def ndcg_variants(measures: Iterable[str]) -> list[str]:
    """What the nDCG measures among ``measures`` use, in words (trec_eval's variant when none is named)."""
    out: list[str] = []
    plain = False
    for name in measures:
        low = name.lower()
        if "ndcg" not in low:
            continue
        found = _VARIANT.search(name)
        if not found:
            plain = True
            continue
        parts = []
        for item in found.group(1).split(","):
            key, _, value = item.strip().partition("=")
            parts.append(_VARIANT_TEXT.get((key.strip(), value.strip()), f"{key.strip()} = {value.strip()}"))
        text = f"{name}: " + ", ".join(parts)
        if text not in out:
            out.append(text)
    if plain:
        out.insert(0, "trec_eval's (gain = grade, discount log2(rank + 1), ideal ranking of all judged documents)")
    return out


def provenance(
    source=None,
    *,
    measures: Iterable[str] | None = None,
    qrels: str | None = None,
    comparison=None,
    extra: Iterable[tuple[str, str]] = (),
) -> list[tuple[str, str]]:
    """The settings that made the numbers of an export, as (name, text) pairs, in a fixed order.

    ``source``: an :class:`~metrics.Evaluation` (its ``settings`` and measure names), a
    :class:`~metrics.engine.settings.Settings`, or a dict of them (``relevance_level``, ``complete``, ...);
    ``measures``: the measure names (for the nDCG variant); ``comparison``: a comparison frame of
    :func:`metrics.compare.compare` (its test, correction and alpha); ``extra``: more pairs, put last.
    Settings left at trec_eval's default are stated as such: a reader cannot tell an omitted setting
    from a default one.
    """
    settings = Settings.of(source)
    out = [("program", f"ir-workbench {version()} (trec_eval 10.0 measures)")]
    if qrels is not None:
        out.append(("qrels", str(qrels)))
    level = settings.relevance_level
    out.append(
        (
            "relevance level",
            f"{level} (grades >= {level} count as relevant; "
            + ("trec_eval's default)" if level == 1 else f"trec_eval -l {level})"),
        )
    )
    out.append(
        (
            "averaging",
            "over every query of the qrels, those a run lacks scored 0 (trec_eval -c)"
            if settings.complete
            else "over the queries both in the run and the qrels (trec_eval's default, no -c)",
        )
    )
    max_docs = settings.max_docs
    out.append(("ranks per query", "all" if max_docs is None else f"the first {max_docs} (trec_eval -M {max_docs})"))
    out.append(
        (
            "unjudged documents",
            "removed from the rankings (trec_eval -J)" if settings.judged_only else "kept (trec_eval's default)",
        )
    )
    if settings.num_docs_in_coll:
        out.append(("documents in the collection", f"{settings.num_docs_in_coll} (trec_eval -N)"))
    names = _measure_names(source, measures)
    if names:
        out.append(("measures", ", ".join(names)))
    for variant in ndcg_variants(names):
        out.append(("nDCG", variant))
    if comparison is not None:
        from metrics.compare import describe_settings

        for sentence in describe_settings(comparison):
            out.append(("significance", sentence))
    out.extend((str(k), str(v)) for k, v in extra)
    return out


def as_lines(pairs: Iterable[tuple[str, str]]) -> list[str]:
    """``name: text`` lines."""
    return [f"{name}: {text}" for name, text in pairs]
