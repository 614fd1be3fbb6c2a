"""A file trec_eval reads is read as trec_eval reads it, through every door: fields counted per line (a run
line of more than 6 fields, two records joined by a lone CR, at the start of the file or of any chunk),
a valid TREC first line read as data whatever words or braces it holds, query texts and intent qrels
recognised only on positive evidence, grades too high for their file refused naming their line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import metrics
from metrics.io import textfile
from metrics.io.columns import read_columns
from metrics.io.detect import detect_kind_with_reason, holds_queries

# appended, not put first: a process the tests spawn takes this path, and there ``conftest`` (tests/conftest.py,
# which test modules import helpers from) would otherwise be the differential folder's
sys.path.append(str(Path(__file__).resolve().parents[2] / "differential"))

import diff_doors  # noqa: E402
import trec_eval_ref  # noqa: E402

needs_trec_eval = pytest.mark.skipif(not trec_eval_ref.BIN, reason=trec_eval_ref.REASON)
DOORS = ("cli", "evaluate", "frames", "window")


def _write(path: Path, text: str | bytes) -> str:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def _same_as_trec_eval(qrels: str, run: str, doors=DOORS, flags=()) -> None:
    """Every door prints trec_eval 10.0's ``-q -m all_trec`` bytes for the pair."""
    for door in doors:
        mismatch = diff_doors.compare(door, qrels, [run], list(flags), None)
        assert mismatch is None, f"{mismatch.summary()}\n{mismatch.diff()}\n{mismatch.got.err[-2000:]}"


def _trec_eval(qrels: str, run: str, *measures: str, flags=()) -> dict:
    args = [trec_eval_ref.BIN, *flags]
    for m in measures:
        args += ["-m", m]
    out = subprocess.run([*args, qrels, run], capture_output=True, text=True, check=True).stdout
    return {line.split()[0]: line.split()[2] for line in out.splitlines()}


QRELS3 = "1 0 a 1\n1 0 x 1\n1 0 b 0\n"


# ------------------------------------------------------------------------------ fields counted per line


@needs_trec_eval
@pytest.mark.parametrize("join", [b" ", b"\r", b"\t"])
def test_a_line_holding_two_records_reads_its_first_six_fields(tmp_path, join):
    """'1 Q0 a 1 3.0 r 1 Q0 x 2 2.5 r' (or two lines joined by an old Mac's lone CR) first in the file:
    trec_eval reads 'a' and ignores the rest; every other line after it vanished (map 0.5000)."""
    qrels = _write(tmp_path / "qrels", QRELS3)
    run = _write(tmp_path / "run", b"1 Q0 a 1 3.0 r" + join + b"1 Q0 x 2 2.5 r\n1 Q0 b 3 2.0 r\n1 Q0 x 4 1.0 r\n")
    assert _trec_eval(qrels, run, "map", "num_ret") == {"map": "0.8333", "num_ret": "3"}
    _same_as_trec_eval(qrels, run)


@needs_trec_eval
@pytest.mark.parametrize("fields", [7, 12, 18])
def test_first_line_of_7_to_18_fields(tmp_path, fields):
    extra = " ".join(f"x{i}" for i in range(fields - 6))
    qrels = _write(tmp_path / "qrels", QRELS3)
    run = _write(tmp_path / "run", f"1 Q0 a 1 3.0 r {extra}\n1 Q0 b 2 2.0 r\n1 Q0 x 3 1.0 r\n1 Q0 c 4 0.5 r\n")
    _same_as_trec_eval(qrels, run)


def _deep_run(queries: int, depth: int) -> list[str]:
    return [f"{q} Q0 doc{(q * 7 + r * 13) % depth} {r} {depth - r}.5 tag" for q in range(queries) for r in range(depth)]


def _at_chunk_boundary(lines: list[str], before: bool, after: bool) -> list[str]:
    """``lines`` with the last line of the reader's first chunk (``before``) and the first of its second
    (``after``) holding a second record: a chunk is CHUNK_BYTES read whole and the rest of its last line."""
    offset = 0
    for i, line in enumerate(lines):
        offset += len(line) + 1
        if offset >= textfile.CHUNK_BYTES:
            break
    out = list(lines)
    for k, wanted in ((i, before), (i + 1, after)):
        if wanted:
            q = out[k].split()[0]
            out[k] = f"{out[k]} {q} Q0 extra{k} 0 99.0 tag"  # a record trec_eval ignores
    return out


