"""A standalone HTML report: tables with their legends, and figures embedded as PNG."""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Mapping

import pandas as pd

from metrics.presentation import HIGHER, LOWER
from metrics.report.tables import (
    _Cell,
    _comparison_model,
    _legend_sentences,
    _per_query_model,
    _provenance,
    _qrels_name,
    _resolve,
    _summary_model,
    _Table,
    _unique,
)

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------ HTML

_HTML_MARK = {"higher": f"<sup>{HIGHER}</sup>", "lower": f"<sup>{LOWER}</sup>", "": ""}
_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-variant-numeric: tabular-nums; }
th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #ddd; }
th { border-bottom: 2px solid #444; text-align: left; }
td.r, th.r { text-align: right; }
tr.group td { border-top: 2px solid #999; }
p.legend { font-size: 0.9em; color: #444; max-width: 60em; }
figure { margin: 1em 0; }
img { max-width: 100%; }
"""


def _html_table(table: _Table, css_class: str) -> str:
    right = ' class="r"'

    def cell(c: _Cell, align: str) -> str:
        text = html.escape(c.text)
        if c.bold:
            text = f"<strong>{text}</strong>"
        cls = right if align == "r" else ""
        sup = f"<sup>{html.escape(c.letters)}</sup>" if c.letters else ""
        return f"<td{cls}>{text}{_HTML_MARK[c.mark]}{sup}</td>"

    head = "".join(f"<th{right if a == 'r' else ''}>{html.escape(h)}</th>" for h, a in zip(table.header, table.align))
    body = []
    for i, row in enumerate(table.rows):
        cls = ' class="group"' if i in table.group_starts else ""
        body.append(f"<tr{cls}>" + "".join(cell(c, a) for c, a in zip(row, table.align)) + "</tr>")
    parts = [
        f'<table class="{css_class}">',
        f"<thead><tr>{head}</tr></thead>",
        "<tbody>",
        *body,
        "</tbody>",
        "</table>",
    ]
    legend = _legend_sentences(table, HIGHER, LOWER) + table.settings
    if legend:
        parts.append('<p class="legend">' + " ".join(html.escape(s) for s in legend) + "</p>")
    return "\n".join(parts)


def _images(images) -> list[tuple[str, bytes]]:
    if images is None:
        return []
    items = list(images.items()) if isinstance(images, Mapping) else list(images)
    out = []
    for item in items:
        caption, data = item
        data = bytes(data)
        if not data.startswith(_PNG_SIGNATURE):
            raise ValueError(f"image {caption!r} is not a PNG")
        out.append((str(caption), data))
    return out


def html_report(
    *,
    summary=None,
    per_query=None,
    comparison: pd.DataFrame | None = None,
    images=None,
    title: str = "Evaluation report",
    qrels=None,
    digits: int | dict = 4,
    lower_is_better: Iterable[str] = (),
    pairs: pd.DataFrame | None = None,
    settings=None,
) -> str:
    """A standalone HTML document with the given tables and PNG images (``settings``: (name, text) pairs
    how the numbers were made, in the document's ``<dl>``; taken from an Evaluation given whole).

    ``summary`` is an aggregate frame (or an Evaluation, whose aggregate is
    used), ``per_query`` a per-query frame (or an Evaluation), ``comparison``
    a :func:`metrics.compare.compare` result; each is optional. When both a
    summary and a comparison are given, the summary carries the significance
    marks too. ``images`` maps captions to PNG bytes (or is a sequence of
    ``(caption, bytes)``); they are embedded as base64 ``data:`` URIs.
    """
    stated = _provenance(summary if summary is not None else per_query, settings)
    sections = []
    runs, measures = [], []
    if summary is not None:
        frame, _ = _resolve(summary, "summary")
        runs += list(frame["run"])
        measures += list(frame["measure"])
        table = _summary_model(frame, comparison, digits, lower_is_better, pairs)
        sections.append(("Summary", _html_table(table, "summary")))
    if comparison is not None:
        frame, _ = _resolve(comparison, "comparison")
        runs += list(frame["baseline"]) + list(frame["run"])
        measures += list(frame["measure"])
        table = _comparison_model(frame, digits, lower_is_better)
        sections.append(("Comparison with the baseline", _html_table(table, "comparison")))
    if per_query is not None:
        frame, _ = _resolve(per_query, "per_query")
        runs += list(frame["run"])
        measures += list(frame["measure"])
        sections.append(("Per-query values", _html_table(_per_query_model(frame, digits), "per-query")))
    figures = []
    for caption, data in _images(images):
        uri = "data:image/png;base64," + base64.b64encode(data).decode("ascii")
        figures.append(
            f'<figure><img src="{uri}" alt="{html.escape(caption)}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )
    if figures:
        sections.append(("Figures", "\n".join(figures)))
    if not sections:
        raise ValueError("nothing to report: give a summary, per-query table, comparison or images")
    info = [
        ("Qrels", _qrels_name(qrels)),
        ("Runs", ", ".join(map(str, _unique(runs)))),
        ("Measures", ", ".join(map(str, _unique(measures)))),
    ]
    info += [(f"{name[0].upper()}{name[1:]}", text) for name, text in stated if name not in ("qrels", "measures")]
    info_html = "\n".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in info if v)
    body = "\n".join(f"<section>\n<h2>{html.escape(h)}</h2>\n{content}\n</section>" for h, content in sections)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        f"<h1>{html.escape(title)}</h1>\n<dl>\n{info_html}\n</dl>\n{body}\n</body>\n</html>\n"
    )


def to_html(
    frame,
    *,
    kind: str | None = None,
    comparison: pd.DataFrame | None = None,
    digits: int | dict = 4,
    lower_is_better: Iterable[str] = (),
    qrels=None,
    title: str = "Evaluation report",
    images=None,
    pairs: pd.DataFrame | None = None,
    settings=None,
) -> str:
    """A standalone HTML document holding one table (see :func:`html_report`)."""
    settings = _provenance(frame, settings)
    frame, kind = _resolve(frame, kind)
    if kind == "comparison":
        return html_report(
            comparison=frame,
            digits=digits,
            lower_is_better=lower_is_better,
            qrels=qrels,
            title=title,
            images=images,
            settings=settings,
        )
    if kind == "per_query":
        return html_report(per_query=frame, digits=digits, qrels=qrels, title=title, images=images, settings=settings)
    return html_report(
        settings=settings,
        summary=frame,
        comparison=comparison,
        digits=digits,
        lower_is_better=lower_is_better,
        qrels=qrels,
        title=title,
        images=images,
        pairs=pairs,
    )
