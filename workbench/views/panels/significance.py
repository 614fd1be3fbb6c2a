"""The significance controls: test, alpha and correction of the comparison with the baseline.

The panel only edits the session's comparison settings; the comparison itself
is computed in a worker (see :mod:`workbench.state.significance`).
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from workbench.state.significance import ALPHAS, CORRECTIONS, MODES, PAIRS_ONLY, TESTS


class SignificancePanel(QWidget):
    """``Test [t-test] α [0.05] Correction [Holm]`` in one row (fits a toolbar)."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.mode_box = QComboBox(self)
        for code, text in MODES.items():
            self.mode_box.addItem(text, code)
        self.mode_box.setToolTip(
            "Compare every run with the baseline (marks † ‡), or every pair of runs "
            "(letters: the runs a value is significantly better than)"
        )
        self.test_box = QComboBox(self)
        for code, text in TESTS.items():
            self.test_box.addItem(text, code)
        self.test_box.setToolTip(
            "Paired test, query by query (two-sided): t-test, Wilcoxon signed-rank, randomization "
            "(permutation) test; for all pairs also the bootstrap test and the randomised Tukey HSD"
        )
        self.alpha_box = QComboBox(self)
        for a in ALPHAS:
            self.alpha_box.addItem(f"{a:g}", a)
        self.alpha_box.setToolTip("Significance level: a difference is marked when its corrected p-value is at most α")
        self.correction_box = QComboBox(self)
        for code, text in CORRECTIONS.items():
            self.correction_box.addItem(text, code)
        self.correction_box.setToolTip(
            "Correction for testing every run on every measure: none, Bonferroni, Holm "
            "(both control the family-wise error) or Benjamini-Hochberg (false discovery rate)"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.setSpacing(4)
        layout.addWidget(QLabel("Significance:", self))
        layout.addWidget(self.mode_box)
        layout.addWidget(self.test_box)
        layout.addWidget(QLabel(" α", self))
        layout.addWidget(self.alpha_box)
        layout.addWidget(QLabel(" Correction", self))
        layout.addWidget(self.correction_box)

        self.sync()
        self.mode_box.activated.connect(lambda i: self._set_mode(self.mode_box.itemData(i)))
        self.test_box.activated.connect(lambda i: self._set_test(self.test_box.itemData(i)))
        followups = session.followups
        self.alpha_box.activated.connect(lambda i: followups.set_compare_settings(alpha=self.alpha_box.itemData(i)))
        self.correction_box.activated.connect(
            lambda i: followups.set_compare_settings(correction=self.correction_box.itemData(i))
        )
        session.sigCompareSettingsChanged.connect(self.sync)

    def _set_mode(self, mode: str) -> None:
        test = self.session.compare_settings.test
        test = "t" if mode == "baseline" and test in PAIRS_ONLY else test
        self.session.followups.set_compare_settings(mode=mode, test=test)

    def _set_test(self, test: str) -> None:
        if test in PAIRS_ONLY:  # these compare every pair
            self.session.followups.set_compare_settings(test=test, mode="pairs")
        else:
            self.session.followups.set_compare_settings(test=test)

    def sync(self) -> None:
        """Show the session's settings."""
        s = self.session.compare_settings
        self.correction_box.setEnabled(s.test != "tukey")  # the HSD controls the family-wise error itself
        for box, value in (
            (self.mode_box, s.mode),
            (self.test_box, s.test),
            (self.alpha_box, s.alpha),
            (self.correction_box, s.correction),
        ):
            i = box.findData(value)
            if i < 0 and box is self.alpha_box:
                box.addItem(f"{value:g}", value)
                i = box.count() - 1
            if i >= 0 and i != box.currentIndex():
                box.setCurrentIndex(i)
