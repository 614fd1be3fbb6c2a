"""What the window has loaded: files, their kinds, run labels, order and baseline.

Plain Python (no Qt): :class:`workbench.state.session.SessionModel` holds one Workspace and
announces its changes.

Rules
-----
* One entry per file path, of kind ``"qrels"``, ``"held"`` (qrels held beside the ones in use, to be
  compared with them: :mod:`workbench.state.judgments`), ``"run"``, ``"ranked"`` (ranked
  judgments: a run whose lines carry their own judgments), ``"queries"`` (query
  texts), ``"intents"`` (intent qrels: :mod:`workbench.scoring.intents`) or
  ``"collection"`` (the documents: :mod:`metrics.documents`, indexed in the cache).
* One qrels (intent qrels, collection) file is in use at a time: one that loads
  replaces the previous one.  Without a qrels file, the judgments of all ranked files are used.
  Any number of qrels files are held beside it (kind ``"held"``): they score nothing, and are what
  the judgments' views compare the qrels in use with.
* Every run (and ranked file) has a label, unique among the runs; it defaults to
  the run tag, or to the file name when the tag is generic ("run", "Anserini")
  or already taken by another run.
* The baseline is one of the runs: the one chosen, by default the first one in order.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from metrics.io.labels import unique_label
from metrics.ranking.qrels_index import as_columns
from workbench.scoring.run_on_disk import RunOnDisk
from workbench.state.disk_watch import DiskState

if TYPE_CHECKING:
    from metrics.documents.store import DocumentStore
    from metrics.io.table import Columns
    from workbench.scoring.intents import IntentQrels

KINDS = ("qrels", "held", "run", "ranked", "queries", "intents", "collection")
#: kinds whose files hold qrels: the qrels in use, and those held beside it
QRELS_KINDS = ("qrels", "held")
#: kinds of which one file is in use at a time (a new one replaces the one before)
ONE_IN_USE = ("qrels", "intents", "collection")
# run tags that name a tool or nothing at all rather than a run
GENERIC_TAGS = frozenset(
    {
        "run",
        "runs",
        "ranked-list",
        "ranked_list",
        "ranking",
        "default",
        "tag",
        "system",
        "sys",
        "test",
        "anserini",
        "pyserini",
        "terrier",
        "pyterrier",
        "lucene",
        "indri",
        "galago",
        "solr",
        "elasticsearch",
        "trec",
        "q0",
        "0",
        "none",
        "null",
        "-",
    }
)
RUN_KINDS = ("run", "ranked")


@dataclass(eq=False)
class FileEntry:
    """One loaded (or loading, or failed) file."""

    path: str
    kind: str | None = None  # detected or chosen kind; None while unknown
    forced_kind: str | None = None  # set when the user corrected the detected kind
    label: str = ""  # display name of a run
    wanted_label: str | None = None  # label to give the run once loaded (from a workspace file)
    warnings: list[str] = field(default_factory=list)  # what the reader accepted but found odd
    folder: str | None = None  # the folder it was found in, while it is read (see ReadingJobs.open_files)
    queries: dict | None = None  # query id -> text, for a file of kind "queries"
    intents: IntentQrels | None = None  # for a file of kind "intents"
    documents: DocumentStore | None = None  # for a file of kind "collection": its index
    status: str = "loading"  # "loading" | "ok" | "error" | "cancelled" (a collection's indexing)
    error: str | None = None
    run: Columns | RunOnDisk | None = None  # held in memory as columns, or scored from disk
    qrels: Columns | None = None
    generation: int = 0  # bumped whenever a new load of this file starts
    version: int = 0  # bumped whenever loaded content is stored
    size: int = 0  # size and modification time of the content in use
    mtime: float = 0.0
    hold: bool = True  # a run file is held in memory; False: scored from disk (workbench.scoring.disk_runs)
    digest: str | None = None  # of the bytes read (files read whole), to tell a copy opened twice
    missing: bool = False  # named by a workspace but not found: Locate… opens the file it became

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def is_run(self) -> bool:
        return self.status == "ok" and self.kind in RUN_KINDS and self.run is not None


#: a label that names a baseline starts with one of these words, after words that name only the run's
#: collection or origin ("run", "trec", "dl19", "msmarco", "passage", "v1", a year): "bm25", "BM25+RM3",
#: "run_tfidf_title", "baseline", "bm25base" (TREC DL's official baseline), "dl19-bm25",
#: "run.msmarco-v1-passage.bm25-default.dl19" (Pyserini's file name); never a name where a model comes first
#: ("colbert-on-bm25-trec-dl-queries" and "monot5-bm25" re-rank BM25, they are not BM25)
_PLACE = r"(?:runs?|trec|dl|dl\d\d|dl20\d\d|ms|marco|msmarco|passages?|docs?|documents?|v\d|robust04|beir|dev|test|\d+)"
BASELINE_NAMES = re.compile(
    rf"^(?:{_PLACE}[^a-z0-9]+)*(?:baseline|bm25(?:base|tuned)?|base|ql|dirichlet|lmdir|tf-?idf)(?![a-z])",
    re.IGNORECASE,
)


def names_a_baseline(label: str) -> bool:
    """Whether a run's label names a baseline by its leading word (see :data:`BASELINE_NAMES`)."""
    return BASELINE_NAMES.match(label.strip()) is not None


