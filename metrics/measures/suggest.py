"""The spellings meant when a measure name is refused: trec_eval's parameters it refuses
(``rbp.0.95``: rbp.p=0.95) and unknown names (the nearest known name, by difflib)."""

from __future__ import annotations

import re

from metrics.measures.params import ParamPairs
from metrics.measures.registry import _BEFORE_TREC, _SYNTAXES, FAMILIES, NICKNAMES


def meant(family: str, given: str) -> str:
    """The spelling meant by trec_eval's ``family.given`` that trec_eval refuses (``rbp.0.95``: rbp.p=0.95;
    ``ndcg.10``: ndcg_cut.10), as "; did you mean ...?", else ""."""
    fam = FAMILIES[family]
    number = re.fullmatch(r"\s*(0?\.\d+|\d+)\s*", given)
    if isinstance(fam.params, ParamPairs) and number:
        if "p" in fam.options or family.startswith("rbp"):
            digits = number.group(1)
            p = float(digits) if "." in digits else float(f"0.{digits}")
            return f"; did you mean {family}.p={p:g}?"
        if f"{family}_cut" in FAMILIES and number.group(1).isdigit():
            return f"; did you mean {family}_cut.{number.group(1)} (a cutoff; {family} takes grade=gain pairs)?"
    return ""


def known_names() -> list[str]:
    """Every measure name written without parameters that :func:`parse_measures` takes: trec_eval's
    families and sets, ir_measures' names and their other spellings, and the names of the registered
    syntaxes that list theirs (``NAMES`` of the syntax function's module)."""
    names = list(FAMILIES) + list(NICKNAMES)
    for fam in FAMILIES.values():
        names += [n for n in (fam.ir_measures, *fam.aliases) if n]
    for parser in (*_BEFORE_TREC, *_SYNTAXES):
        names += list(getattr(parser, "names", ()))
    return list(dict.fromkeys(names))


#: a family's options written before its cutoff (``dcg_cut(gain=exp)_10``): the options go last
_OPTIONS_FIRST = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\([^()]*\))(_[^()]+)")


def nearest(text: str) -> str:
    """The "; did you mean X?" naming the known name nearest to ``text`` (difflib), else ""."""
    import difflib

    moved = _OPTIONS_FIRST.fullmatch(text)
    if moved and moved.group(1) in FAMILIES:
        family, options, cut = moved.groups()
        return f"; did you mean {family + cut + options!r}? (the options come after the cutoff)"

    head = re.split(r"[.@(]", text, maxsplit=1)[0]
    tail = text[len(head) :]
    names = known_names()
    close = difflib.get_close_matches(head, names, n=1, cutoff=0.6)
    if not close:
        lowered = {n.lower(): n for n in names}
        close = [lowered[n] for n in difflib.get_close_matches(head.lower(), lowered, n=1, cutoff=0.6)]
    if not close or close[0] == head:
        return ""
    return f"; did you mean {close[0] + tail!r}? (ir-eval --list-measures lists every name)"
