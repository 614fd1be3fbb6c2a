"""Where to look first: the queries ranked by how much two runs differ (run A, the baseline by default,
against a run B chosen), by the per-query difference of a measure (B less A, the largest either way
first) or by an unsupervised contrast of their top documents (RBO or tau_AP, no qrels needed; the lowest
first), as diffir ranks them.  A click on a query opens the drill-down on it with A's and B's lists side
by side.  Computed in a worker (:func:`workbench.state.analyses.compute`, kind ``contrast``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QSizePolicy, QSpinBox, QWidget

from workbench.state import analyses
from workbench.views.analysis.follow import AnalysisFollower, ExportButton, FrameTable, controls, pane
from workbench.views.analysis.versus import _combo, set_items

if TYPE_CHECKING:
    from workbench.qt.session import Session

#: the contrasts offered before the measures, as the box names them
BY_TEXT = {text: key for key, text in analyses.CONTRAST_BY.items()}


class ContrastView(QWidget):
    """Where to look first: the queries ranked by how much two runs differ; a click opens them side by side."""

    #: a query opened in the drill-down (its lists of A and B side by side)
    sigQueryOpened = Signal(str)

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.by_box = _combo(
            self,
            "How much the runs differ on a query: a measure's per-query difference (B less A), or the "
            "overlap of their top documents (RBO, tau_AP: no qrels needed)",
        )
        self.depth_box = QSpinBox(self)
        self.depth_box.setRange(1, 1000)
        self.depth_box.setValue(10)
        self.depth_box.setPrefix("top ")
        self.depth_box.setKeyboardTracking(False)
        self.depth_box.setToolTip("Documents of each run compared by RBO and tau_AP")
        self.a_box = _combo(self, "Run A: the baseline by default")
        self.b_box = _combo(self, "Run B: the run compared with A")
        self.banner = QLabel(self)
        self.follower = AnalysisFollower(
            session, self, "contrast", "where to look first", settings=self.settings, banner=self.banner
        )
        self.table = FrameTable(self)
        self.table.view.setToolTip("Click a query to see A's and B's ranked lists side by side in the drill-down")
        self.export = ExportButton(self, self.follower, self.table_frame, self.table.view)
        bar = controls(self, "By:", self.by_box, self.depth_box, self.export, top=True)
        pair = controls(self, "A:", self.a_box, "B:", self.b_box)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        pane(self, [bar, pair], self.banner, self.caption, self.table.view)

        for box in (self.by_box, self.a_box, self.b_box):
            box.activated.connect(lambda _: self.follower.changed())
        self.depth_box.valueChanged.connect(lambda _: self.follower.changed())
        self.table.view.clicked.connect(self._on_click)
        self.follower.sigOutcome.connect(lambda _: self.refresh())
        session.sigFilesChanged.connect(self.follower.changed)  # (query texts loaded: shown beside the queries)
        self.refresh()

    # -- the choices ----------------------------------------------------------------------------
    def _sync_choices(self) -> None:
        """The contrasts and measures of the results shown (the measure in focus at first); A the
        baseline (else the first run), B the first other run."""
        results = self.session.results
        if results is None:
            return
        choices = [*BY_TEXT, *results.measures]
        current = self.by_box.currentText()
        set_items(self.by_box, choices, current if current in choices else self.session.focus_measure)
        runs = list(results.runs)
        a, b = self.a_box.currentText(), self.b_box.currentText()
        if a not in runs:
            baseline = self.session.model.workspace.baseline_label()
            a = baseline if baseline in runs else (runs[0] if runs else "")
        if b not in runs or b == a:
            b = next((r for r in runs if r != a), "")
        set_items(self.a_box, runs, a)
        set_items(self.b_box, runs, b)

    def settings(self) -> analyses.ContrastSettings | None:
        self._sync_choices()
        results = self.session.results
        text, a, b = self.by_box.currentText(), self.a_box.currentText(), self.b_box.currentText()
        by = BY_TEXT.get(text, text)
        self.depth_box.setEnabled(by in analyses.CONTRAST_BY)
        if results is None or len(results.runs) < 2 or not by or not a or not b or a == b:
            return None
        depth = self.depth_box.value() if by in analyses.CONTRAST_BY else 10
        return analyses.ContrastSettings(by, a, b, depth)

    def choose(
        self, by: str | None = None, a: str | None = None, b: str | None = None, depth: int | None = None
    ) -> None:
        """Rank the queries by ``by`` (``"rbo"``, ``"tau_ap"`` or a measure) for ``a`` against ``b``, to
        ``depth`` (each left as it is when None)."""
        if depth is not None:
            self.depth_box.blockSignals(True)
            self.depth_box.setValue(depth)
            self.depth_box.blockSignals(False)
        by_text = analyses.CONTRAST_BY.get(by, by) if by is not None else None
        for box, value in ((self.by_box, by_text), (self.a_box, a), (self.b_box, b)):
            if value is not None:
                box.setCurrentText(value)
        self.follower.changed()

    # -- what is shown ----------------------------------------------------------------------------
    def refresh(self) -> None:
        o = self.follower.outcome
        if o is None:
            self.table.show(pd.DataFrame(columns=["#", "query"]))
            self.caption.setText("Two runs are needed to compare them." if self.session.results else "")
            return
        s: analyses.ContrastSettings = o.settings
        self.table.show(self.shown_frame())
        if s.unsupervised:
            how = f"{analyses.CONTRAST_BY[s.by]} of their top {s.depth} (the lowest first)"
        else:
            how = f"{s.by}, B less A (the largest difference either way first)"
        n = len(o.tables["contrast"])
        self.caption.setText(
            f"{n} queries both runs answer, by {how}: A = <b>{s.run_a}</b>, B = <b>{s.run_b}</b>. "
            "Click a query to read both lists side by side."
        )

    def _value_name(self, s: analyses.ContrastSettings) -> str:
        return analyses.CONTRAST_BY[s.by] if s.unsupervised else f"Δ {s.by}"

    def shown_frame(self) -> pd.DataFrame:
        """The rows shown: ``#`` (1 the most different), ``query``, the contrast's value (``RBO``,
        ``tau_AP`` or ``Δ <measure>``, with ``A`` and ``B``'s values for a measure), and ``text`` when
        query texts are loaded."""
        o = self.follower.outcome
        if o is None:
            return pd.DataFrame(columns=["#", "query"])
        s, f = o.settings, o.tables["contrast"]
        out = pd.DataFrame({"#": f["rank"].to_numpy(), "query": f["query_id"].astype(str).to_numpy()})
        out[self._value_name(s)] = f["value"].to_numpy(dtype=float)
        if not s.unsupervised:
            out["A"] = f["a"].to_numpy(dtype=float)
            out["B"] = f["b"].to_numpy(dtype=float)
        if f["text"].astype(bool).any():
            out["text"] = f["text"].to_numpy(dtype=object)
        return out

    def queries(self) -> list[str]:
        """The queries in the order shown (a sort of the table reorders them)."""
        return [str(q) for q in self.table.frame()["query"]] if "query" in self.table.frame() else []

    def _on_click(self, index) -> None:
        row = self.table.row(index)
        o = self.follower.outcome
        if row is None or o is None:
            return
        self.open_query(str(row["query"]))

    def open_query(self, query_id: str) -> None:
        """The drill-down on ``query_id`` with the lists of A and B (those of the ranking shown) side by side."""
        o = self.follower.outcome
        if o is None:
            return
        s: analyses.ContrastSettings = o.settings
        self.session.followups.show_drilldown_runs([s.run_a, s.run_b])
        self.session.model.select_query(query_id)
        self.sigQueryOpened.emit(query_id)  # (the drill-down comes forward, the query chosen already or not)

    def pair(self) -> tuple[str, str] | None:
        """The runs (A, B) of the ranking shown, if any."""
        o = self.follower.outcome
        return None if o is None else (o.settings.run_a, o.settings.run_b)

    def table_frame(self) -> pd.DataFrame | None:
        """The CSV export: ``rank, query, run_a, run_b, by, value`` (and each run's value for a measure)."""
        o = self.follower.outcome
        if o is None:
            return None
        s, f = o.settings, o.tables["contrast"]
        out = pd.DataFrame({"rank": f["rank"], "query": f["query_id"], "run_a": s.run_a, "run_b": s.run_b, "by": s.by})
        out["value"] = f["value"]
        if not s.unsupervised:
            out["value_a"], out["value_b"] = f["a"], f["b"]
        return out
