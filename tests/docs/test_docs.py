"""The documentation is tested: every ``python`` block of README.md and docs/ runs, every ``ir-eval`` line
of an ``sh`` block exits 0, the measures page is what the registry generates, README stays short, and
docs/ARCHITECTURE.md names every module of the tree.

Blocks run in a folder holding the bundled sample under the names the pages use (``qrels.txt``,
``bm25.txt``, ``dense.txt``, ``run.txt``, ``a.txt`` to ``c.txt``, a second qrels ``qrels_b.txt``
(docs/judgments.md's), intent qrels ``intents.txt``, query texts ``queries.tsv`` and documents
``collection.tsv``) beside a link to the repository's ``workbench/`` (so that
``workbench/resources/sample/...`` paths work).  The blocks of one page share their names, in order.
Install commands (``pip``, ``apt-get``) are not run here: CI runs README's own test command.
Blocks without a language show output or a synopsis and are not run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "workbench" / "resources" / "sample"
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(page: Path, language: str) -> list[str]:
    return [m.group(2) for m in FENCE.finditer(page.read_text(encoding="utf-8")) if m.group(1) == language]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    for name, source in {
        "qrels.txt": "qrels.txt",
        "bm25.txt": "run_bm25.txt",
        "dense.txt": "run_bm25_rm3.txt",
        "run.txt": "run_tfidf_title.txt",
        "a.txt": "run_bm25.txt",
        "b.txt": "run_bm25_rm3.txt",
        "c.txt": "run_tfidf_title.txt",
    }.items():
        shutil.copyfile(SAMPLE / source, tmp_path / name)
    with open(tmp_path / "intents.txt", "w") as out:  # intent qrels: each judged document under one of two intents
        for i, line in enumerate((SAMPLE / "qrels.txt").read_text().splitlines()):
            qid, _, doc, grade = line.split()
            out.write(f"{qid} {1 + i % 2} {doc} {grade}\n")
    with open(tmp_path / "qrels_b.txt", "w") as out:  # a second assessor, derived as docs/judgments.md derives it
        for line in (SAMPLE / "qrels.txt").read_text().splitlines():
            qid, it, doc, grade = line.split()
            g = int(grade)
            out.write(f"{qid} {it} {doc} {0 if g == 1 and int(doc[-1]) % 2 else 2 if g == 3 else g}\n")
    for name in ("queries.tsv", "collection.tsv"):  # the sample's query texts and documents
        shutil.copyfile(SAMPLE / name, tmp_path / name)
    os.symlink(ROOT / "workbench", tmp_path / "workbench")
    monkeypatch.setenv("IR_WORKBENCH_CACHE", str(tmp_path / "cache"))  # the documents' indexes (docs/documents.md)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p, "python")], ids=_name)
def test_every_python_block_runs(page, folder):
    namespace: dict = {"__name__": "__docs__"}
    for i, code in enumerate(blocks(page, "python")):
        try:
            exec(compile(code, f"{_name(page)}, python block {i + 1}", "exec"), namespace)
        except Exception as exc:  # noqa: BLE001 - the page and the block are named
            pytest.fail(f"{_name(page)}, python block {i + 1}: {type(exc).__name__}: {exc}")


def _commands(page: Path) -> list[str]:
    out = []
    for code in blocks(page, "sh"):
        for line in code.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("ir-eval "):
                out.append(line)
    return out


@pytest.mark.parametrize("page", [p for p in PAGES if _commands(p)], ids=_name)
def test_every_ir_eval_line_runs(page, folder):
    for line in _commands(page):
        command = shlex.join([sys.executable, "-m", "metrics"]) + line[len("ir-eval") :]
        out = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=120, cwd=folder)
        assert out.returncode == 0, f"{_name(page)}: {line}\n{out.stderr}"
        assert out.stdout.strip(), f"{_name(page)}: {line} printed nothing"


def test_the_measures_page_is_what_the_registry_generates():
    from metrics.measures.reference import to_markdown

    page = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    assert page == to_markdown(), "docs/measures.md is out of date: python -m metrics.measures.reference"


def test_readme_is_short_and_links_the_pages():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    for link in re.findall(r"\]\(([^)#]+)\)", text):
        assert (ROOT / link).exists(), f"README links {link}, which is not there"


def _modules() -> list[str]:
    return sorted(
        str(path.relative_to(ROOT))
        for package in ("metrics", "workbench")
        for path in (ROOT / package).rglob("*.py")
        if path.name != "__init__.py"
    )


def test_the_architecture_names_every_module_and_no_module_that_is_gone():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = [m for m in _modules() if f"`{m}`" not in text]
    assert not missing, f"docs/ARCHITECTURE.md does not name {missing}"
    named = set(re.findall(r"`((?:metrics|workbench)/[\w/]+\.py)`", text))
    gone = sorted(n for n in named if not (ROOT / n).exists())
    assert not gone, f"docs/ARCHITECTURE.md names modules that are not there: {gone}"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the page names the Linux path")
def test_the_window_page_names_the_log_file_where_it_is():
    code = (
        "import os\n"
        "os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from workbench.app import APP_NAME\n"
        "app = QApplication([])\n"
        "app.setApplicationName(APP_NAME)\n"
        "app.setOrganizationName(APP_NAME)\n"
        "from workbench.system import logs\n"
        "print(os.path.join(logs.log_dir(), 'ir-workbench.log').replace(os.path.expanduser('~'), '~', 1))\n"
    )
    env = {**os.environ, "HOME": "/home/someone", "XDG_DATA_HOME": ""}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    path = out.stdout.strip()
    assert path.startswith("~/") and f"`{path}`" in (ROOT / "docs" / "window.md").read_text(encoding="utf-8")
