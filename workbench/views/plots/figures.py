"""Figures for exports and reports, drawn for the page instead of grabbed from the screen.

A figure is a pyqtgraph plot built off-screen at a chosen size, with fonts,
lines and markers sized for it, every run in the style the window gives it,
and nothing of the window's state drawn on it (no selection box, no hover).
``scale`` multiplies size and type together: PNG figures are built at scale 2
(2400 x 1560 pixels for the default 1200 x 780, about 300 dpi across 8
inches) and rendered one to one, because Qt scales a plot's rich-text labels
(the legend) differently from its axes when the painter is scaled; SVG output
is vector at scale 1.  Rendering is GUI work: call on the GUI thread.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator

from workbench.scoring import evaluation as analysis
from workbench.views.common.run_styles import QUIET, run_style

SIZE = (1200, 780)
SCALE = 2.0


def _pt(points: float, scale: float) -> str:
    return f"{points * scale:g}pt"


def _figure(title: str, x_label: str, y_label: str, size, scale: float) -> pg.PlotWidget:
    w = pg.PlotWidget(background="w")
    w.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen)
    w.resize(int(size[0] * scale), int(size[1] * scale))
    w.figure_scale = scale
    item = w.getPlotItem()
    item.setTitle(title, color="#222", size=_pt(14, scale))
    font = QFont()
    font.setPointSizeF(11 * scale)
    for axis, text in (("bottom", x_label), ("left", y_label)):
        ax = item.getAxis(axis)
        ax.setPen(pg.mkPen(60, 60, 60, width=scale))
        ax.setTextPen(pg.mkPen(40, 40, 40))
        ax.setStyle(tickFont=font, hideOverlappingLabels=False)
        ax.enableAutoSIPrefix(False)
        ax.setStyle(tickLength=int(-5 * scale), tickTextOffset=int(4 * scale))
        ax.setLabel(text, **{"font-size": _pt(12, scale), "color": "#222"})
    item.showGrid(x=True, y=True, alpha=0.25)
    m = int(8 * scale)
    item.layout.setContentsMargins(m, m, int(36 * scale), m)  # room for the last tick label ("1.0") at the right
    return w


def _label_legend(legend: pg.LegendItem, scale: float) -> None:
    """Legend text at the figure's font size, columns apart."""
    for _, label in legend.items:
        label.setText(label.text, size=_pt(12, scale), color="#1e1e1e")
    legend.layout.setHorizontalSpacing(int(24 * scale))


def _legend(w: pg.PlotWidget, columns: int) -> pg.LegendItem:
    legend = pg.LegendItem(colCount=columns, labelTextColor=(30, 30, 30), labelTextSize=_pt(12, w.figure_scale))
    w.getPlotItem().layout.addItem(legend, 4, 1)
    return legend


def curve_figure(
    results: analysis.Results,
    kind: str,
    *,
    query: str | None = None,
    runs=None,
    styles: dict | None = None,
    size=SIZE,
    scale: float = SCALE,
) -> pg.PlotWidget:
    """Precision-recall (``kind="pr"``) or NDCG@k (``"ndcg"``) curves of ``runs`` (default: every run),
    for the mean over queries or one ``query``.  ``styles``: run -> its style's index, or None for a run
    drawn thin and grey without a legend entry (as the window draws many runs); default: by run order."""
    runs = list(results.runs) if runs is None else list(runs)
    table = results.pr if kind == "pr" else results.ndcg
    what = f"mean over {len(results.query_ids)} queries" if query is None else f"query {query}"
    if kind == "pr":
        w = _figure(f"Interpolated precision vs recall — {what}", "Recall", "Precision", size, scale)
    else:
        w = _figure(f"NDCG at every cutoff k — {what}", "k (rank cutoff)", "NDCG@k", size, scale)
    legend = _legend(w, min(4, max(1, len(runs))))
    order = {r: i for i, r in enumerate(results.runs)}
    for run in runs:
        xy = table.get(analysis.MEAN if query is None else query, run)
        if xy is None:
            continue
        if styles is not None and styles.get(run) is None:
            w.plot(xy[0], xy[1], pen=pg.mkPen(QUIET, width=1.0 * scale))
            continue
        colour, dash, symbol = run_style(styles[run] if styles is not None else order.get(run, 0))
        curve = w.plot(
            xy[0],
            xy[1],
            pen=pg.mkPen(colour, width=2.5 * scale, style=dash),
            symbol=symbol if kind == "pr" else None,
            symbolSize=8 * scale,
            symbolBrush=colour,
            symbolPen=None,
        )
        legend.addItem(curve, run)
    _label_legend(legend, scale)
    if kind == "pr":
        w.setXRange(0.0, 1.0, padding=0.03)
    else:
        w.setXRange(1, max(2, results.request.k_max), padding=0.02)
    w.setYRange(0.0, 1.0, padding=0.04)
    return w


