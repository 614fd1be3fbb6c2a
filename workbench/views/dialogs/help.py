"""Help: the measure reference (generated from the measure registry), keyboard shortcuts, About."""

from __future__ import annotations

import html
import platform

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLineEdit, QTextBrowser, QVBoxLayout, QWidget

from metrics.measures import reference

SHORTCUTS = (
    ("F1", "Measure reference (this help)"),
    ("Ctrl+O", "Open files"),
    ("Ctrl+S", "Save the workspace"),
    ("Ctrl+F", "Filter the per-query table by query ids"),
    ("Ctrl+M", "Type more measures"),
    ("Ctrl+E, Enter", "Explain the current value of the per-query table or the summary"),
    ("Ctrl+C", "Copy the selected cells of a table (tab-separated, full precision)"),
    ("Ctrl+A", "Select the whole table"),
    ("Delete", "Remove the selected file (Files panel)"),
    ("Ctrl+Z", "Undo the last removal of a file"),
    ("Left / Right", "Previous / next query in the per-query difference chart"),
    ("Esc", "Show the mean over queries"),
    ("Ctrl+Q", "Quit"),
)


def versions() -> list[tuple[str, str]]:
    from importlib import metadata  # (with the email package: 20 ms, for About only, not at start)

    out = []
    for dist in ("ir-workbench", "numpy", "pandas", "pyarrow", "scipy", "pyqtgraph", "PySide6-Essentials"):
        try:
            out.append((dist, metadata.version(dist)))
        except metadata.PackageNotFoundError:
            out.append((dist, "not installed"))
    from PySide6 import QtCore

    out.append(("Qt", QtCore.qVersion()))
    out.append(("Python", platform.python_version()))
    return out


def shortcuts_html() -> str:
    rows = "".join(f"<tr><td><b>{html.escape(k)}</b></td><td>{html.escape(v)}</td></tr>" for k, v in SHORTCUTS)
    return f"<h2>Keyboard shortcuts</h2><table cellpadding='3'>{rows}</table>"


def about_html() -> str:
    rows = "".join(f"<tr><td>{html.escape(k)}</td><td>{html.escape(v)}</td></tr>" for k, v in versions())
    return (
        "<h2>ir-workbench</h2><p>Information-retrieval evaluation: trec_eval 10.0's measures, exact to "
        "the last digit, in a window and on the command line (<code>ir-eval</code>).</p>"
        f"<table cellpadding='3'>{rows}</table>"
    )


class HelpDialog(QDialog):
    """The measure reference with a search box; also shows the shortcuts or About."""

    def __init__(self, parent: QWidget | None = None, page: str = "measures"):
        super().__init__(parent)
        self.setWindowTitle("ir-workbench help")
        self.resize(760, 640)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Find a measure (name, ir_measures name or words of its description)…")
        self.search.setClearButtonEnabled(True)
        self.browser = QTextBrowser(self)
        self.browser.setOpenExternalLinks(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        self._entries = reference.entries()
        self.search.textChanged.connect(self._filter)
        self.show_page(page)

    def show_page(self, page: str) -> None:
        self.search.setVisible(page == "measures")
        if page == "shortcuts":
            self.browser.setHtml(shortcuts_html())
        elif page == "about":
            self.browser.setHtml(about_html())
        else:
            self._filter(self.search.text())

    def _filter(self, text: str) -> None:
        words = text.lower().split()

        def hit(e) -> bool:
            hay = " ".join((e.family, *e.trec_names, *e.ir_measures, e.doc)).lower()
            return all(w in hay for w in words)

        shown = [e for e in self._entries if hit(e)]
        intro = (
            "<h2>Measures</h2><p>Every measure of trec_eval 10.0 and its ir_measures name. Type any of "
            "these names in the Measures panel (<code>P.5,10</code>, <code>ndcg_cut.10</code>, "
            "<code>nDCG@10</code>, <code>P(rel=2)@5</code>).</p>"
        )
        body = reference.to_html(shown) if shown else f"<p>No measure matches “{html.escape(text)}”.</p>"
        self.browser.setHtml(intro + body)
        self.browser.moveCursor(self.browser.textCursor().MoveOperation.Start)

    def text(self) -> str:
        return self.browser.toPlainText()


def measure_tooltip(name: str, entries: list | None = None) -> str:
    """One line about a measure family, for tooltips (empty when unknown); ``entries``: those of
    :func:`metrics.measures.reference.entries`, made once for many tooltips."""
    for e in reference.entries() if entries is None else entries:
        if e.family == name or name in e.trec_names or name in e.ir_measures:
            first = e.doc.split(". ")[0].rstrip(".")
            return f"{e.family}: {first}." + (
                f" (ir_measures: {', '.join(e.ir_measures[:2])})" if e.ir_measures else ""
            )
    return ""
