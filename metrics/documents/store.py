"""The document store: a collection indexed once into an SQLite database in the user's cache folder, found
again at once next time, and looked up by the ids the runs and qrels name.

* **Where**: ``$IR_WORKBENCH_CACHE/documents/`` when that variable is set, else
  ``$XDG_CACHE_HOME/ir-workbench/documents/`` or ``~/.cache/ir-workbench/documents/``; never beside the
  collection.  One database per collection file, named by a hash of its absolute path; it holds the size
  and modification time of the file it was made from, and a file that changed is indexed again.
* **How**: into a temporary database beside the final one, then renamed into place (``os.replace``): an
  index cancelled or crashed half way is never used.  Documents go in by batches (at most
  :data:`BATCH` documents or :data:`BATCH_BYTES` of text, one transaction each), so memory stays bounded
  whatever the collection's size; ``progress(fraction)`` is called after each batch and Cancel
  (``progress`` returning ``False``) raises :class:`~metrics.errors.Cancelled`, leaving no index.
* **Ids** are stored as the file's bytes (a BLOB) and looked up by the text the readers give for them
  (bytes that are not UTF-8 as lone surrogates, ``surrogateescape``): an id matches byte for byte, case
  and bytes outside UTF-8 included.

The store answers from any thread (a worker's): one connection, read only, behind a lock.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from metrics.documents.formats import FORMATS, BadRecord, Record, detect_format, records
from metrics.documents.snippets import DEFAULT_WIDTH, Snippet, make_snippet
from metrics.errors import Cancelled, InputError
from metrics.io.datasets import DOCS, is_dataset
from metrics.io.textfile import check_regular

__all__ = ["Document", "DocumentStore", "Skipped", "open_documents", "cache_folder", "index_file", "BATCH"]

#: documents inserted per transaction, at most; a batch also ends at :data:`BATCH_BYTES` of text
BATCH = 10_000
BATCH_BYTES = 16 << 20
#: the layout of the database (an index of another layout is made again)
SCHEMA = 1
#: bad lines whose numbers are kept (the count is of all)
KEPT_LINES = 10
#: ids asked of SQLite in one statement
_LOOKUP = 500
#: a temporary database older than this is a build that died: removed
_STALE_SECONDS = 24 * 3600

Progress = Callable[[float], "bool | None"]


@dataclass(frozen=True)
class Document:
    """A document found: its id (as the runs name it), title ("" when the collection has none), text (cut
    to the limit asked for when ``truncated``), ``length`` (characters of the whole text) and ``replaced``
    (bytes that were not UTF-8 are shown as replacement characters)."""

    id: str
    title: str
    text: str
    length: int
    truncated: bool
    replaced: bool


@dataclass(frozen=True)
class Skipped:
    """Lines left out of the index (``on_error="skip"``): how many, and the numbers of the first few."""

    count: int = 0
    lines: tuple[int, ...] = ()


def cache_folder() -> Path:
    """Where the indexes are kept (see the module's docstring)."""
    root = os.environ.get("IR_WORKBENCH_CACHE")
    if root:
        return Path(root) / "documents"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ir-workbench" / "documents"


def index_file(path) -> Path:
    """The database that indexes the collection at ``path`` (whether it exists or not; a dataset's
    documents, ``irds:<id>``, by that name)."""
    named = os.fspath(path)
    absolute = named.strip().removesuffix(DOCS) if is_dataset(named) else os.path.abspath(named)
    key = hashlib.sha256(os.fsencode(absolute)).hexdigest()[:32]
    return cache_folder() / f"{key}.sqlite"


def _id_bytes(docid: str) -> bytes | None:
    try:
        return docid.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate no file's bytes give: no document has that id
        return None


class DocumentStore:
    """A collection's documents, indexed (made by :func:`open_documents`, i.e. ``metrics.documents``).

    ``path``: the collection (absolute); ``format``: its layout (a code of
    :data:`metrics.documents.formats.FORMATS`); ``index``: the database; ``built``: whether this call
    indexed it (False when an index made before was found); ``skipped``: the lines left out."""

    def __init__(self, path: str, index: Path, meta: dict, built: bool) -> None:
        self.path = path
        self.index = index
        self.format: str = meta["format"]
        self.built = built
        self.skipped = Skipped(int(meta["skipped"]), tuple(json.loads(meta["skipped_lines"])))
        self._count = int(meta["count"])
        self._lock = threading.Lock()
        self._con: sqlite3.Connection | None = sqlite3.connect(
            index.as_uri() + "?mode=ro", uri=True, check_same_thread=False
        )

    def __len__(self) -> int:
        return self._count

    def __repr__(self) -> str:
        return f"<DocumentStore {self.path!r}: {self._count} documents, {self.format}>"

    def __enter__(self) -> DocumentStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None

    def _connection(self) -> sqlite3.Connection:
        if self._con is None:
            raise ValueError("the document store is closed")
        return self._con

    def get(self, ids: Iterable[str], *, limit: int | None = None) -> dict[str, Document]:
        """The documents of ``ids`` that the collection holds, by id (the ids it does not hold are
        absent); with ``limit``, each text cut to at most ``limit`` characters (``truncated``, and
        ``length`` the whole text's)."""
        if limit is not None and limit < 0:
            raise ValueError(f"the limit must be 0 or more, not {limit}")
        wanted: dict[bytes, str] = {}
        for docid in ids:
            raw = _id_bytes(docid)
            if raw is not None:
                wanted[raw] = docid
        keys = list(wanted)
        text = "text" if limit is None else "substr(text, 1, ?)"
        out: dict[str, Document] = {}
        with self._lock:
            con = self._connection()
            for lo in range(0, len(keys), _LOOKUP):
                part = keys[lo : lo + _LOOKUP]
                sql = f"SELECT id, title, {text}, length, replaced FROM docs WHERE id IN ({','.join('?' * len(part))})"
                params: list = part if limit is None else [limit, *part]
                for raw, title, body, length, replaced in con.execute(sql, params):
                    docid = wanted[bytes(raw)]
                    out[docid] = Document(docid, title, body, length, len(body) < length, bool(replaced))
        return {docid: out[docid] for docid in wanted.values() if docid in out}  # in the order asked

    def snippet(self, docid: str, terms: str | Iterable[str], width: int = DEFAULT_WIDTH) -> Snippet | None:
        """The passage of the document ``docid`` around the words of ``terms`` (a query's text, or words),
        with where they are (:class:`~metrics.documents.snippets.Snippet`); None when the collection does
        not hold it.  The passage is of the text (the title is ``get()``'s)."""
        found = self.get([docid]).get(docid)
        if found is None:
            return None
        return make_snippet(found.text, terms, width)


def open_documents(path, progress: Progress | None = None, *, on_error: str = "raise") -> DocumentStore:
    """The collection at ``path`` as a :class:`DocumentStore`: its index found in the cache folder when one
    was made from the file as it is now, else made (``progress(fraction)`` after each batch; returning
    ``False`` cancels, leaving no index).  The layout is recognised by content (:mod:`.formats`); a line
    that is not a document raises an :class:`InputError` naming the file and the line
    (``on_error="raise"``) or is left out and counted in ``store.skipped`` (``on_error="skip"``)."""
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error is 'raise' or 'skip', not {on_error!r}")
    display = os.fspath(path)
    if is_dataset(display):  # (an ir_datasets dataset's documents: metrics.documents.datasets)
        from metrics.documents import datasets

        absolute = display.strip().removesuffix(DOCS)  # (irds:<id>#docs names the same documents)
        size, mtime_ns = datasets.dataset_identity(absolute)
        read = lambda: (datasets.FORMAT, datasets.dataset_documents(absolute))  # noqa: E731
    else:
        check_regular(display)
        absolute = os.path.abspath(display)
        info = os.stat(display)
        size, mtime_ns = info.st_size, info.st_mtime_ns

        def read():
            fmt = detect_format(display)
            return fmt, records(display, fmt)

    target = index_file(absolute)
    meta = _meta_of(target)
    built = False
    if meta is None or not _current(meta, absolute, size, mtime_ns):
        fmt, recs = read()
        meta = _build(display, absolute, (size, mtime_ns), fmt, recs, target, progress, on_error)
        built = True
    if on_error == "raise" and int(meta["skipped"]) > 0:
        lines = json.loads(meta["skipped_lines"])
        raise InputError(meta["first_error"], path=display, line=lines[0], expected=FORMATS[meta["format"]])
    if progress is not None:
        progress(1.0)
    return DocumentStore(absolute, target, meta, built)


def _meta_of(target: Path) -> dict | None:
    """The meta table of the index ``target``, or None when there is none that can be read."""
    if not target.is_file():
        return None
    try:
        con = sqlite3.connect(target.as_uri() + "?mode=ro", uri=True)
        try:
            return dict(con.execute("SELECT key, value FROM meta"))
        finally:
            con.close()
    except sqlite3.Error:
        return None


def _current(meta: dict, absolute: str, size: int, mtime_ns: int) -> bool:
    try:
        return (
            int(meta["schema"]) == SCHEMA
            and meta["path"] == absolute
            and int(meta["size"]) == size
            and int(meta["mtime_ns"]) == mtime_ns
        )
    except (KeyError, ValueError, TypeError):
        return False


def _remove_stale(folder: Path) -> None:
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            if entry.name.startswith(".") and entry.name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    if now - entry.stat().st_mtime > _STALE_SECONDS:
                        os.unlink(entry.path)


def _build(
    display: str,
    absolute: str,
    identity: tuple[int, int],
    fmt: str,
    recs: Iterable[tuple[Record | BadRecord, float]],
    target: Path,
    progress: Progress | None,
    on_error: str,
) -> dict:
    """Index the collection into a temporary database, then move it to ``target``; the meta written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(target.parent)
    tmp = target.parent / f".{target.stem}.{secrets.token_hex(6)}.tmp"
    con = sqlite3.connect(tmp)
    try:
        con.execute("PRAGMA journal_mode=OFF")  # the file is used only once whole: no journal needed
        con.execute("PRAGMA synchronous=OFF")
        con.execute("PRAGMA cache_size=-65536")
        con.execute(
            "CREATE TABLE docs (id BLOB NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL, "
            "length INTEGER NOT NULL, replaced INTEGER NOT NULL, line INTEGER NOT NULL)"
        )
        con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value)")
        batch: list[tuple] = []
        size = 0
        skipped, first_error = 0, ""
        lines: list[int] = []

        def flush(fraction: float) -> None:
            with con:
                con.executemany("INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?)", batch)
            batch.clear()
            if progress is not None and progress(min(fraction, 0.99)) is False:
                raise Cancelled("cancelled")

        if progress is not None and progress(0.0) is False:
            raise Cancelled("cancelled")
        for rec, fraction in recs:
            if isinstance(rec, BadRecord):
                if on_error == "raise":
                    raise InputError(rec.message, path=display, line=rec.line, expected=FORMATS[fmt])
                skipped += 1
                if len(lines) < KEPT_LINES:
                    lines.append(rec.line)
                first_error = first_error or rec.message
                continue
            assert isinstance(rec, Record)
            batch.append((rec.id, rec.title, rec.text, len(rec.text), int(rec.replaced), rec.line))
            size += len(rec.text) + len(rec.title)
            if len(batch) >= BATCH or size >= BATCH_BYTES:
                flush(fraction)
                size = 0
        flush(1.0)
        dropped = _unique_ids(con, display, on_error)
        if dropped:
            skipped += len(dropped)
            lines = sorted(lines + dropped)[:KEPT_LINES]
            first_error = first_error or "a document id listed again"
        count = con.execute("SELECT COUNT(*) FROM docs").fetchone()[0]
        meta = {
            "schema": SCHEMA,
            "path": absolute,
            "size": identity[0],
            "mtime_ns": identity[1],
            "format": fmt,
            "count": count,
            "skipped": skipped,
            "skipped_lines": json.dumps(lines),
            "first_error": first_error,
        }
        with con:
            con.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
        con.close()
        with open(tmp, "rb+") as fh:  # on disk before it takes the index's name
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        con.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return {k: str(v) if not isinstance(v, str) else v for k, v in meta.items()}


def _unique_ids(con: sqlite3.Connection, display: str, on_error: str) -> list[int]:
    """Make the index of the ids; an id listed twice raises (naming both lines) or, when skipping, its
    later documents are dropped (their lines returned)."""
    try:
        with con:
            con.execute("CREATE UNIQUE INDEX docs_id ON docs (id)")
        return []
    except sqlite3.IntegrityError:
        pass
    later = "SELECT rowid, line FROM docs WHERE rowid NOT IN (SELECT MIN(rowid) FROM docs GROUP BY id)"
    rows = con.execute(later + " ORDER BY line").fetchall()
    if on_error == "raise":
        rowid, line = rows[0]
        raw, first = con.execute(
            "SELECT d.id, MIN(e.line) FROM docs d JOIN docs e ON e.id = d.id WHERE d.rowid = ?", (rowid,)
        ).fetchone()
        shown = bytes(raw).decode("utf-8", "replace")
        raise InputError(
            f"the document id {shown!r} is listed again (first on line {first})",
            path=display,
            line=line,
            expected="each document once",
        )
    with con:
        con.executemany("DELETE FROM docs WHERE rowid = ?", [(r,) for r, _ in rows])
        con.execute("CREATE UNIQUE INDEX docs_id ON docs (id)")
    return [line for _, line in rows]
