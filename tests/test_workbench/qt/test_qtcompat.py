"""PySide6's import hook answered from the module files' bytes (workbench.system.qtcompat)."""

from __future__ import annotations

import os
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
