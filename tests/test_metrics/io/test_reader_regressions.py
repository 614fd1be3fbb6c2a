"""Files that scored wrongly or not at all through some doors, each checked through every door that reads
paths: ``ir-eval``, ``metrics.evaluate`` on paths, and the frames of ``read_qrels``/``read_run``."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
from metrics.cli.ir_eval import main
from metrics.io.ids import among, id_hash, ids_from_buffer


def _write(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


def _qrels_lines(sep=" "):
    return [sep.join(["1", "0.5", f"d{d}", str(d % 3)]) for d in range(12)] + [
        sep.join(["2", "0.5", f"d{d}", str((d + 1) % 3)]) for d in range(12)
    ]


def _run_lines():
    return [f"{q} Q0 d{d} {r} {20 - r} tag" for q in ("1", "2") for r, d in enumerate((3, 1, 4, 15, 9, 2, 6))]


def _cli(capsys, *args) -> list[str]:
    assert main(list(args)) == 0
    return capsys.readouterr().out.splitlines()


def _library(qrels, run, measures=("map", "P.5", "num_rel_ret")) -> dict:
    ev = metrics.evaluate(qrels, run, list(measures))
    return {(r.query_id, r.measure): r.value for r in ev.per_query.itertuples()}


def _doors_agree(capsys, qrels_path, run_path, reference_qrels, reference_run):
    """Every door scores the files as the reference files are scored."""
    want = _cli(capsys, "-q", "-m", "all_trec", reference_qrels, reference_run)
    assert _cli(capsys, "-q", "-m", "all_trec", qrels_path, run_path) == want
    expected = _library(reference_qrels, reference_run)
    assert _library(qrels_path, run_path) == expected
    assert _library(metrics.read_qrels(qrels_path), metrics.read_run(run_path)) == expected


@pytest.mark.parametrize(
    "shape",
    ["doubled", "leading", "trailing", "tabs and spaces"],
)
def test_qrels_with_irregular_blanks_score_everywhere(shape, tmp_path, capsys):
    """TREC-COVID's qrels ('1 0.5  010vptx3 2': two spaces) ended ir-eval and evaluate(path) with a TypeError."""
    plain = _qrels_lines()
    edit = {
        "doubled": lambda line: line.replace(" d", "  d"),
        "leading": lambda line: "  " + line,
        "trailing": lambda line: line + " \t",
        "tabs and spaces": lambda line: line.replace(" ", " \t", 1),
    }[shape]
    qrels = _write(tmp_path / "qrels.txt", [edit(line) for line in plain])
    reference = _write(tmp_path / "plain.txt", plain)
    run = _write(tmp_path / "run.txt", _run_lines())
    _doors_agree(capsys, qrels, run, reference, run)


@pytest.mark.parametrize("length", [511, 512, 513, 600, 5000])
@pytest.mark.parametrize("where", ["run", "qrels", "both"])
def test_a_long_document_id_changes_nothing_else(length, where, tmp_path, capsys):
    """A document id over 512 bytes made its query (run) or every query (qrels) score 0."""
    long_id = "x" * length
    qrels_lines, run_lines = _qrels_lines(), _run_lines()
    if where in ("qrels", "both"):
        qrels_lines = [*qrels_lines[:3], f"1 0 {long_id} 0", *qrels_lines[3:]]
    if where in ("run", "both"):
        run_lines = [*run_lines[:2], f"1 Q0 {long_id} 2 17.5 tag", *run_lines[2:]]
    qrels = _write(tmp_path / "qrels.txt", qrels_lines)
    run = _write(tmp_path / "run.txt", run_lines)
    # the same files with the long id replaced by a short one that is judged and retrieved the same way
    short = lambda lines: [line.replace(long_id, "zz") for line in lines]  # noqa: E731
    reference_qrels = _write(tmp_path / "q2.txt", short(qrels_lines))
    _doors_agree(capsys, qrels, run, reference_qrels, _write(tmp_path / "r2.txt", short(run_lines)))


def test_id_hash_is_a_function_of_the_bytes_alone():
    ids = [b"d1", b"doc-7", b"x" * 40, b"y" * 512, b"caf\xc3\xa9"]
    fixed = np.array(ids, dtype="S512")
    assert (id_hash(fixed) == id_hash(np.array(ids, dtype=object))).all()
    assert (id_hash(fixed) == id_hash(np.array(ids, dtype="S520"))).all()
    mixed = np.array([*ids, b"z" * 513], dtype=object)  # an object column because of one long id
    assert (id_hash(mixed)[:-1] == id_hash(fixed)).all()
    buf = np.frombuffer(b"".join(ids), dtype=np.uint8)
    ends = np.cumsum([len(x) for x in ids])
    assert (id_hash(ids_from_buffer(buf, ends - [len(x) for x in ids], ends)) == id_hash(fixed)).all()


def test_among_with_every_value_wanted():
    """From about 5.5M lines on, a run's duplicate check recursed without end when every value passed the
    filter table."""
    wanted = np.arange(0, 1 << 17, dtype=np.uint64)  # every low 16-bit pattern
    values = np.repeat(wanted[:50], 64 * len(wanted) // 50 + 1)
    assert among(values, wanted).all()
    values[::7] += np.uint64(1 << 20)
    assert (among(values, wanted) == (values < (1 << 17))).all()


def test_a_query_id_that_begins_with_a_brace_is_trec_not_json(tmp_path):
    """A run or qrels whose first id starts with "{" is TREC text (trec_eval reads it); JSON opens an object
    with a quoted key."""
    import metrics

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("{x56, 0 d1 1\n{x56, 0 d2 0\n")
    run = tmp_path / "run.txt"
    run.write_text("{x56, Q0 d1 1 2.0 r\n{x56, Q0 d2 2 1.0 r\n")
    assert metrics.evaluate(str(qrels), str(run), ["map"]).summary().iloc[0, 0] == 1.0
    js = tmp_path / "run.json"
    js.write_text('{ "q1": {"d1": 2.5, "d2": 1.0}}')
    assert len(metrics.read_run(str(js))) == 2
