"""The comparison report the window exports (plain Python, no Qt).

:func:`write_report` runs in a worker; the figures arrive as PNG bytes drawn on
the GUI thread (:mod:`workbench.views.plots.figures`).  Every file goes through :mod:`metrics.report`, which writes
atomically and refuses to replace a file unless told to (the window asks first).
"""

from __future__ import annotations

from pathlib import Path

#: format code -> (label, suffix)
FORMATS = {
    "html": ("HTML report (tables and plots)", ".html"),
    "markdown": ("Markdown table", ".md"),
    "latex": ("LaTeX table (booktabs)", ".tex"),
    "csv": ("CSV table", ".csv"),
}
#: table code -> label (CSV, Markdown and LaTeX hold one table)
TABLES = {
    "comparison": "Comparison with the baseline (means, Δ, CI, p-values)",
    "summary": "Summary, runs × measures, with significance marks",
}


def suffix_format(path) -> str | None:
    """Format code from a file name's suffix, or None."""
    suffix = Path(path).suffix.lower()
    for code, (_, s) in FORMATS.items():
        if s == suffix:
            return code
    return {".htm": "html", ".markdown": "markdown"}.get(suffix)


def write_report(
    path,
    fmt: str,
    *,
    evaluation,
    comparison=None,
    table: str = "comparison",
    qrels=None,
    images=(),
    per_query: bool = False,
    title: str = "Evaluation report",
    overwrite: bool = False,
    protect=(),
    extra=(),
) -> Path:
    """Write the report; ``comparison`` is a :func:`metrics.compare.compare` frame or None.

    ``html``: summary (with significance marks), comparison, optionally the
    per-query values, and ``images`` (caption, PNG bytes).  ``csv``,
    ``markdown``, ``latex``: the ``table`` chosen, ``"comparison"`` (needs a
    comparison) or ``"summary"`` (marked when a comparison is given; CSV
    carries no marks).  ``extra``: more settings to state, as (name, text) pairs (the intent qrels).
    """
    import metrics.report  # with scipy: imported when a report is written, not at start-up
    from metrics.report.provenance import provenance

    # how the numbers were made; the comparison's test, correction and alpha are in its own legend
    marked = comparison if table == "summary" or fmt == "html" else None
    settings = [(k, v) for k, v in provenance(evaluation, comparison=marked, extra=extra) if k != "measures"]

    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if table not in TABLES:
        raise ValueError(f"unknown table {table!r}; expected one of {', '.join(TABLES)}")
    if fmt == "html":
        return metrics.report.write_html_report(
            path,
            overwrite=overwrite,
            protect=protect,
            summary=evaluation.aggregate,
            comparison=comparison,
            per_query=evaluation.per_query if per_query else None,
            images=list(images) or None,
            title=title,
            qrels=qrels,
            settings=settings,
        )
    if table == "comparison":
        if comparison is None:
            raise ValueError("no comparison to export: choose a baseline and load another run")
        return metrics.report.export(
            comparison,
            path,
            format=fmt,
            kind="comparison",
            qrels=qrels,
            overwrite=overwrite,
            protect=protect,
            caption=title if fmt in ("latex", "markdown") else None,
            settings=settings,
        )
    return metrics.report.export(
        evaluation.aggregate,
        path,
        format=fmt,
        kind="summary",
        qrels=qrels,
        comparison=comparison,
        overwrite=overwrite,
        protect=protect,
        caption=title if fmt in ("latex", "markdown") else None,
        settings=settings,
    )
