"""ir_measures' measure-name syntax: ``Family(param=value)@cutoff`` split into its parts, values read as
ir_measures reads them, and the spellings of the families it accepts."""

from __future__ import annotations

import ast
import re

from metrics.measures.registry import FAMILIES


def aliases() -> dict[str, str]:
    """Other spellings of ir_measures' names (``MAP`` for ``AP``), as the registry records them."""
    return {alias: fam.ir_measures for fam in FAMILIES.values() if fam.ir_measures for alias in fam.aliases}


#: an ir_measures name (``re.S``), compiled when first used (re's cache)
_NAME = r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*(?:@\s*([^()@\s]+))?\s*"


_TRUE = {"true": True, "false": False, "yes": True, "no": False}


class _Args:
    """Keyword arguments of one name, consumed one by one."""

    def __init__(self, name: str, items: dict):
        self.name = name
        self.items = items

    def pop(self, key, default=None):
        return self.items.pop(key, default)

    def rel(self) -> int | None:
        v = self.items.pop("rel", None)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not float(v).is_integer():
            raise ValueError(f"{self.name}: rel must be a whole number, not {v!r}")
        return int(v)

    def flag(self, key) -> bool:
        v = self.items.pop(key, False)
        if isinstance(v, str):
            if v.lower() not in _TRUE:
                raise ValueError(f"{self.name}: {key} must be True or False, not {v!r}")
            v = _TRUE[v.lower()]
        return bool(v)

    def done(self):
        if self.flag("judged_only"):
            raise ValueError(
                f"{self.name} takes no judged_only option (ir_measures has none for it); "
                "evaluate with judged_only=True instead"
            )
        if self.items:
            raise ValueError(f"{self.name}: unsupported parameters {', '.join(sorted(self.items))}")


def _value(text: str):
    text = text.strip()
    if not text:
        raise ValueError("empty parameter value")
    if text[0] in "'\"{[(" or re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
        return ast.literal_eval(text)
    if text.lower() in _TRUE:
        return _TRUE[text.lower()]
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.+-]*", text):
        return text
    raise ValueError(f"cannot read parameter value {text!r}")


def split_top_level(text: str, is_separator) -> list[str]:
    """``text`` split at the characters ``is_separator`` accepts outside quotes, parentheses, brackets and
    braces; parts stripped, empty ones dropped (``P(rel=2)@5, nDCG(gains={1: 3})`` has two parts at ",")."""
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        elif depth == 0 and is_separator(ch):
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p for p in (p.strip() for p in parts) if p]


def _split_args(text: str) -> list[str]:
    return split_top_level(text, lambda ch: ch == ",")


def read_measures(text: str):
    """(name, {arg: value}, at-value or None), or None when not this syntax."""
    m = re.fullmatch(_NAME, text, re.S)
    if not m:
        return None
    name, argtext, at = m.group(1), m.group(2), m.group(3)
    args = {}
    if argtext is not None:
        for part in _split_args(argtext):
            key, eq, val = part.partition("=")
            key = key.strip()
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
                raise ValueError(f"{text!r}: cannot read parameter {part!r}")
            if key in args:
                raise ValueError(f"{text!r}: parameter {key} given twice")
            args[key] = _value(val) if eq else True
    return name, args, (None if at is None else _value(at))


#: the measures for which ir_measures has a ``judged_only`` parameter (and the ndcg/map variants)
JUDGED_ONLY = (
    *("P", "RR", "Rprec", "AP", "nDCG", "R", "SetAP", "SetF", "SetP", "SetRelP", "Success", "IPrec"),
    *("ndcg_ext", "map_ext"),
)


JUDGED_ONLY_OPTION = ("judged_only", "true")
