"""Measure identity, the registry of measure families, and measure parsing.

A *family* is one registered function over a :class:`~metrics.ranking.judged.JudgedRanking`
(``P``, ``map``, ``ndcg_cut`` ...).  A :class:`Measure` is one output value of
a family: the family name, its parameters, an optional relevance-level
override and options.  ``str(measure)`` is its canonical name (trec_eval's
output name where that is unique: ``P_5``, ``map``, ``ndcg_cut_10``), and
:func:`parse_measures` turns that name back into the same measure.

Adding a family: write one function over the judged ranking in a module of
this package (or a new module imported from ``metrics/measures/__init__.py``)
and decorate it::

    @measure("P", params=LongCutoffs(5, 10, 15), aggregate=mean, label="P@{k}", ir_measures="P", aliases=("Precision",))
    def precision(r, cutoffs):
        '''Precision at cutoff k: ... (state the convention).'''
        k = cutoff_matrix(r.n_queries, cutoffs)
        return at_depth(r.relcum, r.offsets, k, 0) / k

* The function gets the :class:`~metrics.ranking.judged.JudgedRanking` ``r`` and,
  if it takes a second positional argument, the parameters: for cutoff
  families (:class:`LongCutoffs`, :class:`DoubleCutoffs`) all requested
  cutoffs at once, sorted, and it returns ``(n_queries, n_cutoffs)``; for
  the others (:class:`NoParams`, :class:`DoubleParams`, :class:`ParamPairs`
  or any object with the same methods) the parameter tuple, returning
  ``(n_queries,)``.  Values are float64, one per evaluated query in
  ``r.query_ids`` order.
* ``options={"gain": "linear", ...}`` declares variant options with their
  defaults; they reach the function as keyword arguments, and a
  :class:`Measure` carries the non-default ones (``ndcg_ext_10(gain=exp)``).
* ``aggregate`` makes the "all" value from the per-query values
  (:func:`mean`, :func:`geometric_mean`, :func:`total`, :func:`count` or any
  ``f(values, r) -> float``); ``kind`` is ``"double"``, ``"long"`` or
  ``"text"``; ``per_query``/``summary`` say which trec_eval rows exist.
* The place of a family in the output is its place in :data:`MEASURE_ORDER`
  (trec_eval's measure table, then the families beyond it); a family not
  listed there comes after all listed ones, in registration order, unless
  ``order=`` places it explicitly.
* What the window and the reports show about a family is registered with it
  too: ``label`` (display label, ``{k}`` standing for the cutoff:
  ``"P@{k}"``), ``group`` (defaults to the module's name: ``precision``,
  ``gains``, ...), ``ir_measures`` (the name ir_measures gives the family's
  measures, ``AP`` for ``map``) and ``aliases`` (other spellings of that name,
  ``MAP``), ``neutral`` (a family that counts or names things and has no best
  value: ``num_ret``; text families always are).  The docstring is the
  family's documentation (Help shows it).  :func:`family_named`,
  :func:`is_count`, :func:`is_neutral` and :func:`display_label` answer
  questions about a measure given by name (a column of a results frame).
* Another way of writing measure names is added with :func:`syntax`: a
  function ``text -> list[Measure] | None`` tried after trec_eval's syntax.

Nothing else changes: the evaluator, the output frames and the registry
driven tests pick the new family up.
"""

from __future__ import annotations

import functools
import inspect
import re
import warnings
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Callable

import numpy as np

__all__ = [
    "Measure",
    "Family",
    "measure",
    "syntax",
    "FAMILIES",
    "NICKNAMES",
    "parse_measures",
    "family_of",
    "NoParams",
    "LongCutoffs",
    "DoubleCutoffs",
    "DoubleParams",
    "ParamPairs",
    "mean",
    "geometric_mean",
    "total",
    "count",
    "no_summary",
    "MIN_GEO_MEAN",
    "MEASURE_ORDER",
    "BEYOND_TREC_EVAL",
    "MAX_CUTOFF",
    "TREC_EVAL_TABLE",
    "family_named",
    "is_count",
    "is_neutral",
    "display_label",
]

from metrics.measures.aggregates import MIN_GEO_MEAN, count, geometric_mean, mean, no_summary, total
from metrics.measures.names import as_name, foreign_name
from metrics.measures.order import BEYOND_TREC_EVAL, MEASURE_ORDER, TREC_EVAL_TABLE
from metrics.measures.params import MAX_CUTOFF, DoubleCutoffs, DoubleParams, LongCutoffs, NoParams, ParamPairs

# ---------------------------------------------------------------- registry

_ORDER_INDEX = {name: i for i, name in enumerate(MEASURE_ORDER)}


