"""Where the project and trec_eval 10.0 differ on purpose, in one place.

Each entry names the difference, says why in a sentence, and turns a plain generated case into
``(file the project reads, file trec_eval reads or None, flags)``: the project's output on the first is
expected to be trec_eval's on the second, byte for byte, or (None) to be refused with exit status 2 and
a message naming the file and the line.  Only test_differential_intended applies these.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from diff_generate import PLAIN, Case, Line, RandomSource, generate


@dataclass(frozen=True)
class Intended:
    name: str
    why: str
    make: Callable  # Case -> (project's case, trec_eval's case or None)
    stderr: str = ""  # a word the project's standard error must hold
    readme: str = ""  # the words docs/conventions.md's list of differences names it with (test_differential_intended)


def base_case(flags=()) -> Case:
    return generate(RandomSource("intended"), flags, replace(PLAIN, queries=3, docs=12))


def _with_bom(which: str):
    def make(case: Case):
        tf = case.qrels if which == "qrels" else case.runs[0]
        marked = replace(tf, bom=True)
        project = replace(case, qrels=marked) if which == "qrels" else replace(case, runs=[marked, *case.runs[1:]])
        return project, case

    return make


def _qrels_blank_lines(case: Case):
    lines = list(case.qrels.lines)
    blank = [Line(text=b""), Line(text=b" \t"), Line(text=b"\r")]
    lines = [blank[0]] + lines[:2] + [blank[1]] + lines[2:] + [blank[2]]
    return replace(case, qrels=replace(case.qrels, lines=lines)), case


def _qrels_comment_lines(case: Case):
    lines = list(case.qrels.lines)
    comments = [Line(text=b"# judged by two assessors"), Line(text=b"# second comment line")]
    lines = comments + lines[:2] + comments + lines[2:] + comments
    return replace(case, qrels=replace(case.qrels, lines=lines)), case


def _bad_value(column: int, value: bytes, which: str = "run"):
    def make(case: Case):
        tf = case.runs[0] if which == "run" else case.qrels
        lines = list(tf.lines)
        i = len(lines) // 2
        fields = list(lines[i].fields)
        fields[column] = value
        lines[i] = replace(lines[i], fields=tuple(fields))
        tf = replace(tf, lines=lines)
        return (replace(case, runs=[tf]) if which == "run" else replace(case, qrels=tf)), None

    return make


def _qrels_query_missing_from_run(case: Case):
    """A qrels query without results, without -c: trec_eval's output for the qrels without it."""
    extra = [Line((b"999", b"0", b"dx", b"1"), (b" ",) * 3), Line((b"999", b"0", b"dy", b"0"), (b" ",) * 3)]
    with_extra = replace(case.qrels, lines=list(case.qrels.lines) + extra)
    return replace(case, qrels=with_extra), case


def _qrels_header_with_c(case: Case):
    """A header line first in the qrels, with -c: trec_eval's output for the qrels without it."""
    header = Line((b"qid", b"0", b"docno", b"rel"), (b" ",) * 3)
    with_header = replace(case.qrels, lines=[header, *case.qrels.lines])
    return replace(case, qrels=with_header, flags=("-c",)), replace(case, flags=("-c",))


def _duplicate_in_unjudged_query(case: Case):
    """A document twice in a query the qrels do not have (trec_eval never looks at it)."""
    dup = [Line((b"run-only", b"Q0", b"dd", b"1", b"2.0", b"run"), (b" ",) * 5)] * 2
    run = replace(case.runs[0], lines=list(case.runs[0].lines) + dup)
    return replace(case, runs=[run]), None


INTENDED = [
    Intended(
        "utf8_bom_qrels",
        "A UTF-8 byte-order mark starting the qrels is stripped; trec_eval keeps it in the first query id.",
        _with_bom("qrels"),
        readme="Byte-order mark, on purpose",
    ),
    Intended(
        "utf8_bom_run",
        "A UTF-8 byte-order mark starting a run is stripped; trec_eval keeps it in the first query id.",
        _with_bom("run"),
        readme="Byte-order mark, on purpose",
    ),
    Intended(
        "qrels_blank_lines",
        "Blank lines in qrels are skipped; trec_eval stops with 'Malformed line'.",
        _qrels_blank_lines,
        readme="Blank lines in qrels, on purpose",
    ),
    Intended(
        "qrels_comment_lines",
        "Every '#' line in qrels is a comment; trec_eval skips one only after a data line, and reads a "
        "second one in a row as data.",
        _qrels_comment_lines,
        readme="A `#` line is a comment in qrels and runs alike",
    ),
    Intended(
        "score_not_a_number",
        "A score that is not a number ('abc') is refused; trec_eval's atof reads it as 0.",
        _bad_value(4, b"abc"),
        readme="reads `abc` as 0",
    ),
    Intended(
        "score_with_trailing_text",
        "A score with text after the number ('1.5x') is refused; trec_eval's atof reads 1.5.",
        _bad_value(4, b"1.5x"),
        readme="`1.5x` as 1.5",
    ),
    Intended(
        "grade_not_an_integer",
        "A grade that is not an integer ('1.5') is refused; trec_eval's atol reads 1.",
        _bad_value(3, b"1.5", "qrels"),
        readme="a grade that is not an integer",
    ),
    Intended(
        "qrels_query_missing_from_run",
        "Without -c, a qrels query missing from a run is skipped with a warning (trec_eval 9.x); "
        "trec_eval 10.0 stops with exit status 4.",
        _qrels_query_missing_from_run,
        stderr="warning",
        readme="a qrels query missing from the run is skipped with a warning",
    ),
    Intended(
        "duplicate_document_anywhere",
        "A document twice in one query of a run is refused wherever it is; trec_eval refuses it only in "
        "queries it evaluates, within -M.",
        _duplicate_in_unjudged_query,
        readme="a duplicate document within a query",
    ),
    Intended(
        "qrels_header_line_with_c",
        "A first qrels line naming the columns, 'qid 0 docno rel' (its grade not an integer), is dropped as a "
        "header; trec_eval reads it as a judgment of a query 'qid' (atol reads 'rel' as 0), which -c counts in "
        "the averages (num_q one more, map lower).",
        _qrels_header_with_c,
        stderr="header",
        readme="A header line, on purpose",
    ),
]
