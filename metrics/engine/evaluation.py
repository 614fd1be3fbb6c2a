"""What an evaluation gives: :class:`Evaluation` (per-query values and means of every run, as frames,
trec_eval's text, JSON and a notebook table) and the formatting of a value as trec_eval prints it."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from metrics.engine.settings import Settings
from metrics.io.ids import shown
from metrics.measures import FAMILIES, Measure, parse_measures
from metrics.measures.names import as_name

__all__ = ["Evaluation", "RunResult", "format_value", "format_line", "query_line"]


@dataclass(frozen=True, eq=False)
class RunResult:
    """One run's values: ``values[i, j]`` is measure ``names[j]`` on query ``query_ids[i]``."""

    label: str
    query_ids: list
    names: list  # numeric measures, as named in the results
    values: np.ndarray  # (queries, measures) float64
    aggregates: list  # per numeric measure, the "all" value
    texts: list  # (query id or "all", name, text) of the text measures


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Result of :func:`evaluate`.

    ``per_query``: tidy frame run, query_id, measure, value (float64), one row
    per (run, evaluated query, numeric measure), queries in trec_eval order; a
    query without a value for a measure (``Accuracy`` with no document of the
    grade) has no row for it, as in ir_measures (other NaN values are kept).
    ``aggregate``: tidy frame run, measure, value: trec_eval's "all" values.
    ``text``: run, query_id, measure, value (str) for the text measures
    (``runid`` with query_id "all", ``relstring`` per query).
    ``warnings``: messages about skipped queries, for stderr.
    The frames are made on first use from ``results`` (numpy, one per run).
    """

    runs: list[str]
    measures: list[Measure]
    query_ids: dict[str, list[str]]
    results: list[RunResult]
    warnings: list[str] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)  # the options that made the values
    #: measure -> the name it was asked for by, when that differs from its canonical name
    #: (``nDCG@10`` rather than ``ndcg_cut_10``); the frames use these names
    names: dict = field(default_factory=dict)
    #: run label -> the file it was read from, for the runs read from files (a baseline may be named by
    #: its file: :func:`metrics.compare.compare`)
    paths: dict = field(default_factory=dict)

    def name(self, measure: Measure) -> str:
        """The name a measure has in the frames (as asked for, or canonical)."""
        return self.names.get(measure, str(measure))

    def measure_names(self) -> list[str]:
        """The names of the measures in the frames, in trec_eval's order."""
        return [self.name(m) for m in self.measures]

    @functools.cached_property
    def per_query(self):
        from metrics.measures.irm_families import defined_mean

        # the measures whose NaN is "no value" (left out of their mean): ir_measures has no row for them
        undefined = {self.name(m) for m in self.measures if FAMILIES[m.family].aggregate is defined_mean}
        return _per_query_frame(self.results, undefined)

    @functools.cached_property
    def aggregate(self):
        import pandas as pd

        rows = [(r.label, n, float(v)) for r in self.results for n, v in zip(r.names, r.aggregates)]
        return pd.DataFrame(rows, columns=["run", "measure", "value"]).astype(
            {"run": "str", "measure": "str", "value": "float64"}
        )

    @functools.cached_property
    def text(self):
        import pandas as pd

        rows = [(r.label, q, n, v) for r in self.results for q, n, v in r.texts]
        return pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"]).astype("str")

    def per_query_wide(self, measure):
        """Values of one measure: index query_id, one column per run."""
        measure = as_name(measure)
        if isinstance(measure, str) and measure in self._names():
            name = measure
        else:
            name = self.name(measure if isinstance(measure, Measure) else parse_measures(measure)[0])
        sub = self.per_query[self.per_query["measure"] == name]
        wide = sub.pivot(index="query_id", columns="run", values="value")
        order = list(dict.fromkeys(q for r in self.runs for q in self.query_ids[r]))
        wide = wide.reindex(index=[q for q in order if q in wide.index], columns=self.runs)
        wide.columns.name = None
        return wide

    def summary(self):
        """Aggregate values: index runs, one column per numeric measure."""
        wide = self.aggregate.pivot(index="run", columns="measure", values="value")
        cols = [n for n in self._names() if n in wide.columns]
        wide = wide.reindex(index=self.runs, columns=cols)
        wide.columns.name = None
        from metrics.engine.measure_frame import MeasureFrame

        return MeasureFrame(wide)  # indexed by ir_measures' measure objects too (summary()[nDCG@10])

    def _names(self) -> list[str]:
        """The names in the order the measures were asked for (``names`` holds them in that order), then any
        other in trec_eval's order: the columns of :meth:`summary` and the notebook's table."""
        known = set(self.measures)
        return list(dict.fromkeys([self.name(m) for m in self.names if m in known] + self.measure_names()))

    def describe_settings(self) -> str:
        """The settings that made these values, in trec_eval's words (``-l 2, -c``), or "trec_eval's defaults"
        (:func:`metrics.engine.settings.in_short`; every export states them in full from the same defaults)."""
        from metrics.engine.settings import in_short

        return in_short(self.settings)

    def _caption(self) -> str:
        sizes = sorted({len(q) for q in self.query_ids.values()}) or [0]
        counted = str(sizes[0]) if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
        return (
            f"{len(self.runs)} run{'s' if len(self.runs) != 1 else ''}, {counted} queries, "
            f"{len(self._numeric_names())} measures; {self.describe_settings()}"
        )

    def _numeric_names(self) -> list[str]:
        """:meth:`_names` less the text measures (``runid``, ``relstring``), which have no mean."""
        numeric = {n for r in self.results for n in r.names}
        return [n for n in self._names() if n in numeric] if self.results else self._names()

    def __repr__(self) -> str:
        from metrics.notebook import short_list

        measures = short_list(self._numeric_names())
        return f"<Evaluation: {self._caption()}; runs {short_list(self.runs)}; measures {measures}>"

    def _repr_html_(self) -> str:
        """The means as one compact table in Jupyter (runs by measures in the order asked, the best in bold),
        the settings in its caption, the warnings under it."""
        from metrics.notebook import compact_table

        names = self._numeric_names()
        values = np.full((len(self.runs), len(names)), np.nan)
        column = {n: j for j, n in enumerate(names)}
        for i, r in enumerate(self.results):
            for n, v in zip(r.names, r.aggregates):
                if n in column:
                    values[i, column[n]] = v
        notes = self.warnings[:5] + ([f"... {len(self.warnings) - 5} more"] if len(self.warnings) > 5 else [])
        return compact_table(self.runs, names, values, caption=f"Evaluation: {self._caption()}", notes=notes)

    def result(self, run: str) -> RunResult:
        """The numpy values of one run."""
        for r in self.results:
            if r.label == run:
                return r
        raise KeyError(run)

    def trec_lines(self, run: str | None = None, *, queries: bool = False, summary: bool = True) -> list[str]:
        """trec_eval's output lines for one run (no newlines): per-query rows
        (``-q``) query by query, then the "all" rows, each in trec_eval's
        format (``%-22s\\t%s\\t%6.4f``; ``%ld`` for counts).  :meth:`trec_text`
        gives the same as text, a block of queries at a time."""
        return "".join(self.trec_text(run, queries=queries, summary=summary)).split("\n")[:-1]

    def trec_text(self, run: str | None = None, *, queries: bool = False, summary: bool = True) -> Iterator[str]:
        """trec_eval's output for one run as pieces of text, each of whole lines: the per-query rows
        (``-q``) a block of queries at a time, then the "all" rows.  Written out piece by piece, the
        output takes memory for one block, not for every line."""
        res = self.result(self.runs[0] if run is None else run)
        texts = {(q, m): v for q, m, v in res.texts}
        if queries and res.query_ids:
            shown = [(m, self.name(m)) for m in self.measures if FAMILIES[m.family].per_query]
            yield from _query_rows(res, shown, texts)
        if summary:
            out = []
            aggregates = dict(zip(res.names, res.aggregates))
            for m in self.measures:
                if not FAMILIES[m.family].summary:
                    continue
                name = self.name(m)
                if m.kind == "text":
                    out.append(f"{m.trec_name:<22}\tall\t{texts[('all', name)]}\n")
                else:
                    out.append(format_line(m, "all", aggregates[name]) + "\n")
            if out:
                yield "".join(out)


