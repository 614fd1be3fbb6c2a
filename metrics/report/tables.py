"""The tables of a report: the input frames checked and pivoted, and the cell model every text format draws.

Formatting of numbers, "best" and the significance marks are decided here once for Markdown, LaTeX
and HTML (with :mod:`metrics.presentation`); the formats only escape and lay out the cells.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metrics.compare import COLUMNS as COMPARISON_COLUMNS
from metrics.compare import describe_settings
from metrics.measures import is_count
from metrics.presentation import best_mask, format_pvalue, is_neutral

KINDS = ("summary", "per_query", "comparison")


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


def _provenance(frame, settings) -> list[tuple[str, str]]:
    """The settings stated by an export: those given, else those of an Evaluation exported whole
    (:mod:`metrics.report.provenance`); a bare frame does not know how it was made."""
    if settings is not None:
        return [(str(k), str(v)) for k, v in settings]
    if not isinstance(frame, pd.DataFrame) and isinstance(getattr(frame, "settings", None), dict):
        from metrics.report.provenance import provenance

        return provenance(frame)
    return []


def _qrels_name(qrels) -> str:
    if qrels is None:
        return "(not given)"
    if isinstance(qrels, pd.DataFrame):
        return str(qrels.attrs.get("path") or "(in memory)")
    return os.fspath(qrels) if isinstance(qrels, os.PathLike) else str(qrels)


def _one_line(text) -> str:
    return " ".join(str(text).split())


# ------------------------------------------------------------------ cell model


@dataclass
class _Cell:
    """One value of a report table as written: its text, and whether it is bold or marked significant."""

    text: str
    bold: bool = False
    mark: str = ""  # "higher", "lower" or ""
    letters: str = ""  # the runs (by letter) this value is significantly better than


@dataclass
class _Table:
    """A report table before it is written out (Markdown, LaTeX, HTML): its rows and its legend."""

    header: list[str]
    align: list[str]  # "l" or "r" per column
    rows: list[list[_Cell]] = field(default_factory=list)
    group_starts: set[int] = field(default_factory=set)  # row indices after a rule
    bold_used: bool = False
    marks_used: bool = False
    settings: list[str] = field(default_factory=list)  # sentences for the legend
    direction: str = ""  # sentence on what "best" means
    baseline_compared: bool = False  # marks against a baseline may appear (their legend is due)


def digits_for(digits, measure) -> int:
    """Decimals for ``measure``: ``digits`` itself, or from ``{measure: decimals}`` (PyTerrier's per-measure
    ``round``; measure names or ir_measures objects as keys), 4 for a measure it leaves out."""
    if isinstance(digits, Mapping):
        return int(next((d for m, d in digits.items() if str(m) == str(measure)), 4))
    return int(digits)


def _fmt_value(value, measure: str, digits) -> str:
    digits = digits_for(digits, measure)
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
    letters: dict = {}
    run_letter: dict = {}
    if pairs is not None:  # all-pairs comparison: letters instead of daggers
        from metrics.compare import allpairs

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
        from metrics.compare import allpairs

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
        places = digits_for(digits, measure)
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
                else f"[{_fmt_signed(r['ci_low'], places)}, {_fmt_signed(r['ci_high'], places)}]"
            )
            table.rows.append(
                [
                    _Cell(""),
                    _Cell(str(r["run"])),
                    _Cell(_fmt_value(r["mean"], measure, digits), bold=bool(bold[i]), mark=mark),
                    _Cell(_fmt_signed(r["delta"], places)),
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
