"""Reading a file for the window, in a worker: the job bodies and the messages of their failures (no Qt)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import metrics
import metrics.io.readers
from workbench.scoring.intents import read_intents
from workbench.scoring.run_on_disk import RunOnDisk
from workbench.state.workspace import FileEntry

if TYPE_CHECKING:
    from metrics.documents.store import DocumentStore
    from metrics.engine.settings import Settings

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "resources" / "sample"


#: the sample's query texts and documents, opened after its qrels and runs
SAMPLE_TEXTS = ("queries.tsv", "collection.tsv")


def sample_files() -> list[str]:
    """The bundled sample: its qrels and runs (``*.txt``), then its query texts and its collection."""
    texts = [SAMPLE_DIR / name for name in SAMPLE_TEXTS if (SAMPLE_DIR / name).is_file()]
    return [str(p) for p in [*sorted(SAMPLE_DIR.glob("*.txt")), *texts]]


@dataclasses.dataclass
class QueriesFile:
    """A file of query texts (:mod:`metrics.io.topics`), loaded beside qrels and runs."""

    path: str
    queries: dict
    kind: str = "queries"
    run: None = None
    qrels: None = None
    warnings: list = dataclasses.field(default_factory=list)
    digest: str | None = None


@dataclasses.dataclass
class CollectionFile:
    """A document collection (:mod:`metrics.documents`), indexed in the cache; ``store`` None: the indexing
    was cancelled (no index is kept)."""

    path: str
    store: DocumentStore | None
    kind: str = "collection"
    run: None = None
    qrels: None = None
    warnings: list = dataclasses.field(default_factory=list)
    digest: str | None = None


def index_collection(path: str, progress) -> CollectionFile:
    """Worker body: the collection at ``path`` indexed (or found indexed) with ``progress``; Cancel
    (``progress`` returning False) leaves no index and gives a :class:`CollectionFile` without a store."""
    from metrics.documents.store import open_documents
    from metrics.errors import Cancelled

    try:
        return CollectionFile(path, open_documents(path, progress))
    except Cancelled:
        return CollectionFile(path, None)


def load_file(path: str, kind: str | None, progress, hold: bool = True):
    """Worker body: the file's size and time as read, and its content.

    ``hold=False``: a run file is not read but stands as a :class:`~workbench.scoring.disk_runs.RunOnDisk`
    (scored from disk by each evaluation); other kinds are read as usual."""
    import metrics.io.detect
    import metrics.io.topics

    if path.startswith("irds:"):  # an ir_datasets dataset: its qrels, scored documents or query texts
        return _load_dataset(path, kind, progress)
    try:
        st = os.stat(path)
    except OSError:
        st = None
    stat = (st.st_size, st.st_mtime) if st is not None else (0, 0.0)
    if kind == "collection" or (kind is None and _holds_documents(path)):
        return stat, index_collection(path, progress)
    if kind == "queries" or (kind is None and metrics.io.detect.holds_queries(path)):
        return stat, QueriesFile(path, metrics.io.topics.read_queries(path), digest=content_digest(path, stat[0]))
    if not hold:
        from workbench.scoring.disk_runs import head_of_run

        on_disk = head_of_run(path, kind)
        if on_disk is not None:
            on_disk.stat = stat if st is not None else None
            return stat, metrics.io.readers.LoadedColumns("run", path, on_disk, None, [])  # type: ignore[arg-type]
    if kind == "intents":
        return stat, read_intents(path, content_digest(path, stat[0]))
    if kind == "held":  # qrels held beside the ones in use: read as qrels
        loaded = metrics.io.readers.read_file_columns(path, kind="qrels", progress=progress)
        loaded.kind = "held"
        loaded.digest = content_digest(path, stat[0])  # type: ignore[attr-defined]
        return stat, loaded
    try:
        loaded = metrics.io.readers.read_file_columns(path, kind=kind, progress=progress)
    except metrics.IntentQrelsError as exc:
        if kind is not None:
            raise  # read as ad hoc qrels, as the user asked: the error says what the file is
        intents = read_intents(path, content_digest(path, stat[0]))  # intent qrels, beside the ad hoc qrels
        intents.warnings.append(metrics.io.detect.read_as_intents(exc))
        return stat, intents
    loaded.digest = content_digest(path, stat[0])  # type: ignore[attr-defined]
    return stat, loaded


def _holds_documents(path: str) -> bool:
    """Whether the file is a document collection by its content, after TREC (a file trec_eval reads as
    qrels or a run never is one; :func:`metrics.documents.formats.collection_format`)."""
    from metrics.documents.formats import collection_format

    return collection_format(path) is not None


#: files larger than this are not hashed to tell copies apart (about 0.4 s of a core for 256 MiB)
DIGEST_LIMIT = 256 << 20


def content_digest(path: str, size: int) -> str | None:
    """A hash of a file's bytes (None for a large or unreadable file), to tell a copy opened twice."""
    import hashlib

    if size > DIGEST_LIMIT:
        return None
    h = hashlib.blake2b(digest_size=16)
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
    except OSError:
        return None
    return f"{size}:{h.hexdigest()}"


