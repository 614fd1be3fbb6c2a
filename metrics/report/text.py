"""A report table as text: CSV (full precision), Markdown and LaTeX (booktabs)."""

from __future__ import annotations

import csv
from collections.abc import Iterable

import pandas as pd

from metrics.compare import COLUMNS as COMPARISON_COLUMNS
from metrics.compare import describe_settings
from metrics.presentation import HIGHER, LOWER
from metrics.report.tables import (
    _Cell,
    _legend_sentences,
    _model,
    _one_line,
    _provenance,
    _qrels_name,
    _resolve,
    _unique,
    per_query_table,
    summary_table,
)

# ------------------------------------------------------------------ CSV


def to_csv(frame, *, kind: str | None = None, qrels=None, settings=None) -> str:
    """The table as CSV text at full precision, after ``# `` header lines.

    Summary: columns ``run`` and one per measure. Per-query: ``run, query_id``
    and one per measure. Comparison: the columns of the comparison frame.
    ``settings``: (name, text) pairs stating how the numbers were made
    (:func:`metrics.report.provenance.provenance`; taken from an Evaluation given whole).
    """
    stated = _provenance(frame, settings)
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
    header += [f"{name}: {text}" for name, text in stated if name != "measures"]  # (named above)
    lines = "".join(f"# {_one_line(h)}\n" for h in header)
    body = table.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    return lines + body


# ------------------------------------------------------------------ Markdown

_MD_MARK = {"higher": HIGHER, "lower": LOWER, "": ""}


def _md_escape(text: str) -> str:
    return (
        str(text).replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("`", "\\`").replace("\n", " ")
    )


def to_markdown(
    frame,
    *,
    kind: str | None = None,
    comparison: pd.DataFrame | None = None,
    digits: int | dict = 4,
    lower_is_better: Iterable[str] = (),
    pairs: pd.DataFrame | None = None,
    title: str | None = None,
    qrels=None,
    settings=None,
) -> str:
    """The table as a GitHub-flavoured Markdown pipe table followed by its legend.

    ``pairs``: a :func:`metrics.compare.allpairs.compare_all_pairs` result, shown as letters; ``title`` and
    ``qrels`` add a heading and a line naming the qrels and the runs; ``settings`` (name, text) pairs
    how the numbers were made, listed under the legend.
    """
    stated = _provenance(frame, settings)
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
    legend = [_md_escape(s) for s in _legend_sentences(table, HIGHER, LOWER) + table.settings]
    if legend:
        lines += [""] + [s.replace("Bold:", "**Bold**:", 1) for s in legend]
    if stated:
        lines += ["", "Settings:", ""] + [f"- {_md_escape(name)}: {_md_escape(text)}" for name, text in stated]
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
    digits: int | dict = 4,
    lower_is_better: Iterable[str] = (),
    caption: str | None = None,
    label: str | None = None,
    pairs: pd.DataFrame | None = None,
    settings=None,
) -> str:
    """The table as a LaTeX ``table`` with a booktabs ``tabular`` and a legend (``settings``: (name, text)
    pairs how the numbers were made, in the legend and as ``%`` comment lines).

    Needs ``\\usepackage{booktabs}``. Best values are ``\\textbf``; significance
    marks are ``\\textsuperscript{\\dag}`` (higher) and ``\\textsuperscript{\\ddag}``
    (lower). ``caption`` is escaped; ``label`` is used as given.
    """
    stated = _provenance(frame, settings)
    table = _model(frame, kind, comparison, digits, lower_is_better, pairs)

    def cell(c: _Cell) -> str:
        text = _tex(c.text)
        if c.bold:
            text = rf"\textbf{{{text}}}"
        return text + _LATEX_MARK[c.mark] + (rf"\textsuperscript{{{c.letters}}}" if c.letters else "")

    lines = [f"% {_one_line(name)}: {_one_line(text)}" for name, text in stated]
    lines += [r"\begin{table}", r"\centering"]
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
    legend = [_tex_sentence(s) for s in _legend_sentences(table, HIGHER, LOWER)]
    legend = [
        s.replace("Bold:", r"\textbf{Bold}:")
        .replace(HIGHER, r"\textsuperscript{\dag}")
        .replace(LOWER, r"\textsuperscript{\ddag}")
        for s in legend
    ]
    legend += [_tex_sentence(s) for s in table.settings]
    legend += [
        _tex_sentence(f"{name[0].upper()}{name[1:]}: {text}.")
        for name, text in stated
        if name not in ("program", "measures")
    ]
    if legend:
        lines += [r"\par\smallskip", r"{\footnotesize " + " ".join(legend) + r"\par}"]
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"
