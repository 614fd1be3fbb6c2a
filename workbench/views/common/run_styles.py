"""How a run is drawn wherever runs are drawn (the plots, the difference chart, exported figures): its
colour, dash and marker, and which runs get colours when there are many."""

from __future__ import annotations

from PySide6.QtCore import Qt

from workbench.state.drilldown import best_by

# Okabe & Ito's palette for colour-blind readers, ordered so that neighbours differ most
# (blue, vermillion, bluish green, reddish purple, black, orange, sky blue, yellow).
PALETTE = [
    (0, 114, 178),
    (213, 94, 0),
    (0, 158, 115),
    (204, 121, 167),
    (0, 0, 0),
    (230, 159, 0),
    (86, 180, 233),
    (200, 180, 0),
]
QUIET, QUIET_HOVERED = (185, 185, 185), (90, 90, 90)  # runs drawn beside the emphasised ones
# a second channel besides colour: runs whose colours are alike (vermillion / orange,
# blue / sky blue) get different dashes and markers
DASHES = [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine]
SYMBOLS = ["o", "s", "t", "d", "+", "x", "star", "p"]
DASH_TEXT = {
    Qt.PenStyle.SolidLine: "━━",
    Qt.PenStyle.DashLine: "╍╍",
    Qt.PenStyle.DotLine: "┅┅",
    Qt.PenStyle.DashDotLine: "━·━",
}
MAX_CURVES = 8  # more runs than this: the best ones and the baseline are drawn, the rest on request


def run_colour(i: int):
    return PALETTE[i % len(PALETTE)]


def run_style(i: int) -> tuple[tuple[int, int, int], Qt.PenStyle, str]:
    """Colour, dash and marker of the i-th run."""
    return PALETTE[i % len(PALETTE)], DASHES[(i // 2 + i // len(PALETTE)) % len(DASHES)], SYMBOLS[i % len(SYMBOLS)]


def coloured_runs(runs, results, measure, baseline) -> list[str]:
    """Of ``runs``, those drawn in colour: all of them when they are few (the palette's eight and the
    baseline); else the :data:`MAX_CURVES` best by ``measure`` in ``results.summary`` and the baseline, in the
    runs' order (the plots draw the others thin and grey; the difference chart puts these side by side)."""
    runs = list(runs)
    if len(runs) <= MAX_CURVES + 1:
        return runs
    return best_by(runs, results, measure, baseline, MAX_CURVES)
