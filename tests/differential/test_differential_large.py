"""Large cases against trec_eval 10.0: variation on both sides of the readers' 1 MiB chunk boundaries,
10,000 queries, 20,000 documents in one query, ids of 100,000 bytes; and the window's runs on disk."""

from __future__ import annotations

from dataclasses import replace

import diff_doors
import diff_generate
import pytest
from diff_generate import PLAIN, RandomSource, generate, rename_id


@pytest.fixture(scope="module")
def boundaries(tmp_path_factory):
    return diff_generate.boundary_case("boundaries")


@pytest.mark.parametrize(
    "door, flags",
    [("cli", ()), ("split", ("-M", "5")), ("gzip", ("-J",)), ("evaluate", ("-c",)), ("window", ("-l", "2"))],
)
def test_chunk_boundaries(boundaries, door, flags, oracle, tmp_path, keep):
    diff_doors.check(boundaries.with_flags(flags), [door], tmp_path, keep / "boundaries")


@pytest.fixture(scope="module")
def long_lines(tmp_path_factory):
    return diff_generate.boundary_case("long-lines", run_hazards=diff_generate.LONG_LINE_HAZARDS)


@pytest.mark.parametrize("door", ["cli", "evaluate", "window"])
def test_long_lines_at_chunk_boundaries(long_lines, door, oracle, tmp_path, keep):
    """Run lines of 7 to 18 fields (a second record joined by a blank or a lone CR) ending the chunk before
    a boundary, starting the one after it, or cut by it: trec_eval reads their first 6 fields."""
    diff_doors.check(long_lines, [door], tmp_path, keep / "long-lines")


def test_ten_thousand_queries(oracle, tmp_path, keep):
    plan = replace(
        PLAIN, queries=10_000, docs=60, depth=3, judged=2, exact=True, qid_kinds=("numeric", "padded", "alnum")
    )
    case = generate(RandomSource("10k"), ("-c",), plan)
    diff_doors.check(case, ["cli", "split", "evaluate"], tmp_path, keep / "10k-queries")


def test_twenty_thousand_documents_in_a_query(oracle, tmp_path, keep):
    plan = replace(PLAIN, queries=2, docs=20_000, depth=20_000, judged=2_000, exact=True, scores=("decimal", "ties"))
    case = generate(RandomSource("20k"), (), plan)
    diff_doors.check(case, ["cli", "evaluate", "window"], tmp_path, keep / "20k-docs")


def test_ids_of_100000_bytes(oracle, tmp_path, keep):
    case = generate(RandomSource("100k"), ("-M", "5"), replace(PLAIN, queries=3, doc_kinds=("alnum",)))
    first = case.qrels.data_lines()[0]
    case = rename_id(case, 2, first.fields[2], b"D" + b"7" * 99_999)
    case = rename_id(case, 0, case.qrels.data_lines()[-1].fields[0], b"Q" + b"x" * 99_999)
    diff_doors.check(case, ["cli", "stdin", "evaluate"], tmp_path, keep / "100k-id")
    diff_doors.check(case.with_flags(()), ["window"], tmp_path, keep / "100k-id")


def test_window_runs_on_disk(oracle, tmp_path, keep):
    """Runs the window does not hold: read and scored by its worker processes."""
    case = diff_generate.variation_case("several_runs", 0)
    diff_doors.check(case.with_flags(("-l", "2")), ["window_disk"], tmp_path, keep / "window-disk")


@pytest.mark.parametrize("flags", [(), ("-q",), ("-c", "-M", "50"), ("-l", "2", "-J")])
def test_several_runs_shared_with_forked_copies(flags, oracle, tmp_path, keep):
    """Several runs in one call without ``--jobs`` (on two cores or more, the later ones scored by a copy of
    the process forked once the qrels are encoded), beside the same runs scored one after the other."""
    case = diff_generate.variation_case("several_runs", 0)
    diff_doors.check(case.with_flags(flags), ["forked", "several"], tmp_path, keep / "forked")
