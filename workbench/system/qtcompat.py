"""Guard against a reference-counting bug in some PySide6 builds, and a slow import hook of PySide6.

PySide6 6.12.0 (shiboken6 6.12.0) on CPython 3.11 returns ``None`` from every
void method, and ``True`` from ``Signal.emit``, without a new reference: each
call lowers the reference count of the singleton by one.  After some tens of
thousands of calls (a few minutes of redrawing plots) the count reaches zero
and the interpreter aborts ("Fatal Python error: none_dealloc" or
"bool_dealloc"), often only when garbage is collected at exit.

:func:`protect_singletons` detects the bug with a probe and, only then, gives
``None``, ``True`` and ``False`` a margin of references they can never use up
(CPython 3.12 and later make these objects immortal anyway).

:func:`quicker_feature_check`: once PySide6 is loaded, it looks at the source of every module imported
after it (``inspect.getsource``: linecache, tokenize, the whole file split into lines) for the word
"PySide6", to know which modules its ``__feature__`` switches (snake_case, true_property) may concern.
This program uses no feature, and the hundreds of modules pandas, pyqtgraph and scipy import while
the window starts cost about 0.08 s of its start that way; the same answer read from the file's
bytes takes a fifth of that.
"""

from __future__ import annotations

import ctypes
import sys

MARGIN = 1 << 40
_done = False


def leaks_singletons() -> bool:
    """Whether calling a void Qt method or emitting a signal drops a reference it does not own."""
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        """A QObject with one signal, emitted to see whether this PySide6 build loses references to None or True."""

        sig = Signal()

    probe = _Probe()
    before = (sys.getrefcount(None), sys.getrefcount(True))
    for _ in range(8):
        probe.setObjectName("probe")
        probe.sig.emit()
    after = (sys.getrefcount(None), sys.getrefcount(True))
    return after[0] < before[0] - 4 or after[1] < before[1] - 4


def protect_singletons() -> bool:
    """Apply the guard once if this PySide6 needs it; returns whether it is applied."""
    global _done
    if _done:
        return True
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return False
    if not leaks_singletons():
        return False
    for obj in (None, True, False):
        ctypes.c_ssize_t.from_address(id(obj)).value += MARGIN
    _done = True
    return True


def quicker_feature_check() -> bool:
    """Have PySide6's import hook answer "does this module mention PySide6" from the module file's bytes
    (the same answer: the word is ASCII); returns whether it does now.  Nothing changes where the hook
    is not found (another PySide6 version) or for a module without a ``.py`` file."""
    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if original is None:
        return False
    if getattr(original, "from_bytes", False):
        return True

    def mentions_pyside(module) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            return original(module)
        try:
            with open(path, "rb") as f:
                return b"PySide6" in f.read()
        except OSError:
            return original(module)

    mentions_pyside.from_bytes = True  # type: ignore[attr-defined]
    mentions_pyside.__wrapped__ = original  # type: ignore[attr-defined]
    feature._mod_uses_pyside = mentions_pyside  # type: ignore[union-attr]
    return True