@dataclass(frozen=True)
class Family:
    """A registered measure family.

    ``kind`` is the value type as trec_eval prints it: ``"double"`` (%6.4f),
    ``"long"`` (%ld) or ``"text"``.  ``per_query``/``summary`` say whether
    trec_eval prints per-query rows / an "all" row.  ``aggregate`` makes the
    "all" value from the per-query values.  ``options`` maps option names to
    default values (measure variants such as gain or discount); the default
    parameters are ``params.default``.  ``order`` is the place in the output
    (see :data:`MEASURE_ORDER`), ``label`` the display label (``{k}``: the
    cutoff), ``group`` the kind of measure (the module that defines it),
    ``ir_measures`` the name ir_measures gives its measures and ``aliases``
    other spellings of that name; ``neutral``: the values count or name
    things and none is "best" (see :mod:`metrics.presentation`).
    """

    name: str
    func: Callable
    params: Any
    aggregate: Callable
    kind: str = "double"
    per_query: bool = True
    summary: bool = True
    order: float = 0.0
    options: dict = field(default_factory=dict)
    doc: str = ""
    label: str = ""
    group: str = ""
    ir_measures: str | None = None
    aliases: tuple[str, ...] = ()
    neutral: bool = False

    @property
    def is_count(self) -> bool:
        """Whether the values are counts (trec_eval's ``long`` measures: num_ret, num_rel_ret, ...)."""
        return self.kind == "long"

    @property
    def defaults(self) -> tuple:
        """The parameters used when none are given (``(5, 10, ...)`` for P)."""
        return tuple(getattr(self.params, "default", ()))

    def compute(self, ranking, params: tuple, options: dict | None = None) -> np.ndarray:
        """Per-query values: (n_queries, len(params)) for cutoff families, (n_queries,) otherwise."""
        args = (ranking, params)[: _positional(self.func)]
        kwargs = {**self.options, **(options or {})}
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.func(*args, **kwargs) if kwargs else self.func(*args)


_POSITIONAL: dict = {}


def _positional(func) -> int:
    """How many positional parameters ``func`` takes (asked once: inspect.signature costs more than a measure)."""
    n = _POSITIONAL.get(func)
    if n is None:
        n = _POSITIONAL[func] = sum(
            1
            for p in inspect.signature(func).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        )
    return n


FAMILIES: dict[str, Family] = {}
NICKNAMES: dict[str, tuple[str, ...]] = {}


def measure(
    name: str,
    *,
    params=None,
    aggregate=mean,
    kind="double",
    per_query=True,
    summary=True,
    order: float | None = None,
    options: dict | None = None,
    label: str = "",
    group: str | None = None,
    ir_measures: str | None = None,
    aliases: tuple[str, ...] = (),
    neutral: bool | None = None,
):
    """Register the decorated function as measure family ``name`` (see the module docstring)."""

    def deco(func):
        if name in FAMILIES:
            raise ValueError(f"measure family {name!r} registered twice")
        if order is not None:
            place = float(order)
        elif name in _ORDER_INDEX:
            place = float(_ORDER_INDEX[name])
        else:  # not listed: after every listed family, in registration order
            place = float(len(MEASURE_ORDER) + len(FAMILIES))
        FAMILIES[name] = Family(
            name=name,
            func=func,
            params=params if params is not None else NoParams(),
            aggregate=aggregate,
            kind=kind,
            per_query=per_query,
            summary=summary,
            order=place,
            options=dict(options or {}),
            doc=(func.__doc__ or "").strip(),
            label=label,
            group=group if group is not None else func.__module__.rpartition(".")[2].lstrip("_"),
            ir_measures=ir_measures,
            aliases=tuple(aliases),
            neutral=(kind == "text") if neutral is None else bool(neutral),
        )
        return func

    return deco


def family_of(m: "Measure") -> Family:
    return FAMILIES[m.family]


@functools.lru_cache(maxsize=4096)
def _measure_named(name: str, n_families: int) -> "Measure | None":
    # n_families is part of the key so that a family registered later is seen
    try:
        found = parse_measures([name])
    except (ValueError, KeyError, TypeError, OverflowError):
        return None
    return found[0] if len(found) == 1 else None


def _measure_of(name) -> "Measure | None":
    if isinstance(name, Measure):
        return name
    return _measure_named(str(name), len(FAMILIES))


def family_named(name) -> Family | None:
    """The family of the measure named ``name`` (an output name such as ``P_10``, ``num_ret``,
    ``nDCG@10`` or a :class:`Measure`); None when ``name`` names no single measure."""
    m = _measure_of(name)
    return None if m is None else FAMILIES.get(m.family)


