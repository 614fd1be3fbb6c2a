"""The diversity measures' names (``alpha_nDCG@20``, ``ERR-IA@10``, ``NRBP(alpha=0.3,beta=0.8)``) read
into :class:`DiversityMeasure`: apart from their scoring (:mod:`metrics.measures.diversity`), so that telling
a diversity measure's name from another measure's (``ir-eval -m``) imports no kernel.  The families, their
spellings and the parameters each takes are the registry's (:func:`metrics.measures.registry.intent_measure`)."""

from __future__ import annotations

import re
from typing import NamedTuple

from metrics.measures.registry import INTENT_FAMILIES, INTENT_SPELLINGS

__all__ = ["DiversityMeasure", "parse_diversity", "DIVERSITY_NAMES", "diversity_names_list"]

#: measure names (ir_measures' and ndeval's spellings) -> canonical name: the registry's own table
#: (:data:`metrics.measures.registry.INTENT_SPELLINGS`), so a family registered later is in it
DIVERSITY_NAMES = INTENT_SPELLINGS
_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z_-]*)\s*(?:\((.*)\))?\s*(?:@\s*(\S+))?\s*")


class DiversityMeasure(NamedTuple):
    """One diversity measure: name, cutoff (None for NRBP), alpha, beta, relevance level (a named tuple:
    defined at every ``ir-eval`` start for a tenth of a frozen dataclass's cost)."""

    name: str
    cutoff: int | None = None
    alpha: float = 0.5
    beta: float = 0.5
    rel: int = 1

    def __str__(self) -> str:
        args = []
        fam = INTENT_FAMILIES[self.name]
        if fam.alpha and self.alpha != 0.5:
            args.append(f"alpha={self.alpha!r}")
        if fam.beta and self.beta != 0.5:
            args.append(f"beta={self.beta!r}")
        if self.rel != 1:
            args.append(f"rel={self.rel}")
        text = self.name + (f"({','.join(args)})" if args else "")
        return text + ("" if self.cutoff is None else f"@{self.cutoff}")


def _number(name: str, key: str, text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"{name}: {key} must be a number, not {text!r}") from None
    if not (0.0 <= v <= 1.0):
        raise ValueError(f"{name}: {key} must lie in [0, 1], not {text!r}")
    return v


def parse_diversity(text: str, default_rel: int = 1) -> DiversityMeasure | None:
    """The diversity measure named by ``text`` (``alpha_nDCG@20``, ``ERR-IA@10``,
    ``NRBP(alpha=0.3,beta=0.8)``, ``P_IA(rel=2)@5``), None when it names none; ``default_rel``: the
    relevance level of a name that sets no ``rel``.  Raises ValueError when it names one with parameters
    that do not fit."""
    m = _NAME.fullmatch(str(text))
    if m is None or m.group(1) not in DIVERSITY_NAMES:
        return None
    name = DIVERSITY_NAMES[m.group(1)]
    fam = INTENT_FAMILIES[name]
    args: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in (m.group(2) or "").split(","))):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key in args:
            raise ValueError(f"measure {text!r}: cannot read parameter {part!r}")
        args[key] = value.strip().strip("'\"")
    cutoff = None
    if m.group(3) is not None or "cutoff" in args:
        raw = m.group(3) if m.group(3) is not None else args.pop("cutoff")
        if not fam.cutoff:
            raise ValueError(f"measure {text!r}: {name} takes no cutoff")
        if not re.fullmatch(r"[1-9]\d*", raw):
            raise ValueError(f"measure {text!r}: the cutoff must be a positive integer, not {raw!r}")
        cutoff = int(raw)
    elif fam.cutoff:
        raise ValueError(f"measure {text!r}: {name} needs a cutoff: {name}@k")
    alpha = _number(text, "alpha", args.pop("alpha")) if "alpha" in args else 0.5
    beta = _number(text, "beta", args.pop("beta")) if "beta" in args else 0.5
    rel = int(default_rel)
    if "rel" in args:
        raw = args.pop("rel")
        if not re.fullmatch(r"[+-]?\d+", raw) or int(raw) < 1:
            raise ValueError(f"measure {text!r}: rel must be a whole number >= 1, not {raw!r}")
        rel = int(raw)
    if args:
        raise ValueError(f"measure {text!r}: unsupported parameters {', '.join(sorted(args))}")
    if not fam.alpha:
        alpha = 0.5
    if not fam.beta:
        beta = 0.5
    return DiversityMeasure(name, cutoff, alpha, beta, rel)


def diversity_names_list() -> str:
    """The diversity measures' names as written in a message: ``alpha_nDCG@k, ERR_IA@k, ..., NRBP``."""
    return ", ".join(f.name + ("@k" if f.cutoff else "") for f in INTENT_FAMILIES.values())