#: queries per piece of :meth:`Evaluation.trec_text` (100 measures: about 4 MB of text)
_QUERY_BLOCK = 1000


def _query_rows(res: RunResult, shown: list, texts: dict) -> Iterator[str]:
    """The ``-q`` rows of ``res`` for the measures ``shown`` ((measure, name) in trec_eval's order),
    ``_QUERY_BLOCK`` queries at a time.

    Each query's rows are one ``%`` format of a template made once for all queries (its names padded
    already, ``%6.4f``, ``%d``, the query id and the value its arguments), so that Python's C formatting
    does the work: ``-q -m all_trec`` on 10,000 queries x 100 documents (950,000 lines) took 1.73 s and
    241 MiB with each line formatted by itself (``format_line``) and kept in a list, 0.71 s and 87 MiB
    this way (0.54 s and 87 MiB without ``-q``).  Python's ``%6.4f`` and ``%d`` of a float
    are glibc's ``%6.4f`` and ``%ld`` of the truncated value for every value but a NaN with its sign bit
    set (``-nan``): a query with a NaN is formatted line by line (:func:`format_value`)."""
    column = {name: j for j, name in enumerate(res.names)}
    numeric = [column[name] for m, name in shown if m.kind != "text"]
    text_at = [(i, name) for i, (m, name) in enumerate(shown) if m.kind == "text"]
    code = {"text": "'%s'", "long": "%d"}
    template = "".join(
        f"{m.trec_name:<22}".replace("%", "%%") + "\t%s\t" + code.get(m.kind, "%6.4f") + "\n" for m, _ in shown
    )
    qids = res.query_ids
    for start in range(0, len(qids), _QUERY_BLOCK):
        stop = min(start + _QUERY_BLOCK, len(qids))
        block = res.values[start:stop, numeric]
        with_nan = np.isnan(block).any(axis=1).tolist()
        out = []
        args: list = [None] * (2 * len(shown))
        for q, row, nan in zip(qids[start:stop], block.tolist(), with_nan):
            for i, name in text_at:
                row.insert(i, texts[(q, name)])
            if nan:
                out.append("".join(query_line(m, q, v) + "\n" for (m, _), v in zip(shown, row)))
                continue
            args[0::2] = itertools.repeat(q, len(shown))
            args[1::2] = row
            out.append(template % tuple(args))
        yield "".join(out)


