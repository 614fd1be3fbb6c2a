"""Files as the tools users hold write them (BEIR, PyTerrier, ir_measures, ranx): a header naming the
columns, tabs or commas, CRLF; JSON ``{qid: {docid: score}}``.  Every door reads them through the one
reader, and the numbers are those of the same judgments and scores in TREC's columns."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pandas as pd
import pytest

import metrics
from metrics.cli.inspect import format_text
from metrics.errors import InputError
from metrics.inspect.files import inspect_file
from metrics.io.columns import read_columns
from metrics.io.readers import detect_kind_with_reason

MEASURES = ["map", "ndcg_cut.10", "P.5", "recip_rank", "num_rel_ret"]


def _data(seed: int = 3):
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(1, 9):
        docs = [f"d{q}-{i}" for i in range(30)]
        for d in rng.sample(docs, 12):
            qrels.append((str(q), d, rng.choice([0, 0, 1, 2])))
        for rank, d in enumerate(rng.sample(docs, 20)):
            run.append((str(q), d, rank, round(rng.uniform(0, 20), 4)))
    return qrels, run


QRELS, RUN = _data()


def _write(path, lines, crlf=False):
    path.write_bytes(("\r\n" if crlf else "\n").join(lines).encode() + (b"\r\n" if crlf else b"\n"))
    return path


@pytest.fixture()
def trec(tmp_path):
    q = _write(tmp_path / "qrels.txt", [f"{a} 0 {b} {g}" for a, b, g in QRELS])
    r = _write(tmp_path / "run.txt", [f"{a} Q0 {b} {k + 1} {s} sys" for a, b, k, s in RUN])
    return q, r


def _qrels_layouts(tmp_path):
    """(name, path) of the qrels in each layout."""
    out = {
        "beir": _write(
            tmp_path / "test.tsv", ["query-id\tcorpus-id\tscore", *(f"{a}\t{b}\t{g}" for a, b, g in QRELS)], crlf=True
        ),
        "pyterrier-csv": _write(tmp_path / "pt.csv", ["qid,docno,label", *(f"{a},{b},{g}" for a, b, g in QRELS)]),
        "ir_measures-tsv": _write(
            tmp_path / "irm.tsv", ["query_id\tdoc_id\trelevance", *(f"{a}\t{b}\t{g}" for a, b, g in QRELS)]
        ),
        "ranx-csv": _write(tmp_path / "ranx.csv", ["q_id,doc_id,relevance", *(f"{a},{b},{g}" for a, b, g in QRELS)]),
        "trec-commas": _write(tmp_path / "commas.csv", [f"{a},0,{b},{g}" for a, b, g in QRELS]),
    }
    return out


def _run_layouts(tmp_path):
    results: dict = {}
    for a, b, _, s in RUN:
        results.setdefault(a, {})[b] = s
    out = {
        "pyterrier-csv": _write(
            tmp_path / "pt-run.csv", ["qid,docno,score,rank", *(f"{a},{b},{s},{k}" for a, b, k, s in RUN)]
        ),
        "pyterrier-tsv-crlf": _write(
            tmp_path / "pt-run.tsv",
            ["qid\tdocno\trank\tscore", *(f"{a}\t{b}\t{k}\t{s}" for a, b, k, s in RUN)],
            crlf=True,
        ),
        "ir_measures-csv": _write(
            tmp_path / "irm-run.csv", ["query_id,doc_id,score", *(f"{a},{b},{s}" for a, b, k, s in RUN)]
        ),
        "ranx-tsv": _write(
            tmp_path / "ranx-run.tsv", ["q_id\tdoc_id\tscore", *(f"{a}\t{b}\t{s}" for a, b, k, s in RUN)]
        ),
        "blanks": _write(tmp_path / "blank-run.txt", ["qid docno score", *(f"{a} {b} {s}" for a, b, k, s in RUN)]),
        "quoted-csv": _write(
            tmp_path / "quoted.csv",
            ["qid,docid,docno,rank,score,query", *(f'{a},7,{b},{k},{s},"a query, with a comma"' for a, b, k, s in RUN)],
        ),
        "trec-commas": _write(tmp_path / "trec-run.csv", [f"{a},Q0,{b},{k + 1},{s},sys" for a, b, k, s in RUN]),
        "beir-json": tmp_path / "results.json",
    }
    out["beir-json"].write_text(json.dumps(results))
    return out


def _numbers(ev):
    return ev.summary().round(12).to_dict("records")


@pytest.mark.parametrize("layout", ["beir", "pyterrier-csv", "ir_measures-tsv", "ranx-csv", "trec-commas"])
def test_qrels_layouts_score_as_trec(tmp_path, trec, layout):
    qrels_txt, run_txt = trec
    path = _qrels_layouts(tmp_path)[layout]
    want = _numbers(metrics.evaluate(qrels_txt, run_txt, MEASURES))
    assert _numbers(metrics.evaluate(path, run_txt, MEASURES)) == want
    frame = metrics.read_qrels(path)
    assert frame.shape == (len(QRELS), 3)
    assert frame["relevance"].tolist() == [g for _, _, g in QRELS]
    assert detect_kind_with_reason(path)[0] == "qrels"


@pytest.mark.parametrize(
    "layout",
    [
        "pyterrier-csv",
        "pyterrier-tsv-crlf",
        "ir_measures-csv",
        "ranx-tsv",
        "blanks",
        "quoted-csv",
        "trec-commas",
        "beir-json",
    ],
)
def test_run_layouts_score_as_trec(tmp_path, trec, layout):
    qrels_txt, run_txt = trec
    path = _run_layouts(tmp_path)[layout]
    want = metrics.evaluate(qrels_txt, run_txt, MEASURES).summary().round(12).to_numpy().tolist()
    got = metrics.evaluate(qrels_txt, path, MEASURES).summary().round(12).to_numpy().tolist()
    assert got == want
    assert detect_kind_with_reason(path)[0] == "run"
    run = metrics.read_run(path)
    assert sorted(run["score"].tolist()) == sorted(s for *_, s in RUN)
    if layout != "trec-commas":
        assert run.attrs["name"] == path.stem  # no tag column: named after the file


def test_beir_qrels_with_crlf_everywhere(tmp_path, trec):
    """BEIR's qrels/test.tsv: a header, tabs, CRLF; the CLI, the library, inspection."""
    qrels_txt, run_txt = trec
    beir = _qrels_layouts(tmp_path)["beir"]
    cols = read_columns(beir, "qrels")
    assert cols.layout is not None and cols.layout.header == ("query-id", "corpus-id", "score")
    assert "BEIR" in inspect_file(beir).layout
    cli = [sys.executable, "-m", "metrics.cli.ir_eval", "-m", "map", "-m", "ndcg_cut.10"]
    a = subprocess.run([*cli, str(beir), str(run_txt)], capture_output=True, text=True, check=True).stdout
    b = subprocess.run([*cli, str(qrels_txt), str(run_txt)], capture_output=True, text=True, check=True).stdout
    assert a == b and "map" in a


