"""A package's public names loaded when first used (PEP 562): the package names what it offers without
importing the modules that define them, so that a command or call pays only for the modules it uses, and
a module of the package imported alone does not load the others.  Used by ``metrics`` and by those of
its packages whose modules are wanted on their own (``metrics.report``, ``metrics.documents``)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Collection, Mapping


def lazy_names(
    package: str, names: Mapping[str, str], public: Collection[str], subpackages: Collection[str] = ()
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``: each of ``names`` (a name -> the module
    that defines it, relative to the package) is imported when first asked for, then kept in the package
    as if it had been imported there; each of ``subpackages`` is imported when it is named.  ``public``:
    what ``dir()`` lists beside what is loaded (the package's ``__all__``, read when asked)."""

    def __getattr__(name: str) -> object:  # noqa: N807 - the module attribute PEP 562 calls
        if name in names:
            value = getattr(importlib.import_module(f".{names[name]}", package), name)
            setattr(sys.modules[package], name, value)  # found there from now on, without this function
            return value
        if name in subpackages:
            return importlib.import_module(f".{name}", package)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:  # noqa: N807 - idem
        return sorted({*vars(sys.modules[package]), *public})

    return __getattr__, __dir__