@needs_trec_eval
@pytest.mark.parametrize("before, after", [(False, True), (True, False), (True, True)])
@pytest.mark.parametrize("odd", [False, True])
def test_a_long_line_either_side_of_a_chunk_boundary(tmp_path, before, after, odd):
    """A 60,000-line run with one 12-field line about 1 MiB in: num_ret 45,586 and map 0.0788 where
    trec_eval gives 60,000 and 0.1018 (the lines after it in the chunk, an even number of them, were read
    two by two as lines of 12 fields)."""
    lines = _at_chunk_boundary(_deep_run(60, 1000), before, after)[: 59999 if odd else 60000]
    assert sum(len(line) + 1 for line in lines) > textfile.CHUNK_BYTES * 1.5
    run = _write(tmp_path / "run", "".join(line + "\n" for line in lines))
    qrels = _write(tmp_path / "qrels", "".join(f"{q} 0 doc{d} {d % 3}\n" for q in range(60) for d in range(0, 1000, 5)))
    assert _trec_eval(qrels, run, "num_ret")["num_ret"] == str(len(lines))
    _same_as_trec_eval(qrels, run, doors=("cli", "evaluate", "window"))
    cols = read_columns(run, "run", fields=True)
    assert len(cols) == len(lines) and set(cols.tag.tolist()) == {b"tag"}


def test_lines_of_two_fields_are_not_paired_into_one_of_four(tmp_path):
    """'1 0' then 'd1 1': four fields in all, two lines; trec_eval stops with 'Malformed line 1'."""
    path = _write(tmp_path / "qrels", "1 0\nd1 1\n")
    with pytest.raises(metrics.InputError) as e:
        metrics.read_qrels(path)
    assert e.value.line == 1 and "2 columns" in str(e.value)


def test_a_run_line_of_five_fields_among_longer_ones_names_its_line(tmp_path):
    path = _write(tmp_path / "run", "1 Q0 a 1 3.0 r x y\n1 Q0 b 2 2.0\n1 Q0 c 3 1.0 r\n")
    with pytest.raises(metrics.InputError) as e:
        metrics.read_run(path)
    assert e.value.line == 2 and "5 columns" in str(e.value)


# ----------------------------------------------------------------------------------------- TREC first


