"""Where the tests find trec_eval 10.0 itself (the byte-for-byte oracle), the same way in CI and at a desk.

1. ``TREC_EVAL_BIN`` (a binary) and ``TREC_EVAL_SRC`` (its source tree, for
   trec_eval's own test data) when they are set;
2. else the source archive ``../shared/reference/trec_eval-10.0-src.tar.gz``
   beside the repository (or ``TREC_EVAL_ARCHIVE``), unpacked and built once with
   upstream's own ``make`` flags into a cache folder
   (``$XDG_CACHE_HOME/ir-workbench`` or ``~/.cache/ir-workbench``); ``.ci/run``
   builds it the same way before the tests;
3. else the oracle tests skip, and their reason says what is missing.

trec_eval's source is never copied into this repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARCHIVE_NAME = "trec_eval-10.0-src.tar.gz"


def _cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ir-workbench" / "trec_eval-10.0"


def _archive() -> Path:
    return Path(os.environ.get("TREC_EVAL_ARCHIVE") or REPO.parent / "shared" / "reference" / ARCHIVE_NAME)


def locate() -> tuple[str | None, str | None, str]:
    """(binary, source tree, reason when missing)."""
    binary, source = os.environ.get("TREC_EVAL_BIN"), os.environ.get("TREC_EVAL_SRC")
    if binary and source:
        return binary, source, ""
    src = _cache() / "trec_eval"
    built = src / "trec_eval"
    if built.is_file() and os.access(built, os.X_OK):
        return binary or str(built), source or str(src), ""
    archive = _archive()
    if not archive.is_file():
        return (
            binary,
            source,
            (f"trec_eval 10.0 not found: set TREC_EVAL_BIN and TREC_EVAL_SRC, or put {ARCHIVE_NAME} at {archive}"),
        )
    missing = [tool for tool in ("make", "cc") if shutil.which(tool) is None]
    if missing:
        return binary, source, f"cannot build trec_eval 10.0 from {archive}: {' and '.join(missing)} not found"
    try:
        target = _cache()
        target.mkdir(parents=True, exist_ok=True)
        if not (target / "trec_eval" / "Makefile").is_file():
            with tarfile.open(archive) as tar:
                tar.extractall(target, filter="data") if hasattr(tarfile, "data_filter") else tar.extractall(target)
        subprocess.run(["make", "-C", str(src)], check=True, capture_output=True, timeout=300)
    except (OSError, subprocess.SubprocessError, tarfile.TarError) as exc:
        return binary, source, f"building trec_eval 10.0 from {archive} failed: {exc}"
    return binary or str(built), source or str(src), ""


BIN, SRC, REASON = locate()
