"""The Inspect view: one file on its own, before and without any evaluation.

It shows what :func:`metrics.inspect.files.inspect_loaded` (or ``inspect_file`` for a
file that could not be read) found: the kind and why, the first lines with
their columns named, the figures of a run or a qrels file, how a run meets the
loaded qrels, and the problems with their line numbers.  The inspection runs in
a worker like every other job; this view only turns its dictionary into text.
"""

from __future__ import annotations

import html
import math
import os

from PySide6.QtWidgets import QLabel, QSizePolicy, QTextBrowser, QVBoxLayout, QWidget

from workbench.state.workspace import normalize

BARS = "▁▂▃▄▅▆▇█"


def sparkline(counts) -> str:
    """A histogram as a row of block characters (tallest bar = largest count)."""
    counts = [int(c) for c in counts or []]
    top = max(counts) if counts else 0
    if top <= 0:
        return ""
    # bar k (0..7) stands for (k + 1) / 8 of the largest count
    return "".join(" " if c == 0 else BARS[max(0, math.ceil(len(BARS) * c / top) - 1)] for c in counts)


def _num(v) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.0f}" if v.is_integer() else f"{v:,.4g}"
    if isinstance(v, int):
        return f"{v:,}"
    return html.escape(str(v))


def _spread(d: dict | None) -> str:
    if not d:
        return "–"
    return f"{_num(d.get('min'))} / {_num(d.get('median'))} / {_num(d.get('max'))}"


def _rows(pairs) -> str:
    return "".join(
        f"<tr><td style='color:#555;padding-right:12px'>{html.escape(k)}</td><td>{v}</td></tr>"
        for k, v in pairs
        if v is not None
    )


def _ids(values, limit: int = 12) -> str:
    values = list(values or [])
    shown = ", ".join(html.escape(str(v)) for v in values[:limit])
    return f"{len(values)}" + (f" ({shown}{', …' if len(values) > limit else ''})" if values else "")


KIND_TEXT = {
    "run": "run",
    "qrels": "qrels (relevance judgments)",
    "ranked": "ranked judgments",
    "queries": "query texts",
    "intents": "intent qrels (diversity judgments)",
    "collection": "document collection",
    None: "unknown",
}


