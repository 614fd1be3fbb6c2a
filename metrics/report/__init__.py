"""Exports of evaluation results: CSV, Markdown, LaTeX and a standalone HTML report.

Three tables can be exported, each from the tidy frames of ``metrics``:

``"summary"``
    runs x measures, from an aggregate frame (columns ``run, measure, value``,
    e.g. ``Evaluation.aggregate``).
``"per_query"``
    one row per (run, query), one column per measure, from a per-query frame
    (columns ``run, query_id, measure, value``, e.g. ``Evaluation.per_query``).
``"comparison"``
    the frame returned by :func:`metrics.compare.compare`.

Runs, measures and queries keep the order in which they first appear in the
input frame.

Formats
-------
CSV
    The table at full precision (floats are written with Python's shortest
    round-trip representation), text fields quoted, preceded by lines starting
    with ``"# "`` that name the table, the qrels file, the runs, the measures
    (and for a comparison the baseline, test, correction and alpha).
    ``pandas.read_csv(path, comment="#")`` reads it back; pass
    ``dtype={"query_id": str}`` to keep query ids such as ``"001"`` as text.
Markdown, LaTeX (booktabs), HTML
    Values rounded to ``digits`` decimals (or ``{measure: decimals}``, 4 for the others); counts
    (measures of kind ``long`` in the registry: trec_eval's ``num_...``) are shown as integers. The best value of each
    measure over the runs is set in bold: the largest, or the smallest for the
    measures named in ``lower_is_better``; values within 1e-12 of the best are
    bold too; nothing is bold when all runs have the same value, nor for the
    counts that describe the data (``num_q``, ``num_ret``, ``num_rel``,
    ``num_nonrel_judged_ret``). A comparison
    (or a summary given ``comparison=``) marks a value that differs
    significantly from the baseline with a dagger (higher than the baseline) or
    a double dagger (lower), and a legend under the table explains the marks
    and states the baseline, the test, the correction and alpha.

Writing
-------
Every write goes to a temporary file in the destination directory that is
then moved into place (``os.replace``, or a hard link when not overwriting),
so a reader never sees half a file. An existing file is only replaced with
``overwrite=True``; otherwise :class:`FileExistsError` is raised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from metrics.lazy_names import lazy_names

if TYPE_CHECKING:
    from metrics.report.html_page import html_report, to_html
    from metrics.report.tables import KINDS, per_query_table, summary_table
    from metrics.report.text import to_csv, to_latex, to_markdown
    from metrics.report.writing import FORMATS, export, write_bytes, write_html_report, write_text

# Each public name is loaded when first used (PEP 562), as ``metrics``' own are: a module of the package
# imported alone (``metrics.report.provenance``, which ``ir-eval --version`` asks for the version) does
# not import the tables' and the HTML report's modules, and pandas with them.
_LAZY = {
    **dict.fromkeys(("html_report", "to_html"), "html_page"),
    **dict.fromkeys(("KINDS", "per_query_table", "summary_table"), "tables"),
    **dict.fromkeys(("to_csv", "to_latex", "to_markdown"), "text"),
    **dict.fromkeys(("FORMATS", "export", "write_bytes", "write_html_report", "write_text"), "writing"),
}


__all__ = [
    "FORMATS",
    "KINDS",
    "export",
    "html_report",
    "per_query_table",
    "summary_table",
    "to_csv",
    "to_html",
    "to_latex",
    "to_markdown",
    "write_bytes",
    "write_html_report",
    "write_text",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