def default_baseline(runs: list[FileEntry]) -> FileEntry | None:
    """The baseline when none was chosen: the run whose label names a baseline by its leading word
    ("baseline", BM25, query likelihood, TF-IDF; :func:`names_a_baseline`; the shortest such label, then the
    first in order: ``bm25`` before ``bm25_rm3``), else the first run in order (files load in parallel: the
    first one dropped, not the first one read)."""
    named = [e for e in runs if names_a_baseline(e.label or "")]
    if named:
        return min(named, key=lambda e: (0 if "baseline" in e.label.lower() else 1, len(e.label)))
    return runs[0] if runs else None


@dataclass
class Workspace:
    """The files the session holds, in the order listed, with the baseline, and the rules of which is in use."""

    entries: list[FileEntry] = field(default_factory=list)
    baseline_path: str | None = None
    #: path -> the disk watch's last word on the file (:meth:`apply_disk`)
    disk: dict[str, DiskState] = field(default_factory=dict, repr=False, compare=False)

    # -- lookup ---------------------------------------------------------
    def entry(self, path: str) -> FileEntry | None:
        path = normalize(path)
        for e in self.entries:
            if e.path == path:
                return e
        return None

    def entry_by_label(self, label: str) -> FileEntry | None:
        for e in self.run_entries():
            if e.label == label:
                return e
        return None

    def run_entries(self) -> list[FileEntry]:
        return [e for e in self.entries if e.is_run]

    def qrels_entry(self) -> FileEntry | None:
        for e in self.entries:
            if e.status == "ok" and e.kind == "qrels" and e.qrels is not None:
                return e
        return None

    def held_entries(self) -> list[FileEntry]:
        """The qrels files held beside the one in use, in the order of the list."""
        return [e for e in self.entries if e.status == "ok" and e.kind == "held" and e.qrels is not None]

    def held_qrels(self) -> dict[str, Columns]:
        """The qrels held beside the one in use: path -> their columns, in the order of the list."""
        return {e.path: e.qrels for e in self.held_entries() if e.qrels is not None}

    def intents_entry(self) -> FileEntry | None:  # (the diversity measures are scored against it)
        for e in self.entries:
            if e.status == "ok" and e.kind == "intents" and e.intents is not None:
                return e
        return None

    def collection_entry(self) -> FileEntry | None:
        for e in self.entries:
            if e.status == "ok" and e.kind == "collection" and e.documents is not None:
                return e
        return None

    def documents(self) -> DocumentStore | None:
        """The documents of the collection in use (None: no collection is loaded)."""
        e = self.collection_entry()
        return e.documents if e is not None else None

    # -- changes --------------------------------------------------------
    def begin_load(self, path: str, kind: str | None = None, label: str | None = None) -> FileEntry:
        """Register a load of ``path`` (new or again); returns its entry with a new generation."""
        path = normalize(path)
        e = self.entry(path)
        if e is None:
            e = FileEntry(path=path)
            self.entries.append(e)
        if kind is not None:
            e.forced_kind = kind
        if label:
            e.wanted_label = label
        e.generation += 1
        if e.status != "ok":
            e.status = "loading"
            e.error = None
        return e

    def finish_load(
        self, path: str, generation: int, kind: str, run, qrels, stat: tuple[int, float] | None = None
    ) -> FileEntry | None:
        """Store a successful load; returns None if a newer load of the file superseded it.

        ``stat`` is the file's (size, mtime) when it was read: the content in
        use is known to be current only while the file on disk still has them.
        """
        e = self.entry(path)
        if e is None or e.generation != generation:
            return None
        run = run if run is None or isinstance(run, RunOnDisk) else as_columns(run, "run")  # (a frame given: made
        qrels = qrels if qrels is None else as_columns(qrels, "qrels")  # columns once, as the reader gives them)
        was_run = e.is_run
        e.kind, e.run, e.qrels = kind, run, qrels
        e.status, e.error = "ok", None
        e.version += 1
        if stat is not None:
            e.size, e.mtime = stat
        if kind in ("queries", "intents", "collection"):
            e.run = e.qrels = None
        elif kind in QRELS_KINDS:
            e.run = None
        else:
            if kind == "run":
                e.qrels = None
            if e.wanted_label:
                e.label, e.wanted_label = self.unique_label(e.wanted_label, exclude=e), None
            elif not was_run or not e.label:
                tag = None if run is None else run.name
                e.label = self.unique_label(self._label_for(tag, e), exclude=e)
        if kind in ONE_IN_USE:  # one qrels file in use, one intent qrels file: this one replaces the others
            self.entries = [x for x in self.entries if x is e or not (x.kind == kind and x.status == "ok")]
        return e

    def fail_load(self, path: str, generation: int, message: str) -> FileEntry | None:
        """Record a failed load.  A file that was loaded before keeps its data."""
        e = self.entry(path)
        if e is None or e.generation != generation:
            return None
        if e.status == "ok":
            e.error = message  # keep the earlier data in use
        else:
            e.status, e.error = "error", message
        return e

    def cancel_indexing(self, path: str, generation: int) -> FileEntry | None:
        """A collection whose indexing was cancelled: a new file stays listed as cancelled (no index is
        kept), a collection loaded before keeps its documents."""
        e = self.entry(path)
        if e is None or e.generation != generation:
            return None
        if e.status != "ok":
            e.kind, e.status, e.error = "collection", "cancelled", "Indexing cancelled: no index was kept"
        return e

    def cancel_load(self, path: str, generation: int) -> FileEntry | None:
        """Forget a cancelled load: a new file disappears, a loaded one keeps its data."""
        e = self.entry(path)
        if e is None or e.generation != generation:
            return None
        if e.status == "loading":
            self.entries.remove(e)
        return e

    def remove(self, path: str) -> None:
        e = self.entry(path)
        if e is not None:
            self.entries.remove(e)
            if self.baseline_path == e.path:
                self.baseline_path = None  # back to the first run

    def rename(self, path: str, label: str) -> str:
        """Give a run a new label (made unique); returns the label used."""
        e = self.entry(path)
        if e is None:
            raise KeyError(path)
        label = label.strip()
        if not label:
            return e.label
        e.label = self.unique_label(label, exclude=e)
        return e.label

    def move(self, path: str, delta: int) -> bool:
        """Move a file ``delta`` places among the entries (runs keep their relative order)."""
        e = self.entry(path)
        if e is None:
            return False
        i = self.entries.index(e)
        j = max(0, min(len(self.entries) - 1, i + delta))
        if i == j:
            return False
        self.entries.insert(j, self.entries.pop(i))
        return True

    def set_baseline(self, path: str | None) -> None:
        if path is not None:
            e = self.entry(path)
            if e is None or not e.is_run:
                raise KeyError(path)
            path = e.path
        self.baseline_path = path

    # -- what the evaluation needs --------------------------------------
    def baseline_entry(self) -> FileEntry | None:
        """The run chosen as baseline, or else the first run in order (files load in parallel:
        the first one dropped, not the first one read, is the default)."""
        e = self.entry(self.baseline_path) if self.baseline_path else None
        if e is not None and e.is_run:
            return e
        runs = self.run_entries()
        return default_baseline(runs)

    def baseline_label(self) -> str | None:
        e = self.baseline_entry()
        return e.label if e is not None else None

    def runs(self) -> dict[str, Columns | RunOnDisk]:
        """Runs in display order, keyed by label: columns, or :class:`~workbench.scoring.disk_runs.RunOnDisk`
        for the runs scored from disk."""
        return {e.label: e.run for e in self.run_entries() if e.run is not None}

    def held(self) -> tuple[int, int]:
        """Bytes on disk and number of the run files held in memory or being read to be held."""
        held = [
            e
            for e in self.entries
            if e.hold and (e.status == "loading" or (e.run is not None and not isinstance(e.run, RunOnDisk)))
        ]
        return sum(e.size for e in held), len(held)

    def qrels_parts(self) -> list[Columns]:
        """The judgments in use, as loaded: the qrels file, or else those of every ranked file.

        Merging several parts is left to :func:`merge_qrels` (in a worker: it can be large).
        """
        q = self.qrels_entry()
        if q is not None and q.qrels is not None:
            return [q.qrels]
        return [e.qrels for e in self.run_entries() if e.kind == "ranked" and e.qrels is not None]

    def qrels(self) -> Columns | None:
        parts = self.qrels_parts()
        from workbench.scoring.evaluation import merge_qrels  # (the core, imported once qrels are merged)

        return merge_qrels(parts) if parts else None

    def qrels_name(self) -> str | None:
        q = self.qrels_entry()
        if q is not None:
            return q.path
        ranked = [e.path for e in self.run_entries() if e.kind == "ranked"]
        return " + ".join(ranked) if ranked else None

    def queries(self) -> dict[str, str]:
        """Query texts of every loaded queries file (a later file wins for the same id)."""
        out: dict[str, str] = {}
        for e in self.entries:
            if e.status == "ok" and e.kind == "queries" and e.queries:
                out.update(e.queries)
        return out

    def loading(self) -> list[FileEntry]:
        return [e for e in self.entries if e.status == "loading"]

    def apply_disk(self, states: list[DiskState]) -> list[DiskState]:
        """What the disk watch found (:mod:`workbench.state.disk_watch`, from its own thread): kept for
        :meth:`changed_on_disk` and :meth:`deleted_from_disk`; returns those that describe a file as it is
        loaded now (not one read again since the look)."""
        current = []
        for state in states:
            self.disk[state.path] = state
            e = self.entry(state.path)
            if e is not None and self._on_disk(e) == state.status:
                current.append(state)
        return current

    def changed_on_disk(self) -> list[FileEntry]:
        """Loaded files whose size or time on disk differ from those of the content in use (a file deleted
        and written again among them: it is offered to be read again)."""
        return [e for e in self.entries if self._on_disk(e) == "changed"]

    def deleted_from_disk(self) -> list[FileEntry]:
        """Loaded files that are no longer on disk (what was read of them is what is in use)."""
        return [e for e in self.entries if self._on_disk(e) == "deleted"]

    def _on_disk(self, e: FileEntry) -> str | None:
        """``"changed"``, ``"deleted"`` or None (as read) for a loaded file: the disk watch's last word on
        the content in use (a look at a file read before, with another size or time, says nothing of it).
        No file is looked at here: the window asks at every change of what it shows."""
        if e.status != "ok" or not e.mtime:
            return None
        seen = self.disk.get(e.path)
        if seen is None or seen.read != (e.size, e.mtime):
            return None
        return seen.status

    def unscorable(self) -> list[FileEntry]:
        """Runs scored from their files (not held) whose file changed or went since it was opened: they
        cannot be scored as they were read, and are left out until they are read again."""
        return [e for e in self.run_entries() if isinstance(e.run, RunOnDisk) and self._on_disk(e) is not None]

    # -- helpers --------------------------------------------------------
    def _label_for(self, tag: str | None, e: FileEntry) -> str:
        """The run tag when it tells this run apart; else the file name.

        Tags like "run" or "Anserini" name a tool, not a run, and a tag already
        used by another loaded run would only get a number: the file name says more.
        """
        stem = Path(e.path).name
        for suffix in (".gz", ".txt", ".run", ".trec", ".res", ".tsv", ".csv", ".json"):
            stem = stem[: -len(suffix)] if stem.lower().endswith(suffix) and len(stem) > len(suffix) else stem
        if not tag or tag.strip().lower() in GENERIC_TAGS:
            return stem
        taken = {x.label for x in self.entries if x is not e and x.label}
        return stem if tag in taken and stem not in taken else tag

    def unique_label(self, label: str, exclude: FileEntry | None = None) -> str:
        return unique_label(label, {e.label for e in self.entries if e is not exclude and e.label}, "{base} ({n})")


