"""Document collections as the field ships them, recognised by their first bytes and read record by record.

Four layouts, each plain or gzip (recognised by its magic bytes, as every reader does):

* ``tsv``: MS MARCO's ``collection.tsv``, ``docid<TAB>text`` a line;
* ``beir``: BEIR's ``corpus.jsonl``, a JSON object a line with ``_id``, ``title`` and ``text``;
* ``jsonl``: Pyserini's JSONL, a JSON object a line with ``id`` and ``contents``;
* ``trec``: TREC's ``<DOC><DOCNO>...</DOCNO>...</DOC>`` files, the text between the tags, a ``<TITLE>`` or
  ``<HEADLINE>`` as the title.

Lines come from :func:`metrics.io.textfile.chunks` (bounded chunks of whole lines; a line longer than
:data:`~metrics.io.textfile.MAX_LINE_BYTES` is an error naming it, never read whole), and a TREC document
is held only up to :data:`MAX_DOCUMENT_BYTES`.  Ids are kept as the file's bytes (the readers' ids are
bytes too); a text that is not UTF-8 is decoded with replacement characters and flagged.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable, Iterator

from metrics.errors import InputError
from metrics.io.formats import trec_line_kind
from metrics.io.textfile import MAX_LINE_BYTES, chunks, head

__all__ = [
    "FORMATS",
    "EXPECTED",
    "Record",
    "BadRecord",
    "detect_format",
    "collection_format",
    "records",
    "MAX_DOCUMENT_BYTES",
]

#: the layouts, by code, with the sentence that names each
FORMATS = {
    "tsv": "MS MARCO collection.tsv ('docid<TAB>text' lines)",
    "beir": "BEIR corpus.jsonl (JSON lines with _id, title, text)",
    "jsonl": "Pyserini JSONL (JSON lines with id, contents)",
    "trec": "TREC documents (<DOC><DOCNO>...</DOCNO>...</DOC>)",
}
EXPECTED = "a document collection: " + "; ".join(FORMATS.values()) + " (plain or gzip)"
FORMATS["irds"] = "an ir_datasets dataset's documents (irds:<id>, from its local cache)"
#: the longest TREC document held (from its <DOC> to its </DOC>): a file whose </DOC> never comes is refused
MAX_DOCUMENT_BYTES = MAX_LINE_BYTES

_DOC_START = re.compile(rb"^\s*<DOC>", re.I)
_DOC_END = re.compile(rb"</DOC>\s*$", re.I)
_DOCNO = re.compile(rb"<DOCNO>\s*(.*?)\s*</DOCNO>", re.I | re.S)
_TITLE = re.compile(rb"<(TITLE|HEADLINE)>(.*?)</\1>", re.I | re.S)
_TAG = re.compile(rb"<[^>]*>")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Record:
    """One document read: its id as the file's bytes, its title and text, whether bytes that are not UTF-8
    were replaced, and the line it starts on."""

    id: bytes
    title: str
    text: str
    replaced: bool
    line: int


@dataclass(frozen=True)
class BadRecord:
    """A line (or TREC document) that is not a document of the layout: where, and what was found."""

    line: int
    message: str


def detect_format(display: str) -> str:
    """The layout of the collection ``display`` (a code of :data:`FORMATS`), from its first bytes
    (decompressed); an :class:`InputError` naming the file and what was expected when it is none."""
    data = head(display, 1 << 16)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    stripped = data.lstrip()
    if not stripped:
        raise InputError("the file is empty", path=display, expected=EXPECTED)
    if _DOC_START.match(stripped):
        return "trec"
    first = stripped.split(b"\n", 1)[0].rstrip(b"\r")
    if first.startswith(b"{"):
        keys: set[str]
        try:
            keys = set(json.loads(first.decode("utf-8", "surrogateescape")))
        except ValueError:  # a first line longer than the head: its keys, as written
            keys = {k.decode("utf-8", "replace") for k in re.findall(rb'"(\w+)"\s*:', first)}
        if "_id" in keys:
            return "beir"
        if "id" in keys and "contents" in keys:
            return "jsonl"
        raise InputError(
            f"a JSON line with the keys {', '.join(sorted(keys)[:6]) or 'none'}",
            path=display,
            line=1,
            expected="BEIR's _id, title, text or Pyserini's id, contents",
        )
    if b"\t" in first and first.split(b"\t", 1)[0].strip() and b" " not in first.split(b"\t", 1)[0].strip():
        return "tsv"
    raise InputError(
        f"the first line is {_shown(first)}",
        path=display,
        line=1 + data[: len(data) - len(stripped)].count(b"\n"),
        expected=EXPECTED,
    )


#: a ``docid<TAB>text`` file is a collection rather than query texts when its texts average this many
#: words, or half as many with a sentence ended inside a quarter of them (queries are short and one sentence)
COLLECTION_WORDS = 20
_SENTENCE_BREAK = re.compile(r"[.!?]\s+\S")


def collection_format(display: str) -> str | None:
    """The layout of ``display`` (a code of :data:`FORMATS`) when its content is a document collection,
    else None: the window's one test of a file opened (:func:`workbench.state.loading.load_file`).

    TREC first: a file whose first data line is a valid qrels or run line is never a collection.  A
    ``<DOC>`` file or Pyserini's JSONL is one; a BEIR line only with a ``title`` (BEIR's ``queries.jsonl``
    has ``_id`` and ``text`` too); ``docid<TAB>text`` lines only when the texts are passages, not queries
    (:data:`COLLECTION_WORDS`)."""
    try:
        data = head(display, 1 << 16)
    except (OSError, InputError):
        return None
    # (split at the first 51 lines only: a run's 64 KiB hold a thousand, for each of hundreds of files opened)
    lines = [line.rstrip(b"\r") for line in data.removeprefix(b"\xef\xbb\xbf").split(b"\n", 51)[:51]]
    if len(data) >= 1 << 16:
        lines = lines[:-1]  # (the last line may be cut off)
    lines = [line for line in lines if line.strip() and not line.lstrip().startswith(b"#")]
    if not lines or trec_line_kind(lines[0]) is not None:
        return None
    try:
        fmt = detect_format(display)
    except (OSError, InputError):
        return None
    if fmt == "beir":
        return fmt if b'"title"' in lines[0] else None
    if fmt != "tsv":
        return fmt
    texts = [line.split(b"\t", 1)[1].decode("utf-8", "replace") if b"\t" in line else "" for line in lines]
    words = sum(len(t.split()) for t in texts) / len(texts)
    breaks = sum(_SENTENCE_BREAK.search(t) is not None for t in texts)
    if words >= COLLECTION_WORDS or (words >= COLLECTION_WORDS / 2 and 4 * breaks >= len(texts)):
        return fmt
    return None


def _shown(line: bytes) -> str:
    text = line[:60].decode("utf-8", "replace")
    return repr(text + ("..." if len(line) > 60 else ""))


def _text(data: bytes) -> tuple[str, bool]:
    """``data`` as text, and whether bytes that are not UTF-8 were replaced."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", "replace"), True