@needs_trec_eval
def test_a_run_whose_first_line_names_columns_is_still_trec(tmp_path):
    """'qid Q0 docno 1 2.0 score' is a valid run line: map 0.7500 as trec_eval, not 1.0000 from the tags."""
    qrels = _write(tmp_path / "qrels", "1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    run = _write(tmp_path / "run", "qid Q0 docno 1 2.0 score\n1 Q0 a 1 3.0 r\n1 Q0 b 2 2.5 r\n1 Q0 c 3 1.0 r\n")
    _same_as_trec_eval(qrels, run)
    cols = read_columns(run, "run")
    assert cols.layout is not None and cols.layout.trec and len(cols) == 4
    assert any("names columns as a header does" in w and "line 1" in w for w in cols.warnings)
    kind, reason = detect_kind_with_reason(run)
    assert kind == "run" and "trec_eval reads it" in reason
    from metrics.inspect.files import inspect_file

    ins = inspect_file(run)
    assert any("a valid TREC line" in p["message"] for p in ins.problems)


@needs_trec_eval
@pytest.mark.parametrize(
    "first",
    ["qid 0 docid 1", "query_id Q0 doc_id 0", "qid 0 docno 2", "docid 0 qid 1", "Q0 0 score 1", "rel label docid 0"],
)
def test_qrels_whose_first_line_is_made_of_header_words(tmp_path, first):
    """A first line holding a query-id word and a document-id word in any column made every door exit 2."""
    q = first.split()[0]
    qrels = _write(tmp_path / "qrels", f"{first}\n1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    run = _write(tmp_path / "run", f"{q} Q0 {first.split()[2]} 1 5.0 r\n1 Q0 a 1 3.0 r\n1 Q0 b 2 2.5 r\n")
    _same_as_trec_eval(qrels, run)
    assert detect_kind_with_reason(qrels)[0] == "qrels"


@needs_trec_eval
@pytest.mark.parametrize("lead", ["{}", '{"', "{", "[", "<", '{"a":', "[1,", "<top>"])
def test_ids_beginning_with_braces_brackets_and_tags(tmp_path, lead):
    qrels = _write(tmp_path / "qrels", f"{lead}x 0 a 1\n{lead}x 0 b 0\n2 0 a 1\n")
    run = _write(tmp_path / "run", f"{lead}x Q0 a 1 3.0 r\n{lead}x Q0 b 2 4.0 r\n2 Q0 b 1 1.0 r\n2 Q0 a 2 0.5 r\n")
    _same_as_trec_eval(qrels, run)


@needs_trec_eval
def test_ids_with_commas_and_quotes(tmp_path):
    qrels = _write(tmp_path / "qrels", '"q,1" 0 "a,b" 1\n"q,1" 0 c,"d" 0\n')
    run = _write(tmp_path / "run", '"q,1" Q0 c,"d" 1 3.0 r\n"q,1" Q0 "a,b" 2 2.0 r\n')
    _same_as_trec_eval(qrels, run)


@needs_trec_eval
def test_comments_and_ids_holding_topic_tags_are_not_query_texts(tmp_path):
    """The window took these for query texts: no scores, or 'a <top> without <num>'."""
    # (in qrels, trec_eval skips a comment line after a data line only)
    qrels = _write(tmp_path / "qrels", '<top> 0 a 1\n# <topic number="1">\n<num> 0 b 1\n2 0 a 1\n')
    run = _write(
        tmp_path / "run",
        '# <top> <num> Number: 1\n<top> Q0 a 1 3.0 r\n<topic number="1"> Q0 b 1 1 r\n'
        "# </top>\n<num> Q0 b 1 2 r\n2 Q0 a 1 1.0 r\n",
    )
    assert not holds_queries(qrels) and not holds_queries(run)
    _same_as_trec_eval(qrels, run)


@needs_trec_eval
def test_hexadecimal_scores_after_a_tab_are_a_run(tmp_path):
    qrels = _write(tmp_path / "qrels", QRELS3)
    run = _write(tmp_path / "run", "1 Q0 a 1\t0x1.8p1 r\n1 Q0 b 2\t0x1p+1 r\n1 Q0 x 3\t0x1p-3 r\n")
    assert not holds_queries(run)
    _same_as_trec_eval(qrels, run)


def test_query_texts_are_still_recognised(tmp_path):
    topics = _write(tmp_path / "topics", "<top>\n<num> Number: 301\n<title> International Organized Crime\n</top>\n")
    xml = _write(tmp_path / "topics.xml", '<topics>\n<topic number="1">\n<query>pizza</query>\n</topic>\n</topics>\n')
    tsv = _write(tmp_path / "queries.tsv", "q1\tbest pizza in town\nq2\tcheap flights to rome\n")
    assert holds_queries(topics) and holds_queries(xml) and holds_queries(tsv)
    from workbench.state.loading import load_file

    assert load_file(topics, None, None)[1].queries == {"301": "International Organized Crime"}
    with pytest.raises(metrics.InputError) as e:  # ir-eval and the library say what the file is
        detect_kind_with_reason(tsv)
    assert "query texts" in str(e.value)


# -------------------------------------------------------------------------------------- intent qrels


@needs_trec_eval
def test_a_document_judged_twice_is_not_taken_for_intent_qrels(tmp_path):
    """One query of three judges a document under a second 'iter': an ad hoc file's mistake, which
    trec_eval refuses; the window switched to intent qrels and dropped the ad hoc measures."""
    text = "".join(f"{q} 0 d{d} {d % 2}\n" for q in (1, 2, 3) for d in range(4)) + "2 1 d3 0\n"
    qrels = _write(tmp_path / "qrels", text)
    run = _write(tmp_path / "run", "".join(f"{q} Q0 d{d} {d} {9 - d} r\n" for q in (1, 2, 3) for d in range(4)))
    te = subprocess.run([trec_eval_ref.BIN, qrels, run], capture_output=True, text=True)
    assert te.returncode != 0
    cli = subprocess.run([sys.executable, "-m", "metrics", qrels, run], capture_output=True, text=True)
    assert cli.returncode == 2 and "a second time" in cli.stderr and "line 13" in cli.stderr
    with pytest.raises(metrics.InputError) as e:
        metrics.evaluate(qrels, run, "map")
    assert not isinstance(e.value, metrics.IntentQrelsError) and e.value.line == 13
    from workbench.state.loading import load_file

    with pytest.raises(metrics.InputError) as e:
        load_file(qrels, None, None)
    assert not isinstance(e.value, metrics.IntentQrelsError) and e.value.line == 13


def test_intent_qrels_read_by_the_window_say_so(tmp_path):
    qrels = _write(tmp_path / "qrels", "51 1 a 1\n51 2 a 0\n51 1 b 0\n51 2 b 1\n52 1 d 1\n52 2 d 1\n")
    from workbench.state.loading import load_file

    _, loaded = load_file(qrels, None, None)
    assert loaded.kind == "intents"
    assert any("read as intent (diversity) qrels" in w and "line 2" in w for w in loaded.warnings)


# ------------------------------------------------------------------------------------------- grades


@needs_trec_eval
@pytest.mark.parametrize("grade", ["99999999999", "9223372036854775807", "4294967296"])
def test_a_grade_too_high_for_its_file_is_an_input_error_at_every_door(tmp_path, grade):
    """ir-eval exited 3 'not enough memory'; the library and the window raised numpy's MemoryError.
    trec_eval 10.0 cannot compute the measures either."""
    qrels = _write(tmp_path / "qrels", f"1 0 b 0\n1 0 a {grade}\n1 0 c 1\n")
    run = _write(tmp_path / "run", "1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n")
    te = subprocess.run([trec_eval_ref.BIN, qrels, run], capture_output=True, text=True)
    assert te.returncode != 0 or "Can't calculate" in te.stderr
    cli = subprocess.run([sys.executable, "-m", "metrics", qrels, run], capture_output=True, text=True)
    assert cli.returncode == 2 and f"{qrels}, line 2: found relevance {grade}" in cli.stderr
    for read in (lambda: metrics.evaluate(qrels, run, "map"), lambda: metrics.read_qrels(qrels)):
        with pytest.raises(metrics.InputError) as e:
            read()
        assert e.value.path == qrels and e.value.line == 2
    from workbench.state.loading import load_file

    with pytest.raises(metrics.InputError) as e:
        load_file(qrels, None, None)
    assert e.value.line == 2


@needs_trec_eval
def test_high_grades_in_proportion_to_their_file_are_scored(tmp_path):
    qrels = _write(tmp_path / "qrels", "1 0 a 1000\n1 0 b 0\n1 0 c 250\n2 0 a 3\n")  # (trec_eval takes a minute at 1e5)
    run = _write(tmp_path / "run", "1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n1 Q0 c 3 1.0 r\n2 Q0 a 1 1.0 r\n")
    _same_as_trec_eval(qrels, run, doors=("cli", "evaluate"))


# ------------------------------------------------------------------------------ Ctrl-C and irds: ids

#: a child that presses Ctrl-C on itself when ``module`` is first looked for, then runs ir-eval's entry point
_INTERRUPTED_AT = """
import importlib.abc, os, signal, sys
module = sys.argv[1]
class At(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == module:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None
sys.meta_path.insert(0, At())
sys.argv = ["ir-eval", *sys.argv[2:]]
import ir_eval_launcher
ir_eval_launcher.run()
"""


@pytest.mark.parametrize(
    "module",
    ["numpy", "metrics.engine.evaluate", "metrics.cli.ir_eval", "metrics.io.detect", "metrics.scale.split"],
)
def test_ctrl_c_while_ir_eval_loads_or_reads_ends_it_in_one_line(tmp_path, module):
    """A Ctrl-C in the first half second (numpy and the package loading) printed a traceback; the last two
    modules are loaded once ir-eval is under way (reading the files, scoring)."""
    qrels = _write(tmp_path / "qrels", QRELS3)
    run = _write(tmp_path / "run", "1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n")
    p = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_AT, module, qrels, run], capture_output=True, text=True, timeout=120
    )
    assert (p.returncode, p.stderr, p.stdout) == (130, "ir-eval: interrupted\n", "")


