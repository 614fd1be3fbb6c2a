"""Run labels made unique, the one rule for the core and the window."""

from __future__ import annotations

from collections.abc import Container

__all__ = ["unique_label"]


def unique_label(base: str, taken: Container[str], template: str = "{base}_{n}") -> str:
    """``base`` when it is not ``taken``, else the first of ``template`` with n = 2, 3, ... that is not.

    The core numbers repeated run names ``bm25``, ``bm25_2``, ...; the window writes ``bm25 (2)``
    (``template="{base} ({n})"``).
    """
    if base not in taken:
        return base
    n = 2
    while template.format(base=base, n=n) in taken:
        n += 1
    return template.format(base=base, n=n)