def is_count(name) -> bool:
    """Whether the measure named ``name`` counts things (its family's kind is ``"long"``): shown as integers,
    and not tested for significance by default."""
    fam = family_named(name)
    return fam is not None and fam.is_count


def is_neutral(name) -> bool:
    """Whether the measure named ``name`` counts or names things rather than scoring a run (no best value)."""
    fam = family_named(name)
    return fam is not None and fam.neutral


def display_label(name) -> str:
    """The label the window shows for the measure named ``name``: its family's ``label`` with the cutoff
    (``P.5`` -> ``P@5``), or the canonical name when the family has no label."""
    m = _measure_of(name)
    if m is None:
        return str(name)
    fam = FAMILIES[m.family]
    if not fam.label or m.rel is not None or m.options or (not fam.params.expands and m.params != fam.defaults):
        return str(m)
    return fam.label.format(k=m.params[0]) if fam.params.expands else fam.label


@dataclass(frozen=True)
class Measure:
    """One measure value: family + parameters + relevance-level override + options.

    Hashable; equality ignores ``trec_text`` (the parameter text exactly as
    given on a trec_eval command line, kept only so trec_eval's output name
    can be reproduced).
    """

    family: str
    params: tuple = ()
    rel: int | None = None
    options: tuple = ()
    trec_text: str | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        fam = FAMILIES[self.family]
        name = self.family + fam.params.suffix(self.params)
        extra = []
        if self.rel is not None:
            extra.append(f"rel={self.rel}")
        extra += [f"{k}={v}" for k, v in self.options]
        return name + (f"({','.join(extra)})" if extra else "")

    @property
    def name(self) -> str:
        return str(self)

    @property
    def trec_name(self) -> str:
        """The name trec_eval prints for this measure."""
        fam = FAMILIES[self.family]
        return self.family + fam.params.trec_suffix(self.params, self.trec_text)

    @property
    def kind(self) -> str:
        return FAMILIES[self.family].kind

    def sort_key(self):
        fam = FAMILIES[self.family]
        return (fam.order, self.params if fam.params.expands else (), self.rel or 0, self.options, str(self))


# ----------------------------------------------------------------- parsing

_SYNTAXES: list[Callable[[str], list[Measure] | None]] = []
SUGGEST = "metrics.measures.suggest"  # the spellings meant, loaded when a name is refused
#: syntaxes tried before trec_eval's, for spellings that trec_eval's syntax would misread (ranx's ``rbp.95``)
_BEFORE_TREC: list[Callable[[str], list[Measure] | None]] = []


def syntax(func=None, *, before_trec: bool = False):
    """Register an extra measure syntax: ``func(text) -> list[Measure] | None``.

    Tried after trec_eval syntax (``before_trec``: before it, for texts trec_eval's syntax would misread);
    return None when the text is not yours.
    """
    if func is None:
        return lambda f: syntax(f, before_trec=before_trec)
    (_BEFORE_TREC if before_trec else _SYNTAXES).append(func)
    return func


#: functions of a measure's text giving a warning when two tools read that name differently (else None)
_AMBIGUITIES: list[Callable[[str], str | None]] = []


def ambiguous_names(func):
    """Register ``func(text) -> str | None``: the warning for a name another tool reads otherwise (Accuracy@10)."""
    _AMBIGUITIES.append(func)
    return func


def early_syntax(text: str) -> list[Measure] | None:
    """The measures of ``text`` when a syntax tried before trec_eval's claims it (ranx's ``rbp.95``), else None."""
    return next((found for parser in _BEFORE_TREC if (found := parser(text)) is not None), None)


def _expand(family: str, params: tuple, text: str | None, rel=None, options=()) -> list[Measure]:
    fam = FAMILIES[family]
    if fam.params.expands:
        return [Measure(family, (p,), rel, options) for p in params]
    return [Measure(family, params, rel, options, text)]


def _parse_options(text: str) -> tuple[int | None, tuple]:
    rel = None
    opts = []
    for item in filter(None, (t.strip() for t in text.split(","))):
        k, _, v = item.partition("=")
        if k == "rel":
            rel = int(v)
        elif k == "judged_only":  # a ranking option of any measure (evaluate.py), written true or false
            if v.strip().lower() not in ("true", "false"):
                raise ValueError(f"judged_only must be true or false, not {v!r}")
            if v.strip().lower() == "true":
                opts.append((k, "true"))
        else:
            opts.append((k, v))
    return rel, tuple(sorted(opts))


