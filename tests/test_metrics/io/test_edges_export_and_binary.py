"""An export whose file name says another format is refused (x.html never holds CSV), and one detection of
binary files (metrics.io.binaryfiles.binary_file, metrics.io.textfile.first_binary_byte) for every door."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import metrics
from metrics.errors import InputError
from metrics.inspect.files import inspect_file
from metrics.io.binaryfiles import binary_file
from metrics.io.textfile import first_binary_byte
from metrics.report import export

SAMPLE = Path(__file__).resolve().parents[3] / "workbench" / "resources" / "sample"


@pytest.fixture(scope="module")
def ev():
    return metrics.evaluate(str(SAMPLE / "qrels.txt"), [str(SAMPLE / "run_bm25.txt")], ["map", "P.10"])


@pytest.mark.parametrize(("name", "fmt"), [("x.html", "csv"), ("x.csv", "html"), ("x.md", "latex"), ("x.tex", "md")])
def test_a_format_the_file_name_contradicts_is_refused(ev, tmp_path, name, fmt):
    with pytest.raises(ValueError, match="does not match the file name"):
        export(ev, tmp_path / name, format=fmt, kind="summary")
    assert not (tmp_path / name).exists()


def test_the_suffix_chooses_the_format(ev, tmp_path):
    html = export(ev, tmp_path / "x.html", kind="summary")
    assert html.read_text().startswith("<!DOCTYPE html>")
    csv = export(ev, tmp_path / "x.csv", kind="summary", format="csv")
    assert csv.read_text().startswith("# ir-workbench summary table")
    other = export(ev, tmp_path / "x.txt", kind="summary", format="markdown")  # a suffix of no format: format=
    assert "| run |" in other.read_text() or "|" in other.read_text()


@pytest.fixture
def binary(tmp_path):
    path = tmp_path / "image.run"
    path.write_bytes(b"401 Q0 d1 1 2.0 r\n401 Q0 d2 2 1.0 r\n\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    return str(path)


def test_one_detection_of_binary_files(binary):
    told = binary_file(binary)
    assert isinstance(told, InputError) and told.line == 5  # (the PNG signature holds two newlines)
    expected = str(told)
    assert expected == f"{binary}, line 5: found a NUL byte: this looks like a binary file; expected UTF-8 text"
    assert first_binary_byte(b"text\n") == -1 and first_binary_byte(b"a\0") == 1
    for door in (metrics.read_run, metrics.read_qrels, metrics.read_file, metrics.detect_kind):
        with pytest.raises(InputError) as info:
            door(binary)
        assert str(info.value) == expected, door
    ins = inspect_file(binary)
    assert ins.problems[0]["message"] == expected
    done = subprocess.run(
        [sys.executable, "-m", "metrics", str(SAMPLE / "qrels.txt"), binary],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and done.stderr == f"ir-eval: {expected}\n"


def test_text_parquet_and_gzip_are_not_binary_data(tmp_path):
    import gzip

    assert binary_file(SAMPLE / "run_bm25.txt") is None
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress((SAMPLE / "run_bm25.txt").read_bytes()))
    assert binary_file(gz) is None
    parquet = tmp_path / "run.parquet"
    metrics.read_run(str(SAMPLE / "run_bm25.txt")).to_parquet(parquet)
    assert binary_file(parquet) is None