def normalize(path: str | os.PathLike) -> str:
    text = os.fspath(path)
    if text.startswith("irds:"):  # an ir_datasets dataset (metrics.io.datasets), not a file
        return text
    return os.path.abspath(text)


# files a folder holds that are never qrels or runs (a folder of a study often has them)
SKIP_SUFFIXES = frozenset(
    {
        ".md",
        ".rst",
        ".py",
        ".ipynb",
        ".json",
        ".yaml",
        ".yml",
        ".toml",
        ".cfg",
        ".ini",
        ".sh",
        ".log",
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".svg",
        ".pdf",
        ".html",
        ".htm",
        ".tex",
        ".csv",
        ".parquet",
        ".pkl",
        ".zip",
        ".tar",
        ".tgz",
        ".bz2",
        ".xz",
        ".7z",
        ".irwb",
    }
)
MAX_FOLDER_FILES = 1000  # files taken from one folder (and its subfolders) at the most
MAX_FOLDER_DEPTH = 3  # subfolder levels searched (qrels/ and runs/ beside each other is the usual layout)


@dataclass
class Expansion:
    """The files that paths (folders among them) stand for, the folder each came from, and what was left out."""

    files: list[str]
    folder_of: dict[str, str]  # file -> the folder it was found in (files named directly are not in it)
    notes: list[str]  # what was left out, in words


