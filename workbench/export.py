"""Writing exports atomically (plain Python, no Qt).

Every export is first written to a temporary file in the destination folder and
then moved over the destination with ``os.replace``, so a reader never sees a
half-written file and a failed export leaves an existing file untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Iterable, Iterator

import pandas as pd


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """Yield a temporary path next to ``path`` (same suffix); move it onto ``path`` on success."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    base, suffix = os.path.splitext(os.path.basename(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=f".tmp{suffix}", dir=folder)
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())


def csv_text(frame: pd.DataFrame, header: Iterable[str] = ()) -> str:
    """CSV with ``# ``-prefixed header lines; floats at full precision (round-trip exact)."""
    lines = "".join(f"# {line}\n" for line in header)
    return lines + frame.to_csv(index=False, lineterminator="\n", float_format=None)


def per_query_header(qrels_name: str | None, runs: Iterable[str], measure: str, baseline: str | None) -> list[str]:
    return [
        "ir-workbench per-query values (one row per query)",
        f"qrels: {qrels_name or '-'}",
        f"runs: {', '.join(runs)}",
        f"measure: {measure}",
        f"baseline: {baseline or '-'} (columns 'Δ run' = run - baseline)",
    ]


def write_csv(path: str | os.PathLike, frame: pd.DataFrame, header: Iterable[str] = ()) -> None:
    write_text_atomic(path, csv_text(frame, header))


def read_csv(path: str | os.PathLike) -> pd.DataFrame:
    """Read back a CSV written by :func:`write_csv` (query and run names stay text)."""
    return pd.read_csv(path, comment="#", dtype={"query_id": str, "run": str})
