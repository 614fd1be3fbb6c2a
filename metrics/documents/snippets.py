"""A short passage of a document around the words of a query, with where those words are: text and spans
that a page marks with tags and a window with its own colours."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Iterable

__all__ = ["Snippet", "query_terms", "make_snippet", "DEFAULT_WIDTH", "SCAN_CHARS"]

#: characters of a snippet by default (about two lines of a page)
DEFAULT_WIDTH = 240
#: characters of a document looked at for the query's words: a 10 MB document is not scanned whole
SCAN_CHARS = 1 << 20
#: hits of the query's words weighed in choosing the passage
_HITS = 10_000
#: words of a query too common to mark
STOPWORDS = frozenset(
    "a an and are as at be but by can do does for from has have how i if in into is it its of on or so than that "
    "the their there these this to was were what when where which who whom why will with you".split()
)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Snippet:
    """A passage of a document: ``text``, and ``marks``, the (start, end) offsets in it of each word of
    the query found (end exclusive, in order).  ``marked()`` writes it with the words between « and »."""

    text: str
    marks: tuple[tuple[int, int], ...]

    def marked(self, before: str = "«", after: str = "»") -> str:
        out, at = [], 0
        for start, end in self.marks:
            out += [self.text[at:start], before, self.text[start:end], after]
            at = end
        out.append(self.text[at:])
        return "".join(out)


def query_terms(terms: str | Iterable[str]) -> frozenset[str]:
    """The words to mark, case folded: the words of a query's text (or of each string given), common
    words left out (unless the query has no other)."""
    texts = [terms] if isinstance(terms, str) else list(terms)
    words = {w.casefold() for text in texts for w in _WORD.findall(text)}
    kept = {w for w in words if w not in STOPWORDS}
    return frozenset(kept or words)


def make_snippet(text: str, terms: str | Iterable[str], width: int = DEFAULT_WIDTH) -> Snippet:
    """The passage of ``text`` of about ``width`` characters holding the most distinct words of ``terms``
    (then the most of them; the earliest such), cut at blanks, with "…" where the text goes on; the start
    of the text when none is found.  Only the first :data:`SCAN_CHARS` characters are looked at."""
    if width < 1:
        raise ValueError(f"a snippet's width must be 1 or more, not {width}")
    wanted = query_terms(terms)
    scanned = text[:SCAN_CHARS]
    hits: list[tuple[int, int, str]] = []
    if wanted:
        pattern = re.compile(
            r"\b(?:" + "|".join(re.escape(w) for w in sorted(wanted, key=len, reverse=True)) + r")\b", re.I
        )
        for m in pattern.finditer(scanned):
            hits.append((m.start(), m.end(), m.group().casefold()))
            if len(hits) >= _HITS:
                break
    lead = width // 5
    start = 0
    if hits:
        starts = [h[0] for h in hits]
        best = (-1, -1, 0)
        for i, (at, _, _) in enumerate(hits):
            lo = max(0, at - lead)
            j = bisect.bisect_right(starts, lo + width - 1)
            inside = [h for h in hits[i:j] if h[1] <= lo + width]
            score = (len({h[2] for h in inside}), len(inside))
            if score > best[:2]:
                best = (score[0], score[1], lo)
        start = best[2]
    start = _back_to_blank(text, start)
    end = min(len(text), start + width)
    if end < len(text):
        cut = text.rfind(" ", start + width // 2, end + 1)
        end = cut if cut > start else end
    prefix = "…" if start > 0 else ""
    body = text[start:end]
    marks = tuple((s - start + len(prefix), e - start + len(prefix)) for s, e, _ in hits if s >= start and e <= end)
    return Snippet(prefix + body + ("…" if end < len(text) else ""), marks)


def _back_to_blank(text: str, at: int) -> int:
    """``at`` moved back to the start of its word (at most 30 characters back)."""
    if at <= 0:
        return 0
    blank = text.rfind(" ", max(0, at - 30), at)
    return blank + 1 if blank >= 0 else at
