"""Writing a report to a file: the format chosen by suffix, every write atomic through :mod:`metrics.io.fileio`."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from metrics.io import fileio
from metrics.report.html_page import html_report, to_html
from metrics.report.text import to_csv, to_latex, to_markdown

FORMATS = {".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".tex": "latex", ".html": "html", ".htm": "html"}


# ------------------------------------------------------------------ atomic writes


def write_bytes(path, data: bytes, *, overwrite: bool = False, protect=()) -> Path:
    """Write ``data`` atomically (:func:`metrics.io.fileio.write_bytes`)."""
    return fileio.write_bytes(path, data, overwrite=overwrite, protect=protect)


def write_text(path, text: str, *, overwrite: bool = False, protect=()) -> Path:
    """Write ``text`` as UTF-8 (newlines as given), with a byte-order mark when it is not plain ASCII
    and is CSV (so that spreadsheets read "Δ" right; pandas reads it either way)."""
    data = text.encode("utf-8")
    if str(path).lower().endswith(".csv") and not text.isascii():
        data = b"\xef\xbb\xbf" + data
    return fileio.write_bytes(path, data, overwrite=overwrite, protect=protect)


def export(
    frame,
    path,
    *,
    format: str | None = None,
    kind: str | None = None,
    overwrite: bool = False,
    qrels=None,
    comparison: pd.DataFrame | None = None,
    digits: int | dict = 4,
    lower_is_better: Iterable[str] = (),
    caption: str | None = None,
    label: str | None = None,
    images=None,
    protect=(),
    pairs: pd.DataFrame | None = None,
    settings=None,
) -> Path:
    """Write one table to ``path``; the format comes from ``format`` or the file suffix.

    ``format``: ``"csv"``, ``"markdown"``, ``"latex"`` or ``"html"`` (suffixes
    ``.csv``, ``.md``/``.markdown``, ``.tex``, ``.html``/``.htm``); a ``format`` that another of these
    suffixes contradicts (``x.html`` with ``format="csv"``) is refused. ``kind``
    (``"summary"``, ``"per_query"``, ``"comparison"``) is inferred from the
    columns when not given. ``settings``: (name, text) pairs stating how the numbers were made
    (:func:`metrics.report.provenance.provenance`; taken from an Evaluation given whole), written in the
    form the format allows. Options a format does not use are ignored.
    Raises :class:`FileExistsError` if ``path`` exists and not ``overwrite``.
    """
    path = Path(path)
    if format is None:
        format = FORMATS.get(path.suffix.lower())
        if format is None:
            raise ValueError(
                f"cannot tell the format from {path.name!r}; pass format= one of csv, markdown, latex, html"
            )
    format = {"md": "markdown", "tex": "latex", "htm": "html"}.get(format.lower(), format.lower())
    by_suffix = FORMATS.get(path.suffix.lower())
    if by_suffix is not None and by_suffix != format:  # x.html holding CSV: opened as HTML, it is garbage
        raise ValueError(
            f"format {format!r} does not match the file name {path.name!r} ({by_suffix}); name the file "
            f"with the format's suffix or leave format= out (the suffix chooses it)"
        )
    if format == "csv":
        text = to_csv(frame, kind=kind, qrels=qrels, settings=settings)
    elif format == "markdown":
        text = to_markdown(
            frame,
            kind=kind,
            comparison=comparison,
            digits=digits,
            lower_is_better=lower_is_better,
            pairs=pairs,
            title=caption,
            qrels=qrels,
            settings=settings,
        )
    elif format == "latex":
        text = to_latex(
            frame,
            kind=kind,
            comparison=comparison,
            digits=digits,
            lower_is_better=lower_is_better,
            caption=caption,
            label=label,
            pairs=pairs,
            settings=settings,
        )
    elif format == "html":
        text = to_html(
            frame,
            kind=kind,
            comparison=comparison,
            digits=digits,
            lower_is_better=lower_is_better,
            qrels=qrels,
            title=caption or "Evaluation report",
            images=images,
            pairs=pairs,
            settings=settings,
        )
    else:
        raise ValueError(f"unknown format {format!r}; expected csv, markdown, latex or html")
    return write_text(path, text, overwrite=overwrite, protect=protect)


def write_html_report(path, *, overwrite: bool = False, protect=(), **report) -> Path:
    """Write :func:`html_report` (keyword arguments passed on) atomically to ``path``."""
    return write_text(path, html_report(**report), overwrite=overwrite, protect=protect)
