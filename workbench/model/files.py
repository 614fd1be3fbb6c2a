"""The rules of the window's list of files: opening, reading, folders, removing and undoing, labels, baseline.

Part of :class:`workbench.model.session.SessionModel` (plain Python, no Qt); the state it works on
(``workspace``, ``events``, ``folders``, ``removed``, ``chosen_kinds``...) is the model's.
"""

from __future__ import annotations

import functools
import os

from workbench.model import disk_runs, diversity
from workbench.model.loading import describe_error, sample_files
from workbench.model.session_state import SessionState
from workbench.model.workspace import KINDS, ONE_IN_USE, FileEntry, expand, normalize


class FileRules(SessionState):
    """The file rules of :class:`~workbench.model.session.SessionModel`."""

    def clear(self) -> None:
        """Forget every file."""
        self.workspace.entries.clear()
        self.workspace.baseline_path = None
        self.undo_stack.clear()
        self.is_sample = False
        self.pending_query = None
        self.diversity_offered = False
        self.events.files_changed.emit()
        self.events.baseline_changed.emit(None)
        self.events.evaluation_wanted.emit()

    def open_sample(self, *, start=None) -> None:
        """Show the bundled sample (made-up data) instead of whatever is loaded (``start`` as in
        :meth:`open_files`)."""
        self.clear()
        self.open_files(sample_files(), start=start)
        self.is_sample = True

    def remember_kinds(self, kinds: dict[str, str]) -> None:
        """The kinds the user chose for files before (path -> kind): files at these paths are read as such."""
        self.chosen_kinds.update(kinds)

    def open_files(self, paths, kind: str | None = None, *, start=None, forget=None) -> list[str]:
        """Load files (a folder stands for the files in it and its subfolders); returns the paths being loaded.

        ``start(entry)`` reads a file that is now loading (in a worker: :func:`~workbench.model.loading.load_file`, then
        :meth:`finish_load`); ``forget(path)`` lets go of a sample file the user's own files replace.  A
        file found in a folder that turns out to be neither qrels nor a run is left out quietly; once the
        folder is read, one message says what was found and what was not.
        """
        found = expand(paths)
        paths = found.files
        for note in found.notes:
            self.tell(note)
        if not paths:
            self.events.error.emit(
                "Nothing to open: no file found" + (f" ({'; '.join(found.notes)})" if found.notes else "")
            )
            return []
        if self.is_sample:  # the user's own files replace the sample
            self.is_sample = False
            sample = {normalize(p) for p in sample_files()}
            for e in list(self.workspace.entries):
                if e.path in sample and e.path not in paths:
                    if forget is not None:
                        forget(e.path)
                    self.workspace.remove(e.path)
        held_bytes, held_files = self.workspace.held()
        budget, slots = disk_runs.HOLD_BYTES - held_bytes, disk_runs.HOLD_FILES - held_files
        if len(paths) > slots:
            # more files at once than there are slots left: none of their runs is held (the workers
            # score them all on every core sooner than this process could read a few of them)
            budget = slots = 0
        again = [p for p in paths if (x := self.workspace.entry(p)) is not None and x.status == "ok"]
        if again:
            names = ", ".join(os.path.basename(p) for p in again[:3]) + (" …" if len(again) > 3 else "")
            self.tell(f"Already open, read again: {names}")
        for p in paths:
            e = self.workspace.begin_load(p, kind or self.chosen_kinds.get(normalize(p)))
            if e.status == "loading":  # a new file: held while the held runs fit in the budget
                try:
                    e.size = os.path.getsize(e.path)
                except OSError:
                    e.size = 0  # the load says what is wrong
                e.hold = e.size <= budget and slots > 0
                if e.hold:
                    budget, slots = budget - e.size, slots - 1
            folder = found.folder_of.get(p)
            if folder is not None and e.status == "loading":
                e.folder = folder
                self.folders.setdefault(folder, {"read": 0, "skipped": []})
            if start is not None:
                start(e)
        self.inspected_path = normalize(paths[-1])  # what was just opened is shown on its own
        self.events.files_changed.emit()
        return [normalize(p) for p in paths]

    def locate(self, path: str, found: str, *, start=None) -> str | None:
        """A file a workspace named but that is not where it said: read ``found`` in its place, with the
        label, kind and place in the list it had.  Returns the path read (None: ``path`` is not missing)."""
        e = self.workspace.entry(path)
        if e is None or not e.missing:
            return None
        found = normalize(found)
        if self.workspace.entry(found) is not None:
            self.workspace.entries.remove(e)
            self.tell(f"{os.path.basename(found)} is open already")
            self.events.files_changed.emit()
            return None
        was_baseline = self.workspace.baseline_path == e.path
        e.path, e.missing, e.status, e.error = found, False, "loading", None
        if was_baseline:
            self.workspace.baseline_path = found
        e.generation += 1
        try:
            e.size = os.path.getsize(found)
        except OSError:
            e.size = 0
        if start is not None:
            start(e)
        self.events.files_changed.emit()
        return found

    def choose_kind(self, path: str, kind: str) -> FileEntry | None:
        """Remember the kind the user chose for a file; the entry when it must be read again as that kind."""
        if kind not in KINDS:
            raise ValueError(kind)
        e = self.workspace.entry(path)
        if e is None:
            return None
        self.chosen_kinds[e.path] = kind  # remembered for this file (the window keeps it across restarts)
        if e.kind == kind and e.status == "ok":
            e.forced_kind = kind
            return None
        return e

    def finish_load(self, path: str, gen: int, outcome) -> FileEntry | None:
        """Store what a load read; None when the load is no longer wanted."""
        stat, loaded = outcome
        entries = self.workspace.entries
        before = [
            (i, x) for i, x in enumerate(entries) if x.kind == loaded.kind and x.status == "ok" and x.path != path
        ]
        had_intents = self.workspace.intents_entry() is not None
        e = self.workspace.finish_load(path, gen, loaded.kind, loaded.run, loaded.qrels, stat=stat)
        if e is None:
            return None
        e.digest = getattr(loaded, "digest", None)
        e.intents = getattr(loaded, "intents", None)
        if e.kind in ONE_IN_USE:
            what = "the qrels" if e.kind == "qrels" else "the intent qrels"
            for i, old in before:  # one file of the kind in use: the one it replaced can be brought back
                self.undo_stack.push(
                    f"{what[4:]} {e.name} (back to {old.name})", functools.partial(self._put_back, i, old, False)
                )
                self.tell(f"{e.name} replaces {old.name} as {what} (Edit > Undo, Ctrl+Z, brings {old.name} back)")
        if e.kind == "intents" and not had_intents:
            diversity.offer_defaults(self)
        self._same_content(e)
        e.queries = getattr(loaded, "queries", None)
        if e.folder is not None and e.folder in self.folders:
            self.folders[e.folder]["read"] += 1
            folder, e.folder = e.folder, None
            self._folder_done(folder)
        e.warnings = list(loaded.warnings)
        self.events.file_loaded.emit(e.path)
        for warning in loaded.warnings:
            self.tell(warning)
        return e

    def _same_content(self, e: FileEntry) -> None:
        """Say when a file just read holds exactly what another file open holds (a copy opened twice)."""
        if not e.digest:
            return
        for x in self.workspace.entries:
            if x is not e and x.status == "ok" and x.digest == e.digest and x.kind == e.kind:
                self.tell(f"{e.name} has the same content as {x.label or x.name} ({x.path}): a copy opened twice?")
                return

    def announce_loaded(self) -> None:
        """After :meth:`finish_load` (and whatever the adapter does with the file): the files changed."""
        self.events.files_changed.emit()
        self.events.baseline_changed.emit(self.workspace.baseline_label())
        self.events.evaluation_wanted.emit()

    def fail_load(self, path: str, gen: int, exc: BaseException) -> None:
        msg = describe_error(path, exc)
        e = self.workspace.entry(path)
        if e is not None and e.folder is not None and e.status == "loading" and e.generation == gen:
            # found in a folder, and not a qrels or run file: left out, counted for the folder's message
            self.workspace.entries.remove(e)
            self.folders[e.folder]["skipped"].append(e.name)
            self._folder_done(e.folder)
            self.events.files_changed.emit()
            return
        if self.workspace.fail_load(path, gen, msg) is not None:
            self.events.error.emit(msg)
            self.events.files_changed.emit()

    def cancel_load(self, path: str, gen: int) -> None:
        e = self.workspace.entry(path)
        folder = e.folder if e is not None else None
        if self.workspace.cancel_load(path, gen) is not None:
            if folder is not None:
                self._folder_done(folder)
            self.events.message.emit(f"Loading {os.path.basename(path)} cancelled")
            self.events.files_changed.emit()
            self.events.baseline_changed.emit(self.workspace.baseline_label())

    def _folder_done(self, folder: str) -> None:
        """Once every file of an opened folder is read, say what it held."""
        if any(x.folder == folder and x.status == "loading" for x in self.workspace.entries):
            return
        tally = self.folders.pop(folder, None)
        if tally is None:
            return
        skipped = tally["skipped"]
        names = ", ".join(skipped[:4]) + (" …" if len(skipped) > 4 else "")
        if tally["read"] == 0:
            self.events.error.emit(
                f"No qrels or run file recognised in {folder}"
                + (f" ({len(skipped)} file(s) looked at: {names})" if skipped else "")
            )
        else:
            self.tell(
                f"{os.path.basename(folder)}: {tally['read']} file(s) opened"
                + (f"; {len(skipped)} not recognised ({names})" if skipped else "")
            )

    def remove(self, path: str) -> FileEntry | None:
        """Remove a file (what was loaded can come back with :meth:`undo`); the entry removed."""
        e = self.workspace.entry(path)
        if e is None:
            return None
        index = self.workspace.entries.index(e)
        was_baseline = self.workspace.baseline_path == e.path
        self.workspace.remove(e.path)
        if e.status == "ok":
            self.undo_stack.push(f"remove {e.label or e.name}", lambda: self._put_back(index, e, was_baseline))
            self.tell(f"Removed {e.label or e.name} (Edit > Undo, Ctrl+Z, brings it back)")
        self.events.files_changed.emit()
        self.events.baseline_changed.emit(self.workspace.baseline_label())
        self.events.evaluation_wanted.emit()
        return e

    def _put_back(self, index: int, e: FileEntry, was_baseline: bool) -> str | None:
        """A removed (or replaced) file back in its place, with its data, kind, label and baseline role."""
        if self.workspace.entry(e.path) is not None:
            return None  # opened again since
        self.workspace.entries.insert(min(index, len(self.workspace.entries)), e)
        if e.kind in ONE_IN_USE:  # one qrels (intent qrels) file in use: it replaces the one opened since
            self.workspace.entries = [
                x for x in self.workspace.entries if x is e or not (x.kind == e.kind and x.status == "ok")
            ]
        if was_baseline:
            self.workspace.baseline_path = e.path
        e.label = self.workspace.unique_label(e.label, exclude=e) if e.is_run else e.label
        self.events.files_changed.emit()
        self.events.baseline_changed.emit(self.workspace.baseline_label())
        self.events.evaluation_wanted.emit()
        return f"{e.label or e.name} is back"

    @property
    def can_undo(self) -> bool:
        return bool(self.undo_stack)

    def undo(self) -> str | None:
        """Take back the last change (a removal, a qrels file replaced, measures or options, a rename); what
        to tell the user, None when there was nothing to take back."""
        return self.undo_stack.undo()

    # (the names of the first undo, which took back removals only)
    can_undo_remove = can_undo

    def undo_remove(self) -> str | None:
        """Take back the last change; the path of the file that came back, if it was a removal."""
        before = {e.path for e in self.workspace.entries}
        told = self.undo()
        back = [e.path for e in self.workspace.entries if e.path not in before]
        return back[0] if told is not None and back else None

    def rename(self, path: str, label: str) -> str:
        e = self.workspace.entry(path)
        if e is None or e.label == label.strip():
            return e.label if e else label
        old = e.label
        used = self.workspace.rename(path, label)
        self.undo_stack.push(f"rename {old}", lambda: self._rename_back(path, used, old))
        self.events.files_changed.emit()
        self.events.baseline_changed.emit(self.workspace.baseline_label())
        self.events.evaluation_wanted.emit()
        return used

    def _rename_back(self, path: str, label: str, old: str) -> str | None:
        e = self.workspace.entry(path)
        if e is None or e.label != label:
            return None  # gone, or renamed since
        self.rename(path, old)
        return f"{label} is {e.label} again"

    def move(self, path: str, delta: int) -> None:
        if self.workspace.move(path, delta):
            self.events.files_changed.emit()
            self.events.evaluation_wanted.emit()

    def set_baseline(self, path: str | None) -> None:
        self.workspace.set_baseline(path)
        self.events.files_changed.emit()
        self.events.baseline_changed.emit(self.workspace.baseline_label())

    def baseline_label(self) -> str | None:
        return self.workspace.baseline_label()
