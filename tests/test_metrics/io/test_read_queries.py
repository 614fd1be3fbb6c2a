"""``read_run(path, queries=...)``: the rows of some queries of a run, read by the one reader, are the rows
of those queries in the whole run's frame (one query of a large run for the window's drill-down)."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest

from metrics.io.readers import read_run


@pytest.fixture
def run_file(tmp_path):
    lines = []
    for q in ("301", "302", "caf\xe9", "10"):
        for d in range(30):
            lines.append(f"{q}\tQ0\tFBIS-{d}\t{d + 1}\t{1.0 / (d % 7 + 1):.4f}\tsysX")  # tabs, tied scores
    data = ("\n".join(lines) + "\n").encode("utf-8") + b"303 Q0 \xff\xfe 1 0.5 sysX\n"  # a byte id not UTF-8
    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(data))
    return path


@pytest.mark.parametrize("queries", [["302"], ["caf\xe9", "10"], ["303"], ["nope"]])
def test_the_rows_of_some_queries_are_those_of_the_whole_run(run_file, queries):
    whole = read_run(run_file)
    part = read_run(run_file, queries=queries)
    want = whole[whole["query_id"].isin(queries)].reset_index(drop=True)
    # (the whole run's ids are kept in Python strings, one of them not being UTF-8: the same values)
    pd.testing.assert_frame_equal(part.reset_index(drop=True), want, check_dtype=False)
    assert part.attrs["name"] == whole.attrs["name"] == "sysX"
    assert len(part) == {"302": 30, "caf\xe9": 60, "303": 1, "nope": 0}[queries[0]]
