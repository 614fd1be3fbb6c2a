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
    Values rounded to ``digits`` decimals; counts (measures of kind ``long`` in
    the registry: trec_eval's ``num_...``) are shown as integers. The best value of each
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

import base64
import csv
import html
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from metrics import fileio
from metrics.compare import COLUMNS as COMPARISON_COLUMNS
from metrics.compare import describe_settings, format_pvalue
from metrics.measures import is_count
from metrics.presentation import best_mask, is_neutral

__all__ = [
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

KINDS = ("summary", "per_query", "comparison")
FORMATS = {".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".tex": "latex", ".html": "html", ".htm": "html"}
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------ input


def _unique(values) -> list:
    return list(dict.fromkeys(values))


def _resolve(frame, kind: str | None) -> tuple[pd.DataFrame, str]:
    """The tidy frame and its kind, from a frame or an Evaluation-like object."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown table kind {kind!r}; expected one of {', '.join(KINDS)}")
    if not isinstance(frame, pd.DataFrame):
        attribute = {"per_query": "per_query", "summary": "aggregate", None: "aggregate"}.get(kind)
        if attribute and isinstance(getattr(frame, attribute, None), pd.DataFrame):
            return getattr(frame, attribute), kind or "summary"
        raise TypeError(f"expected a DataFrame or an Evaluation; got {type(frame).__name__}")
    cols = set(frame.columns)
    if kind is None:
        if set(COMPARISON_COLUMNS) <= cols:
            kind = "comparison"
        elif {"run", "query_id", "measure", "value"} <= cols:
            kind = "per_query"
        elif {"run", "measure", "value"} <= cols:
            kind = "summary"
        else:
            raise ValueError(f"cannot tell the table kind from the columns {', '.join(map(str, frame.columns))}")
    needed = {
        "summary": ["run", "measure", "value"],
        "per_query": ["run", "query_id", "measure", "value"],
        "comparison": COMPARISON_COLUMNS,
    }[kind]
    missing = [c for c in needed if c not in cols]
    if missing:
        raise ValueError(f"{kind} table needs column(s) {', '.join(missing)}")
    return frame, kind


def _pivot(frame: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    keys = index + ["measure"]
    if frame.duplicated(keys).any():
        raise ValueError(f"more than one value per {', '.join(keys)}")
    measures = _unique(frame["measure"])
    wide = frame.pivot(index=index, columns="measure", values="value")
    order = frame[index].drop_duplicates()
    # group by the first key (the run), each in order of first appearance
    first = {v: i for i, v in enumerate(_unique(order[index[0]]))}
    order = order.iloc[np.argsort(order[index[0]].map(first).to_numpy(), kind="stable")]
    wide = wide.reindex(pd.MultiIndex.from_frame(order) if len(index) > 1 else pd.Index(order[index[0]], name=index[0]))
    wide = wide.reindex(columns=measures)
    wide.columns = pd.Index([str(m) for m in measures], name=None)
    return wide.astype(np.float64)


def summary_table(aggregate) -> pd.DataFrame:
    """Runs x measures: index ``run``, one float column per measure."""
    frame, _ = _resolve(aggregate, "summary")
    return _pivot(frame, ["run"])


def per_query_table(per_query) -> pd.DataFrame:
    """Columns ``run, query_id`` and one float column per measure, one row per (run, query).

    Rows are grouped by run (runs in order of first appearance), queries within
    a run in their order in the input.
    """
    frame, _ = _resolve(per_query, "per_query")
    return _pivot(frame, ["run", "query_id"]).reset_index()


def _qrels_name(qrels) -> str:
    if qrels is None:
        return "(not given)"
    if isinstance(qrels, pd.DataFrame):
        return str(qrels.attrs.get("path") or "(in memory)")
    return os.fspath(qrels) if isinstance(qrels, os.PathLike) else str(qrels)


def _one_line(text) -> str:
    return " ".join(str(text).split())


# ------------------------------------------------------------------ CSV


def to_csv(frame, *, kind: str | None = None, qrels=None) -> str:
    """The table as CSV text at full precision, after ``# `` header lines.

    Summary: columns ``run`` and one per measure. Per-query: ``run, query_id``
    and one per measure. Comparison: the columns of the comparison frame.
    """
    frame, kind = _resolve(frame, kind)
    runs = list(frame["run"])
    if kind == "comparison":
        runs = list(frame["baseline"]) + runs
    header = [
        f"ir-workbench {kind.replace('_', '-')} table (read with pandas.read_csv(path, comment='#'))",
        f"qrels: {_qrels_name(qrels)}",
        f"runs: {', '.join(map(str, _unique(runs)))}",
        f"measures: {', '.join(map(str, _unique(frame['measure'])))}",
    ]
    if kind == "summary":
        table = summary_table(frame).reset_index()
    elif kind == "per_query":
        table = per_query_table(frame)
    else:
        table = frame[COMPARISON_COLUMNS]
        header += describe_settings(frame)
    lines = "".join(f"# {_one_line(h)}\n" for h in header)
    body = table.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    return lines + body


# ------------------------------------------------------------------ cell model


@dataclass
class _Cell:
    text: str
    bold: bool = False
    mark: str = ""  # "higher", "lower" or ""
    letters: str = ""  # the runs (by letter) this value is significantly better than


@dataclass
class _Table:
    header: list[str]
    align: list[str]  # "l" or "r" per column
    rows: list[list[_Cell]] = field(default_factory=list)
    group_starts: set[int] = field(default_factory=set)  # row indices after a rule
    bold_used: bool = False
    marks_used: bool = False
    settings: list[str] = field(default_factory=list)  # sentences for the legend
    direction: str = ""  # sentence on what "best" means
    baseline_compared: bool = False  # marks against a baseline may appear (their legend is due)


def _fmt_value(value, measure: str, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if is_count(measure) and float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}f}"


def _fmt_signed(value, digits: int) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.{digits}f}"


def _marks(comparison: pd.DataFrame | None) -> dict:
    if comparison is None:
        return {}
    out = {}
    for run, measure, sig, delta in zip(
        comparison["run"], comparison["measure"], comparison["significant"], comparison["delta"]
    ):
        if bool(sig):
            out[(run, str(measure))] = "higher" if delta > 0 else "lower"
    return out


def _direction(lower_is_better) -> str:
    lower = sorted(map(str, lower_is_better))
    text = "Bold: best value per measure (highest"
    if lower:
        text += f"; lowest for {', '.join(lower)}"
    return text + ")."


def _summary_model(frame, comparison, digits, lower_is_better, pairs=None) -> _Table:
    wide = summary_table(frame)
    lower = set(map(str, lower_is_better))
    marks = _marks(comparison)
    letters, run_letter = {}, {}
    if pairs is not None:  # all-pairs comparison: letters instead of daggers
        from metrics import allpairs

        order = list(pairs.attrs.get("runs") or wide.index)
        run_letter = {r: allpairs.letter(i) for i, r in enumerate(order)}
        letters = allpairs.significance_letters(pairs, order, lower_is_better)
    baseline = None
    if comparison is not None:
        if not set(COMPARISON_COLUMNS) <= set(comparison.columns):
            raise ValueError("comparison= must be a frame returned by metrics.compare.compare")
        baselines = _unique(comparison["baseline"])
        baseline = baselines[0] if len(baselines) == 1 else None
    table = _Table(header=["Run"] + list(wide.columns), align=["l"] + ["r"] * wide.shape[1])
    # "best" is decided once, for the window and the reports alike (metrics.presentation)
    bold = {
        m: (np.zeros(len(wide), dtype=bool) if is_neutral(m) else best_mask(wide[m].to_numpy(), m in lower))
        for m in wide.columns
    }
    for i, run in enumerate(wide.index):
        label = f"{run} (baseline)" if baseline is not None and run == baseline else str(run)
        if run in run_letter:
            label = f"({run_letter[run]}) {label}"
        row = [_Cell(label)]
        for m in wide.columns:
            cell = _Cell(
                _fmt_value(wide.at[run, m], m, digits),
                bold=bool(bold[m][i]),
                mark=marks.get((run, m), ""),
                letters=letters.get((run, str(m)), ""),
            )
            table.bold_used |= cell.bold
            table.marks_used |= bool(cell.mark)
            row.append(cell)
        table.rows.append(row)
    if comparison is not None:
        table.settings = describe_settings(comparison)[:1]
        table.baseline_compared = True
    if pairs is not None:
        from metrics import allpairs

        table.settings = table.settings + [allpairs.describe(pairs)]
    table.direction = _direction(lower_is_better)
    return table


def _per_query_model(frame, digits) -> _Table:
    wide = per_query_table(frame)
    measures = list(wide.columns[2:])
    table = _Table(header=["Run", "Query"] + measures, align=["l", "l"] + ["r"] * len(measures))
    previous = None
    for values in wide.itertuples(index=False):
        run, query = values[0], values[1]
        if previous is not None and run != previous:
            table.group_starts.add(len(table.rows))
        previous = run
        table.rows.append(
            [_Cell(str(run)), _Cell(str(query))]
            + [_Cell(_fmt_value(v, m, digits)) for v, m in zip(values[2:], measures)]
        )
    return table


def _comparison_model(frame, digits, lower_is_better) -> _Table:
    lower = set(map(str, lower_is_better))
    corrections = "/".join(map(str, _unique(frame["correction"]) or [frame.attrs.get("correction", "")]))
    levels = _unique(frame["ci_level"]) or [frame.attrs.get("ci", 0.95)]
    ci_head = f"{100 * levels[0]:g}% CI" if len(levels) == 1 else "CI"
    table = _Table(
        header=["Measure", "Run", "Mean", "Delta", ci_head, "p", f"p ({corrections})", "d_z", "W/T/L", "n"],
        align=["l", "l", "r", "r", "r", "r", "r", "r", "r", "r"],
    )
    dash = "\u2013"
    for measure in _unique(frame["measure"]):
        rows = frame.loc[frame["measure"] == measure]
        measure = str(measure)
        if table.rows:
            table.group_starts.add(len(table.rows))
        baselines = _unique(rows["baseline"])
        base_means = _unique(rows["baseline_mean"].dropna())
        # the baseline's mean depends on the pairing; show it when it is one number
        base_mean = base_means[0] if len(base_means) == 1 else math.nan
        means = np.concatenate([[base_mean], rows["mean"].to_numpy(np.float64)])
        bold = best_mask(means, measure in lower) & (not is_neutral(measure))
        table.rows.append(
            [
                _Cell(measure),
                _Cell(f"{baselines[0]} (baseline)"),
                _Cell(_fmt_value(base_mean, measure, digits), bold=bool(bold[0])),
            ]
            + [_Cell(dash) for _ in range(7)]
        )
        for i, (_, r) in enumerate(rows.iterrows(), start=1):
            mark = ("higher" if r["delta"] > 0 else "lower") if bool(r["significant"]) else ""
            ci = (
                "n/a"
                if math.isnan(r["ci_low"])
                else f"[{_fmt_signed(r['ci_low'], digits)}, {_fmt_signed(r['ci_high'], digits)}]"
            )
            table.rows.append(
                [
                    _Cell(""),
                    _Cell(str(r["run"])),
                    _Cell(_fmt_value(r["mean"], measure, digits), bold=bool(bold[i]), mark=mark),
                    _Cell(_fmt_signed(r["delta"], digits)),
                    _Cell(ci),
                    _Cell(format_pvalue(r["p_value"])),
                    _Cell(format_pvalue(r["p_corrected"])),
                    _Cell(_fmt_signed(r["effect_size"], 3)),
                    _Cell(f"{r['wins']}/{r['ties']}/{r['losses']}"),
                    _Cell(str(r["n_queries"])),
                ]
            )
            table.marks_used |= bool(mark)
        table.bold_used |= bool(bold.any())
    table.settings = describe_settings(frame)
    table.baseline_compared = True
    table.direction = _direction(lower_is_better)
    return table


def _model(frame, kind, comparison, digits, lower_is_better, pairs=None) -> _Table:
    frame, kind = _resolve(frame, kind)
    if kind == "summary":
        return _summary_model(frame, comparison, digits, lower_is_better, pairs)
    if kind == "per_query":
        return _per_query_model(frame, digits)
    return _comparison_model(frame, digits, lower_is_better)


def _legend_sentences(table: _Table, higher: str, lower: str) -> list[str]:
    out = []
    if table.bold_used:
        out.append(table.direction)
    if table.marks_used or table.baseline_compared:
        out.append(
            f"{higher} significantly higher, {lower} significantly lower than the baseline (corrected p <= alpha)."
        )
    return out


# ------------------------------------------------------------------ Markdown

_MD_MARK = {"higher": "\u2020", "lower": "\u2021", "": ""}


def _md_escape(text: str) -> str:
    return (
        str(text).replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("`", "\\`").replace("\n", " ")
    )


def to_markdown(
    frame,
    *,
    kind: str | None = None,
    comparison: pd.DataFrame | None = None,
    digits: int = 4,
    lower_is_better: Iterable[str] = (),
    pairs: pd.DataFrame | None = None,
    title: str | None = None,
    qrels=None,
) -> str:
    """The table as a GitHub-flavoured Markdown pipe table followed by its legend.

    ``pairs``: a :func:`metrics.allpairs.compare_all_pairs` result, shown as letters; ``title`` and
    ``qrels`` add a heading and a line naming the qrels and the runs.
    """
    table = _model(frame, kind, comparison, digits, lower_is_better, pairs)

    def cell(c: _Cell) -> str:
        text = _md_escape(c.text)
        if c.bold:
            text = f"**{text}**"
        return text + _MD_MARK[c.mark] + (f"<sup>{c.letters}</sup>" if c.letters else "")

    lines = [f"# {_md_escape(title)}", ""] if title else []
    if title or qrels is not None:
        resolved, _ = _resolve(frame, kind)
        runs = list(resolved["baseline"]) + list(resolved["run"]) if "baseline" in resolved else list(resolved["run"])
        lines += [
            f"Qrels: {_md_escape(_qrels_name(qrels))}; runs: {_md_escape(', '.join(map(str, _unique(runs))))}",
            "",
        ]
    lines += [
        "| " + " | ".join(_md_escape(h) for h in table.header) + " |",
        "|" + "|".join(":---" if a == "l" else "---:" for a in table.align) + "|",
    ]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in table.rows]
    legend = [_md_escape(s) for s in _legend_sentences(table, "\u2020", "\u2021") + table.settings]
    if legend:
        lines += [""] + [s.replace("Bold:", "**Bold**:", 1) for s in legend]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ LaTeX

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\u2013": "--",
}
_LATEX_MARK = {"higher": r"\textsuperscript{\dag}", "lower": r"\textsuperscript{\ddag}", "": ""}


def _tex(text) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _tex_sentence(text: str) -> str:
    return _tex(text).replace("alpha =", r"$\alpha$ =").replace("<=", r"$\le$")


def to_latex(
    frame,
    *,
    kind: str | None = None,
    comparison: pd.DataFrame | None = None,
    digits: int = 4,
    lower_is_better: Iterable[str] = (),
    caption: str | None = None,
    label: str | None = None,
    pairs: pd.DataFrame | None = None,
) -> str:
    """The table as a LaTeX ``table`` with a booktabs ``tabular`` and a legend.

    Needs ``\\usepackage{booktabs}``. Best values are ``\\textbf``; significance
    marks are ``\\textsuperscript{\\dag}`` (higher) and ``\\textsuperscript{\\ddag}``
    (lower). ``caption`` is escaped; ``label`` is used as given.
    """
    table = _model(frame, kind, comparison, digits, lower_is_better, pairs)

    def cell(c: _Cell) -> str:
        text = _tex(c.text)
        if c.bold:
            text = rf"\textbf{{{text}}}"
        return text + _LATEX_MARK[c.mark] + (rf"\textsuperscript{{{c.letters}}}" if c.letters else "")

    lines = [r"\begin{table}", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{_tex(caption)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines += [
        rf"\begin{{tabular}}{{{''.join(table.align)}}}",
        r"\toprule",
        " & ".join(_tex(h) for h in table.header) + r" \\",
        r"\midrule",
    ]
    for i, row in enumerate(table.rows):
        if i in table.group_starts:
            lines.append(r"\midrule")
        lines.append(" & ".join(cell(c) for c in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    legend = [_tex_sentence(s) for s in _legend_sentences(table, "\u2020", "\u2021")]
    legend = [
        s.replace("Bold:", r"\textbf{Bold}:")
        .replace("\u2020", r"\textsuperscript{\dag}")
        .replace("\u2021", r"\textsuperscript{\ddag}")
        for s in legend
    ]
    legend += [_tex_sentence(s) for s in table.settings]
    if legend:
        lines += [r"\par\smallskip", r"{\footnotesize " + " ".join(legend) + r"\par}"]
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ HTML

_HTML_MARK = {"higher": "<sup>\u2020</sup>", "lower": "<sup>\u2021</sup>", "": ""}
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
    legend = _legend_sentences(table, "\u2020", "\u2021") + table.settings
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
    digits: int = 4,
    lower_is_better: Iterable[str] = (),
    pairs: pd.DataFrame | None = None,
) -> str:
    """A standalone HTML document with the given tables and PNG images.

    ``summary`` is an aggregate frame (or an Evaluation, whose aggregate is
    used), ``per_query`` a per-query frame (or an Evaluation), ``comparison``
    a :func:`metrics.compare.compare` result; each is optional. When both a
    summary and a comparison are given, the summary carries the significance
    marks too. ``images`` maps captions to PNG bytes (or is a sequence of
    ``(caption, bytes)``); they are embedded as base64 ``data:`` URIs.
    """
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
    digits: int = 4,
    lower_is_better: Iterable[str] = (),
    qrels=None,
    title: str = "Evaluation report",
    images=None,
    pairs: pd.DataFrame | None = None,
) -> str:
    """A standalone HTML document holding one table (see :func:`html_report`)."""
    frame, kind = _resolve(frame, kind)
    if kind == "comparison":
        return html_report(
            comparison=frame, digits=digits, lower_is_better=lower_is_better, qrels=qrels, title=title, images=images
        )
    if kind == "per_query":
        return html_report(per_query=frame, digits=digits, qrels=qrels, title=title, images=images)
    return html_report(
        summary=frame,
        comparison=comparison,
        digits=digits,
        lower_is_better=lower_is_better,
        qrels=qrels,
        title=title,
        images=images,
        pairs=pairs,
    )


# ------------------------------------------------------------------ atomic writes


def write_bytes(path, data: bytes, *, overwrite: bool = False, protect=()) -> Path:
    """Write ``data`` atomically (:func:`metrics.fileio.write_bytes`)."""
    return fileio.write_bytes(path, data, overwrite=overwrite, protect=protect)


def write_text(path, text: str, *, overwrite: bool = False, protect=()) -> Path:
    """Write ``text`` as UTF-8 (newlines as given), with a byte-order mark when it is not plain ASCII
    and is CSV (so that spreadsheets read "Δ" right; pandas reads it either way)."""
    data = text.encode("utf-8")
    if str(path).lower().endswith(".csv") and not text.isascii():
        data = b"\xef\xbb\xbf" + data
    return fileio.write_bytes(path, data, overwrite=overwrite, protect=protect)


def export(
    frame,
    path,
    *,
    format: str | None = None,
    kind: str | None = None,
    overwrite: bool = False,
    qrels=None,
    comparison: pd.DataFrame | None = None,
    digits: int = 4,
    lower_is_better: Iterable[str] = (),
    caption: str | None = None,
    label: str | None = None,
    images=None,
    protect=(),
    pairs: pd.DataFrame | None = None,
) -> Path:
    """Write one table to ``path``; the format comes from ``format`` or the file suffix.

    ``format``: ``"csv"``, ``"markdown"``, ``"latex"`` or ``"html"`` (suffixes
    ``.csv``, ``.md``/``.markdown``, ``.tex``, ``.html``/``.htm``). ``kind``
    (``"summary"``, ``"per_query"``, ``"comparison"``) is inferred from the
    columns when not given. Options a format does not use are ignored.
    Raises :class:`FileExistsError` if ``path`` exists and not ``overwrite``.
    """
    path = Path(path)
    if format is None:
        format = FORMATS.get(path.suffix.lower())
        if format is None:
            raise ValueError(
                f"cannot tell the format from {path.name!r}; pass format= one of csv, markdown, latex, html"
            )
    format = {"md": "markdown", "tex": "latex", "htm": "html"}.get(format.lower(), format.lower())
    if format == "csv":
        text = to_csv(frame, kind=kind, qrels=qrels)
    elif format == "markdown":
        text = to_markdown(
            frame,
            kind=kind,
            comparison=comparison,
            digits=digits,
            lower_is_better=lower_is_better,
            pairs=pairs,
            title=caption,
            qrels=qrels,
        )
    elif format == "latex":
        text = to_latex(
            frame,
            kind=kind,
            comparison=comparison,
            digits=digits,
            lower_is_better=lower_is_better,
            caption=caption,
            label=label,
            pairs=pairs,
        )
    elif format == "html":
        text = to_html(
            frame,
            kind=kind,
            comparison=comparison,
            digits=digits,
            lower_is_better=lower_is_better,
            qrels=qrels,
            title=caption or "Evaluation report",
            images=images,
            pairs=pairs,
        )
    else:
        raise ValueError(f"unknown format {format!r}; expected csv, markdown, latex or html")
    return write_text(path, text, overwrite=overwrite, protect=protect)


def write_html_report(path, *, overwrite: bool = False, protect=(), **report) -> Path:
    """Write :func:`html_report` (keyword arguments passed on) atomically to ``path``."""
    return write_text(path, html_report(**report), overwrite=overwrite, protect=protect)