def _clean(text: str) -> tuple[str, bool]:
    """Text parsed from JSON that may hold lone surrogates (bytes that were not UTF-8, or escapes of
    them): those as replacement characters, and whether there were any."""
    try:
        text.encode("utf-8")
        return text, False
    except UnicodeEncodeError:
        try:
            raw = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raw = text.encode("utf-8", "surrogatepass")
        return raw.decode("utf-8", "replace"), True


def _lines(display: str) -> Iterator[tuple[bytes, int, float]]:
    """(line without its newline, its 1-based number, fraction of the file read) of every line."""
    for chunk, first, _count, fraction in chunks(display):
        lines = chunk.split(b"\n")
        lines.pop()  # a chunk ends with a newline
        for i, line in enumerate(lines):
            yield line, first + i, fraction


def records(display: str, fmt: str) -> Iterator[tuple[Record | BadRecord, float]]:
    """Every document of the collection ``display`` in layout ``fmt``, or a :class:`BadRecord` where a line
    is not one, each with the fraction of the file read."""
    if fmt == "trec":
        yield from _trec(display)
        return
    parse = _LINE_PARSERS[fmt]
    for line, number, fraction in _lines(display):
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line.strip():
            continue
        yield parse(line, number), fraction


def _tsv(line: bytes, number: int) -> Record | BadRecord:
    docid, tab, text = line.partition(b"\t")
    if not tab:
        return BadRecord(number, f"no tab in {_shown(line)}; expected 'docid<TAB>text'")
    if not docid or docid.strip() != docid:
        return BadRecord(number, f"the document id {_shown(docid)} is empty or has blanks around it")
    body, replaced = _text(text)
    return Record(docid, "", body, replaced, number)


