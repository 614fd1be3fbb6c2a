"""What the judgments' views share (:mod:`~workbench.views.analysis.qrels_agreement`,
:mod:`~workbench.views.analysis.systems`, :mod:`~workbench.views.analysis.pool_bias`): the box that
chooses which qrels held beside the ones in use is compared with them, and the view's sentence, which
says in words what a number cannot (a value not computable, nothing held beside)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QSizePolicy, QWidget

from workbench.state import judgments

if TYPE_CHECKING:
    from workbench.state.workspace import Workspace


class HeldBox(QComboBox):
    """The qrels held beside the ones in use, by file name (the path in the tooltip); :meth:`chosen` gives
    the (path, version) of the one chosen."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._versions: dict[str, int] = {}
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(8)
        self.setToolTip("The qrels held beside the qrels in use (b) that the qrels in use (a) are compared with")

    def nothing(self) -> str:
        """Why a view comparing two qrels shows nothing: no qrels held beside, or nothing scored yet."""
        return judgments.NO_HELD if self.chosen() is None else "Nothing to compare yet."

    def sync(self, workspace: Workspace) -> None:
        """Fill the box with the qrels ``workspace`` holds beside (unless it holds them already), keeping the
        one chosen while it is there."""
        choices = judgments.held_choices(workspace)
        paths = [path for path, _ in choices]
        if [self.itemData(i) for i in range(self.count())] != paths:
            current = self.currentData()
            self.blockSignals(True)
            self.clear()
            for path in paths:
                self.addItem(os.path.basename(path), path)
                self.setItemData(self.count() - 1, path, Qt.ItemDataRole.ToolTipRole)
            if current in paths:
                self.setCurrentIndex(paths.index(current))
            self.blockSignals(False)
        self._versions = dict(choices)

    def chosen(self) -> tuple[str, int] | None:
        path = self.currentData()
        if path is None or path not in self._versions:
            return None
        return str(path), self._versions[path]


def sentence(parent: QWidget) -> QLabel:
    """The label of a view's sentence: wrapped, selectable, as wide as the view (never widening it)."""
    label = QLabel(parent)
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label