def difference_figure(comparison, measure: str, runs=None, size=SIZE, scale: float = SCALE) -> pg.PlotWidget:
    """Per-query differences to the baseline of ``runs`` (default: every other run), sorted by gain."""
    from workbench.views.plots.diffchart import GAIN, LOSS, layout_bars

    others = [r for r in comparison.request.runs if r != comparison.request.baseline]
    runs = others if runs is None else [r for r in runs if r in others]
    frame = layout_bars(comparison.differences_for(measure), runs)
    w = _figure(
        f"{measure}: run − {comparison.request.baseline} per query",
        "queries, largest mean gain first",
        f"Δ {measure}",
        size,
        scale,
    )
    delta = frame["delta"].to_numpy(dtype=float)
    if len(runs) == 1:
        brushes = [pg.mkBrush(*(GAIN if d > 0 else LOSS if d < 0 else (150, 150, 150))) for d in delta]
    else:
        order = {r: i for i, r in enumerate(comparison.request.runs)}
        brushes = [pg.mkBrush(*run_style(order[r])[0]) for r in frame["run"]]
        legend = _legend(w, min(4, len(runs)))
        for r in runs:
            legend.addItem(pg.BarGraphItem(x=[0], height=[1], width=1, brush=pg.mkBrush(*run_style(order[r])[0])), r)
        _label_legend(legend, scale)
    if len(frame):
        w.addItem(
            pg.BarGraphItem(
                x=frame["x"].to_numpy(dtype=float),
                height=delta,
                width=frame["width"].to_numpy(dtype=float),
                brushes=brushes,
                pens=[None] * len(frame),
            )
        )
        slots = frame.drop_duplicates("slot")
        n = int(frame["slot"].max()) + 1
        step = max(1, int(np.ceil(n * 9.5 * max(len(str(q)) + 1 for q in slots["query_id"]) / (size[0] - 120))))
        ticks = [(float(s), str(q)) for s, q in zip(slots["slot"], slots["query_id"]) if int(s) % step == 0]
        w.getPlotItem().getAxis("bottom").setTicks([ticks, []])
        span = float(np.max(np.abs(delta))) or 1.0
        w.setXRange(-0.7, n - 0.3, padding=0)
        w.setYRange(-span * 1.05, span * 1.05, padding=0)
    return w


def render(widget, fmt: str = "png", description: str = "") -> bytes:
    """The figure as PNG (one pixel per unit of its size) or SVG bytes; ``description`` (how its numbers
    were made) goes in the file's metadata: a PNG text chunk, the SVG's ``<desc>``."""
    return encode(draw(widget, fmt, description), fmt)


def draw(widget, fmt: str = "png", description: str = "") -> QImage | bytes:
    """The figure drawn (GUI work: call on the GUI thread): an image to :func:`encode` (with ``description``
    in its text), or, for SVG, the finished file's bytes."""
    widget.show()  # off-screen (WA_DontShowOnScreen): lays the plot out at its size
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    size = widget.size()
    rect = QRectF(0, 0, size.width(), size.height())
    try:
        if fmt != "svg":
            image = QImage(size, QImage.Format.Format_ARGB32)
            image.fill(QColor("white"))
            painter = QPainter(image)
            try:
                painter.setRenderHint(QPainter.RenderHint.Antialiasing)
                widget.scene().render(painter, rect, rect)
            finally:
                painter.end()
            if description:
                image.setText("Description", description)
                image.setText("Software", "ir-workbench")
            return image
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(size)
        generator.setViewBox(rect)
        if description:
            generator.setDescription(description)
        painter = QPainter(generator)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.fillRect(rect, QColor("white"))
            widget.scene().render(painter, rect, rect)
        finally:
            painter.end()
        buffer.close()
        return bytes(data.data())
    finally:
        widget.hide()
        widget.deleteLater()


def encode(drawn: QImage | bytes, fmt: str = "png") -> bytes:
    """The bytes of a file of the figure :func:`draw` made (no widget involved: a worker may call it, the
    image then being used by nobody else)."""
    if isinstance(drawn, bytes):
        return drawn
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # (PySide6 takes the format as str; its stubs say bytes, which it refuses)
    if not drawn.save(buffer, fmt.upper()):  # type: ignore[call-overload]
        raise OSError(f"could not render the figure as {fmt.upper()}")
    buffer.close()
    return bytes(data.data())
