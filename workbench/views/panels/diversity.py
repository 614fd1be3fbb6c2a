"""The Measures panel's diversity measures: tick boxes for the TREC Web track's ones, shown once intent qrels
(``qid intent docid grade``) are loaded, or while a diversity measure is chosen (:mod:`workbench.scoring.intents`)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from workbench.scoring import intents as diversity


def tick_names(box, chosen) -> None:
    """Tick the items of the list ``box`` whose name (their user data) is in ``chosen``, untick the others;
    an item already right is left alone (no itemChanged signal)."""
    for i in range(box.count()):
        item = box.item(i)
        state = Qt.CheckState.Checked if item.data(Qt.ItemDataRole.UserRole) in chosen else Qt.CheckState.Unchecked
        if item.checkState() != state:
            item.setCheckState(state)


class DiversityMeasures(QWidget):
    """Tick boxes for :data:`workbench.scoring.intents.DEFAULTS`; enabled while intent qrels are in use.
    Other diversity names (``alpha_nDCG@10``) are typed with the other measures."""

    sigChanged = Signal()  # the user ticked or unticked one

    NAMES = diversity.DEFAULTS

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.title = QLabel("Diversity measures (intent qrels):", self)
        self.list = QListWidget(self)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        for name in self.NAMES:
            item = QListWidgetItem(f"{diversity.label(name)}   [{name}]")
            item.setData(Qt.ItemDataRole.UserRole, name)
            item.setToolTip(diversity.tip(name))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            self.list.addItem(item)
        rows = self.list.sizeHintForRow(0) * len(self.NAMES) + 2 * self.list.frameWidth() + 2
        self.list.setFixedHeight(rows)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.list)
        self._syncing = False
        self.list.itemChanged.connect(lambda _: self._changed())
        session.sigFilesChanged.connect(self.refresh)
        self.refresh()

    def _changed(self) -> None:
        if not self._syncing:  # (a tick set by refresh is no change of the user's)
            self.sigChanged.emit()

    def sync(self, measures) -> None:
        """Tick the names among ``measures`` (the session's)."""
        chosen = set(measures)
        self._syncing = True
        try:
            tick_names(self.list, chosen)
        finally:
            self._syncing = False
        self.refresh()

    def refresh(self) -> None:
        """Shown with intent qrels in use (enabled) or while a diversity measure is chosen (disabled: it is
        computed once intent qrels are loaded)."""
        entry = self.session.workspace.intents_entry()
        chosen = bool(diversity.split(self.session.measures)[1])
        self.setVisible(entry is not None or chosen)
        self.list.setEnabled(entry is not None)
        if entry is not None:
            tip = f"Scored against {entry.name}. " + entry.intents.details()
        else:
            tip = "Computed once intent qrels (qid intent docid grade) are loaded"
        self.title.setText(
            "Diversity measures (intent qrels):" if entry is not None else "Diversity measures (no intent qrels):"
        )
        self.title.setToolTip(tip)

    def chosen(self) -> list[str]:
        return [
            self.list.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(self.list.count())
            if self.list.item(i).checkState() == Qt.CheckState.Checked
        ]
