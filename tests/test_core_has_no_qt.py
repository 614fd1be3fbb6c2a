"""The core never imports Qt: importing every module of ``metrics`` leaves PySide6 out."""

import pkgutil
import subprocess
import sys

import metrics


def test_metrics_does_not_import_qt():
    modules = [m.name for m in pkgutil.walk_packages(metrics.__path__, "metrics.")]
    assert "metrics.cli.ir_eval" in modules and "metrics.io.readers" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'shiboken6')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
