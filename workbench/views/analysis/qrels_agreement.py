"""Do the qrels in use and a qrels file held beside them agree?  On the (query, document) pairs both
judge: the overall numbers (Cohen's kappa, unweighted and linearly weighted, Krippendorff's alpha, the
pairs judged by one only), the grade-by-grade confusion matrix, and the queries that disagree most
(:func:`metrics.judgments.compare`, through :func:`workbench.state.judgments.qrels_agreement`)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QTabWidget, QVBoxLayout, QWidget

from workbench.state import analyses, judgments
from workbench.views.analysis.follow import AdaptiveSplitter, AnalysisFollower, ExportButton, FrameTable, controls, pane
from workbench.views.analysis.judgments import HeldBox, sentence

if TYPE_CHECKING:
    from workbench.qt.session import Session


def _titled(parent: QWidget, title: QLabel, table: FrameTable) -> QWidget:
    part = QWidget(parent)
    box = QVBoxLayout(part)
    box.setContentsMargins(0, 0, 0, 0)
    box.setSpacing(1)
    box.addWidget(title)
    box.addWidget(table.view, 1)
    return part


class QrelsAgreementView(QWidget):
    """How far the qrels in use and a qrels held beside agree on the pairs both judged."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.held_box = HeldBox(self)
        self.banner = QLabel(self)
        self.follower = AnalysisFollower(
            session,
            self,
            "qrels_agreement",
            "qrels agreement",
            settings=self.settings,
            banner=self.banner,
            nothing=self.held_box.nothing,
            without_scores=lambda: analyses.qrels_inputs(session.workspace, session.model.settings),
        )
        self.export = ExportButton(self, self.follower, self.table_frame, self)
        bar = controls(self, "Compare with:", self.held_box, self.export, top=True)
        self.caption = sentence(self)
        self.summary = QLabel(self)  # the overall numbers: a short table of text, wrapped (never scrolled)
        self.summary.setWordWrap(True)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.summary.setMinimumWidth(self.fontMetrics().horizontalAdvance("0" * 30))
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._summary: dict[str, str] = {}
        self.confusion_table = FrameTable(self)
        self.confusion_table.view.setToolTip("Pairs judged by both: the grade in use (a) down, the other's (b) across")
        self.disputed_table = FrameTable(self)
        self.disputed_table.view.setToolTip(
            "The queries that disagree most: the least share of pairs graded alike (– where kappa or alpha is "
            "not computable: every pair of the query has one grade on both sides)"
        )
        self.confusion_title = sentence(self)
        self.disputed_title = sentence(self)
        confusion = _titled(self, self.confusion_title, self.confusion_table)
        numbers = QScrollArea(self)  # (a short pane scrolls the numbers rather than cut them)
        numbers.setWidgetResizable(True)
        numbers.setFrameShape(QFrame.Shape.NoFrame)
        numbers.setWidget(self.summary)
        # the overall numbers beside the confusion matrix (one above the other in a narrow pane); the
        # queries that disagree most on a page of their own: a short dock shows each whole
        self.overall = AdaptiveSplitter(Qt.Orientation.Horizontal, self, share=0.5, needs=self.summary.minimumWidth)
        self.overall.addWidget(numbers)
        self.overall.addWidget(confusion)
        self.pages = QTabWidget(self)
        self.pages.setDocumentMode(True)
        self.pages.addTab(self.overall, "Overall")
        self.pages.addTab(_titled(self, self.disputed_title, self.disputed_table), "Queries that disagree most")
        pane(self, [bar], self.banner, self.caption, self.pages)
        self.held_box.activated.connect(lambda _: self.follower.changed())
        self.follower.sigOutcome.connect(lambda _: self.refresh())
        session.sigFilesChanged.connect(self.follower.changed_if_other)
        self.refresh()

    def settings(self) -> analyses.QrelsAgreementSettings | None:
        self.held_box.sync(self.session.workspace)
        held = self.held_box.chosen()
        a = judgments.qrels_in_use(self.session.results, self.session.workspace)
        if held is None or a is None:
            return None
        return analyses.QrelsAgreementSettings(*held, qrels=a[0], qrels_version=a[1])

    def refresh(self) -> None:
        o = self.follower.outcome
        if o is None:
            for table in (self.confusion_table, self.disputed_table):
                table.show(pd.DataFrame())
            self._summary = {}
            self.summary.setText("")
            held = self.held_box.chosen()
            in_use = self.session.workspace.qrels_entry() is not None
            self.caption.setText(judgments.NO_HELD if held is None and in_use else "")
            self.confusion_title.setText("")
            self.disputed_title.setText("")
            return
        self.caption.setText(o.extra["verdict"])
        summary = o.tables["summary"]
        self._summary = dict(zip(summary["what"], summary["value"]))
        rows = "".join(
            f"<tr><td>{html.escape(what)}</td><td>&nbsp;<b>{html.escape(value)}</b></td></tr>"
            for what, value in self._summary.items()
        )
        self.summary.setText(f"<table cellspacing='1'>{rows}</table>")
        self.confusion_table.show(o.tables["confusion"])
        self.confusion_title.setText("<b>Confusion</b> (a down, b across)")
        disputed = o.tables["disputed"]
        self.disputed_table.show(disputed)
        self.disputed_title.setText(
            f"The <b>{len(disputed)}</b> queries with the least share of pairs graded alike (–: not computable)"
            if len(disputed)
            else "No query has a pair judged by both."
        )
        self.overall.refit()

    def summary_text(self, what: str) -> str:
        """The value the overall numbers show for ``what`` ("Cohen's kappa"...): "" when they do not show it."""
        value = self._summary.get(what)
        if value is None:
            return ""
        shown = f"<td>{html.escape(what)}</td><td>&nbsp;<b>{html.escape(value)}</b></td>"
        return value if shown in self.summary.text() else ""

    def table_frame(self) -> pd.DataFrame | None:
        """The CSV export: the agreement per query, after the row ``all`` over every pair."""
        o = self.follower.outcome
        return None if o is None else o.tables["export"]
