"""Judgment coverage: each run's Judged@10 (and Judged@k at the cutoffs of the measures shown), a warning
for a run well below the others, the unjudged documents of each query (the holes) and, one click away,
the scores on the condensed lists (trec_eval's ``-J``) beside the scores as evaluated.

Clicking a query in the holes list selects it in the session (its drill-down opens).
"""

from __future__ import annotations

from html import escape as esc
from typing import TYPE_CHECKING

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.state import analyses
from workbench.views.analysis.follow import (
    WARNING_STYLE,
    AdaptiveSplitter,
    AnalysisFollower,
    ExportButton,
    FrameTable,
    pane,
)

if TYPE_CHECKING:
    from workbench.qt.session import Session


class CoverageView(QWidget):
    """Judged@k per run, the warning, the holes per query of one run, the condensed scores."""

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.gap_box = QDoubleSpinBox(self)
        self.gap_box.setRange(0.0, 1.0)
        self.gap_box.setSingleStep(0.05)
        self.gap_box.setDecimals(2)
        self.gap_box.setValue(analyses.CoverageSettings().gap)
        self.gap_box.setToolTip(
            "A run is flagged when its mean Judged@10 is more than this below the median of the other runs'"
        )
        self.condensed_button = QToolButton(self)
        self.condensed_button.setText("-J scores")
        self.condensed_button.setCheckable(True)
        self.condensed_button.setToolTip(
            "Each measure scored again with the unjudged documents dropped and the ranks closed up "
            "(trec_eval -J), beside the score as evaluated"
        )
        self.banner = QLabel(self)
        self.follower = AnalysisFollower(
            session, self, "coverage", "judgment coverage", settings=self.settings, banner=self.banner
        )
        self.export = ExportButton(self, self.follower, self.table_frame, self)
        bar = QHBoxLayout()
        bar.setContentsMargins(4, 2, 4, 0)
        bar.addWidget(QLabel("Gap:", self))
        bar.addWidget(self.gap_box)
        bar.addWidget(self.condensed_button)
        bar.addStretch(1)
        bar.addWidget(self.export)

        self.warning = QLabel(self)
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet(WARNING_STYLE)
        self.warning.hide()
        self.runs = FrameTable(self, decimals=3)
        self.runs_table = self.runs.view
        self.runs_table.setToolTip("Click a run to list its holes")
        self.run_box = QComboBox(self)
        self.run_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.run_box.setMinimumContentsLength(6)
        self.run_box.setToolTip("Run whose unjudged documents are listed")
        self.holes_caption = QLabel(self)
        self.holes = FrameTable(self, decimals=3)
        self.holes_table = self.holes.view
        self.holes_table.setToolTip("Click a query to select it (its drill-down opens)")
        lower = QWidget(self)
        box = QVBoxLayout(lower)
        box.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel("Holes of:", self))
        row.addWidget(self.run_box)
        row.addWidget(self.holes_caption, 1)
        box.addLayout(row)
        box.addWidget(self.holes_table, 1)
        split = AdaptiveSplitter(Qt.Orientation.Vertical, self, share=0.45)
        split.addWidget(self.runs_table)
        split.addWidget(lower)
        self.condensed = FrameTable(self)
        self.condensed_table = self.condensed.view
        self.pages = QStackedWidget(self)
        self.pages.addWidget(split)
        self.pages.addWidget(self.condensed_table)
        pane(self, [bar], self.banner, self.warning, self.pages)

        self.gap_box.valueChanged.connect(lambda _: self.follower.changed())
        self.condensed_button.toggled.connect(self._show_condensed)
        self.runs_table.clicked.connect(self._on_run_row)
        self.run_box.activated.connect(lambda _: self.refresh_holes())
        self.holes_table.clicked.connect(self._on_hole_row)
        self.follower.sigOutcome.connect(lambda _: self.refresh())
        self.refresh()

    def settings(self) -> analyses.CoverageSettings | None:
        results = self.session.results
        if results is None or not results.runs:
            return None
        return analyses.CoverageSettings(analyses.coverage_cutoffs(results.measures), round(self.gap_box.value(), 4))

    def refresh(self) -> None:
        o = self.follower.outcome
        if o is None:
            for table in (self.runs, self.holes, self.condensed):
                table.show(pd.DataFrame())
            self.warning.hide()
            self.run_box.clear()
            return
        summary = o.tables["coverage"]
        shown = summary.rename(columns={"others": "median of the others", "below_others": "flagged"})
        self.runs.show(shown.assign(flagged=shown["flagged"].map({True: "yes", False: ""})))
        first = f"Judged@{o.settings.cutoffs[0]}"
        flagged = summary[summary["below_others"]]
        lines = [
            f"<b>{esc(str(r['run']))}</b>: {first} {r[first]:.2f} against {r['others']:.2f} for the other runs. "
            f"{analyses.UNDERESTIMATED[0].upper()}{analyses.UNDERESTIMATED[1:]}."
            for _, r in flagged.iterrows()
        ]
        self.warning.setText("<br>".join(lines))
        self.warning.setVisible(bool(lines))
        self.runs_table.setToolTip(
            "Judged@k: the fraction of the first k documents the qrels judge, the mean over the run's queries "
            f"(k = {', '.join(str(k) for k in o.settings.cutoffs)}: 10 and the cutoffs of the measures shown). "
            "Click a run to list its holes."
        )
        condensed = o.tables["condensed"].rename(columns={"value": "as evaluated", "condensed": "condensed (-J)"})
        self.condensed.show(condensed)
        current = self.run_box.currentText()
        runs = list(summary["run"])
        self.run_box.clear()
        self.run_box.addItems(runs)
        if current in runs:
            self.run_box.setCurrentText(current)
        elif len(flagged):
            self.run_box.setCurrentText(str(flagged["run"].iloc[0]))
        self.refresh_holes()

    def warning_text(self) -> str:
        return self.warning.text() if self.warning.isVisibleTo(self) else ""

    def refresh_holes(self) -> None:
        o = self.follower.outcome
        if o is None:
            return
        run = self.run_box.currentText()
        per_query = o.tables["by_query"]
        per_query = per_query[per_query["run"] == run].drop(columns=["run"])
        k = o.settings.cutoffs[0]
        holes = o.tables["holes"]
        holes = holes[(holes["run"] == run) & (holes["rank"] <= k)]
        pairs = holes["rank"].astype(str) + ":" + holes["doc_id"].astype(str)
        listed = pairs.groupby(holes["query_id"].to_numpy(), sort=False).agg(" ".join)
        unjudged = f"unjudged@{k}"
        first = ["query_id", unjudged, f"holes@{k}"]
        per_query = per_query.assign(**{f"holes@{k}": per_query["query_id"].map(listed).fillna("")})
        per_query = per_query[first + [c for c in per_query.columns if c not in first]]
        per_query = per_query.sort_values(unjudged, ascending=False, kind="stable").reset_index(drop=True)
        self.holes.show(per_query)
        with_holes = int((per_query[unjudged] > 0).sum())
        self.holes_caption.setText(f"{with_holes}/{len(per_query)} queries")
        self.holes_caption.setToolTip(
            f"{with_holes} of {len(per_query)} queries have unjudged documents in the top {k} (listed as "
            "rank:document), the most first; click a query to select it"
        )

    def _on_run_row(self, index) -> None:
        row = self.runs.row(index)
        if row is not None:
            self.run_box.setCurrentText(str(row["run"]))
            self.refresh_holes()

    def _on_hole_row(self, index) -> None:
        row = self.holes.row(index)
        if row is not None:
            self.session.model.select_query(str(row["query_id"]))

    def _show_condensed(self, on: bool) -> None:
        self.pages.setCurrentIndex(1 if on else 0)

    def table_frame(self) -> pd.DataFrame | None:
        """The CSV export: with the condensed scores shown, those; else a row per run and query
        (Judged@k, unjudged@k) and each run's ``all`` row (its means and whether it is flagged)."""
        o = self.follower.outcome
        if o is None:
            return None
        if self.condensed_button.isChecked():
            return o.tables["condensed"]
        alls = o.tables["coverage"].drop(columns=["queries", "others"]).assign(query_id="all")
        return pd.concat([o.tables["by_query"], alls], ignore_index=True).rename(columns={"query_id": "query"})
