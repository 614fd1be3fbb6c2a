"""What an explanation is: the tables and sentences of one value's working, and how they are written
out (Markdown text ending with trec_eval's ``-q`` line, or a dict for JSON).

No numpy arithmetic happens here: the explainers (:mod:`metrics.explain.ranked`,
:mod:`metrics.explain.graded`, :mod:`metrics.explain.summary`) fill these values in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["Table", "Explanation", "GainCurve", "RelevantMark", "number_text", "counted"]


def number_text(value) -> str:
    """A cell as text: whole numbers as they are, other floats with 4 decimals (trec_eval's), None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4f}"
    return str(value)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in its number: "1 query", "2 queries" (``plural`` when adding an s will not do)."""
    if n == 1:
        return f"1 {noun}"
    return f"{n} {plural or noun + 's'}"


@dataclass(frozen=True)
class Table:
    """One table of the working: ``rows`` are dicts keyed by ``columns``.  Where the rows are
    documents, each has a ``docid`` (the window selects that document in the drill-down)."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[dict, ...]

    def markdown(self) -> list[str]:
        if not self.rows:
            return [f"{self.title}: none"] if self.title else []
        lines = [f"{self.title}:", ""] if self.title else []
        lines.append("| " + " | ".join(self.columns) + " |")
        lines.append("|" + "|".join("---:" if self._numeric(c) else "---" for c in self.columns) + "|")
        for row in self.rows:
            lines.append("| " + " | ".join(number_text(row.get(c)).replace("|", "\\|") for c in self.columns) + " |")
        return lines

    def _numeric(self, column: str) -> bool:
        return all(isinstance(r.get(column), (int, float)) and not isinstance(r.get(column), bool) for r in self.rows)

    def to_dict(self) -> dict:
        return {"title": self.title, "columns": list(self.columns), "rows": [dict(r) for r in self.rows]}


@dataclass(frozen=True)
class Explanation:
    """How one value of one measure was computed for one query (or for ``all``, the summary).

    ``measure``: the name trec_eval (and ``ir-eval -q``) writes; ``value``: the measure's own
    kernel's value on the judged ranking (None when the measure or query gives none);
    ``worked``: the same number as the tables' arithmetic gives it (equal to ``value`` whenever
    ``explained``: checked when the explanation is made, and an explanation whose arithmetic does
    not reproduce the value is not shown, ``explained`` False and ``reason`` saying so).
    ``line``: trec_eval's ``-q`` line for this measure and query (the ``all`` line for the summary).
    """

    measure: str
    query_id: str
    run: str
    value: float | str | None  # (str: a text measure's, relstring's)
    explained: bool
    formula: str = ""
    tables: tuple[Table, ...] = ()
    summary: tuple[str, ...] = ()
    conventions: tuple[str, ...] = ()
    reason: str = ""
    line: str = ""
    worked: float | str | None = None
    #: the measure as it was asked for (``nDCG@10``), when that differs from ``measure``
    asked: str = ""

    @property
    def rows(self) -> tuple[dict, ...]:
        """The rows of the first table (the documents of the ranking the value was computed on)."""
        return self.tables[0].rows if self.tables else ()

    @property
    def docids(self) -> list[str]:
        """The documents the rows name, in the order of the rows (every table), once each."""
        seen: dict[str, None] = {}
        for t in self.tables:
            for r in t.rows:
                d = r.get("docid")
                if d:
                    seen.setdefault(str(d), None)
        return list(seen)

    def heading(self) -> str:
        what = "summary over queries" if self.query_id == "all" else f"query {self.query_id}"
        name = self.measure if not self.asked or self.asked == self.measure else f"{self.measure} ({self.asked})"
        return f"{name}, {what}" + (f", run {self.run}" if self.run else "")

    def text_lines(self) -> list[str]:
        lines = [self.heading()]
        if not self.explained:
            lines += ["", f"Not explained: {self.reason}"]
            if self.line:
                lines += ["", self.line]
            return lines
        if self.conventions:
            lines += [""] + [f"- {c}" for c in self.conventions]
        if self.formula:
            lines += ["", self.formula]
        for t in self.tables:
            lines += [""] + t.markdown()
        if self.summary:
            lines += [""] + list(self.summary)
        if self.line:
            lines += ["", self.line]
        return lines

    def to_text(self) -> str:
        """The explanation as text: Markdown tables, the working, and last trec_eval's ``-q`` line."""
        return "\n".join(self.text_lines()) + "\n"

    def to_dict(self) -> dict:
        """The explanation as plain values (``ir-eval --explain --format json``)."""
        return {
            "measure": self.measure,
            "asked": self.asked or self.measure,
            "query_id": self.query_id,
            "run": self.run,
            "value": _json_number(self.value),
            "explained": self.explained,
            "reason": self.reason,
            "formula": self.formula,
            "conventions": list(self.conventions),
            "rows": [dict(r) for r in self.rows],
            "tables": [t.to_dict() for t in self.tables],
            "summary": list(self.summary),
            "worked": _json_number(self.worked),
            "line": self.line,
        }


def _json_number(v):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return None
    return v


@dataclass(frozen=True)
class RelevantMark:
    """A document with a positive gain: its rank in the run (None: not retrieved, or cut by ``-M``)
    and in the ideal ranking (None: not in it, e.g. the ideal of retrieved documents only)."""

    docid: str
    grade: int
    gain: float
    run_rank: int | None
    ideal_rank: int | None


@dataclass(frozen=True)
class GainCurve:
    """Where the gain was lost: the run's cumulative gain DCG@k against the ideal ranking's, k = 1..K.

    ``dcg[k-1]`` and ``ideal[k-1]`` are DCG@k and ideal DCG@k (the ideal's last value held past its
    length); ``relevant`` marks each document with a positive gain at its run rank and ideal rank;
    ``unjudged`` are the ranks <= K holding a document the qrels do not judge.  Plain lists: a plot
    draws them as they are.
    """

    query_id: str
    run: str
    variant: str
    k: list[int]
    dcg: list[float]
    ideal: list[float]
    relevant: list[RelevantMark] = field(default_factory=list)
    unjudged: list[int] = field(default_factory=list)

    @property
    def depth(self) -> int:
        return len(self.k)

    def to_dict(self) -> dict:
        return {
            "query_id": self.query_id,
            "run": self.run,
            "variant": self.variant,
            "k": list(self.k),
            "dcg": list(self.dcg),
            "ideal": list(self.ideal),
            "relevant": [m.__dict__.copy() for m in self.relevant],
            "unjudged": list(self.unjudged),
        }
