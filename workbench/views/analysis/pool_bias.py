"""Is the pool biased towards the runs that built it?  Leave-one-run-out (Zobel 1998) over the runs
shown: each run scored again without the relevant documents only it put in the pool, the change of its
score and of its rank among the others, its own relevant documents and its Judged@k
(:func:`metrics.judgments.leave_one_out`, through :func:`workbench.state.judgments.pool_bias`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
from PySide6.QtWidgets import QLabel, QLineEdit, QSpinBox, QWidget

from workbench.state import analyses
from workbench.views.analysis.follow import AnalysisFollower, ExportButton, FrameTable, controls, pane
from workbench.views.analysis.judgments import sentence
from workbench.views.analysis.systems import measure_box, sync_measure

if TYPE_CHECKING:
    from workbench.qt.session import Session


class PoolBiasView(QWidget):
    """Leave-one-run-out: how each run's score and rank change without the relevant documents only it found."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.measure_box = measure_box(self, "The measure each run is scored on, with and without its own documents")
        self.depth_box = QSpinBox(self)
        self.depth_box.setRange(1, 10000)
        self.depth_box.setValue(100)
        self.depth_box.setToolTip("The pool: the first K documents of every run (trec_eval's order)")
        self.group_box = QLineEdit(self)
        self.group_box.setPlaceholderText("each run alone")
        self.group_box.setMaxLength(8)
        self.group_box.setToolTip(
            "Runs whose labels agree up to the first of these characters are one group, left out together "
            "(one team's runs: “_” makes bm25_a and bm25_b one group); empty: each run alone"
        )
        self.group_box.setMaximumWidth(self.fontMetrics().horizontalAdvance("0" * 14))
        self.banner = QLabel(self)
        self.follower = AnalysisFollower(
            session, self, "pool_bias", "pool bias", settings=self.settings, banner=self.banner
        )
        self.export = ExportButton(self, self.follower, self.table_frame, self)
        bar = controls(self, "Measure:", self.measure_box, "Pool depth:", self.depth_box, self.export, top=True)
        groups = controls(self, "Group runs by their label up to:", self.group_box)
        groups.addStretch(1)
        self.caption = sentence(self)
        self.table = FrameTable(self)
        pane(self, [bar, groups], self.banner, self.caption, self.table.view)
        self.measure_box.activated.connect(lambda _: self.follower.changed())
        self.depth_box.valueChanged.connect(lambda _: self.follower.changed())
        self.group_box.editingFinished.connect(self.follower.changed)
        self.follower.sigOutcome.connect(lambda _: self.refresh())
        self.refresh()

    def settings(self) -> analyses.PoolSettings | None:
        measure = sync_measure(self.measure_box, self.session)
        if self.session.results is None or not measure:
            return None
        return analyses.PoolSettings(measure, self.depth_box.value(), group_sep=self.group_box.text())

    def refresh(self) -> None:
        o = self.follower.outcome
        if o is None:
            self.table.show(pd.DataFrame())
            self.caption.setText("")
            return
        s = o.settings
        self.table.model.header_tips = {
            "unique_relevant": f"relevant documents in the run's first {s.depth} that no other run (group) pooled",
            "removed": "judgments taken out of the qrels to score it left out",
            "score": f"{s.measure} on the full qrels",
            "score_loo": f"{s.measure} without its own relevant documents",
            "change": "score_loo minus score",
            "rank": "its rank among the runs on the full qrels",
            "rank_loo": "its rank, left out, among the other runs on the full qrels",
        }
        self.caption.setText(o.extra["verdict"])
        self.caption.setToolTip("\n".join(o.extra["notes"]))
        runs = o.tables["runs"]
        # what changes first; the groups (and the judgments their runs' own) only where runs are grouped
        first = ["run", "score", "score_loo", "change", "rank", "rank_loo", "unique_relevant"]
        alone = () if s.group_sep else ("group", "removed")
        self.table.show(runs[first + [c for c in runs.columns if c not in first and c not in alone]])

    def cell(self, run: str, column: str) -> str:
        frame = self.table.frame()
        rows = frame.index[frame["run"] == run]
        return self.table.text(int(rows[0]), column) if len(rows) else ""

    def table_frame(self) -> pd.DataFrame | None:
        """The CSV export: every run with and without its own relevant documents."""
        o = self.follower.outcome
        return None if o is None else o.tables["runs"]
