"""An ir_datasets dataset named where a file is expected (``irds:<id>``): a small dataset registered here,
read from local files, without the network."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import metrics
from metrics.errors import InputError

ir_datasets = pytest.importorskip("ir_datasets")

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d4 1\n2 0 d1 0\n"
RUN = "1 Q0 d3 1 9 r\n1 Q0 d9 2 8 r\n1 Q0 d1 3 7 r\n2 Q0 d1 1 5 r\n2 Q0 d4 2 4 r\n"
QUERIES = "1\tfirst query text\n2\tsecond query\n"

REGISTER = textwrap.dedent(
    """
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecScoredDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    def register(folder, name="metrics-test/tiny"):
        if name in ir_datasets.registry:
            return
        ir_datasets.registry.register(
            name,
            Dataset(
                TrecQrels(LocalDownload(f"{folder}/qrels.txt"), {0: "no", 1: "yes", 2: "very"}),
                TsvQueries(LocalDownload(f"{folder}/queries.tsv")),
                TrecScoredDocs(LocalDownload(f"{folder}/run.txt")),
            ),
        )
    """
)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """The folder of the dataset's files, registered once (the registry keeps a name's first folder)."""
    folder = tmp_path_factory.mktemp("tiny-dataset")
    (folder / "qrels.txt").write_text(QRELS)
    (folder / "run.txt").write_text(RUN)
    (folder / "queries.tsv").write_text(QUERIES)
    namespace: dict = {}
    exec(REGISTER, namespace)
    namespace["register"](str(folder))
    return folder


def test_library_reads_a_dataset_as_its_qrels_file(dataset):
    want = metrics.read_qrels(dataset / "qrels.txt")
    got = metrics.read_qrels("irds:metrics-test/tiny")
    assert got.values.tolist() == want.values.tolist()
    a = metrics.evaluate("irds:metrics-test/tiny", dataset / "run.txt", ["map", "ndcg_cut.10"]).summary()
    b = metrics.evaluate(dataset / "qrels.txt", dataset / "run.txt", ["map", "ndcg_cut.10"]).summary()
    assert a.to_numpy().tolist() == b.to_numpy().tolist()
    run = metrics.read_run("irds:metrics-test/tiny")  # the scored documents
    assert sorted(run["score"]) == [4.0, 5.0, 7.0, 8.0, 9.0] and run.attrs["name"] == "metrics-test/tiny"


def test_queries_of_a_dataset(dataset):
    from metrics.io.datasets import dataset_queries

    assert dataset_queries("irds:metrics-test/tiny#queries") == {"1": "first query text", "2": "second query"}


def test_unknown_dataset_and_missing_parts(dataset):
    with pytest.raises(InputError, match="knows no dataset 'no-such/thing'"):
        metrics.read_qrels("irds:no-such/thing")
    with pytest.raises(InputError, match="no ranked judgments"):
        metrics.read_ranked_judgments("irds:metrics-test/tiny")


def test_cli_reads_a_dataset(dataset, tmp_path):
    script = tmp_path / "cli.py"
    script.write_text(
        REGISTER + f"\nregister({str(dataset)!r})\nimport sys\nfrom metrics.cli.ir_eval import run\nrun()\n"
    )
    cmd = [sys.executable, str(script), "-m", "map", "-m", "P.5"]
    a = subprocess.run([*cmd, "irds:metrics-test/tiny", str(dataset / "run.txt")], capture_output=True, text=True)
    b = subprocess.run([*cmd, str(dataset / "qrels.txt"), str(dataset / "run.txt")], capture_output=True, text=True)
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout and "map" in a.stdout


def test_window_loads_a_dataset(dataset):
    from workbench.state.loading import load_file

    _, loaded = load_file("irds:metrics-test/tiny", None, None)
    assert loaded.kind == "qrels" and len(loaded.qrels) == 5
    _, queries = load_file("irds:metrics-test/tiny#queries", "queries", None)
    assert queries.kind == "queries" and queries.queries["2"] == "second query"
    from workbench.state.workspace import normalize

    assert normalize("irds:metrics-test/tiny") == "irds:metrics-test/tiny"


def test_dataset_dialog_opens_qrels_and_queries(dataset, monkeypatch):
    pytest.importorskip("PySide6")
    from session_stand_in import OpeningSession

    from workbench.views.dialogs import dataset as dataset_dialog

    session = OpeningSession()
    opened = session.opened
    monkeypatch.setattr(dataset_dialog.QInputDialog, "getText", lambda *a, **k: ("metrics-test/tiny", True))
    dataset_dialog.open_dataset(None, session)
    # a dataset without documents: its qrels and query texts, and no collection
    assert opened == [(["irds:metrics-test/tiny"], "qrels"), (["irds:metrics-test/tiny#queries"], "queries")]


def test_inspection_of_a_dataset(dataset):
    from metrics.inspect.files import inspect_file

    ins = inspect_file("irds:metrics-test/tiny")
    assert ins.readable and ins.kind == "qrels" and ins.queries == 2 and "ir_datasets" in ins.layout
