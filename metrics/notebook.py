"""What an evaluation or a comparison shows in Jupyter: one compact table, runs by measures in the order
asked, the best value of each measure in bold, a comparison's marks (a dagger: significantly higher than
the baseline, a double dagger: lower) or letters (the runs a value is significantly better than), and
the settings that made the numbers in the table's caption.  Beside the floors: the engine's
:class:`~metrics.Evaluation` and the comparisons' frames both use it."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

import numpy as np

from metrics.measures import is_count
from metrics.presentation import HIGHER, LOWER, best_mask, is_neutral

__all__ = ["compact_table", "short_list"]

_STYLE = "border-collapse:collapse"
_CELL = "padding:2px 8px;text-align:right"


def _value(value: float, measure: str, digits: int) -> str:
    if value is None or math.isnan(value):
        return ""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if is_count(measure) and float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}f}"


def compact_table(
    runs: Sequence[str],
    measures: Sequence[str],
    values: np.ndarray,
    *,
    caption: str,
    marks: Mapping[tuple[str, str], str] | None = None,
    letters: Mapping[tuple[str, str], str] | None = None,
    run_labels: Mapping[str, str] | None = None,
    lower_is_better: Sequence[str] = (),
    digits: int = 4,
    notes: Sequence[str] = (),
) -> str:
    """The HTML of a runs x measures table (``values[i, j]``: measure j of run i) with its caption.

    ``marks``: ``{(run, measure): "higher" | "lower"}`` (a comparison with a baseline); ``letters``:
    ``{(run, measure): "bd"}`` (all pairs); ``run_labels``: how the rows are headed (``(a) bm25``);
    ``notes``: lines under the table (warnings, the legend)."""
    lower = set(map(str, lower_is_better))
    values = np.asarray(values, dtype=np.float64).reshape(len(runs), len(measures))
    bold = np.zeros(values.shape, dtype=bool)
    for j, m in enumerate(measures):
        if not is_neutral(m) and not is_count(m):
            bold[:, j] = best_mask(values[:, j], str(m) in lower)
    head = "".join(f'<th style="{_CELL}">{html.escape(str(m))}</th>' for m in measures)
    rows = []
    for i, run in enumerate(runs):
        cells = []
        for j, m in enumerate(measures):
            text = html.escape(_value(values[i, j], str(m), digits))
            if bold[i, j]:
                text = f"<b>{text}</b>"
            mark = (marks or {}).get((run, str(m)), "")
            text += {"higher": HIGHER, "lower": LOWER}.get(mark, "")
            got = (letters or {}).get((run, str(m)), "")
            if got:
                text += f"<sup>{html.escape(got)}</sup>"
            cells.append(f'<td style="{_CELL}">{text}</td>')
        label = (run_labels or {}).get(run, str(run))
        rows.append(f'<tr><th style="{_CELL};text-align:left">{html.escape(label)}</th>{"".join(cells)}</tr>')
    below = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
    return (
        f'<div><table style="{_STYLE}"><caption style="caption-side:top;text-align:left">'
        f"{html.escape(caption)}</caption>"
        f'<thead><tr><th style="{_CELL};text-align:left">run</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>" + (f"<ul>{below}</ul>" if below else "") + "</div>"
    )


def short_list(items: Sequence, limit: int = 6) -> str:
    """``a, b, c`` or ``a, b, c, ... (40 in all)``: a list named in a line."""
    shown = ", ".join(map(str, items[:limit]))
    return shown if len(items) <= limit else f"{shown}, ... ({len(items)} in all)"
