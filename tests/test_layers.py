"""The layers of docs/ARCHITECTURE.md hold: import-linter's contracts in pyproject.toml (each layer of
metrics/ imports only those below it, metrics never imports the window or Qt, no import cycle among the
modules of any package), and no module grows past 500 lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 500


def _lint(folder: Path, env=None):
    """import-linter on the contracts of ``folder``'s pyproject.toml, in a process of its own (the linter
    changes the logging of the process it runs in)."""
    import subprocess
    import sys

    code = "import sys\nfrom importlinter.cli import lint_imports\nsys.exit(lint_imports(no_cache=True, no_logo=True))"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_import_contracts_are_kept():
    pytest.importorskip("importlinter.cli")
    out = _lint(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


def test_a_broken_layer_is_caught(tmp_path):
    """The contract is not vacuous: a copy of the package where the evaluator imports the command line
    breaks it (checked in a process of its own, which finds the copy before the project)."""
    pytest.importorskip("importlinter.cli")
    import shutil
    import subprocess
    import sys

    shutil.copytree(ROOT / "metrics", tmp_path / "metrics", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "workbench").mkdir()
    (tmp_path / "workbench" / "__init__.py").write_text("")
    evaluate = tmp_path / "metrics" / "engine" / "evaluate.py"
    evaluate.write_text(evaluate.read_text() + "\n\ndef _up():\n    from metrics.cli import ir_eval  # noqa\n")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    code = "import sys\nfrom importlinter.cli import lint_imports\nsys.exit(lint_imports(no_cache=True, no_logo=True))"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode != 0, out.stdout + out.stderr
    assert "metrics.engine is not allowed to import metrics.cli" in out.stdout


def test_no_module_is_over_500_lines():
    long = {
        str(path.relative_to(ROOT)): n
        for package in ("metrics", "workbench")
        for path in (ROOT / package).rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"