def _json_fields(line: bytes, number: int, id_key: str, text_keys: tuple[str, ...]) -> Record | BadRecord:
    replaced = False
    try:
        source = line.decode("utf-8")
    except UnicodeDecodeError:
        source, replaced = line.decode("utf-8", "surrogateescape"), True
    try:
        obj = json.loads(source)
    except ValueError as exc:
        return BadRecord(number, f"not a JSON object ({exc.args[0] if exc.args else exc})")
    if not isinstance(obj, dict) or id_key not in obj:
        return BadRecord(number, f"a JSON line without {id_key!r}")
    docid = obj[id_key]
    if isinstance(docid, bool) or not isinstance(docid, (str, int)):
        return BadRecord(number, f"{id_key!r} is {type(docid).__name__}, not text")
    try:
        raw_id = str(docid).encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return BadRecord(number, f"{id_key!r} holds an escaped lone surrogate")
    if not raw_id:
        return BadRecord(number, f"{id_key!r} is empty")
    values = []
    for key in text_keys:
        value = obj.get(key, "")
        if value is None:
            value = ""
        if not isinstance(value, str):
            return BadRecord(number, f"{key!r} is {type(value).__name__}, not text")
        value, bad = _clean(value)
        replaced = replaced or bad
        values.append(value)
    if len(values) == 1:
        return Record(raw_id, "", values[0], replaced, number)
    return Record(raw_id, values[0], values[1], replaced, number)


def _beir(line: bytes, number: int) -> Record | BadRecord:
    return _json_fields(line, number, "_id", ("title", "text"))


def _pyserini(line: bytes, number: int) -> Record | BadRecord:
    return _json_fields(line, number, "id", ("contents",))


_LINE_PARSERS: dict[str, Callable[[bytes, int], Record | BadRecord]] = {
    "tsv": _tsv,
    "beir": _beir,
    "jsonl": _pyserini,
}


def _trec(display: str) -> Iterator[tuple[Record | BadRecord, float]]:
    held: list[bytes] = []
    size = 0
    start = 0  # the line of the <DOC> of the document held (0: none)
    too_long = False
    fraction = 0.0
    for line, number, fraction in _lines(display):
        if not start:
            if _DOC_START.match(line):
                start, held, size, too_long = number, [line], len(line), False
                if _DOC_END.search(line):
                    yield _trec_document(b"\n".join(held), start), fraction
                    start = 0
            elif line.strip():
                yield BadRecord(number, f"{_shown(line)} outside a <DOC> ... </DOC>"), fraction
            continue
        if _DOC_START.match(line):
            yield BadRecord(start, f"the <DOC> of line {start} has no </DOC> before line {number}'s <DOC>"), fraction
            start, held, size, too_long = number, [line], len(line), False
            if _DOC_END.search(line):
                yield _trec_document(b"\n".join(held), start), fraction
                start = 0
            continue
        if not too_long:
            size += len(line) + 1
            if size > MAX_DOCUMENT_BYTES:
                too_long, held = True, []  # not held any further: the document is refused at its </DOC>
            else:
                held.append(line)
        if _DOC_END.search(line):
            if too_long:
                yield (
                    BadRecord(start, f"the document of line {start} is longer than {MAX_DOCUMENT_BYTES >> 20} MiB"),
                    fraction,
                )
            else:
                yield _trec_document(b"\n".join(held), start), fraction
            start, held = 0, []
    if start:
        yield BadRecord(start, f"the <DOC> of line {start} has no </DOC> before the end of the file"), fraction


def _trec_document(body: bytes, line: int) -> Record | BadRecord:
    docno = _DOCNO.search(body)
    if docno is None or not docno.group(1):
        return BadRecord(line, "a <DOC> without a <DOCNO>")
    rest = body[: docno.start()] + b" " + body[docno.end() :]
    title_bytes = b""
    found = _TITLE.search(rest)
    if found is not None:
        title_bytes = found.group(2)
        rest = rest[: found.start()] + b" " + rest[found.end() :]
    title, bad_title = _text(_TAG.sub(b" ", title_bytes))
    text, bad_text = _text(_TAG.sub(b" ", rest))
    return Record(
        docno.group(1), _SPACE.sub(" ", title).strip(), _SPACE.sub(" ", text).strip(), bad_title or bad_text, line
    )
