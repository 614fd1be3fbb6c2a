"""Query texts: ``qid<TAB>text`` files and TREC topic files, read into ``{qid: text}``.

They are shown beside the scores (the per-query table, the drill-down); no
measure needs them.  Two layouts are read:

* tab-separated ``qid<TAB>text``, one query per line (MS MARCO's ``queries.tsv``,
  ir_datasets exports); a first line ``qid<TAB>query`` or the like is a header;
* TREC topics: ``<top> <num> Number: 301 <title> ... </top>`` (the title, or
  the description when a topic has no title), as NIST distributes them, or
  the XML form ``<topic number="1"><query>...</query>...</topic>``.

Plain Python on purpose: a topic file is small and its SGML is not XML (no
closing tags), so neither a CSV nor an XML library reads both layouts.
"""

from __future__ import annotations

import os
import re

from metrics.errors import InputError
from metrics.io.formats import trec_line_kind
from metrics.io.textfile import open_input, open_stream

MAX_BYTES = 256 * 1024 * 1024  # topic files are a few megabytes at the most (MS MARCO's: 33 MB)
_HEADERS = {
    ("qid", "query"),
    ("qid", "text"),
    ("query_id", "text"),
    ("id", "text"),
    ("query_id", "query"),
    ("qid", "title"),
}
_TOP = re.compile(r"<top>(.*?)(?:</top>|(?=<top>)|\Z)", re.S | re.I)
_NUM = re.compile(r"<num>\s*(?:Number:)?\s*(\S+)", re.I)
_FIELD = r"<{0}>\s*(?:{1}:)?\s*(.*?)\s*(?=<[a-z/]|\Z)"
_XML_TOPIC = re.compile(r"<topic\s+number\s*=\s*\"([^\"]+)\"[^>]*>(.*?)</topic>", re.S | re.I)


def sniff(head: bytes) -> bool:
    """Whether the start of a file holds queries (topics, or ``qid<TAB>free text`` lines).

    TREC first: when the first data line (not blank, not a ``#`` comment) is a valid qrels or run line
    (:func:`~metrics.io.formats.trec_line_kind`, as trec_eval splits it: a lone CR or a tab is a blank, a
    hexadecimal score a number), the file is qrels or a run, whatever tags its comments or ids hold.
    Otherwise the evidence: a ``<top>`` or ``<topic number=...>`` tag on a data line, or lines of two
    tab-separated fields whose second is words."""
    lines = [line for line in _first_lines(head, 50) if line.strip() and not line.lstrip()[:1] == b"#"]
    if len(lines) > 1 and len(head) >= 65536:
        lines = lines[:-1]  # the last line may be cut off
    if not lines:
        return False
    if trec_line_kind(lines[0]) is not None:
        # qrels or run lines, whatever their blanks ('q1<TAB>0 d1 1') or words; a later line that is not
        # valid TREC is the reader's to name ('q1<TAB>Q0 d2 2 abc runA'), not a sign of query texts
        return False
    text = b"\n".join(lines).decode("utf-8", "replace")
    # (no "<": no tag, and the search is skipped for the runs and qrels a folder holds by the hundred)
    if b"<" in head and re.search(r"<top>|<topic\s+number", text, re.I):
        return True
    rows = [line.split("\t") for line in text.split("\n")]
    # two tab-separated fields, the second words (TREC qrels and runs are 4 and 6 single-token fields)
    return all(len(r) == 2 for r in rows) and sum(" " in r[1].strip() for r in rows) >= max(1, len(rows) // 2)


def _first_lines(head: bytes, n: int) -> list[bytes]:
    """The first ``n`` lines of ``head`` without their ends, a line ended by "\n" alone as the reader ends
    it: a "\r" inside a line is a blank to the reader and to trec_eval, where ``str.splitlines`` would
    cut the line there (and a qrels line cut at a "\r" after its tab looked like ``qid<TAB>text``)."""
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    return [line.removesuffix(b"\r") for line in head.split(b"\n", n)[:n]]


def read_queries(path) -> dict[str, str]:
    """``{qid: text}`` from a query or topic file (gzip by suffix); raises :class:`InputError` naming
    the file and the line when it is neither layout."""
    display = os.fspath(path)
    with open_input(display) as raw:
        _, stream = open_stream(raw)
        try:
            data = stream.read(MAX_BYTES + 1)  # bounded, even unzipped
        except (OSError, EOFError) as exc:
            raise InputError(f"{display}: corrupt gzip data ({exc})") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{display}: more than {MAX_BYTES // 2**20} MiB of text is too large for a query file")
    text = data.decode("utf-8-sig", "replace")
    if re.search(r"<top>", text, re.I):
        return _trec_topics(text, display)
    if re.search(r"<topic\s+number", text, re.I):
        return {num.strip(): _xml_text(body) for num, body in _XML_TOPIC.findall(text)}
    out: dict[str, str] = {}
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise InputError(
                f"{display}, line {i}: {len(parts)} tab-separated fields; expected 'qid<TAB>text' "
                "or TREC topics (<top> <num> ... <title> ...)"
            )
        qid, query = parts[0].strip(), parts[1].strip()
        if i == 1 and (qid.lower(), query.lower()) in _HEADERS:
            continue
        out[qid] = query
    if not out:
        raise InputError(f"{display}: no query found; expected 'qid<TAB>text' lines or TREC topics")
    return out


def _trec_topics(text: str, display: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for body in _TOP.findall(text):
        num = _NUM.search(body)
        if num is None:
            raise InputError(f"{display}: a <top> without <num>; expected TREC topics")
        title = re.search(_FIELD.format("title", "Topic"), body, re.S | re.I)
        desc = re.search(_FIELD.format("desc", "Description"), body, re.S | re.I)
        chosen = title.group(1) if title and title.group(1).strip() else (desc.group(1) if desc else "")
        out[num.group(1).strip()] = " ".join(chosen.split())
    return out


def _xml_text(body: str) -> str:
    for tag in ("query", "title", "question", "description"):
        m = re.search(rf"<{tag}>(.*?)</{tag}>", body, re.S | re.I)
        if m and m.group(1).strip():
            return " ".join(m.group(1).split())
    return ""
