"""What every explainer works with: one query's part of a judged ranking (:class:`QueryRanking`), the
working an explainer gives (:class:`Working`) and the check that it reproduces the kernel's value."""

from __future__ import annotations

import math
from dataclasses import dataclass

from metrics.engine.evaluation import format_value
from metrics.ranking.qrels_index import NONPOOL

__all__ = ["QueryRanking", "Working", "UnknownQuery", "grade_text", "reproduces", "RANKING"]

#: the order every explanation's ranking is in
RANKING = (
    "Ranking: score descending, ties broken by document id in descending order (trec_eval's); "
    "the ranks written in the run are ignored"
)


class UnknownQuery(KeyError):
    """The query is not among those evaluated for the run."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class QueryRanking:
    """One query's part of a judged ranking, with its documents' ids.

    ``codes[i]`` is the relevance code at rank i + 1 (the grade, or ``NONPOOL`` / ``UNJUDGED``),
    ``relcum[i]`` the running number of relevant documents there (the ranking's own), exactly the
    arrays the measures read.  ``judged`` holds the query's qrels (document -> grade, negative ones
    included), ``rel_levels`` the number of judged documents of each grade >= 0.
    """

    query_id: str
    index: int
    docids: list[str]
    codes: list[int]
    relcum: list[int]
    num_ret: int
    num_rel: int
    num_rel_ret: int
    level: int
    placeholder: bool
    rel_levels: list[int]
    judged: dict[str, int]

    def relevant(self, i: int) -> bool:
        """Whether rank i + 1 counts as relevant in the ranking's running count (code >= level)."""
        return self.codes[i] >= self.level

    def judged_relevant(self, i: int) -> bool:
        """Judged with a grade >= the level (num_rel_ret's sense: never a negative code)."""
        return self.codes[i] >= self.level and self.codes[i] >= 0


@dataclass(frozen=True)
class Working:
    """What an explainer gives: the formula, the tables, the sentences and the number its arithmetic
    reaches (``value``), which must be the kernel's."""

    formula: str
    tables: tuple
    summary: tuple
    value: float | str  # (str: a text measure's, relstring's)
    conventions: tuple = ()


def grade_text(code: int):
    """A relevance code as a cell: the grade, or what the missing grade means."""
    if code >= 0:
        return int(code)
    return "not in qrels" if code == NONPOOL else "unjudged (negative grade)"


def reproduces(worked: float | str, value: float | str, kind: str = "double") -> bool:
    """Whether the working's number is the kernel's value: equal (both NaN counts), or within
    rounding of the last bits and printed alike by trec_eval; a text value: the same text."""
    if isinstance(worked, str) or isinstance(value, str):
        return worked == value
    if worked == value or (math.isnan(worked) and math.isnan(value)):
        return True
    if math.isnan(worked) or math.isnan(value):
        return False
    close = abs(worked - value) <= 1e-12 * max(1.0, abs(value))
    return close and format_value(kind, worked) == format_value(kind, value)


def explanation_of(
    work: Working, value: float | str, *, query_id: str, line: str, conventions=(), kind="double", **base
):
    """The :class:`~metrics.explain.model.Explanation` ``work`` gives of ``value`` (``conventions``: those of
    the measure, before the working's own); when its arithmetic does not reproduce the kernel's value
    (:func:`reproduces`), one that says so and shows nothing approximate."""
    from metrics.explain.model import Explanation

    if not reproduces(work.value, value, kind):
        reason = (
            f"its working ({work.value!r}) does not reproduce the measure's value ({value!r}) "
            "for this query; nothing approximate is shown"
        )
        return Explanation(
            query_id=query_id, value=value, explained=False, reason=reason, line=line, worked=work.value, **base
        )
    return Explanation(
        query_id=query_id,
        value=value,
        explained=True,
        formula=work.formula,
        tables=tuple(work.tables),
        summary=tuple(work.summary),
        conventions=tuple(conventions) + tuple(work.conventions),
        line=line,
        worked=work.value,
        **base,
    )
