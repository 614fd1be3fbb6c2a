"""The documents of a collection, for reading what the runs retrieved: MS MARCO's ``collection.tsv``, BEIR's
``corpus.jsonl``, Pyserini's JSONL and TREC's ``<DOC>`` files (plain or gzip), indexed once into SQLite in
the user's cache folder and looked up by the runs' document ids.

>>> import metrics
>>> store = metrics.documents("collection.tsv")       # doctest: +SKIP
>>> store.get(["DOC-000-0040"])["DOC-000-0040"].text   # doctest: +SKIP
>>> store.snippet("DOC-000-0040", "query words").marked()  # doctest: +SKIP

The package itself can be called as the function (``metrics.documents(path)``), whichever of the two
``metrics.documents`` names first.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING

from metrics.lazy_names import lazy_names

if TYPE_CHECKING:
    from metrics.documents.formats import FORMATS
    from metrics.documents.snippets import Snippet, make_snippet, query_terms
    from metrics.documents.store import (
        Document,
        DocumentStore,
        Progress,
        Skipped,
        cache_folder,
        index_file,
        open_documents,
    )

# Each public name is loaded when first used (PEP 562), as ``metrics``' own are: a module of the package
# imported alone (``metrics.documents.formats``, which the window asks of every file it opens whether it
# is a collection) does not import the store, and SQLite with it.
_LAZY = {
    "FORMATS": "formats",
    **dict.fromkeys(("Snippet", "make_snippet", "query_terms"), "snippets"),
    **dict.fromkeys(("Document", "DocumentStore", "Progress", "Skipped"), "store"),
    **dict.fromkeys(("cache_folder", "index_file", "open_documents"), "store"),
}


__all__ = [
    "documents",
    "open_documents",
    "Document",
    "DocumentStore",
    "Skipped",
    "Snippet",
    "FORMATS",
    "cache_folder",
    "index_file",
    "make_snippet",
    "query_terms",
]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)


def documents(path, progress: Progress | None = None, *, on_error: str = "raise") -> DocumentStore:
    """The collection at ``path`` as a :class:`DocumentStore` (see :func:`open_documents`)."""
    from metrics.documents.store import open_documents

    return open_documents(path, progress, on_error=on_error)


class _CallablePackage(types.ModuleType):
    """``metrics.documents`` is both this package and :func:`documents`: ``import metrics.documents`` sets
    the package as the attribute of ``metrics``, and calling it still opens a collection."""

    def __call__(self, path, progress: Progress | None = None, *, on_error: str = "raise") -> DocumentStore:
        return documents(path, progress, on_error=on_error)


sys.modules[__name__].__class__ = _CallablePackage