def test_json_results_through_the_cli(tmp_path, trec):
    qrels_txt, run_txt = trec
    path = _run_layouts(tmp_path)["beir-json"]
    cli = [sys.executable, "-m", "metrics.cli.ir_eval", "-m", "map", "-m", "P.5"]
    a = subprocess.run([*cli, str(qrels_txt), str(path)], capture_output=True, text=True, check=True).stdout
    b = subprocess.run([*cli, str(qrels_txt), str(run_txt)], capture_output=True, text=True, check=True).stdout
    assert a == b


def test_frames_with_beir_and_peer_names(tmp_path, trec):
    qrels_txt, run_txt = trec
    want = _numbers(metrics.evaluate(qrels_txt, run_txt, MEASURES))
    beir = pd.DataFrame(QRELS, columns=["query-id", "corpus-id", "score"])
    ir_measures_run = pd.DataFrame([(a, b, s) for a, b, _, s in RUN], columns=["query_id", "doc_id", "score"])
    ranx_run = ir_measures_run.rename(columns={"query_id": "q_id"})
    for run in (ir_measures_run, ranx_run):
        run.attrs["name"] = "sys"
        got = _numbers(metrics.evaluate(beir, run, MEASURES))
        assert got == want


def test_inspection_names_the_layout(tmp_path):
    path = _run_layouts(tmp_path)["pyterrier-csv"]
    ins = inspect_file(path)
    assert ins.kind == "run" and ins.readable
    assert "PyTerrier" in ins.layout and "commas" in ins.layout
    assert ins.columns == ["qid", "docno", "score", "rank"]
    assert ins.head[0]["fields"][:2] == [RUN[0][0], RUN[0][1]]
    text = format_text([ins])
    assert "layout" in text and "PyTerrier" in text


