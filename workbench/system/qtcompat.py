"""Guard against a reference-counting bug in some PySide6 builds.

PySide6 6.12.0 (shiboken6 6.12.0) on CPython 3.11 returns ``None`` from every
void method, and ``True`` from ``Signal.emit``, without a new reference: each
call lowers the reference count of the singleton by one.  After some tens of
thousands of calls (a few minutes of redrawing plots) the count reaches zero
and the interpreter aborts ("Fatal Python error: none_dealloc" or
"bool_dealloc"), often only when garbage is collected at exit.

:func:`protect_singletons` detects the bug with a probe and, only then, gives
``None``, ``True`` and ``False`` a margin of references they can never use up
(CPython 3.12 and later make these objects immortal anyway).
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
