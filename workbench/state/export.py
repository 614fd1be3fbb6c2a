"""The window's CSV exports (plain Python, no Qt), written through :mod:`metrics.io.fileio`.

Every export is first written to a temporary file in the destination folder and
then moved over the destination, so a reader never sees a half-written file, a
failed export leaves an existing file untouched, and a file loaded as input is
never replaced.
"""

from __future__ import annotations

import os
from typing import Iterable

import pandas as pd


def write_text_atomic(path: str | os.PathLike, text: str, protect=()) -> None:
    """Replace ``path`` with ``text`` atomically (:mod:`metrics.io.fileio`; CSV with a byte-order mark
    when not ASCII, so that spreadsheets read it as UTF-8)."""
    from metrics.report import write_text

    write_text(path, text, overwrite=True, protect=protect)


def csv_text(frame: pd.DataFrame, header: Iterable[str] = ()) -> str:
    """CSV with ``# ``-prefixed header lines (the first says how to read it with pandas); floats at full
    precision (round-trip exact)."""
    header = list(header)
    if header:
        header[0] += " (read with pandas.read_csv(path, comment='#'))"
    lines = "".join(f"# {line}\n" for line in header)
    return lines + frame.to_csv(index=False, lineterminator="\n", float_format=None)


def settings_of(results, comparison=None, *, curves: bool = False) -> list[tuple[str, str]]:
    """How the window's numbers were made (:func:`metrics.report.provenance.provenance`), from the results
    shown: their evaluation's options, measures and nDCG variant, the qrels file, and ``comparison``'s test,
    correction and alpha when given; ``curves``: also the cut-offs of the NDCG@k curve."""
    from metrics.report.provenance import provenance

    extra = intents_setting(results.request)
    if curves:
        extra.append(("cut-offs", f"k = 1 to {results.request.k_max}"))
    return provenance(
        results.evaluation,
        measures=results.measures,
        qrels=results.request.qrels_name,
        comparison=comparison,
        extra=extra,
    )


def intents_setting(request) -> list[tuple[str, str]]:
    """The intent qrels the diversity measures of ``request`` (:class:`workbench.scoring.results.Request`) were
    scored against, as a setting an export states; none without diversity measures, or when the intent
    qrels are the only qrels (the "qrels" line names them then)."""
    intents = request.intents_name
    if intents is None or intents == request.qrels_name:
        return []
    return [("intent qrels", f"{intents} (the diversity measures)")]


def per_query_header(
    qrels_name: str | None, runs: Iterable[str], measure: str, baseline: str | None, settings=()
) -> list[str]:
    return [
        "ir-workbench per-query values (one row per query)",
        f"qrels: {qrels_name or '-'}",
        f"runs: {', '.join(runs)}",
        f"measure: {measure}",
        f"baseline: {baseline or '-'} (columns 'Δ run' = run - baseline)",
    ] + [f"{name}: {text}" for name, text in settings if name not in ("qrels", "measures")]


def write_csv(path: str | os.PathLike, frame: pd.DataFrame, header: Iterable[str] = (), protect=()) -> None:
    write_text_atomic(path, csv_text(frame, header), protect=protect)


def read_csv(path: str | os.PathLike) -> pd.DataFrame:
    """Read back a CSV written by :func:`write_csv` (query and run names stay text)."""
    return pd.read_csv(path, comment="#", dtype={"query_id": str, "run": str})
