"""The layers of docs/ARCHITECTURE.md hold: import-linter's contracts in pyproject.toml (each layer of
metrics/ imports only those below it, metrics never imports the window or Qt, the window's views stand
over its session, which stands over its model and jobs, all over metrics, and the model has no Qt; no
import cycle among the modules of any package), no module grows past 500 lines, and no module imports
another package's private name."""

from __future__ import annotations

import ast
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


@pytest.mark.parametrize(
    ("module", "up", "said"),
    [
        (
            "metrics/engine/evaluate.py",
            "from metrics.cli import ir_eval",
            "metrics.engine is not allowed to import metrics.cli",
        ),
        (
            "workbench/state/loading.py",
            "from workbench.views import tables",
            "workbench.state is not allowed to import workbench.views",
        ),
        (
            "workbench/qt/reading.py",
            "from workbench.views import tables",
            "is not allowed to import workbench.views",
        ),
    ],
)
def test_a_broken_layer_is_caught(tmp_path, module, up, said):
    """The contracts are not vacuous: a copy of the packages where a module imports one from a floor above
    breaks them (checked in a process of its own, which finds the copy before the project)."""
    pytest.importorskip("importlinter.cli")
    import shutil

    for package in ("metrics", "workbench"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    path = tmp_path / module
    path.write_text(path.read_text() + f"\n\ndef _up():\n    {up}  # noqa\n")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = _lint(tmp_path, env)
    assert out.returncode != 0, out.stdout + out.stderr
    assert said in out.stdout


def test_no_module_is_over_500_lines():
    long = {
        str(path.relative_to(ROOT)): n
        for package in ("metrics", "workbench")
        for path in (ROOT / package).rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def private_imports(root: Path = ROOT) -> list[str]:
    """Imports of another package's private name: ``from a.b.c import _x`` (or ``from a.b import _x``)
    where ``_x`` (a leading underscore, not a dunder) belongs to a package other than the importer's.
    The modules of one package share its private helpers; another package asks for a public name."""
    found = []
    for top in ("metrics", "workbench"):
        for path in sorted((root / top).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            package = _package_of(module, path)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ImportFrom):
                    continue
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if source.split(".")[0] not in ("metrics", "workbench"):
                    continue
                home = root.joinpath(*source.split("."))
                source_package = source if (home / "__init__.py").exists() else source.rpartition(".")[0]
                for alias in node.names:
                    name = alias.name
                    if name.startswith("_") and not name.startswith("__") and source_package != package:
                        found.append(f"{module} (line {node.lineno}) imports {source}.{name}")
    return found


def test_no_module_imports_another_packages_private_name():
    found = private_imports()
    assert not found, "\n".join(found)


def test_a_private_name_imported_from_another_package_is_caught(tmp_path):
    """The rule is not vacuous: its own package may share a private name, another package may not."""
    for package, files in {
        "metrics": {"__init__.py": "", "io/__init__.py": "", "io/a.py": "def _helper(): ...\n"},
        "workbench": {"__init__.py": ""},
    }.items():
        for name, text in files.items():
            (tmp_path / package / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / package / name).write_text(text)
    (tmp_path / "metrics" / "io" / "b.py").write_text("from metrics.io.a import _helper\nfrom .a import _helper\n")
    assert private_imports(tmp_path) == []
    (tmp_path / "metrics" / "scale").mkdir()
    (tmp_path / "metrics" / "scale" / "__init__.py").write_text("")
    (tmp_path / "metrics" / "scale" / "c.py").write_text("def f():\n    from ..io.a import _helper\n")
    (tmp_path / "workbench" / "w.py").write_text("from metrics.io import a, _b\n")
    assert private_imports(tmp_path) == [
        "metrics.scale.c (line 2) imports metrics.io.a._helper",
        "workbench.w (line 1) imports metrics.io._b",
    ]