def inspection_html(d: dict) -> str:
    """The text of the view for one inspection dictionary (keys as :meth:`metrics.inspect.files.Inspection.to_dict`)."""
    kind = d.get("kind")
    out = [f"<h3 style='margin:2px 0'>{html.escape(str(d.get('path', '')))}</h3>"]
    size = d.get("size")
    out.append(
        "<table>"
        + _rows(
            [
                (
                    "kind",
                    f"<b>{html.escape(KIND_TEXT.get(kind, str(kind)))}</b> — {html.escape(d.get('kind_reason') or '')}",
                ),
                ("size", f"{_num(size)} bytes" if size is not None else None),
                ("lines", f"{_num(d.get('lines'))} data, {_num(d.get('comment_lines'))} comment"),
                ("queries", _num(d.get("queries"))),
                ("documents", _num(d.get("documents")) if kind == "collection" else None),
            ]
        )
        + "</table>"
    )

    problems = d.get("problems") or []
    if problems:
        items = []
        for p in problems:
            colour = "#b71c1c" if p.get("severity") == "error" else "#8a6d00"
            message = str(p.get("message", ""))
            where = f"line {p['line']}: " if p.get("line") and f"line {p['line']}" not in message else ""
            items.append(f"<li style='color:{colour}'>{html.escape(where + message)}</li>")
        out.append(
            "<p style='margin:6px 0 0 0'><b>Problems</b></p><ul style='margin-top:2px'>" + "".join(items) + "</ul>"
        )

    if kind in ("run", "ranked") and "documents" in d:
        dpq = d.get("docs_per_query") or {}
        hist = dpq.get("histogram") or {}
        spark = sparkline(hist.get("counts"))
        edges = hist.get("edges") or []
        span = (
            f" <span style='font-family:monospace'>{spark}</span> <span style='color:#777'>"
            f"({_num(edges[0])}–{_num(edges[-1])})</span>"
            if spark and edges
            else ""
        )
        tags = d.get("tags") or {}
        score = d.get("score_range")
        out.append(
            "<p style='margin:6px 0 0 0'><b>Run</b></p><table>"
            + _rows(
                [
                    ("documents", _num(d.get("documents"))),
                    ("docs per query (min / median / max)", _spread(dpq) + span),
                    ("score range", f"{_num(score[0])} to {_num(score[1])}" if score else None),
                    (
                        "tied scores",
                        f"{_num(d.get('tied_scores'))} documents in {_num(d.get('tied_queries'))} queries "
                        "share their score (trec_eval orders them by docid)",
                    ),
                    ("rank column contradicting the scores", _num(d.get("rank_contradictions"))),
                    (
                        "run tags",
                        ", ".join(f"{html.escape(str(t))} ({_num(n)} lines)" for t, n in list(tags.items())[:6])
                        or None,
                    ),
                ]
            )
            + "</table>"
        )
    if kind in ("qrels", "ranked") and "judgments" in d:
        grades = d.get("grades") or {}
        out.append(
            "<p style='margin:6px 0 0 0'><b>Judgments</b></p><table>"
            + _rows(
                [
                    ("judgments", _num(d.get("judgments"))),
                    ("judgments per query (min / median / max)", _spread(d.get("judgments_per_query"))),
                    (
                        "grades",
                        ", ".join(
                            f"{html.escape(str(g))}: {_num(n)}"
                            for g, n in sorted(grades.items(), key=lambda kv: float(kv[0]))
                        ),
                    ),
                    (
                        f"relevant per query (grade ≥ {_num(d.get('relevance_level'))})",
                        _spread(d.get("relevant_per_query")),
                    ),
                    ("queries without a relevant document", _ids(d.get("queries_without_relevant"))),
                ]
            )
            + "</table>"
        )
    if kind == "intents" and "judgments" in d:
        grades = d.get("grades") or {}
        out.append(
            "<p style='margin:6px 0 0 0'><b>Judgments</b></p><table>"
            + _rows(
                [
                    ("judgments", _num(d.get("judgments"))),
                    ("intents per query (min / median / max)", _spread(d.get("intents_per_query"))),
                    (
                        "grades",
                        ", ".join(
                            f"{html.escape(str(g))}: {_num(n)}"
                            for g, n in sorted(grades.items(), key=lambda kv: float(kv[0]))
                        ),
                    ),
                ]
            )
            + "</table>"
        )
    against = d.get("against_qrels")
    if against:
        depth = against.get("judged_depth")
        out.append(
            "<p style='margin:6px 0 0 0'><b>Against the loaded qrels</b></p><table>"
            + _rows(
                [
                    ("queries in both", _num(against.get("shared_queries"))),
                    ("queries only in the run", _ids(against.get("queries_only_in_run"))),
                    ("queries only in the qrels", _ids(against.get("queries_only_in_qrels"))),
                    (
                        "judged in the top 10 / top 100",
                        f"{_pct(against.get('judged_at_10'))} / {_pct(against.get('judged_at_100'))}",
                    ),
                    ("judged to depth (min / median / max)", _spread(depth)),
                ]
            )
            + "</table>"
        )

    head = d.get("head") or []
    if head:
        columns = list(d.get("columns") or [])
        width = max([len(columns)] + [len(h.get("fields", [])) for h in head])
        names = columns + [""] * (width - len(columns))
        header = (
            "<tr><th style='color:#777'>line</th>"
            + "".join(f"<th align='left'>{html.escape(n)}</th>" for n in names)
            + "</tr>"
        )
        body = "".join(
            "<tr><td style='color:#777'>"
            + _num(h.get("line"))
            + "</td>"
            + "".join(f"<td>{html.escape(str(f))}</td>" for f in h.get("fields", []))
            + "</tr>"
            for h in head
        )
        out.append(
            "<p style='margin:6px 0 0 0'><b>First lines</b></p>"
            f"<table cellspacing='0' cellpadding='2' style='font-family:monospace'>{header}{body}</table>"
        )
    return "\n".join(out)


def _pct(v) -> str:
    return "–" if v is None else f"{100 * float(v):.1f}%"


PLACEHOLDER = "Drop or select a file to see what is in it."


class InspectView(QWidget):
    """Shows :attr:`session.inspection` (the file selected in the Files panel, or the last one dropped)."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.placeholder = QLabel(PLACEHOLDER, self)
        self.placeholder.setEnabled(False)
        self.placeholder.setWordWrap(True)
        self.browser = QTextBrowser(self)
        self.browser.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.placeholder)
        layout.addWidget(self.browser, 1)
        self._shown = None  # the inspection in the browser
        session.sigInspectionChanged.connect(self.refresh)
        # another file chosen: its inspection may wait for the scores (Session.request_inspection)
        session.sigFilesChanged.connect(lambda: self.refresh(session.inspection))
        session.sigStateChanged.connect(lambda: self.refresh(session.inspection))
        self.refresh(session.inspection)

    def refresh(self, inspection) -> None:
        wanted = self.session.inspected_path
        if inspection is not None and wanted and normalize(str(inspection.get("path", ""))) != wanted:
            # never another file's inspection under this one's name
            self.placeholder.setText(f"Inspecting {os.path.basename(wanted)} once the runs are scored...")
            inspection = None
        else:
            self.placeholder.setText(PLACEHOLDER)
        if inspection is None:
            if self._shown is not None or self.browser.isVisibleTo(self):  # (asked often: once is enough)
                self._shown = None
                self.browser.clear()
                self.browser.hide()
            self.placeholder.show()
            return
        self.placeholder.hide()
        self.browser.show()
        if inspection is not self._shown:
            self._shown = inspection
            self.browser.setHtml(inspection_html(inspection))

    def text(self) -> str:
        return self.browser.toPlainText()
