"""The gallery of worked examples: each a folder of ``metrics/examples/data`` holding a tiny qrels, a run
(both TREC text) and ``example.json``, its manifest.

The manifest names the example, says where it comes from and which convention its text uses, and lists
the numbers the text prints.  Each number names the query (``all``: the summary), the measure whose
conventions are compared (:func:`metrics.explain.textbook.side_by_side`), the variant that is the text's
convention and the part of it (``value``, or ``dcg`` / ``ideal_dcg`` of an nDCG variant); with it the
number as the text prints it (``printed``, or null for a number shown for contrast only), the exact value
under the text's convention (``exact``), trec_eval 10.0's output for the query (``trec_eval``, as it
prints it; null where trec_eval prints no such number) and, where the printed number is not the exact
one rounded, the sentence saying why (``note``: the text rounded early, or slipped).

The numbers are recomputed whenever a table is made; the stored ``exact`` and ``trec_eval`` values are
what the tests hold them to.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from metrics.engine.settings import Settings
    from metrics.explain import Prepared

__all__ = ["EXAMPLES_DIR", "PrintedNumber", "WorkedExample", "example_names", "open_example", "UnknownExample"]

#: where the gallery's folders are (package data: installed with ``metrics``)
EXAMPLES_DIR = Path(__file__).resolve().parent / "data"
MANIFEST = "example.json"
#: the parts of a side-by-side row a number can be
PARTS = ("value", "dcg", "ideal_dcg")


class UnknownExample(KeyError):
    """No worked example has that name."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class PrintedNumber:
    """One number of a worked example (see the module's docstring for the fields)."""

    label: str
    query: str
    measure: str
    variant: str
    exact: float
    part: str = "value"
    printed: str | None = None
    trec_eval: str | None = None
    note: str = ""

    @property
    def printed_value(self) -> float | None:
        """The printed number as a value (``81.96%`` is 0.8196); None when the text prints none."""
        if self.printed is None:
            return None
        return float(self._printed_decimal())

    @property
    def decimals(self) -> int | None:
        """How many decimals the text prints (of the value: ``81.96%`` has 4)."""
        if self.printed is None:
            return None
        return max(-int(self._printed_decimal().as_tuple().exponent), 0)

    def agrees(self, value: float) -> bool | None:
        """Whether ``value`` prints as the text's number at the text's precision (None: nothing printed)."""
        if self.printed is None:
            return None
        decimals = self.decimals or 0
        return abs(value - float(self._printed_decimal())) <= 0.5 * 10.0**-decimals * (1 + 1e-9)

    def _printed_decimal(self) -> Decimal:
        text = str(self.printed).strip()
        try:
            if text.endswith("%"):
                return Decimal(text[:-1].strip()).scaleb(-2)
            return Decimal(text)
        except InvalidOperation:
            raise ValueError(f"{self.label}: the printed number {self.printed!r} is not a number") from None


@dataclass(frozen=True)
class WorkedExample:
    """A worked example of the gallery: its files, what the text says and the numbers it prints."""

    name: str
    title: str
    source: str
    convention: str
    directory: Path
    numbers: tuple[PrintedNumber, ...]
    #: trec_eval's -l for every number of the example
    level: int = 1

    @property
    def settings(self) -> Settings:
        """The settings every number of the example is computed under (its level; trec_eval's otherwise)."""
        from metrics.engine.settings import Settings

        return Settings(relevance_level=self.level)

    @property
    def qrels_path(self) -> Path:
        return self.directory / "qrels.txt"

    @property
    def run_path(self) -> Path:
        return self.directory / "run.txt"

    @cached_property
    def prepared(self) -> Prepared:
        """The run's judged ranking against the qrels (:class:`metrics.explain.Prepared`), built once."""
        from metrics.explain import Prepared

        return Prepared(self.qrels_path, self.run_path, settings=self.settings, label=self.name)

    def side_by_side(self, measure: str, query: str) -> pd.DataFrame:
        """The conventions of ``measure`` side by side for ``query`` of this example."""
        return self.prepared.side_by_side(measure, query)

    def computed(self, number: PrintedNumber) -> tuple[float, float]:
        """(the number under the text's convention, the same part under trec_eval's), computed now."""
        table = self.side_by_side(number.measure, number.query)
        rows = table.loc[table["variant"] == number.variant]
        if rows.empty:
            raise ValueError(f"{self.name}: {number.measure} has no variant {number.variant!r} for {number.query}")
        return float(rows[number.part].iloc[0]), float(table[number.part].iloc[0])

    def table(self) -> pd.DataFrame:
        """The example's numbers side by side: as the text prints them, exactly under its convention,
        whether the two agree at the text's precision, trec_eval's value of the same (its convention),
        trec_eval's printed output, and the note on any difference."""
        import pandas as pd

        rows = []
        for n in self.numbers:
            exact, trec = self.computed(n)
            rows.append(
                {
                    "number": n.label,
                    "query": n.query,
                    "printed": n.printed or "",
                    "exact": exact,
                    "agrees": n.agrees(exact),
                    "trec_eval convention": trec,
                    "trec_eval prints": n.trec_eval or "",
                    "note": n.note,
                }
            )
        return pd.DataFrame(rows)


def example_names() -> list[str]:
    """The names of the gallery's worked examples, in the gallery's order."""
    found = [(_read_manifest(d).get("order", 0), d.name) for d in EXAMPLES_DIR.iterdir() if (d / MANIFEST).is_file()]
    return [name for _, name in sorted(found)]


def open_example(name: str) -> WorkedExample:
    """The worked example called ``name`` (raises :class:`UnknownExample` naming those there are)."""
    directory = EXAMPLES_DIR / name
    if "/" in name or "\\" in name or name.startswith(".") or not (directory / MANIFEST).is_file():
        raise UnknownExample(f"no worked example {name!r}; there are: {', '.join(example_names())}")
    data = _read_manifest(directory)
    numbers = []
    for item in data["numbers"]:
        number = PrintedNumber(**item)
        if number.part not in PARTS:
            raise ValueError(f"{name}: part must be one of {', '.join(PARTS)}, not {number.part!r}")
        if not math.isfinite(number.exact):
            raise ValueError(f"{name}: {number.label}: the exact value must be a finite number")
        numbers.append(number)
    return WorkedExample(
        name=name,
        title=data["title"],
        source=data["source"],
        convention=data["convention"],
        directory=directory,
        numbers=tuple(numbers),
        level=int(data.get("level", 1)),
    )


def _read_manifest(directory: Path) -> dict:
    with open(directory / MANIFEST, encoding="utf-8") as f:
        return json.load(f)
