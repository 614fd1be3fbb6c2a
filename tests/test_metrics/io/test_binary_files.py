"""ranx's saved runs and qrels (.parquet, .lz4) and Parquet files with our or PyTerrier's columns, through every
door: the library, ir-eval, kind detection; refused with a hint when the packages for LZ4 are missing."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import ranx
from ranx.io import save_lz4

import metrics
from metrics.cli.ir_eval import main
from metrics.errors import InputError
from metrics.io.readers import detect_kind_with_reason, read_file

MEASURES = ["map", "P.5", "ndcg_cut.10", "recip_rank"]


def _data(seed: int = 1):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(1, 13):
        docs = [f"d{d}" for d in rng.choice(200, size=30, replace=False)]
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs[:20], rng.integers(0, 3, size=20))}
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs[5:], np.round(rng.normal(size=25), 1))}  # ties
    return qrels, run


def _save(tmp_path, name, data, suffix):
    """``data`` saved as ranx saves it: ``Run.save``/``Qrels.save`` (Parquet) or ranx's LZ4 writer (that of its
    hub, and of ``save`` in its newer releases)."""
    path = tmp_path / f"{name}{suffix}"
    if suffix == ".lz4":
        save_lz4(data, str(path))
    else:
        (ranx.Qrels if name == "qrels" else ranx.Run)(data).save(str(path))
    return path


def _text(tmp_path, qrels, run):
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"{qid} 0 {d} {g}\n" for qid, docs in qrels.items() for d, g in docs.items()))
    r = tmp_path / "run.txt"
    r.write_text("".join(f"{qid} Q0 {d} 1 {s!r} run\n" for qid, docs in run.items() for d, s in docs.items()))
    return q, r


@pytest.mark.parametrize("suffix", [".parquet", ".lz4"])
def test_ranx_saved_files_give_the_text_files_numbers(tmp_path, suffix):
    qrels, run = _data()
    _save(tmp_path, "qrels", qrels, suffix)
    _save(tmp_path, "run", run, suffix)
    qtxt, rtxt = _text(tmp_path, qrels, run)
    expected = metrics.evaluate(qtxt, rtxt, MEASURES).summary()
    got = metrics.evaluate(tmp_path / f"qrels{suffix}", tmp_path / f"run{suffix}", MEASURES)
    assert got.runs == ["run"]  # the file's name: neither format keeps the run's
    np.testing.assert_array_equal(got.summary().to_numpy(), expected.to_numpy())
    assert read_file(tmp_path / f"run{suffix}").kind == "run"
    assert read_file(tmp_path / f"qrels{suffix}").kind == "qrels"
    assert "qrels" in detect_kind_with_reason(tmp_path / f"qrels{suffix}")[1]
    frame = metrics.read_run(tmp_path / f"run{suffix}")
    assert len(frame) == sum(len(d) for d in run.values()) and frame.attrs["name"] == "run"
    assert len(metrics.read_qrels(tmp_path / f"qrels{suffix}")) == sum(len(d) for d in qrels.values())


def test_ir_eval_reads_them_as_text(tmp_path, capsys):
    qrels, run = _data(2)
    _save(tmp_path, "qrels", qrels, ".lz4")
    _save(tmp_path, "run", run, ".parquet")
    qtxt, rtxt = _text(tmp_path, qrels, run)
    argv = ["-q", "-m", "map", "-m", "ndcg_cut.10", "-m", "P.5"]
    assert main([*argv, str(qtxt), str(rtxt)]) == 0
    expected = capsys.readouterr().out
    assert main([*argv, str(tmp_path / "qrels.lz4"), str(tmp_path / "run.parquet")]) == 0
    assert capsys.readouterr().out == expected


def test_parquet_with_our_and_pyterrier_columns_and_integer_ids(tmp_path):
    frame = pd.DataFrame({"qid": [1, 1, 2], "docno": [10, 11, 10], "score": [2.0, 1.0, 3.0]})
    frame.to_parquet(tmp_path / "pt.parquet")
    qrels = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["11", "10"], "relevance": [1, 2]})
    qrels.to_parquet(tmp_path / "q.parquet")
    ev = metrics.evaluate(tmp_path / "q.parquet", tmp_path / "pt.parquet", ["map"])
    assert ev.summary().loc["pt", "map"] == pytest.approx((0.5 + 1.0) / 2)
    assert detect_kind_with_reason(tmp_path / "q.parquet")[0] == "qrels"


@pytest.mark.parametrize(
    "frame, kind, message",
    [
        (pd.DataFrame({"q": ["1"], "doc_id": ["a"], "score": [1.0]}), "run", "found the columns q, doc_id, score"),
        (pa.table({"q_id": ["1"], "doc_id": ["a"], "score": pa.array([np.nan])}), "run", "row 1 has the score NaN"),
        (pd.DataFrame({"q_id": ["1", "2"], "doc_id": ["a", "b"], "score": [1.0, None]}), "run", "row 2 has no score"),
        (
            pd.DataFrame({"q_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]}),
            "run",
            "document 'a' a second time for query '1' .rows 1 and 2.",
        ),
        (pd.DataFrame({"q_id": ["1", None], "doc_id": ["a", "b"], "score": [1.0, 2.0]}), "run", "row 2 has no q_id"),
        (pd.DataFrame({"q_id": ["1"], "doc_id": ["a"], "score": [1.5]}), "qrels", "grade 1.5"),
    ],
)
def test_bad_parquet_is_refused_naming_the_file(tmp_path, frame, kind, message):
    path = tmp_path / "bad.parquet"
    pq.write_table(frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(frame), path)
    read = metrics.read_run if kind == "run" else metrics.read_qrels
    with pytest.raises(InputError, match=message) as err:
        read(path)
    assert "bad.parquet" in str(err.value)


def test_lz4_without_its_packages_is_refused_with_the_hint(tmp_path, monkeypatch, capsys):
    qrels, run = _data(3)
    _save(tmp_path, "run", run, ".lz4")
    qtxt, _ = _text(tmp_path, qrels, run)
    monkeypatch.setitem(sys.modules, "lz4", None)
    monkeypatch.setitem(sys.modules, "lz4.frame", None)
    with pytest.raises(InputError, match=r"pip install 'ir-workbench\[lz4\]'"):
        metrics.read_run(tmp_path / "run.lz4")
    assert main(["-m", "map", str(qtxt), str(tmp_path / "run.lz4")]) == 2
    err = capsys.readouterr().err
    assert "run.lz4" in err and "needs the lz4 and cbor2 packages" in err