def _parse_output_name(text: str) -> list[Measure] | None:
    """Canonical / trec_eval output names: ``P_5``, ``ndcg_cut_10``, ``P_5(rel=2)``."""
    rel, options = None, ()
    m = re.fullmatch(r"(.*?)\((.*)\)", text)
    if m:
        text = m.group(1)
        rel, options = _parse_options(m.group(2))
    if text in FAMILIES and not FAMILIES[text].params.expands:
        fam = FAMILIES[text]
        return [Measure(text, fam.params.default, rel, options)]
    for name in sorted(FAMILIES, key=len, reverse=True):
        if text.startswith(name + "_"):
            fam = FAMILIES[name]
            if isinstance(fam.params, NoParams):
                continue
            try:
                params = fam.params.from_suffix(text[len(name) + 1 :])
            except (ValueError, IndexError):
                continue
            return _expand(name, params, None, rel, options)
    return None


def _trec_items(items: list[str]) -> list[Measure] | None:
    """trec_eval -m semantics: families are marked, parameters come from the first ``family.params`` given."""
    marked: list[str] = []
    args: dict[str, str] = {}
    for item in items:
        name, dot, given = item.partition(".")
        if dot:
            if not given:
                raise ValueError(f"improper measure in parameter '{item}'")
            args.setdefault(name, given)
        names = NICKNAMES.get(name, (name,))
        for n in names:
            if n not in FAMILIES:
                return None
            if n not in marked:
                marked.append(n)
    out = []
    for n in marked:
        fam = FAMILIES[n]
        text: str | None
        if n in args:
            if isinstance(fam.params, NoParams):
                # trec_eval ignores parameters of parameterless measures
                params, text = (), None
            else:
                try:
                    params, text = fam.params.parse(args[n]), args[n]
                except (ValueError, OverflowError) as exc:
                    hint = import_module(SUGGEST).meant(n, args[n])
                    raise ValueError(f"measure '{n}.{args[n]}': {exc}{hint}") from None
        else:
            params, text = fam.params.default, None
        out += _expand(n, params, text)
    return out


def parse_measures(spec, *, trec_rules: bool = False) -> list[Measure]:
    """Measures named by ``spec``, in trec_eval's order, without duplicates.

    ``spec``: None (trec_eval's ``official`` set), a string, a Measure, or a
    list of those.  Each string is one item: trec_eval syntax (``"P.5,10"``,
    ``"all_trec"``, ``"official"``, ``"ndcg.1=3,2=9"``), an output name
    (``"P_5"``, ``"ndcg_cut_10"``, ``"iprec_at_recall_0.10"``) or any syntax
    registered with :func:`syntax`.

    With ``trec_rules`` the trec-syntax items behave like trec_eval's ``-m``
    options taken together: a nickname or a bare family marks the family,
    and the *first* parameter list given for a family is used for it (so
    ``["P.5", "P.10"]`` gives only P_5, and ``["all_trec", "P.5"]`` gives
    P_5 among all_trec).  Without it each item stands on its own.
    """
    if spec is None:
        spec = ["official"]
    if isinstance(spec, (str, Measure)) or foreign_name(spec) is not None:
        spec = [spec]
    measures: list[Measure] = []
    trec_items: list[str] = []
    for raw in spec:
        item = as_name(raw)  # ir_measures' measure objects by their names (and not warned about)
        if isinstance(raw, str) and _AMBIGUITIES:
            for told in filter(None, (check(raw) for check in _AMBIGUITIES)):
                warnings.warn(told, UserWarning, stacklevel=2)
        if isinstance(item, Measure):
            if item.family not in FAMILIES:
                raise ValueError(f"unknown measure family {item.family!r}")
            measures.append(item)
            continue
        if not isinstance(item, str):
            raise TypeError(f"measure must be str, Measure or an ir_measures measure, not {type(item).__name__}")
        text = item.strip()
        name = text.partition(".")[0]
        early = early_syntax(text)
        if early is not None:
            measures += early
            continue
        if name in FAMILIES or name in NICKNAMES:
            trec_items.append(text)
            continue
        found = _parse_output_name(text)
        if found is None:
            for parser in _SYNTAXES:
                found = parser(text)
                if found is not None:
                    break
        if found is None:
            raise ValueError(f"unknown measure {item!r}{import_module(SUGGEST).nearest(text)}")
        measures += found
    groups = [trec_items] if trec_rules else [[t] for t in trec_items]
    for group in groups:
        found = _trec_items(group)
        if found is None:
            raise ValueError(f"unknown measure in {group!r}")
        measures += found
    unique: dict[Measure, Measure] = {}
    for m in measures:
        unique.setdefault(m, m)
    return sorted(unique.values(), key=Measure.sort_key)
