"""The layers of docs/ARCHITECTURE.md hold: import-linter's contracts in pyproject.toml (each layer of
metrics/ imports only those below it, metrics never imports the window or Qt, the window's floors
``app > views > qt > state > scoring > system > metrics``, no Qt in ``state`` and ``scoring``; no import
cycle among the modules of any package), no module imports another package's private name, and every
class says what it is for."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


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


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _is_module(root: Path, dotted: str) -> bool:
    home = root.joinpath(*dotted.split("."))
    return (home / "__init__.py").exists() or home.with_suffix(".py").exists()


def _package_of_source(root: Path, source: str) -> str:
    return source if (root.joinpath(*source.split(".")) / "__init__.py").exists() else source.rpartition(".")[0]


def _dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def private_imports(root: Path = ROOT) -> list[str]:
    """Uses of another package's private name: ``from a.b.c import _x`` (or ``from a.b import _x``), and
    ``c._x`` where ``c`` is a module of another package imported by name (``from a.b import c``,
    ``import a.b.c as c``, ``import a.b.c``), where ``_x`` (a leading underscore, not a dunder) belongs to a
    package other than the user's.  The modules of one package share its private helpers; another package
    asks for a public name."""
    found = []
    for top in ("metrics", "workbench"):
        for path in sorted((root / top).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            package = _package_of(module, path)
            tree = ast.parse(path.read_text(encoding="utf-8"))
            modules: dict[str, str] = {}  # a name bound in this file -> the module of ours it stands for
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.name.split(".")[0] in ("metrics", "workbench"):
                            if alias.asname:
                                modules[alias.asname] = alias.name
                            else:
                                top_name = alias.name.split(".")[0]
                                modules.setdefault(top_name, top_name)
                    continue
                if not isinstance(node, ast.ImportFrom):
                    continue
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if source.split(".")[0] not in ("metrics", "workbench"):
                    continue
                source_package = _package_of_source(root, source)
                for alias in node.names:
                    name = alias.name
                    if name.startswith("_") and not name.startswith("__") and source_package != package:
                        found.append(f"{module} (line {node.lineno}) imports {source}.{name}")
                    elif _is_module(root, f"{source}.{name}"):
                        modules[alias.asname or name] = f"{source}.{name}"
            for node in ast.walk(tree):
                if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.startswith("__"):
                    continue
                chain = _dotted(node.value)
                if chain is None or chain.split(".")[0] not in modules:
                    continue
                head, _, rest = chain.partition(".")
                target = ".".join(filter(None, [modules[head], rest]))
                if not _is_module(root, target):
                    continue
                if _package_of_source(root, target) != package:
                    found.append(f"{module} (line {node.lineno}) reads {target}.{node.attr}")
    return sorted(set(found), key=found.index)


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
    (tmp_path / "workbench" / "v.py").write_text(
        "import metrics.io.a\nimport metrics.io.a as aa\nfrom metrics.io import a\n"
        "a._helper()\naa._helper()\nmetrics.io.a._helper()\na.public()\n"
    )
    assert private_imports(tmp_path) == [
        "metrics.scale.c (line 2) imports metrics.io.a._helper",
        "workbench.v (line 4) reads metrics.io.a._helper",
        "workbench.v (line 5) reads metrics.io.a._helper",
        "workbench.v (line 6) reads metrics.io.a._helper",
        "workbench.w (line 1) imports metrics.io._b",
    ]


def test_every_class_says_its_one_job():
    """Each class of both packages has a docstring saying what it is for (one inheriting its base's says
    so by ``__doc__ = Base.__doc__``)."""
    import ast

    silent = []
    for package in ("metrics", "workbench"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.ClassDef) or ast.get_docstring(node):
                    continue
                inherited = any(
                    isinstance(s, ast.Assign) and any(getattr(t, "id", None) == "__doc__" for t in s.targets)
                    for s in node.body
                )
                if not inherited:
                    silent.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not silent, "classes without a docstring: " + "; ".join(silent)


def _chain(node: ast.expr) -> list[str] | None:
    """``self.a.b.c`` as ``["a", "b", "c"]`` (None: not an attribute chain from ``self``)."""
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return names[::-1] if isinstance(node, ast.Name) and node.id == "self" and names else None


def forwards(path: Path, root: Path = ROOT) -> list[str]:
    """The methods of ``path``'s classes that only hand their arguments on, unchanged, to a public method of
    an object they hold (``def open_files(self, paths): self.reading.open_files(paths)``): what a caller
    should ask of that object itself.  A property is one when it is not a plain reading of a value of the
    object's own (``return self.a.b``, ``b`` public); a method kept private (``self._timer.stop()``) is
    not a forward, nor is a method that adds anything (a check, a rule, a second call)."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for fn in cls.body:
            if not isinstance(fn, ast.FunctionDef) or fn.name.startswith("__"):
                continue
            body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            if len(body) != 1 or not isinstance(body[0], (ast.Return, ast.Expr)) or body[0].value is None:
                continue
            value = body[0].value
            params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)][1:]
            is_property = any(getattr(d, "id", None) == "property" for d in fn.decorator_list)
            target = None
            if isinstance(value, ast.Call) and not is_property:
                passed = [*value.args, *(k.value for k in value.keywords)]
                if all(isinstance(a, ast.Name) for a in passed) and sorted(a.id for a in passed) == sorted(params):
                    target = _chain(value.func)
                    target = target if target is not None and len(target) >= 2 else None
            elif isinstance(value, ast.Attribute) and is_property:
                target = _chain(value)
                target = target if target is not None and len(target) >= 2 and target[-1] == fn.name else None
            if target is not None and not any(name.startswith("_") for name in target):
                found.append(f"{path.relative_to(root)}:{fn.lineno} {cls.name}.{fn.name} -> self.{'.'.join(target)}")
    return found


def test_the_session_and_the_window_forward_nothing():
    """The Qt session, the model's parts and the main window keep no method that only passes a call on to
    a part: a view asks the part it needs (``session.reading.open_files``, ``session.model.set_measures``,
    ``window.parts.exports.export``); the rule of what a user's action ends lives where those methods are
    defined (``workbench.state.session_state.user_action``)."""
    paths = [
        *sorted((ROOT / "workbench" / "qt").glob("*.py")),
        *sorted((ROOT / "workbench" / "state").glob("*.py")),
        ROOT / "workbench" / "views" / "window" / "main_window.py",
    ]
    found = [f for path in paths for f in forwards(path)]
    assert not found, "forwards: " + "; ".join(found)


def test_a_forward_is_caught(tmp_path):
    source = tmp_path / "parts.py"
    source.write_text(
        "class Window:\n"
        "    def open_files(self, paths, kind=None):\n"
        '        """Open them."""\n'
        "        return self.parts.files.open_files(paths, kind=kind)\n"
        "    @property\n"
        "    def summary(self):\n"
        "        return self.parts.summary\n"
        "    def stop(self):\n"
        "        self._timer.stop()\n"  # (its own private part: not a forward)
        "    def remove(self, path):\n"
        "        self.reading.stop(path)\n"
        "        self.files.remove(path)\n"  # (two calls: a rule of its own)
        "    @property\n"
        "    def level(self):\n"
        "        return self.settings.relevance_level\n"  # (a reading of its own value, named otherwise)
    )
    found = [f.split(" ", 1)[1] for f in forwards(source, root=tmp_path)]
    assert found == ["Window.open_files -> self.parts.files.open_files", "Window.summary -> self.parts.summary"]
