"""PySide6's import hook answered from the module files' bytes, and pyqtgraph's Qt shim loaded lazily
(workbench.system.qtcompat)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def test_the_quicker_feature_check_answers_as_pyside6_s_own():
    """For every module loaded (ours that use PySide6, pandas', builtins, modules without a file), the same
    answer as PySide6's ``inspect.getsource`` check; the hook is replaced once."""
    import PySide6.QtCore  # noqa: F401

    import metrics.engine.evaluate  # noqa: F401  (a module that does not)
    import workbench.views.window.main_window  # noqa: F401  (modules that mention PySide6)
    from workbench.system import qtcompat

    feature = sys.modules.get("shibokensupport.feature")
    if feature is None or not hasattr(feature, "_mod_uses_pyside"):
        pytest.skip("this PySide6 has no such import hook")
    found = feature._mod_uses_pyside
    original = getattr(found, "__wrapped__", found)  # (a window of an earlier test may have replaced it)
    feature._mod_uses_pyside = original
    try:
        assert qtcompat.quicker_feature_check()
        quick = feature._mod_uses_pyside
        assert getattr(quick, "from_bytes", False)
        assert qtcompat.quicker_feature_check() and feature._mod_uses_pyside is quick  # once
        modules = [m for m in list(sys.modules.values()) if m is not None][:800]
        answers = [(m.__name__, quick(m), original(m)) for m in modules]
        assert [a for a in answers if a[1] != a[2]] == []
        assert quick(sys.modules["workbench.views.window.main_window"]) and not quick(
            sys.modules["metrics.engine.evaluate"]
        )
        assert not quick(sys)  # a builtin module: no file
    finally:
        feature._mod_uses_pyside = found


def test_pyqtgraph_s_qt_shim_loaded_lazily_gives_pyside6_s_own_objects(tmp_path):
    """In a new interpreter: pyqtgraph's shim loaded through ``lazy_pyqtgraph_qt`` copies no name at import
    (fewer of PySide6's classes made), then gives, for every name of PySide6's QtCore, QtGui and QtWidgets,
    the very object PySide6 has, or pyqtgraph's own where it sets one (``QOpenGLWidget`` in QtWidgets);
    and it draws a plot.  It fails too if the installed pyqtgraph no longer copies as it is known to."""
    script = tmp_path / "shim.py"
    script.write_text(
        "import sys\n"
        "import PySide6.QtCore, PySide6.QtGui, PySide6.QtWidgets\n"
        "from workbench.system import qtcompat\n"
        "qtcompat.lazy_pyqtgraph_qt()\n"
        "import pyqtgraph, pyqtgraph.Qt as shim\n"
        "from PySide6 import QtCore, QtGui, QtWidgets\n"
        "mirrors = [(shim.QtCore, QtCore), (shim.QtGui, QtGui), (shim.QtWidgets, QtWidgets)]\n"
        "assert all('__getattr__' in vars(mine) for mine, _ in mirrors), 'copied eagerly'\n"
        "copied = sum(len(vars(mine)) for mine, _ in mirrors)\n"
        "own = {'QOpenGLWidget', 'QFileSystemModel'}\n"
        "wrong = [n for mine, theirs in mirrors for n in dir(theirs)\n"
        "         if n not in own and not n.startswith('__') and getattr(mine, n) is not getattr(theirs, n)]\n"
        "assert wrong == [], wrong[:10]\n"
        "assert shim.QtCore.__version__ == QtCore.__version__ and shim.QtVersion == QtCore.__version__\n"
        "from pyqtgraph.Qt.QtCore import QPointF\n"
        "assert QPointF is QtCore.QPointF\n"
        "app = QtWidgets.QApplication([])\n"
        "plot = pyqtgraph.PlotWidget()\n"
        "plot.plot([1, 2, 3], [3, 1, 2])\n"
        "plot.resize(200, 150)\n"
        "image = plot.grab().toImage()\n"
        "assert image.width() == 200 and not image.isNull()\n"
        "print(copied, len(dir(QtWidgets)))\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env["PYTHONPATH"] = os.pathsep.join([os.getcwd(), env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    copied, names = map(int, done.stdout.split())
    assert copied < names  # (fewer names held than QtWidgets alone has: they were not all copied)