def query_line(m: Measure, qid: str, value) -> str:
    """trec_eval's ``-q`` row of measure ``m`` for query ``qid`` (a text value in quotes, as it prints relstring)."""
    if m.kind == "text":
        return f"{m.trec_name:<22}\t{qid}\t'{value}'"
    return format_line(m, qid, value)


def format_value(kind: str, value: float) -> str:
    """A value as trec_eval prints it: ``%ld`` of the truncated value for
    counts, ``%6.4f`` otherwise (glibc spells NaN ``nan``/``-nan``)."""
    if kind == "long":
        return str(int(value))
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def format_line(m: Measure, qid: str, value: float) -> str:
    return f"{m.trec_name:<22}\t{qid}\t{format_value(m.kind, value)}"


def _strings(parts: list[tuple[list[str], np.ndarray]]):
    """A ``str`` column from (names, codes) parts: ``names[codes]`` of each
    part, one after the other.  Built by arrow from the few distinct names,
    not from one Python string per row."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    # text that is not UTF-8 (query ids of old collections, kept as surrogates) shown with replacement characters
    names = [shown(n) for part_names, _ in parts for n in part_names]
    base = np.cumsum([0] + [len(part_names) for part_names, _ in parts[:-1]])
    codes = np.concatenate([c + b for (_, c), b in zip(parts, base)] or [np.zeros(0, np.int64)])
    column = pc.take(pa.array(names, type=pa.large_string()), pa.array(codes))
    return pd.Series(column, dtype="str")


def _per_query_frame(results: list[RunResult], undefined: frozenset | set = frozenset()):
    """The tidy per-query frame of the runs' values, query-major like trec_eval's -q output.  A query
    without a value for a measure of ``undefined`` (NaN, left out of the mean: ``Accuracy`` with no
    document of the grade) has no row for it, as in ir_measures' per-query results; the NaN of other
    measures (trec_eval's ``-nan``) is kept."""
    import pandas as pd

    parts = [r for r in results if r.names and r.query_ids]
    sizes = [r.values.size for r in parts]
    runs = _strings([([r.label], np.zeros(k, dtype=np.int64)) for r, k in zip(parts, sizes)])
    queries = _strings([(r.query_ids, np.repeat(np.arange(len(r.query_ids)), len(r.names))) for r in parts])
    measures = _strings([(r.names, np.tile(np.arange(len(r.names)), len(r.query_ids))) for r in parts])
    values = np.concatenate([r.values.ravel() for r in parts] or [np.zeros(0)])
    frame = pd.DataFrame({"run": runs, "query_id": queries, "measure": measures, "value": values.astype(np.float64)})
    if undefined:
        missing = np.isnan(values)
        if missing.any():
            missing &= frame["measure"].isin(undefined).to_numpy()
            frame = frame[~missing].reset_index(drop=True)
    return frame
