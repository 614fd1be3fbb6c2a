"""The rules of the window's list of files: opening, reading, folders, removing and undoing, labels, baseline.

:class:`FileRules` is a part of :class:`workbench.state.session.SessionModel` (``model.files``, plain
Python, no Qt), made with the :class:`~workbench.state.session_state.SessionState` it reads and changes.
It makes no file system call of its own: the files to open come listed, with their sizes
(:func:`workbench.state.listing.list_files`, run by the Qt session in a worker).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable

from workbench.scoring import disk_runs
from workbench.scoring.failures import describe_error
from workbench.state.listing import Listing, in_sample, list_files
from workbench.state.session_state import SessionState, UserTurn, user_action
from workbench.state.workspace import KINDS, ONE_IN_USE, QRELS_KINDS, FileEntry, normalize

Start = Callable[[FileEntry], None]


class FileRules:
    """The rules of the list of files, on ``state``; ``intents_arrived()`` is called when the first intent
    qrels of a session are read (the model offers the diversity measures then)."""

    def __init__(self, state: SessionState, *, intents_arrived: Callable[[], None]):
        self.state = state
        self._intents_arrived = intents_arrived
        self.turn: UserTurn = state.turn  # (what :func:`user_action` reads)

    def clear(self) -> None:
        """Forget every file."""
        st = self.state
        st.workspace.entries.clear()
        st.workspace.baseline_path = None
        st.undo_stack.clear()
        st.is_sample = False
        st.pending_query = None
        st.diversity_offered = False
        st.events.files_changed.emit()
        st.events.baseline_changed.emit(None)
        st.events.evaluation_wanted.emit()

    def open_sample(self, listing: Listing, *, start: Start | None = None) -> None:
        """Show the bundled sample (made-up data, listed in ``listing``) instead of whatever is loaded
        (``start`` as in :meth:`open_listed`)."""
        self.clear()
        self.open_listed(listing, start=start)
        self.state.is_sample = True

    def open_files(
        self, paths: Iterable[str], kind: str | None = None, *, start: Start | None = None, forget=None
    ) -> list[str]:
        """:meth:`open_listed` with the paths listed here, on the caller's thread (the Qt session lists them
        in a worker instead: the window's thread makes no file system call)."""
        return self.open_listed(list_files(paths), kind, start=start, forget=forget)

    def open_listed(
        self,
        found: Listing,
        kind: str | None = None,
        *,
        start: Start | None = None,
        forget: Callable[[str], None] | None = None,
    ) -> list[str]:
        """Load the files ``found`` lists (a folder stands for the files in it and its subfolders); returns
        the paths being loaded.

        ``start(entry)`` reads a file that is now loading (in a worker: :func:`~workbench.state.loading.load_file`, then
        :meth:`finish_load`); ``forget(path)`` lets go of a sample file the user's own files replace.  A
        file found in a folder that turns out to be neither qrels nor a run is left out quietly; once the
        folder is read, one message says what was found and what was not.  Run files are held in memory
        while they fit in what :mod:`~workbench.scoring.disk_runs` holds (by the sizes ``found`` gives).
        """
        st = self.state
        paths = found.files
        for note in found.notes:
            st.tell(note)
        if not paths:
            st.events.error.emit(
                "Nothing to open: no file found" + (f" ({'; '.join(found.notes)})" if found.notes else "")
            )
            return []
        if st.is_sample:  # the user's own files replace the sample
            st.is_sample = False
            for e in list(st.workspace.entries):
                if in_sample(e.path) and e.path not in paths:
                    if forget is not None:
                        forget(e.path)
                    st.workspace.remove(e.path)
        again = [p for p in paths if (x := st.workspace.entry(p)) is not None and x.status == "ok"]
        if again:
            names = ", ".join(os.path.basename(p) for p in again[:3]) + (" …" if len(again) > 3 else "")
            st.tell(f"Already open, read again: {names}")
        begun = [st.workspace.begin_load(p, kind or st.chosen_kinds.get(normalize(p))) for p in paths]
        self.hold(begun, found.sizes)
        for p, e in zip(paths, begun):
            folder = found.folder_of.get(p)
            if folder is not None and e.status == "loading":
                e.folder = folder
                st.folders.setdefault(folder, {"read": 0, "skipped": []})
            if start is not None:
                start(e)
        st.inspected_path = normalize(paths[-1])  # what was just opened is shown on its own
        st.events.files_changed.emit()
        return [normalize(p) for p in paths]

    def hold(self, begun: list[FileEntry], sizes: dict[str, int]) -> None:
        """Give each file just begun (:meth:`~workbench.state.workspace.Workspace.begin_load`) that is new its
        size from ``sizes`` (path -> bytes, as listed; 0 when it could not be looked at, and the load says
        what is wrong), and hold its run in memory while the runs held fit in what
        :mod:`~workbench.scoring.disk_runs` holds; a file read again keeps what it had."""
        new = [e for e in begun if e.status == "loading"]
        for e in new:
            e.hold = False  # (what the others hold is counted without them)
        held_bytes, held_files = self.state.workspace.held()
        budget, slots = disk_runs.HOLD_BYTES - held_bytes, disk_runs.HOLD_FILES - held_files
        if len(begun) > slots:
            # more files at once than there are slots left: none of their runs is held (the workers
            # score them all on every core sooner than this process could read a few of them)
            budget = slots = 0
        for e in new:  # held while the held runs fit in the budget
            e.size = sizes.get(e.path, 0)
            e.hold = e.size <= budget and slots > 0
            if e.hold:
                budget, slots = budget - e.size, slots - 1

    def locate(self, path: str, found: str, size: int, *, start: Start | None = None) -> str | None:
        """A file a workspace named but that is not where it said: read ``found`` (of ``size`` bytes, 0 when
        unknown) in its place, with the label, kind and place in the list it had.  Returns the path read
        (None: ``path`` is not missing)."""
        st = self.state
        e = st.workspace.entry(path)
        if e is None or not e.missing:
            return None
        found = normalize(found)
        if st.workspace.entry(found) is not None:
            st.workspace.entries.remove(e)
            st.tell(f"{os.path.basename(found)} is open already")
            st.events.files_changed.emit()
            return None
        was_baseline = st.workspace.baseline_path == e.path
        e.path, e.missing, e.status, e.error = found, False, "loading", None
        if was_baseline:
            st.workspace.baseline_path = found
        e.generation += 1
        e.size = size
        if start is not None:
            start(e)
        st.events.files_changed.emit()
        return found

    def choose_kind(self, path: str, kind: str) -> FileEntry | None:
        """Remember the kind the user chose for a file; the entry when it must be read again as that kind.

        Qrels read already are not read again to be held beside or put in use: a qrels file chosen to be
        held beside is (:meth:`hold_beside`), one held beside chosen as the qrels is put in use
        (:meth:`use_qrels`: the one in use is held beside in its place)."""
        if kind not in KINDS:
            raise ValueError(kind)
        e = self.state.workspace.entry(path)
        if e is None:
            return None
        self.state.chosen_kinds[e.path] = kind  # remembered for this file (the window keeps it across restarts)
        if e.kind == kind and e.status == "ok":
            e.forced_kind = kind
            return None
        if kind in QRELS_KINDS and e.kind in QRELS_KINDS and e.status == "ok" and e.qrels is not None:
            if kind == "held":
                self.hold_beside(e.path)
            else:
                self.use_qrels(e.path)
            return None
        return e

    def use_qrels(self, path: str) -> bool:
        """Score the runs with the qrels held beside at ``path``: it becomes the qrels in use, and the qrels
        in use until now is held beside in its place (nothing is read again; Undo swaps them back).  False
        when ``path`` is not a qrels file held beside."""
        ws = self.state.workspace
        e = ws.entry(path)
        if e is None or e.kind != "held" or e.status != "ok" or e.qrels is None:
            return False
        old = ws.qrels_entry()
        e.kind = e.forced_kind = "qrels"
        if old is not None:
            old.kind = old.forced_kind = "held"
            if self.state.chosen_kinds.get(old.path) == "qrels":  # (no longer the user's word on it)
                del self.state.chosen_kinds[old.path]
            self.state.undo_stack.push(f"qrels {e.name} (back to {old.name})", lambda: self._swap_back(old.path))
            self.state.tell(f"{e.name} is the qrels in use; {old.name} is held beside (Edit > Undo swaps them back)")
        else:
            self.state.undo_stack.push(f"qrels {e.name}", lambda: self._hold_back(e.path))
            self.state.tell(f"{e.name} is the qrels in use")
        self._qrels_changed()
        return True

    def hold_beside(self, path: str) -> bool:
        """Hold the qrels in use at ``path`` beside instead: it scores nothing then (the runs are scored with
        the judgments of the ranked files, if any), and the judgments' views compare it with the qrels put
        in use.  False when ``path`` is not the qrels in use."""
        ws = self.state.workspace
        e = ws.entry(path)
        if e is None or e.kind != "qrels" or e.status != "ok":
            return False
        e.kind = e.forced_kind = "held"
        self.state.undo_stack.push(f"hold {e.name} beside", lambda: self._use_back(e.path))
        self.state.tell(f"{e.name} is held beside: no qrels file is in use (Files: choose qrels for one)")
        self._qrels_changed()
        return True

    def _swap_back(self, path: str) -> str | None:
        return "qrels swapped back" if self.use_qrels(path) else None

    def _hold_back(self, path: str) -> str | None:
        return "qrels held beside again" if self.hold_beside(path) else None

    def _use_back(self, path: str) -> str | None:
        e = self.state.workspace.entry(path)
        if e is None or e.kind != "held":
            return None
        if self.state.workspace.qrels_entry() is not None:  # (another was put in use since: this one stays held)
            return None
        e.kind = e.forced_kind = "qrels"
        self._qrels_changed()
        return f"{e.name} is the qrels in use again"

    def _qrels_changed(self) -> None:
        self.state.events.files_changed.emit()
        self.state.events.evaluation_wanted.emit()

    def finish_load(self, path: str, gen: int, outcome) -> FileEntry | None:
        """Store what a load read; None when the load is no longer wanted."""
        stat, loaded = outcome
        if loaded.kind == "collection" and loaded.store is None:  # (its indexing cancelled)
            if self.state.workspace.cancel_indexing(path, gen) is not None:
                self.state.events.message.emit(f"Indexing {os.path.basename(path)} cancelled: no index was kept")
                self.state.events.files_changed.emit()
            return None
        entries = self.state.workspace.entries
        before = []  # the file of the kind in use it replaces (runs are read beside the others)
        if loaded.kind in ONE_IN_USE:
            before = [
                (i, x) for i, x in enumerate(entries) if x.kind == loaded.kind and x.status == "ok" and x.path != path
            ]
        had_intents = self.state.workspace.intents_entry() is not None
        e = self.state.workspace.finish_load(path, gen, loaded.kind, loaded.run, loaded.qrels, stat=stat)
        if e is None:
            return None
        e.digest = getattr(loaded, "digest", None)
        e.intents = getattr(loaded, "intents", None)
        e.documents = getattr(loaded, "store", None)
        if e.kind in ONE_IN_USE:
            what = {"qrels": "the qrels", "intents": "the intent qrels", "collection": "the collection"}[e.kind]
            for i, old in before:  # one file of the kind in use: the one it replaced can be brought back
                self.state.undo_stack.push(
                    f"{what[4:]} {e.name} (back to {old.name})", functools.partial(self._put_back, i, old, False)
                )
                beside = "; File > Open qrels to compare… holds qrels beside the ones in use" * (e.kind == "qrels")
                self.state.tell(
                    f"{e.name} replaces {old.name} as {what} (Edit > Undo, Ctrl+Z, brings {old.name} back{beside})"
                )
        if e.kind == "intents" and not had_intents:
            self._intents_arrived()
        self._same_content(e)
        e.queries = getattr(loaded, "queries", None)
        if e.folder is not None and e.folder in self.state.folders:
            self.state.folders[e.folder]["read"] += 1
            folder, e.folder = e.folder, None
            self._folder_done(folder)
        e.warnings = list(loaded.warnings)
        self.state.events.file_loaded.emit(e.path)
        for warning in loaded.warnings:
            self.state.tell(warning)
        return e

    def _same_content(self, e: FileEntry) -> None:
        """Say when a file just read holds exactly what another file open holds (a copy opened twice)."""
        if not e.digest:
            return
        for x in self.state.workspace.entries:
            if x is not e and x.status == "ok" and x.digest == e.digest and x.kind == e.kind:
                other = f"{x.label or x.name} ({x.path})"
                self.state.tell(f"{e.name} has the same content as {other}: a copy opened twice?")
                return

    def announce_loaded(self) -> None:
        """After :meth:`finish_load` (and whatever the adapter does with the file): the files changed."""
        self.state.events.files_changed.emit()
        self.state.events.baseline_changed.emit(self.state.workspace.baseline_label())
        self.state.events.evaluation_wanted.emit()

    def fail_load(self, path: str, gen: int, exc: BaseException) -> None:
        msg = describe_error(path, exc)
        e = self.state.workspace.entry(path)
        if e is not None and e.folder is not None and e.status == "loading" and e.generation == gen:
            # found in a folder, and not a qrels or run file: left out, counted for the folder's message
            self.state.workspace.entries.remove(e)
            self.state.folders[e.folder]["skipped"].append(e.name)
            self._folder_done(e.folder)
            self.state.events.files_changed.emit()
            return
        if self.state.workspace.fail_load(path, gen, msg) is not None:
            self.state.events.error.emit(msg)
            self.state.events.files_changed.emit()

    def cancel_load(self, path: str, gen: int) -> None:
        e = self.state.workspace.entry(path)
        folder = e.folder if e is not None else None
        if self.state.workspace.cancel_load(path, gen) is not None:
            if folder is not None:
                self._folder_done(folder)
            self.state.events.message.emit(f"Loading {os.path.basename(path)} cancelled")
            self.state.events.files_changed.emit()
            self.state.events.baseline_changed.emit(self.state.workspace.baseline_label())

    def _folder_done(self, folder: str) -> None:
        """Once every file of an opened folder is read, say what it held."""
        if any(x.folder == folder and x.status == "loading" for x in self.state.workspace.entries):
            return
        tally = self.state.folders.pop(folder, None)
        if tally is None:
            return
        skipped = tally["skipped"]
        names = ", ".join(skipped[:4]) + (" …" if len(skipped) > 4 else "")
        if tally["read"] == 0:
            self.state.events.error.emit(
                f"No qrels or run file recognised in {folder}"
                + (f" ({len(skipped)} file(s) looked at: {names})" if skipped else "")
            )
        else:
            self.state.tell(
                f"{os.path.basename(folder)}: {tally['read']} file(s) opened"
                + (f"; {len(skipped)} not recognised ({names})" if skipped else "")
            )

    def remove(self, path: str) -> FileEntry | None:
        """Remove a file (what was loaded can come back with :meth:`undo`); the entry removed."""
        e = self.state.workspace.entry(path)
        if e is None:
            return None
        index = self.state.workspace.entries.index(e)
        was_baseline = self.state.workspace.baseline_path == e.path
        self.state.workspace.remove(e.path)
        if e.status == "ok":
            self.state.undo_stack.push(f"remove {e.label or e.name}", lambda: self._put_back(index, e, was_baseline))
            self.state.tell(f"Removed {e.label or e.name} (Edit > Undo, Ctrl+Z, brings it back)")
        self.state.events.files_changed.emit()
        self.state.events.baseline_changed.emit(self.state.workspace.baseline_label())
        self.state.events.evaluation_wanted.emit()
        return e

    def _put_back(self, index: int, e: FileEntry, was_baseline: bool) -> str | None:
        """A removed (or replaced) file back in its place, with its data, kind, label and baseline role."""
        if self.state.workspace.entry(e.path) is not None:
            return None  # opened again since
        self.state.workspace.entries.insert(min(index, len(self.state.workspace.entries)), e)
        if e.kind in ONE_IN_USE:  # one qrels (intent qrels) file in use: it replaces the one opened since
            self.state.workspace.entries = [
                x for x in self.state.workspace.entries if x is e or not (x.kind == e.kind and x.status == "ok")
            ]
        if was_baseline:
            self.state.workspace.baseline_path = e.path
        e.label = self.state.workspace.unique_label(e.label, exclude=e) if e.is_run else e.label
        self.state.events.files_changed.emit()
        self.state.events.baseline_changed.emit(self.state.workspace.baseline_label())
        self.state.events.evaluation_wanted.emit()
        return f"{e.label or e.name} is back"

    @property
    def can_undo(self) -> bool:
        return bool(self.state.undo_stack)

    # (the names of the first undo, which took back removals only)
    can_undo_remove = can_undo

    def undo_remove(self) -> str | None:
        """Take back the last change; the path of the file that came back, if it was a removal."""
        before = {e.path for e in self.state.workspace.entries}
        told = self.state.undo_stack.undo()
        back = [e.path for e in self.state.workspace.entries if e.path not in before]
        return back[0] if told is not None and back else None

    @user_action
    def rename(self, path: str, label: str) -> str:
        e = self.state.workspace.entry(path)
        if e is None or e.label == label.strip():
            return e.label if e else label
        old = e.label
        used = self.state.workspace.rename(path, label)
        self.state.undo_stack.push(f"rename {old}", lambda: self._rename_back(path, used, old))
        self.state.events.files_changed.emit()
        self.state.events.baseline_changed.emit(self.state.workspace.baseline_label())
        self.state.events.evaluation_wanted.emit()
        return used

    def _rename_back(self, path: str, label: str, old: str) -> str | None:
        e = self.state.workspace.entry(path)
        if e is None or e.label != label:
            return None  # gone, or renamed since
        self.rename(path, old)
        return f"{label} is {e.label} again"

    @user_action
    def move(self, path: str, delta: int) -> None:
        if self.state.workspace.move(path, delta):
            self.state.events.files_changed.emit()
            self.state.events.evaluation_wanted.emit()

    def set_baseline(self, path: str | None) -> None:
        self.state.workspace.set_baseline(path)
        self.state.events.files_changed.emit()
        self.state.events.baseline_changed.emit(self.state.workspace.baseline_label())
