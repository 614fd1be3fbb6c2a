"""An ir_datasets dataset's documents as a collection (``irds:<id>``): indexed from ir_datasets' local
cache like a file, found again next time, refused in a line when the cache lacks them; a small dataset
registered here from local files, without the network."""

from __future__ import annotations

import textwrap

import pytest

import metrics
from metrics.documents.store import index_file
from metrics.errors import InputError

ir_datasets = pytest.importorskip("ir_datasets")

DOCS = "d1\tthe first passage about battery engines\nD1\tanother one, told apart by case\nd3\tthird\n"

REGISTER = textwrap.dedent(
    """
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TsvDocs
    from ir_datasets.util import LocalDownload

    def register(path, name):
        if name not in ir_datasets.registry:
            ir_datasets.registry.register(name, Dataset(TsvDocs(LocalDownload(path))))
    """
)


def _register(path, name: str) -> str:
    namespace: dict = {}
    exec(REGISTER, namespace)
    namespace["register"](str(path), name)
    return "irds:" + name


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    folder = tmp_path_factory.mktemp("docs-dataset")
    (folder / "docs.tsv").write_text(DOCS)
    return _register(folder / "docs.tsv", "metrics-test/docs")


def test_a_datasets_documents_are_a_collection_looked_up_as_a_files(dataset, tmp_path):
    store = metrics.documents(dataset)
    assert len(store) == 3 and store.format == "irds" and store.path == dataset
    found = store.get(["d1", "D1", "d9"])
    assert found["d1"].text == "the first passage about battery engines"
    assert found["D1"].text == "another one, told apart by case" and "d9" not in found
    file = tmp_path / "docs.tsv"
    file.write_text(DOCS)
    as_file = metrics.documents(str(file)).get(["d1", "D1", "d3"])
    assert {k: v.text for k, v in as_file.items()} == {k: v.text for k, v in store.get(["d1", "D1", "d3"]).items()}


def test_the_index_is_found_again_and_named_by_the_dataset_not_the_folder(dataset, tmp_path, monkeypatch):
    first = metrics.documents(dataset)
    assert first.built or index_file(dataset).is_file()
    monkeypatch.chdir(tmp_path)  # (a name, not a path: the same index from any folder)
    again = metrics.documents(dataset)
    assert not again.built and again.get(["d3"])["d3"].text == "third"


def test_documents_not_in_the_local_cache_are_refused_in_a_line(tmp_path):
    missing = _register(tmp_path / "never-fetched.tsv", "metrics-test/docs-missing")
    with pytest.raises(InputError, match="not in ir_datasets' local cache") as err:
        metrics.documents(missing)
    assert "ir_datasets export metrics-test/docs-missing docs" in str(err.value)
    with pytest.raises(InputError, match="has no docs"):
        metrics.documents(_register_qrels_only(tmp_path))


def _register_qrels_only(tmp_path) -> str:
    namespace: dict = {}
    exec(
        textwrap.dedent(
            """
            import ir_datasets
            from ir_datasets.datasets.base import Dataset
            from ir_datasets.formats import TrecQrels
            from ir_datasets.util import LocalDownload

            def register(path, name):
                if name not in ir_datasets.registry:
                    ir_datasets.registry.register(name, Dataset(TrecQrels(LocalDownload(path), {})))
            """
        ),
        namespace,
    )
    (tmp_path / "q.txt").write_text("1 0 d1 1\n")
    namespace["register"](str(tmp_path / "q.txt"), "metrics-test/no-docs")
    return "irds:metrics-test/no-docs"


def test_ir_eval_diff_reads_a_datasets_documents(dataset, tmp_path):
    from metrics.cli.ir_eval import main

    (tmp_path / "a.run").write_text("1 Q0 d1 1 2.0 a\n1 Q0 D1 2 1.0 a\n")
    (tmp_path / "b.run").write_text("1 Q0 D1 1 2.0 b\n1 Q0 d3 2 1.0 b\n")
    out = tmp_path / "page.html"
    code = main(["--diff", str(tmp_path / "a.run"), str(tmp_path / "b.run"), "--docs", dataset, "-o", str(out)])
    assert code == 0
    page = out.read_text()
    assert "the first passage about battery engines" in page and "told apart by case" in page


def test_the_window_opens_a_datasets_documents_when_they_are_in_the_cache(dataset, tmp_path, monkeypatch):
    """File > Open dataset: the documents, when ir_datasets' cache holds them, are opened as the collection
    (``irds:<id>#docs``, looked for in a worker); those not there are left alone, without an entry in error."""
    pytest.importorskip("PySide6")
    from session_stand_in import OpeningSession

    from workbench.state.loading import load_file
    from workbench.views.dialogs import dataset as dataset_dialog

    session = OpeningSession()
    opened = session.opened
    dataset_dialog.documents_if_cached(session, dataset + "#docs")
    assert opened == [([dataset + "#docs"], "collection")]
    _, loaded = load_file(dataset + "#docs", "collection", None)
    assert loaded.kind == "collection" and len(loaded.store) == 3
    assert loaded.store.get(["D1"])["D1"].text == "another one, told apart by case"
    missing = _register(tmp_path / "never-fetched.tsv", "metrics-test/docs-missing-too")
    opened.clear()
    dataset_dialog.documents_if_cached(session, missing + "#docs")
    assert opened == []
