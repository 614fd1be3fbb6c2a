"""The measures panel: common measures to tick, free text in trec_eval or ir_measures syntax, and the
evaluation's options (relevance level, depth of the curves, nDCG's variant)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from metrics.measures import display_label, reference
from workbench.views.dialogs.help import measure_tooltip
from workbench.views.panels.diversity import DiversityMeasures, tick_names

#: the measures offered with a tick box; their labels come from the measure registry
COMMON_MEASURES = (
    "map",
    "P.5",
    "P.10",
    "P.20",
    "Rprec",
    "recip_rank",
    "bpref",
    "ndcg",
    "ndcg_cut.10",
    "ndcg_cut.20",
    "recall.100",
    "recall.1000",
    "num_rel_ret",
)


NDCG_CHOICES = (
    ("gain", (("grade (trec_eval)", "linear"), ("2^grade − 1", "exp"))),
    ("discount", (("log2(rank + 1) (trec_eval)", "log"), ("log2(rank), rank 1 undiscounted", "jk"))),
    ("ideal", (("all judged documents (trec_eval)", "all"), ("retrieved documents", "retrieved"))),
)


class MeasurePanel(QWidget):
    """Common measures to tick, a free-text field (trec_eval or ir_measures syntax) and options."""

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.list = QListWidget(self)
        entries = reference.entries()  # made once (a few milliseconds each time)
        for name in COMMON_MEASURES:
            item = QListWidgetItem(f"{display_label(name)}   [{name}]")
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setToolTip(measure_tooltip(name.split(".")[0], entries))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.extra = QLineEdit(self)
        self.extra.setPlaceholderText("more, e.g. P.30 ndcg_cut.5,100 nDCG@20 P(rel=2)@10")
        self.extra.setToolTip(
            "Measures in trec_eval syntax (map, P.5,10, ndcg_cut.10, all_trec, official) or "
            "ir_measures syntax (AP, nDCG@10, P(rel=2)@5), separated by spaces; with intent qrels loaded, "
            "diversity measures too (alpha_nDCG@10, ERR_IA@10, P_IA@5, StRecall@10, NRBP)"
        )
        self.apply_button = QPushButton("Apply", self)
        self.relevance = QSpinBox(self)
        self.relevance.setRange(-1_000_000, 1_000_000)  # trec_eval -l takes any integer
        self.relevance.setToolTip("Smallest judgment grade that counts as relevant (trec_eval -l)")
        self.relevance.setKeyboardTracking(False)

        self.ndcg_boxes: dict[str, QComboBox] = {}
        tip = (
            "nDCG variant, for the NDCG measures of the tables (then computed as ndcg_ext) "
            "and for the NDCG@k plot; the first choice is trec_eval's"
        )
        for name, choices in NDCG_CHOICES:
            box = QComboBox(self)
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(8)
            for text, value in choices:
                box.addItem(text, value)
            box.setToolTip(tip)
            box.currentIndexChanged.connect(
                lambda _, n=name, b=box: self._syncing or self.session.model.set_ndcg_option(n, b.currentData())
            )
            self.ndcg_boxes[name] = box

        extra_row = QHBoxLayout()
        extra_row.addWidget(self.extra, 1)
        extra_row.addWidget(self.apply_button)
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Relevant from grade", self.relevance)
        form.addRow("nDCG gain", self.ndcg_boxes["gain"])
        form.addRow("nDCG discount", self.ndcg_boxes["discount"])
        form.addRow("nDCG ideal", self.ndcg_boxes["ideal"])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        self.diversity = DiversityMeasures(session, self)  # shown once intent qrels are loaded
        layout.addWidget(self.diversity)
        layout.addWidget(QLabel("More measures:", self))
        layout.addLayout(extra_row)
        layout.addLayout(form)

        self.sync()
        self.list.itemChanged.connect(lambda _: self._apply_unless_syncing())
        self.diversity.sigChanged.connect(self._apply_unless_syncing)
        self.extra.returnPressed.connect(self.apply)
        self.apply_button.clicked.connect(self.apply)
        self.relevance.valueChanged.connect(lambda v: self._syncing or session.model.set_relevance_level(v))
        # whatever changed the session (a workspace opened, an undo, the command line), the panel shows it
        session.sigMeasuresChanged.connect(self.sync)

    _syncing = False

    def _apply_unless_syncing(self) -> None:
        if not self._syncing:  # (a tick set by sync is no change of the user's)
            self.apply()

    def sync(self) -> None:
        """Show the session's measures and options (the panel never keeps a state of its own)."""
        s = self.session
        self._syncing = True
        try:
            ticked = set(s.measures)
            tick_names(self.list, ticked)
            known = set(COMMON_MEASURES) | set(self.diversity.NAMES)
            self.diversity.sync(s.measures)
            extra = " ".join(m for m in s.measures if m not in known)
            if extra.split() != self.extra.text().split():
                self.extra.setText(extra)
            if self.relevance.value() != s.settings.relevance_level:
                self.relevance.setValue(s.settings.relevance_level)
            for name, box in self.ndcg_boxes.items():
                i = box.findData(s.settings.ndcg_options().get(name, box.itemData(0)))
                if i >= 0 and i != box.currentIndex():
                    box.setCurrentIndex(i)
        finally:
            self._syncing = False

    def focus_free_text(self) -> None:
        """Put the keyboard in the field for more measures."""
        self.extra.setFocus()

    def chosen(self) -> list[str]:
        out = []
        for i in range(self.list.count()):
            item = self.list.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                out.append(item.data(Qt.ItemDataRole.UserRole))
        out.extend(self.diversity.chosen())
        out.extend(self.extra.text().split())
        return out

    def apply(self) -> None:
        self.session.model.set_measures(self.chosen())
