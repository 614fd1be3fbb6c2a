"""The page to share of two runs compared query by query (``ir-eval --diff``): one self-contained HTML file
(its style inline, no script, font or image fetched when it is viewed) that states its settings, ranks the
queries by how much the runs differ, and shows, for the queries that differ most, both rankings side by
side: rank, document id, grade, title and a snippet with the query's words marked, each document linked to
its place in the other run, unjudged documents and documents the collection lacks said so.

The page is made from plain records (:class:`PageQuery`, :class:`PageDocument`) that the caller fills
from a contrast (:func:`metrics.analysis.contrast.contrast`) and the runs' top documents; the documents'
titles and snippets come from a :class:`~metrics.documents.DocumentStore`.  Every text is HTML-escaped.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from metrics.documents import DocumentStore
from metrics.documents.snippets import Snippet, make_snippet

__all__ = ["PageDocument", "PageQuery", "diff_page"]

#: characters of a title shown
_TITLE_CHARS = 200

_STYLE = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em;color:#222;max-width:1500px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-top:1px solid #ccc;padding-top:.8em}
table{border-collapse:collapse}td,th{padding:2px 6px;vertical-align:top;text-align:left}
.settings th{color:#555;font-weight:normal}.overview td.n,.overview th.n{text-align:right}
.pair{display:flex;gap:1.5em}.pair>div{flex:1;min-width:0}.run th{border-bottom:1px solid #999}
.run td{border-bottom:1px solid #eee}.doc{font-family:ui-monospace,monospace;white-space:nowrap}
.title{font-weight:600}.snippet{color:#333}mark{background:#ffe98a;padding:0 1px}
.g0{color:#a33}.g1,.g2,.g3,.g4{color:#170;font-weight:600}.unjudged{color:#888;font-style:italic}
.missing{color:#a33;font-style:italic}.other{font-size:.9em;color:#555;white-space:nowrap}
.only{color:#c60}.note{color:#555}:target{background:#eef5ff}
"""


@dataclass(frozen=True)
class PageDocument:
    """A document of one run's list: its 1-based rank, id, and grade (``None``: no qrels were given;
    ``"unjudged"``: the qrels do not judge it)."""

    rank: int
    doc: str
    grade: int | str | None = None


@dataclass(frozen=True)
class PageQuery:
    """A query of the page: its id, text, contrast value and rank, and the two runs' lists."""

    query_id: str
    text: str
    value: float
    rank: int
    a: list[PageDocument] = field(default_factory=list)
    b: list[PageDocument] = field(default_factory=list)
    note: str = ""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _marked(snippet: Snippet) -> str:
    out, at = [], 0
    for start, end in snippet.marks:
        out += [_e(snippet.text[at:start]), "<mark>", _e(snippet.text[start:end]), "</mark>"]
        at = end
    out.append(_e(snippet.text[at:]))
    return "".join(out)


def _grade(grade) -> str:
    if grade is None:
        return ""
    if grade == "unjudged":
        return '<td class="unjudged">unjudged</td>'
    return f'<td class="g{min(max(int(grade), 0), 4)}">{_e(grade)}</td>'


def diff_page(
    queries: list[PageQuery],
    overview: list[tuple[str, float, int]],
    store: DocumentStore | None,
    *,
    settings: list[tuple[str, str]],
    labels: tuple[str, str] = ("A", "B"),
    measure: str = "value",
    judged: bool = False,
    snippet_width: int = 240,
) -> str:
    """The page as HTML text: ``settings`` (label, value) shown at the top, ``overview`` (query id, value,
    rank) of every query compared, and a section per query of ``queries`` with the two lists side by side
    (``labels`` their runs' names, ``measure`` the name of the contrast's value, ``judged``: a grade
    column).  Titles and snippets come from ``store`` (None: ids only)."""
    ids = sorted({d.doc for q in queries for d in (*q.a, *q.b)})
    docs = store.get(ids, limit=max(snippet_width * 40, 10_000)) if store is not None else {}
    shown = {q.query_id: i for i, q in enumerate(queries)}
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>{_e(labels[0])} vs {_e(labels[1])}</title><style>{_STYLE}</style></head><body>",
        f"<h1>{_e(labels[0])} against {_e(labels[1])}: where they differ</h1>",
        '<table class="settings">',
        *(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in settings),
        "</table>",
        f"<h2>Queries by {_e(measure)}, most different first</h2>",
        '<table class="overview"><tr><th class="n">#</th><th>query</th><th class="n">'
        f"{_e(measure)}</th><th>text</th></tr>",
    ]
    texts = {q.query_id: q.text for q in queries}
    for qid, value, rank in overview:
        cell = f'<a href="#q{shown[qid]}">{_e(qid)}</a>' if qid in shown else _e(qid)
        parts.append(
            f'<tr><td class="n">{rank}</td><td>{cell}</td><td class="n">{value:.4f}</td>'
            f"<td>{_e(texts.get(qid, ''))}</td></tr>"
        )
    parts.append("</table>")
    for i, q in enumerate(queries):
        parts.append(
            f'<h2 id="q{i}">{q.rank}. Query {_e(q.query_id)}'
            + (f": {_e(q.text)}" if q.text else "")
            + f' <span class="note">({_e(measure)} {q.value:.4f})</span></h2>'
        )
        if q.note:
            parts.append(f'<p class="note">{_e(q.note)}</p>')
        parts.append('<div class="pair">')
        rank_in = ({d.doc: d.rank for d in q.a}, {d.doc: d.rank for d in q.b})
        for side, (label, rows) in enumerate(((labels[0], q.a), (labels[1], q.b))):
            other, mine, theirs = rank_in[1 - side], "ab"[side], "ab"[1 - side]
            parts.append(f'<div><table class="run"><tr><th colspan="{5 if judged else 4}">{_e(label)}</th></tr>')
            parts.append(
                "<tr><th>rank</th><th>document</th>"
                + ("<th>grade</th>" if judged else "")
                + f"<th>in {_e(labels[1 - side])}</th><th>text</th></tr>"
            )
            if not rows:
                parts.append(f'<tr><td colspan="{5 if judged else 4}" class="note">no document retrieved</td></tr>')
            for d in rows:
                anchor = f"q{i}-{mine}-{d.rank}"
                if d.doc in other:
                    where = f'<a href="#q{i}-{theirs}-{other[d.doc]}">rank {other[d.doc]}</a>'
                else:
                    where = '<span class="only">not in its top</span>'
                found = docs.get(d.doc)
                if found is None:
                    body = '<span class="missing">not in the collection</span>' if store is not None else ""
                else:
                    title = found.title[:_TITLE_CHARS] + ("…" if len(found.title) > _TITLE_CHARS else "")
                    body = (f'<div class="title">{_e(title)}</div>' if title else "") + (
                        f'<div class="snippet">{_marked(make_snippet(found.text, q.text, snippet_width))}</div>'
                    )
                    if found.replaced:
                        body += '<div class="note">(bytes that are not UTF-8 shown as �)</div>'
                parts.append(
                    f'<tr id="{anchor}"><td>{d.rank}</td><td class="doc">{_e(d.doc)}</td>'
                    + (_grade(d.grade) if judged else "")
                    + f'<td class="other">{where}</td><td>{body}</td></tr>'
                )
            parts.append("</table></div>")
        parts.append("</div>")
    parts.append("</body></html>\n")
    return "\n".join(parts)