class _Failing:
    """An ir_datasets dataset whose files are not at hand (ir_datasets fails as it downloads them)."""

    def has_qrels(self) -> bool:
        return True

    has_scoreddocs = has_queries = has_qrels

    def _fail(self):
        raise ConnectionError(("https://example.org/qrels.gz", "<urlopen error [Errno -3] name resolution>" * 20))
        yield

    qrels_iter = scoreddocs_iter = queries_iter = _fail


@pytest.fixture
def fake_ir_datasets(monkeypatch):
    import types

    module = types.ModuleType("ir_datasets")
    known = {"fake/test": _Failing()}
    module.load = lambda dataset_id: known[dataset_id]  # type: ignore[attr-defined]
    module.registry = known  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ir_datasets", module)
    return module


def test_a_dataset_not_at_hand_is_an_input_error_naming_it(tmp_path, capsys, fake_ir_datasets):
    """A failed qrels download exited 3 with a raw tuple, a failed run download 4 ('cannot write the
    output'), and the library raised a bare RuntimeError."""
    from metrics.cli.ir_eval import main

    run = _write(tmp_path / "run", "1 Q0 a 1 3.0 r\n")
    for args in (["irds:fake/test", run], [_write(tmp_path / "qrels", QRELS3), "irds:fake/test"]):
        assert main(args) == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and err.startswith("ir-eval: irds:fake/test: ir_datasets could not give")
        assert "'fake/test'" in err and "ConnectionError" in err and "~/.ir_datasets" in err and len(err) < 700
    for read in (metrics.read_qrels, metrics.read_run):
        with pytest.raises(metrics.InputError) as e:
            read("irds:fake/test")
        assert e.value.path == "irds:fake/test" and "download" in str(e.value)
    from metrics.io.datasets import dataset_queries

    with pytest.raises(metrics.InputError):
        dataset_queries("irds:fake/test#queries")


