"""File > Export > Comparison page (plain Python, no Qt): the page ``ir-eval --diff`` writes
(:func:`metrics.cli.diff.comparison_page`), of two runs of the results shown: the queries ranked as
"Where to look first" ranks them (:func:`workbench.state.analyses.compute`, kind ``contrast``), and for
the first of them both rankings side by side with the documents of the collection loaded, the query
texts loaded marked, and the grades of the qrels.  :func:`page_request` takes what the page needs on the
window's thread; :func:`write` builds it and writes it atomically in a worker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workbench.state import analyses

if TYPE_CHECKING:
    from metrics.documents.store import DocumentStore

#: queries whose rankings the page shows, the most different first (the others are listed only)
PAGE_QUERIES = 20


@dataclass(frozen=True, eq=False)
class PageRequest:
    """What a comparison page is made from: the analyses' inputs of the results shown, the contrast
    (its runs A and B, how the queries are ranked), ``top`` (documents shown per run: the contrast's depth
    for RBO and tau_AP, so that what is compared is what is shown), the collection (``documents``, at
    ``collection``), the query text files read (``texts_name``) and what the settings call the runs
    (``names``: their files)."""

    inputs: analyses.Inputs
    settings: analyses.ContrastSettings
    top: int
    documents: DocumentStore | None
    collection: str | None
    texts_name: str | None
    names: tuple[str, str]
    queries: int = PAGE_QUERIES


def page_request(results, workspace, settings: analyses.ContrastSettings, depth: int) -> PageRequest | None:
    """The page of ``settings``' two runs of ``results`` (None without them); ``depth``: documents shown
    per run when the queries are ranked by a measure (by RBO or tau_AP, the depth they compare)."""
    inputs = analyses.inputs_of(results, workspace.queries())
    if inputs is None or settings.run_a not in inputs.runs or settings.run_b not in inputs.runs:
        return None
    collection = workspace.collection_entry()
    texts = [e.path for e in workspace.entries if e.kind == "queries" and e.status == "ok"]

    def path_of(label: str) -> str:
        e = workspace.entry_by_label(label)
        return e.path if e is not None else label

    return PageRequest(
        inputs=inputs,
        settings=settings,
        top=settings.depth if settings.unsupervised else int(depth),
        documents=workspace.documents(),
        collection=collection.path if collection is not None and collection.documents is not None else None,
        texts_name=", ".join(texts) or None,
        names=(path_of(settings.run_a), path_of(settings.run_b)),
    )


def build(request: PageRequest, progress: Any = None) -> str:
    """The page's HTML (in a worker: the queries ranked, the documents looked up)."""
    from metrics.cli.diff import comparison_page
    from workbench.state.export import settings_of

    s, inputs = request.settings, request.inputs
    ranked = analyses.compute("contrast", inputs, s, progress).tables["contrast"]
    results = inputs.results
    evaluation = [(k, v) for k, v in settings_of(results) if k not in ("qrels", "measures")] if results else []
    page, _, _ = comparison_page(
        inputs.runs[s.run_a],
        inputs.runs[s.run_b],
        labels=(s.run_a, s.run_b),
        named=request.names,
        store=request.documents,
        collection=request.collection,
        qrels=inputs.qrels,
        qrels_name=inputs.qrels_name,
        texts=dict(inputs.queries),
        texts_name=request.texts_name,
        by=s.by,
        top=request.top,
        queries=request.queries,
        p=s.p,
        ranked=ranked,
        extra=[("made by", "ir-workbench, File > Export > Comparison page"), *evaluation],
    )
    return page


def write(path: str, request: PageRequest, protect: Sequence[str] = (), progress: Any = None) -> None:
    """Build the page and write it to ``path`` atomically (a temporary file renamed over it), never over
    one of the files loaded (``protect``)."""
    from metrics.io import fileio

    fileio.write_text(path, build(request, progress), overwrite=True, protect=protect)