def test_header_errors_name_the_line_and_the_header(tmp_path):
    path = _write(tmp_path / "bad.csv", ["qid,docno,score", "1,a,2.5", "1,b,x", "2,c,1"])
    with pytest.raises(InputError) as e:
        metrics.read_run(path)
    assert e.value.line == 3 and "score 'x' in column 3" in str(e.value)
    path = _write(tmp_path / "short.tsv", ["qid\tdocno\tlabel", "1\ta\t1", "1\tb"])
    with pytest.raises(InputError) as e:
        metrics.read_qrels(path)
    assert e.value.line == 3 and "found 2 columns" in str(e.value) and "'qid\\tdocno\\tlabel'" in str(e.value)
    path = _write(tmp_path / "dup.csv", ["qid,docno,label", "1,a,1", "1,b,1", "1,a,0"])
    with pytest.raises(InputError) as e:
        metrics.read_qrels(path)
    assert e.value.line == 4 and "first on line 2" in str(e.value)
    path = _write(tmp_path / "noscore.csv", ["qid,docno,label", "1,a,1"])
    with pytest.raises(InputError) as e:
        metrics.read_run(path)
    assert e.value.line == 1 and "no score column" in str(e.value)


def test_header_file_is_not_cut_into_parts(tmp_path, trec):
    from metrics.scale.parts import partitions

    path = _run_layouts(tmp_path)["pyterrier-csv"]
    assert partitions(str(path), 4, 1) == 1
    assert partitions(str(trec[1]), 4, 1) > 1


def test_plain_trec_run_keeps_its_layout(trec):
    cols = read_columns(trec[1], "run")
    assert cols.layout is not None and cols.layout.trec and cols.name == "sys"


INTENTS = "# diversity\n51 1 a 1\n51 2 a 0\n51 1 b 0\n51 2 b 1\n51 3 c 1\n52 1 d 1\n52 2 d 1\n"


def test_intent_qrels_are_recognised_by_every_door(tmp_path):
    path = tmp_path / "div.qrels"
    path.write_text(INTENTS)
    with pytest.raises(metrics.IntentQrelsError) as e:
        metrics.read_qrels(path)
    assert e.value.line == 3 and "intent (diversity) qrels" in str(e.value) and "alpha-nDCG@20" in str(e.value)
    cli = subprocess.run(
        [sys.executable, "-m", "metrics.cli.ir_eval", str(path), str(path)], capture_output=True, text=True
    )
    assert cli.returncode != 0 and "intent (diversity) qrels" in cli.stderr
    ins = inspect_file(path)
    assert ins.kind == "intents" and ins.readable and ins.queries == 2
    assert ins.figures["intents_per_query"]["max"] == 3 and ins.figures["judgments"] == 7
    assert "intents" in format_text([ins])
    from workbench.scoring.failures import describe_error
    from workbench.state.loading import load_file

    _, loaded = load_file(str(path), None, None)  # the window keeps them as intent qrels
    assert loaded.kind == "intents" and (loaded.intents.queries, loaded.intents.judgements) == (2, 7)
    with pytest.raises(metrics.InputError) as e:  # read as ad hoc qrels when the user says so: refused
        load_file(str(path), "qrels", None)
    assert "intent (diversity) qrels" in describe_error(str(path), e.value)


def test_intent_qrels_through_the_one_reader(tmp_path):
    path = tmp_path / "div.qrels"
    path.write_text(INTENTS.replace("\n", "\r\n"))
    frame = metrics.read_intent_qrels(path)
    assert frame.values.tolist()[:2] == [["51", "1", "a", 1], ["51", "2", "a", 0]]
    run = tmp_path / "run"
    run.write_text("51 Q0 a 1 3 t\n51 Q0 c 2 2 t\n51 Q0 b 3 1 t\n52 Q0 d 1 1 t\n")
    ev = metrics.evaluate_diversity(frame, metrics.read_run(run), ["alpha_nDCG@20", "StRecall@20"])
    assert ev.summary()["StRecall@20"].iloc[0] == 1.0


def test_ad_hoc_qrels_with_a_repeated_document_are_not_taken_for_intents(tmp_path):
    path = tmp_path / "q"
    path.write_text("1 0 a 1\n1 0 a 0\n")
    with pytest.raises(InputError) as e:
        metrics.read_qrels(path)
    assert not isinstance(e.value, metrics.IntentQrelsError) and "a second time" in str(e.value)
