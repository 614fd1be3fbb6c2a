"""Do the qrels in use and a qrels file held beside them rank the systems alike?  Each run's score and
rank on a measure under each, Kendall's tau and tau_AP between the two orderings, and the pairs of runs
whose order flips, each difference with its paired t-test (:func:`metrics.judgments.system_agreement`,
through :func:`workbench.state.judgments.systems`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QVBoxLayout, QWidget

from workbench.state import analyses, judgments
from workbench.views.analysis.follow import AdaptiveSplitter, AnalysisFollower, ExportButton, FrameTable, controls, pane
from workbench.views.analysis.judgments import HeldBox, sentence
from workbench.views.analysis.versus import set_items

if TYPE_CHECKING:
    from workbench.qt.session import Session


def measure_box(parent: QWidget, tip: str) -> QComboBox:
    box = QComboBox(parent)
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(6)
    box.setToolTip(tip)
    return box


def sync_measure(box: QComboBox, session: Session) -> str:
    """The measures of the results shown in ``box`` (the one chosen kept, else the measure in focus)."""
    results = session.results
    if results is not None:
        measures = list(results.measures)
        current = box.currentText()
        set_items(box, measures, current if current in measures else session.focus_measure)
    return box.currentText()


class SystemsView(QWidget):
    """Whether two qrels rank the runs alike: each run's score and rank under each, tau, tau_AP, the flips."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.held_box = HeldBox(self)
        self.measure_box = measure_box(self, "The measure the runs are scored and ranked by under each qrels")
        self.banner = QLabel(self)
        self.follower = AnalysisFollower(
            session,
            self,
            "systems",
            "systems under two qrels",
            settings=self.settings,
            banner=self.banner,
            nothing=self.held_box.nothing,
        )
        self.export = ExportButton(self, self.follower, self.table_frame, self)
        bar = controls(self, "Compare with:", self.held_box, "Measure:", self.measure_box, self.export, top=True)
        self.caption = sentence(self)
        self.scores_table = FrameTable(self)
        self.flips_table = FrameTable(self)
        self.flips_title = sentence(self)
        self.flips_part = lower = QWidget(self)
        box = QVBoxLayout(lower)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(1)
        box.addWidget(self.flips_title)
        box.addWidget(self.flips_table.view, 1)
        self.split = AdaptiveSplitter(
            Qt.Orientation.Vertical, self, share=0.55, needs=lambda: self.scores_table.view.horizontalHeader().length()
        )
        self.split.addWidget(self.scores_table.view)
        self.split.addWidget(lower)
        pane(self, [bar], self.banner, self.caption, self.split)
        for b in (self.held_box, self.measure_box):
            b.activated.connect(lambda _: self.follower.changed())
        self.follower.sigOutcome.connect(lambda _: self.refresh())
        session.sigFilesChanged.connect(self.follower.changed_if_other)
        self.refresh()

    def settings(self) -> analyses.SystemsSettings | None:
        self.held_box.sync(self.session.workspace)
        measure = sync_measure(self.measure_box, self.session)
        held = self.held_box.chosen()
        if self.session.results is None or held is None or not measure:
            return None
        return analyses.SystemsSettings(*held, measure)

    def refresh(self) -> None:
        o = self.follower.outcome
        if o is None:
            self.scores_table.show(pd.DataFrame())
            self.flips_table.show(pd.DataFrame())
            held = self.held_box.chosen()
            self.caption.setText(judgments.NO_HELD if held is None and self.session.results is not None else "")
            self.flips_title.setText("")
            self.flips_part.setVisible(False)
            return
        s = o.settings
        self.caption.setText(o.extra["verdict"])
        self.caption.setToolTip("\n".join(o.extra["notes"]))
        a = os.path.basename(o.inputs.qrels_name or "the qrels in use")
        b = os.path.basename(s.held)
        self.scores_table.model.header_tips = {
            "score_a": f"{s.measure} under the qrels in use (a: {a})",
            "rank_a": f"rank under a ({a}), 1 the best",
            "score_b": f"{s.measure} under the qrels held beside (b: {b})",
            "rank_b": f"rank under b ({b}), 1 the best",
            "query_pearson": "Pearson's r of the run's per-query scores under a and under b",
            "query_kendall": "Kendall's tau-b of the run's per-query scores under a and under b",
        }
        scores = o.tables["scores"]
        first = ["run", "score_a", "rank_a", "score_b", "rank_b"]  # (what is compared first; the export keeps
        self.scores_table.show(scores[first + [c for c in scores.columns if c not in first]])  # the core's order)
        flips = o.tables["flips"]
        self.flips_table.show(flips)
        self.flips_part.setVisible(len(flips) > 0)  # (no empty table: the sentence above says no pair flips)
        self.split.refit()
        self.flips_title.setText(
            f"<b>{len(flips)}</b> pairs of runs whose order flips (diff: run_a minus run_b; paired t-test at "
            f"{s.alpha:g})"
            if len(flips)
            else "No pair of runs flips: both qrels order every two runs alike (or tie them)."
        )

    def cell(self, run: str, column: str) -> str:
        """The text the scores table shows for ``run`` in ``column``."""
        frame = self.scores_table.frame()
        rows = frame.index[frame["run"] == run]
        return self.scores_table.text(int(rows[0]), column) if len(rows) else ""

    def table_frame(self) -> pd.DataFrame | None:
        """The CSV export: each run's score and rank under each qrels (tau and tau_AP stated above it)."""
        o = self.follower.outcome
        return None if o is None else o.tables["scores"]