def expand(paths, *, max_files: int = MAX_FOLDER_FILES, max_depth: int = MAX_FOLDER_DEPTH) -> Expansion:
    """The files named by ``paths``; a folder stands for the visible files in it and its subfolders
    (sorted, at most ``max_depth`` levels and ``max_files`` files), without files that are plainly not
    qrels or runs (documents, pictures, code, archives)."""
    out: list[str] = []
    folder_of: dict[str, str] = {}
    notes: list[str] = []
    for p in paths:
        p = normalize(p)
        if not os.path.isdir(p):
            out.append(p)
            continue
        found: list[str] = []
        skipped, truncated = 0, False
        base_depth = p.rstrip(os.sep).count(os.sep)
        for root, dirs, names in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
            if root.count(os.sep) - base_depth >= max_depth:
                dirs[:] = []
            for name in sorted(names):
                if name.startswith("."):
                    continue
                suffix = os.path.splitext(name)[1].lower()
                if suffix in SKIP_SUFFIXES:
                    skipped += 1
                    continue
                if len(found) >= max_files:
                    truncated = True
                    break
                found.append(os.path.join(root, name))
            if truncated:
                break
        if truncated:
            notes.append(f"{os.path.basename(p)}: only the first {max_files} files are opened")
        if skipped:
            notes.append(f"{os.path.basename(p)}: {skipped} file(s) that are not qrels or runs left out")
        out.extend(found)
        folder_of.update({f: p for f in found})
    files = list(dict.fromkeys(out))  # (each once, in the order found)
    return Expansion(files, folder_of, notes)


def expand_paths(paths) -> list[str]:
    """The files :func:`expand` finds for ``paths``."""
    return expand(paths).files
