import pytest


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    """Every index of these tests in a cache folder of its own."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("IR_WORKBENCH_CACHE", str(folder))
    return folder / "documents"
