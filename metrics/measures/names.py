"""Measure names as Python objects, as ir_measures offers them: ``from metrics import AP, nDCG, P, RR``.

``nDCG@10``, ``P(rel=2)@5``, ``RR@10``, ``nDCG(gain="exp")@10`` build the names
users type; each is a ``str`` (its text is the name), so it is hashable, a
dictionary key, the column the results carry, and round-trips through
:func:`metrics.parse_measures`::

    >>> from metrics import AP, nDCG, P
    >>> nDCG@10
    nDCG@10
    >>> str(P(rel=2)@5)
    'P(rel=2)@5'
"""

from __future__ import annotations

from typing import Any


class MeasureName(str):
    """The name of a measure family; ``@k`` gives a cutoff, calling it gives parameters."""

    def __matmul__(self, cutoff) -> MeasureName:
        if "@" in self:
            raise ValueError(f"{self} has a cutoff already")
        return MeasureName(f"{self}@{cutoff}")

    def __call__(self, *frame, **params) -> MeasureName:
        if frame:  # pandas calls a callable key with the frame: df[nDCG @ 10] is the column "nDCG@10"
            return MeasureName(str(self))
        if "(" in self or "@" in self:
            raise ValueError(f"give the parameters of {self} before its cutoff, once: {self.split('@')[0]}(...)@k")
        text = ", ".join(f"{k}={v!r}" for k, v in params.items())
        return MeasureName(f"{self}({text})")

    def __repr__(self) -> str:
        return str(self)


def foreign_name(item: Any) -> str | None:
    """The name of a measure object of another library, else None.  ir_measures' measures (which PyTerrier
    users write too: ``AP``, ``nDCG@10``, ``P(rel=2)@5``) carry ``NAME`` and a ``params`` dict, and their
    ``str()`` is the name in the syntax :func:`metrics.parse_measures` reads; recognised by those
    attributes, so that ir_measures need not be imported."""
    if isinstance(item, str) or not isinstance(getattr(item, "NAME", None), str):
        return None
    return str(item) if isinstance(getattr(item, "params", None), dict) else None


def as_name(item: Any) -> Any:
    """``item`` with a measure object of another library replaced by its name (:func:`foreign_name`)."""
    text = foreign_name(item)
    return item if text is None else MeasureName(text)


AP = MeasureName("AP")
RR = MeasureName("RR")
nDCG = MeasureName("nDCG")
DCG = MeasureName("DCG")
P = MeasureName("P")
R = MeasureName("R")
F1 = MeasureName("F1")
Rprec = MeasureName("Rprec")
Bpref = MeasureName("Bpref")
Success = MeasureName("Success")
infAP = MeasureName("infAP")
IPrec = MeasureName("IPrec")
ERR = MeasureName("ERR")
RBP = MeasureName("RBP")
Judged = MeasureName("Judged")
NumQ = MeasureName("NumQ")
NumRet = MeasureName("NumRet")
NumRel = MeasureName("NumRel")
NumRelRet = MeasureName("NumRelRet")
SetP = MeasureName("SetP")
SetR = MeasureName("SetR")
SetF = MeasureName("SetF")
Compat = MeasureName("Compat")
Accuracy = MeasureName("Accuracy")
# diversity measures: metrics.evaluate_diversity, over intent-annotated qrels
alpha_nDCG = MeasureName("alpha_nDCG")
ERR_IA = MeasureName("ERR_IA")
P_IA = MeasureName("P_IA")
StRecall = MeasureName("StRecall")
NRBP = MeasureName("NRBP")

__all__ = [
    "MeasureName",
    "AP",
    "RR",
    "nDCG",
    "DCG",
    "P",
    "R",
    "F1",
    "Rprec",
    "Bpref",
    "Success",
    "infAP",
    "IPrec",
    "ERR",
    "RBP",
    "Judged",
    "NumQ",
    "NumRet",
    "NumRel",
    "NumRelRet",
    "SetP",
    "SetR",
    "SetF",
    "Compat",
    "Accuracy",
    "alpha_nDCG",
    "ERR_IA",
    "P_IA",
    "StRecall",
    "NRBP",
]