def test_a_missing_path_naming_a_dataset_says_to_write_irds(tmp_path, capsys, monkeypatch, fake_ir_datasets):
    from metrics.cli.ir_eval import main

    monkeypatch.chdir(tmp_path)
    run = _write(tmp_path / "run", "1 Q0 a 1 3.0 r\n")
    assert main(["fake/test", run]) == 2
    assert capsys.readouterr().err == (
        "ir-eval: fake/test: no such file; 'fake/test' names an ir_datasets dataset: write irds:fake/test to read it\n"
    )
    assert main(["fake/other", run]) == 2
    assert capsys.readouterr().err == "ir-eval: fake/other: no such file\n"


def test_a_grade_too_high_in_a_frame_is_an_input_error():
    import pandas as pd

    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [99999999999, 0]})
    run = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    with pytest.raises(metrics.InputError) as e:
        metrics.evaluate(qrels, run, "map")
    assert "found relevance 99999999999" in str(e.value)


def test_the_grade_limit_grows_with_the_file(tmp_path):
    """A file may make the table of judged documents per grade (queries x (highest grade + 1)) as large
    as 16 counts per line, or 2**24 counts: the memory follows the data, not a value in it."""
    from metrics.io.checks import GRADE_CELLS_FLOOR, GRADE_CELLS_PER_LINE

    one = _write(tmp_path / "one", f"1 0 a {GRADE_CELLS_FLOOR - 1}\n1 0 b 0\n")
    assert read_columns(one, "qrels").value.max() == GRADE_CELLS_FLOOR - 1
    over = _write(tmp_path / "over", f"1 0 a {GRADE_CELLS_FLOOR}\n1 0 b 0\n")
    with pytest.raises(metrics.InputError) as e:
        read_columns(over, "qrels")
    assert e.value.line == 1 and "grades up to 16,777,215" in str(e.value)
    rows = GRADE_CELLS_FLOOR // GRADE_CELLS_PER_LINE + 1  # lines enough to raise the limit beyond the floor
    big = tmp_path / "big"
    big.write_text("".join(f"q 0 d{i} 0\n" for i in range(rows - 1)) + f"q 0 top {GRADE_CELLS_FLOOR}\n")
    assert read_columns(big, "qrels").value.max() == GRADE_CELLS_FLOOR
