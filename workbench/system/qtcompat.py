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

:func:`lazy_pyqtgraph_qt`: pyqtgraph's Qt shim (``pyqtgraph.Qt``) keeps modules of its own named QtCore,
QtGui and QtWidgets, and fills them by copying every name of PySide6's (``_copy_attrs``).  PySide6 makes
its classes when first asked for, so that copy makes all of them, with their 600 enums: about 0.07 s of
the window's start (a third of pyqtgraph's import) for classes it never uses.  Loaded through
:func:`lazy_pyqtgraph_qt`, the shim's modules look a name up in PySide6's the first time it is asked for
(a module ``__getattr__``, PEP 562) and keep it: the same objects, under the same names.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.abc
import importlib.machinery
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


#: pyqtgraph's copy of every name (pyqtgraph/Qt/__init__.py, 0.13 to 0.14), and what it is read as
EAGER_COPY = """def _copy_attrs(src, dst):
    for o in dir(src):
        if not hasattr(dst, o):
            setattr(dst, o, getattr(src, o))
"""
LAZY_COPY = """def _copy_attrs(src, dst):
    def __getattr__(name):
        value = getattr(src, name)
        setattr(dst, name, value)
        return value
    dst.__getattr__ = __getattr__
"""


class _LazyShimLoader(importlib.machinery.SourceFileLoader):
    """Loads pyqtgraph's Qt shim with its copy of every name made lazy (:data:`LAZY_COPY`): compiled from
    its source each time (a few milliseconds), as no cached bytecode holds that."""

    def get_code(self, fullname: str):
        source = self.get_data(self.path).decode("utf-8").replace(EAGER_COPY, LAZY_COPY)
        return compile(source, self.path, "exec", dont_inherit=True)


class _LazyShimFinder(importlib.abc.MetaPathFinder):
    """Finds ``pyqtgraph.Qt`` as the import system would, and has :class:`_LazyShimLoader` load it when its
    source holds the copy it knows (otherwise it is imported as it is).  Used once."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "pyqtgraph.Qt":
            return None
        with contextlib.suppress(ValueError):  # (another import found it meanwhile)
            sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader) or not spec.origin:
            return spec
        try:
            with open(spec.origin, encoding="utf-8") as f:
                known = EAGER_COPY in f.read()
        except (OSError, UnicodeDecodeError):
            return spec
        if known:
            spec.loader = _LazyShimLoader(fullname, spec.origin)
        return spec


def lazy_pyqtgraph_qt() -> None:
    """Have pyqtgraph's Qt shim, when it is imported, look PySide6's names up as they are used (see the
    module's docstring).  Nothing changes once pyqtgraph is imported, or for a pyqtgraph whose shim
    copies its names otherwise."""
    if "pyqtgraph.Qt" not in sys.modules and not any(isinstance(f, _LazyShimFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _LazyShimFinder())