def _load_dataset(source: str, kind: str | None, progress):
    """Worker body for ``irds:<id>`` (qrels unless ``kind`` says otherwise), ``irds:<id>#queries`` and
    ``irds:<id>#docs`` (its documents, a collection indexed as a file is)."""
    from metrics.io.datasets import DOCS, QUERIES, dataset_queries

    if kind == "queries" or source.endswith(QUERIES):
        return (0, 0.0), QueriesFile(source, dataset_queries(source))
    if kind == "collection" or source.endswith(DOCS):
        return (0, 0.0), index_collection(source, progress)
    loaded = metrics.io.readers.read_file_columns(
        source, kind="qrels" if kind in (None, "held") else kind, progress=progress
    )
    if kind == "held":
        loaded.kind = "held"
    return (0, 0.0), loaded


def inspection_work(e: FileEntry, qrels, settings: Settings) -> Callable[[Any], dict]:
    """The worker body that inspects the file of ``e`` (:mod:`metrics.inspect.files`), against ``qrels`` when given."""
    work: Callable[[Any], dict]
    if e.kind == "intents" and e.status == "ok":
        path = e.path

        def work(progress):  # (recognised as intent qrels where ad hoc qrels are read: their queries, intents)
            import metrics.inspect.files

            return metrics.inspect.files.inspect_file(path, None, progress=progress).to_dict()
    elif e.kind == "queries" and e.status == "ok":
        queries = dict(e.queries or {})

        def work(progress):
            return {
                "path": e.path,
                "kind": "queries",
                "queries": len(queries),
                "kind_reason": "one query text per line ('qid<TAB>text') or TREC topics",
                "size": e.size,
                "columns": ["qid", "text"],
                "head": [{"line": None, "fields": [q, t]} for q, t in list(queries.items())[:10]],
                "problems": [],
            }
    elif e.kind == "collection":
        store = e.documents if e.status == "ok" else None

        def work(progress):
            from metrics.documents.formats import FORMATS

            return {
                "path": e.path,
                "kind": "collection",
                "documents": None if store is None else len(store),
                "kind_reason": FORMATS[store.format] if store is not None else (e.error or ""),
                "size": e.size,
                "problems": [],
            }
    elif e.status == "ok" and e.kind is not None and not isinstance(e.run, RunOnDisk):
        read_as = "qrels" if e.kind == "held" else e.kind  # (qrels held beside are qrels)
        loaded = metrics.io.readers.LoadedColumns(read_as, e.path, e.run, e.qrels, list(e.warnings))

        def work(progress):
            import metrics.inspect.files

            return metrics.inspect.files.inspect_loaded(
                loaded, qrels=qrels, settings=settings, progress=progress
            ).to_dict()
    else:
        path, kind = e.path, ("qrels" if e.forced_kind == "held" else e.forced_kind)

        def work(progress):
            import metrics.inspect.files

            return metrics.inspect.files.inspect_file(
                path, kind, qrels=qrels, settings=settings, progress=progress
            ).to_dict()

    return work
