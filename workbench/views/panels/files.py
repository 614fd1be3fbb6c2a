"""The files panel: the loaded files, their kind, label, status and baseline role (the measures panel is
:mod:`workbench.views.panels.measures`)."""

from __future__ import annotations

import functools

from PySide6.QtCore import QEvent, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFont, QFontMetrics, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemDelegate,
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QMenu,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionComboBox,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from workbench.scoring.run_on_disk import RunOnDisk
from workbench.state.workspace import KINDS, QRELS_KINDS

KIND_TEXT = {
    "qrels": "qrels",
    "held": "other qrels",
    "run": "run",
    "ranked": "ranked judgments",
    "queries": "query texts",
    "intents": "intent qrels",
    "collection": "collection",
}
PATH_ROLE = Qt.ItemDataRole.UserRole + 10


class FilesPanel(QWidget):
    """Loaded files: kind (correctable), run label (editable), order, baseline, removal."""

    sigOpenRequested = Signal()
    sigSelected = Signal(str)  # the user selected a file (its path)
    sigWidthWanted = Signal(int)  # the width the table needs to show every name, kind and status whole

    COLUMNS = ("Name", "Kind", "Status")

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self._refreshing = False
        self._shown: list[tuple] = []  # what each row shows (see refresh)
        self.session = session
        self.table = QTableWidget(0, len(self.COLUMNS), self)
        self.table.setTabKeyNavigation(False)  # Tab moves on to the buttons and the measures
        self.table.setHorizontalHeaderLabels(self.COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        header = self.table.horizontalHeader()
        # the names take the width the kinds and statuses leave (see _fit_columns)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        #: the widths the names, the kinds and the statuses shown need, each its widest (see _measure)
        self._needs = (0, 0, 0)
        self.width_wanted = 0  # their sum, with the table's frame and scroll bar (sigWidthWanted)
        self.table.viewport().installEventFilter(self)
        self.table.setMinimumWidth(120)  # a narrow panel scrolls instead of widening the window
        self._kinds = _KindDelegate(self)
        self.table.setItemDelegateForColumn(1, self._kinds)
        # one click on a kind shows the kinds to choose from, as a drop-down box does
        self.table.clicked.connect(lambda index: index.column() == 1 and self.table.edit(index))
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.itemChanged.connect(self._on_item_changed)

        def button(text, tip, slot):
            b = QToolButton(self)
            b.setText(text)
            b.setToolTip(tip)
            b.clicked.connect(slot)
            return b

        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(button("Open…", "Open qrels and run files", self.sigOpenRequested.emit))
        self.up_button = button("▲", "Move the selected run up", lambda: self._move(-1))
        self.down_button = button("▼", "Move the selected run down", lambda: self._move(1))
        self.baseline_button = button("Baseline", "Compare the other runs with the selected run", self._set_baseline)
        self.remove_button = button("Remove", "Remove the selected file (Ctrl+Z brings it back)", self._remove)
        for b in (self.up_button, self.down_button, self.baseline_button, self.remove_button):
            bar.addWidget(b)
            b.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)  # buttons shrink (eliding
            b.setMinimumWidth(22)  # their text) in a narrow panel
        bar.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.table)

        delete = QAction(self.table)
        delete.setShortcut(QKeySequence.StandardKey.Delete)
        delete.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        delete.triggered.connect(self._remove)
        self.table.addAction(delete)

        self.table.itemSelectionChanged.connect(self._on_selection)
        # while files are being read the panel is redrawn at most ten times a second (a folder of hundreds
        # of runs sends hundreds of changes); otherwise at once
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(100)
        self._later.timeout.connect(self.refresh)
        session.sigFilesChanged.connect(self._changed)
        session.sigResultsChanged.connect(lambda _: self._changed())
        session.sigStateChanged.connect(self._changed)
        self.refresh()

    def _changed(self) -> None:
        if self.session.workspace.loading():
            if not self._later.isActive():
                self._later.start()
        else:
            self._later.stop()
            self.refresh()

    # -- session -> view ------------------------------------------------
    def refresh(self) -> None:
        selected = self.selected_path()
        ws = self.session.workspace
        baseline = ws.baseline_entry().path if ws.baseline_entry() is not None else None
        self._refreshing = True
        results = self.session.results
        coverage = results.coverage if results is not None else {}
        changed = {e.path for e in ws.changed_on_disk()}
        deleted = {e.path for e in ws.deleted_from_disk()}
        self.table.blockSignals(True)
        # the columns are fitted once, after the rows, to the widest of the texts shown (measured once each):
        # fitted to their contents at every item set, 500 runs read at once took the window's thread 4 s
        # (each item set measured every row of its column again), and once after the rows 0.1-0.2 s
        names: set[tuple[str, bool]] = set()
        kinds: set[str] = set()
        statuses: set[str] = set()
        self.table.setRowCount(len(ws.entries))
        del self._shown[len(ws.entries) :]
        for row, e in enumerate(ws.entries):
            name = e.label if e.is_run else e.name
            bold = e.is_run and e.path == baseline
            status, status_tip, warn = self._status(e, baseline, coverage, changed, deleted)
            names.add((name, bold))
            kinds.add("…" if e.status == "loading" or e.kind is None else KIND_TEXT[e.kind])
            statuses.add(status)
            # a row is made again only when what it shows changed: a folder of hundreds of runs
            # changes one row at a time
            shown = (name, e.path, e.is_run, bold, e.kind, e.status, status, status_tip, warn)
            old = self.table.item(row, 0)
            if row < len(self._shown) and self._shown[row] == shown and old is not None and old.text() == name:
                continue
            if row < len(self._shown):
                self._shown[row] = shown
            else:
                self._shown.append(shown)
            item = QTableWidgetItem(name)
            item.setData(PATH_ROLE, e.path)
            tip = e.path if not e.is_run else f"{e.label}\n{e.path}"
            item.setToolTip(tip)
            flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
            if e.is_run:
                flags |= Qt.ItemFlag.ItemIsEditable
            item.setFlags(flags)
            if bold:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.table.setItem(row, 0, item)

            # the kind: drawn as a drop-down box by _KindDelegate, which makes a real one only while it is used
            kind = QTableWidgetItem("…" if e.status == "loading" or e.kind is None else KIND_TEXT[e.kind])
            if e.status == "loading":
                kind.setFlags(Qt.ItemFlag.ItemIsEnabled)
                kind.setToolTip("Being read: its kind is not known yet")
            else:
                kind.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsEditable)
                kind.setToolTip("Detected kind of file; choose another to read it again as that kind")
            self.table.setItem(row, 1, kind)

            st = QTableWidgetItem(status)
            st.setFlags(Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled)
            st.setToolTip(status_tip or status)  # (whole there when the column is too narrow for it)
            if warn:
                st.setForeground(Qt.GlobalColor.darkRed)
            self.table.setItem(row, 2, st)
        self._measure(names, kinds, statuses)
        self.table.blockSignals(False)
        if selected:
            self.select_path(selected)
        self._refreshing = False

    def _measure(self, names: set[tuple[str, bool]], kinds: set[str], statuses: set[str]) -> None:
        """Fit the columns to the texts shown; ``sigWidthWanted`` when the width that shows them whole
        changes, once no file is being read."""
        table, header = self.table, self.table.horizontalHeader()
        style = table.style()
        # an item's text is drawn inside a margin each side (QStyledItemDelegate); a pixel or two of rounding
        pad = 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1) + 4
        plain, bold = table.fontMetrics(), QFontMetrics(_bold(table.font()))
        name = max((((bold if b else plain).horizontalAdvance(n)) for n, b in names), default=0) + pad
        kind = max((self._kinds.box_size(k, k != "…").width() for k in kinds), default=0)
        status = max((plain.horizontalAdvance(t) for t in statuses), default=0) + pad
        needs = (
            max(name, header.sectionSizeHint(0)),
            max(kind, header.sectionSizeHint(1)),
            max(status, header.sectionSizeHint(2)),
        )
        if needs != self._needs:
            self._needs = needs
            self._fit_columns()
        if self.session.workspace.loading():
            return  # (the width asked for is that of the texts once the files are read: not the file names
            # and a status together, of a moment while the runs' labels are not known yet)
        frame = 2 * table.frameWidth() + style.pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, table)
        wanted = sum(needs) + frame
        if wanted != self.width_wanted:
            self.width_wanted = wanted
            self.sigWidthWanted.emit(wanted)

    def _fit_columns(self) -> None:
        """The kinds whole; the names before the statuses: a status takes what its texts need, but only the
        width the names and kinds leave (a quarter of the table's at least), elided beyond it (whole in its
        tooltip; a collection's "tsv, 13,416 documents" left the names a letter or two)."""
        name, kind, status = self._needs
        room = max(self.table.viewport().width(), 1)
        header = self.table.horizontalHeader()
        header.resizeSection(1, kind)
        header.resizeSection(2, min(status, max(room - kind - name, room // 4)))

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Resize and watched is self.table.viewport():
            self._fit_columns()
        return super().eventFilter(watched, event)

    @staticmethod
    def _status(
        e, baseline, coverage: dict, changed: set, deleted: frozenset | set = frozenset()
    ) -> tuple[str, str, bool]:
        """The status column of a file: its text, its tooltip, and whether it is a warning."""
        if e.status == "loading":
            status = "loading…"
        elif e.status == "error":
            status = "error"
        elif e.status == "cancelled":
            status = "indexing cancelled"
        elif e.error:
            status = "reload failed"
        elif e.path in changed:
            status = "changed on disk"
        elif e.path in deleted:
            status = "deleted from disk"
        elif e.is_run and coverage.get(e.label, (1, 1))[0] == 0:
            status = "no shared query"
        elif e.is_run and e.path == baseline:
            status = "baseline"
        elif e.kind == "qrels":
            status = "in use"
        elif e.kind == "held":
            status = "held beside"
        elif e.kind == "queries":
            status = f"{len(e.queries or {})} queries"
        elif e.kind == "collection" and e.documents is not None:
            status = f"{e.documents.format}, {len(e.documents):,} documents"
        elif e.kind == "intents" and e.intents is not None:
            status = e.intents.summary()
        else:
            status = "ok"
        tip = e.error or (e.intents.details() if e.kind == "intents" and e.intents is not None else "")
        if e.kind == "held" and not tip:
            tip = "Qrels held beside the ones in use: they score nothing; the Judgments views compare them"
        shared, total = coverage.get(e.label, (None, None)) if e.is_run else (None, None)
        if shared == 0:
            tip = "No query of this run is in the qrels: it cannot be scored (a run of another collection?)"
        elif shared is not None and shared < total:
            status += f" ({shared}/{total} q)"
            tip = f"Only {shared} of the run's {total} queries are in the qrels"
        elif e.path in changed:
            tip = "The file changed on disk since it was read; what is shown is of the earlier content"
        elif e.path in deleted:
            tip = "The file was deleted from disk after it was read"
        if e.is_run and isinstance(e.run, RunOnDisk) and status in ("ok", "baseline"):
            status += ", on disk"
            tip = tip or "Many runs are open: this one is read and scored from its file at each evaluation"
        return status, tip, bool(e.error or shared == 0 or e.path in changed or e.path in deleted)

    def _on_selection(self) -> None:
        path = self.selected_path()
        if path and not self._refreshing:
            self.sigSelected.emit(path)

    def selected_path(self) -> str | None:
        row = self.table.currentRow()
        item = self.table.item(row, 0) if row >= 0 else None
        return None if item is None else item.data(PATH_ROLE)

    def _path_at(self, row: int) -> str | None:
        item = self.table.item(row, 0)
        return None if item is None else item.data(PATH_ROLE)

    def _edit_name(self, row: int) -> None:
        item = self.table.item(row, 0)
        if item is not None:
            self.table.editItem(item)

    def select_path(self, path: str) -> None:
        for row in range(self.table.rowCount()):
            if self._path_at(row) == path:
                self.table.selectRow(row)
                return

    # -- view -> session ------------------------------------------------
    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if item.column() == 0:
            path, text = item.data(PATH_ROLE), item.text()
            # renaming rebuilds this table (the session announces the unique label it used),
            # so it happens after the item has finished emitting its change
            QTimer.singleShot(0, lambda: self.session.model.files.rename(path, text))

    def _on_kind(self, path: str, kind) -> None:
        if kind:
            self.session.reading.set_kind(path, kind)

    def kind_box(self, row: int) -> QComboBox | None:
        """The drop-down box choosing the kind of the file in ``row``, opened as a click on it opens it (None
        while the file is read)."""
        index = self.table.model().index(row, 1)
        self.table.edit(index)
        box = self.table.indexWidget(index)
        return box if isinstance(box, QComboBox) else None

    def _move(self, delta: int) -> None:
        path = self.selected_path()
        if path:
            self.session.model.files.move(path, delta)
            self.select_path(path)

    def _set_baseline(self) -> None:
        path = self.selected_path()
        e = self.session.workspace.entry(path) if path else None
        if e is not None and e.is_run:
            self.session.model.files.set_baseline(path)

    def _remove(self) -> None:
        path = self.selected_path()
        if path:
            self.session.reading.remove(path)

    def _context_menu(self, pos) -> None:
        item = self.table.itemAt(pos)
        if item is None:
            return
        row = self._path_at(item.row())
        e = self.session.workspace.entry(row) if row is not None else None
        if e is None:
            return
        path = e.path
        menu = QMenu(self)
        if e.is_run:
            menu.addAction("Use as baseline", lambda: self.session.model.files.set_baseline(path))
            menu.addAction("Rename…", lambda: self._edit_name(item.row()))
            menu.addAction("Move up", lambda: self.session.model.files.move(path, -1))
            menu.addAction("Move down", lambda: self.session.model.files.move(path, 1))
            menu.addSeparator()
        if e.kind == "held" and e.status == "ok":
            menu.addAction("Use as the qrels (swap)", lambda: self.session.reading.set_kind(path, "qrels"))
            menu.addSeparator()
        elif e.kind == "qrels" and e.status == "ok":
            menu.addAction("Hold beside (score nothing)", lambda: self.session.reading.set_kind(path, "held"))
            menu.addSeparator()
        read_as = menu.addMenu("Read as")
        for k in KINDS:
            act = read_as.addAction(KIND_TEXT[k], functools.partial(self.session.reading.set_kind, path, k))
            act.setCheckable(True)
            act.setChecked(k == e.kind)
        if e.missing:
            menu.addAction("Locate…", lambda: self._locate(path))
        menu.addAction("Reload", lambda: self.session.reading.reload(path))
        menu.addSeparator()
        menu.addAction("Remove", lambda: self.session.reading.remove(path))
        menu.exec(self.table.viewport().mapToGlobal(pos))

    def _locate(self, path: str) -> None:
        """Find a file the workspace named that is not where it said: the dialog is given the path named
        and looks itself (it opens the file's folder if that is there, with the name filled in, else the
        last folder it showed); the window's thread looks at no folder before it."""
        import os

        from PySide6.QtWidgets import QFileDialog

        found, _ = QFileDialog.getOpenFileName(self, f"Locate {os.path.basename(path)}", path)
        if found:
            self.session.reading.locate(path, found)


def _bold(font: QFont) -> QFont:
    bold = QFont(font)
    bold.setBold(True)
    return bold


def _choice_text(current: str | None, kind: str) -> str:
    """What choosing ``kind`` for a file of kind ``current`` does, in the kind's box: qrels read already are
    put in use or held beside as they are; every other choice reads the file again."""
    if current in QRELS_KINDS and kind == "qrels":
        return "use as the qrels (swap)"
    if current in QRELS_KINDS and kind == "held":
        return "hold beside: other qrels"
    return f"read as {KIND_TEXT[kind]}"


class _KindDelegate(QStyledItemDelegate):
    """The Kind column: each kind drawn as a drop-down box, and a real box made only for the row whose kind
    is being chosen (a box per row, made and laid out again as files arrive, took most of the panel's time
    with a hundred runs)."""

    def __init__(self, panel: FilesPanel):
        super().__init__(panel.table)
        self.panel = panel
        self._sizes: dict[tuple, QSize] = {}

    def _box_option(self, text: str, editable: bool) -> QStyleOptionComboBox:
        """The drop-down box showing ``text`` (greyed out when the kind cannot be chosen), as painted and
        as measured."""
        box = QStyleOptionComboBox()
        box.initFrom(self.panel.table)
        box.currentText = text
        box.frame = True
        if not editable:
            box.state &= ~QStyle.StateFlag.State_Enabled
        return box

    def paint(self, painter, option, index) -> None:
        if not index.flags() & Qt.ItemFlag.ItemIsEditable:  # a file being read: "…", no box yet
            super().paint(painter, option, index)
            return
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(option.rect, option.palette.highlight())
        box = self._box_option(str(index.data() or ""), True)
        box.rect = option.rect
        style = option.widget.style()
        style.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, box, painter, option.widget)
        style.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, box, painter, option.widget)

    def sizeHint(self, option, index) -> QSize:
        return self.box_size(str(index.data() or ""), bool(index.flags() & Qt.ItemFlag.ItemIsEditable))

    def box_size(self, text: str, editable: bool = True) -> QSize:
        """The size of the drop-down box showing ``text`` (measured once per text)."""
        table = self.panel.table
        key = (text, table.font().key(), editable)
        size = self._sizes.get(key)
        if size is None:
            box = self._box_option(text, editable)
            contents = table.fontMetrics().size(0, max(text, "qrels", key=len))  # six characters at least
            size = self._sizes[key] = table.style().sizeFromContents(
                QStyle.ContentsType.CT_ComboBox, box, contents, table
            )
        return size

    def createEditor(self, parent, option, index) -> QComboBox:
        path = index.siblingAtColumn(0).data(PATH_ROLE)
        e = self.panel.session.workspace.entry(path)
        current = e.kind if e is not None else None
        box = QComboBox(parent)
        box.addItem("…" if current is None else KIND_TEXT[current], None)
        for k in KINDS:
            if k != current:
                box.addItem(_choice_text(current, k), k)
        box.activated.connect(lambda i: self._chosen(box, path, box.itemData(i)))
        QTimer.singleShot(0, box, box.showPopup)  # (not if the box is gone by then)
        return box

    def _chosen(self, box: QComboBox, path: str, kind) -> None:
        self.closeEditor.emit(box, QAbstractItemDelegate.EndEditHint.NoHint)
        self.panel._on_kind(path, kind)

    def setEditorData(self, editor, index) -> None:
        pass  # filled when made

    def setModelData(self, editor, model, index) -> None:
        pass  # a kind is changed by reading the file again (_chosen), not by editing the cell
