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

A family is judged against ad hoc qrels (``qid 0 docid grade``: the
families above, :data:`FAMILIES`) or against intent qrels (``qid intent docid
grade``: the diversity families, :data:`INTENT_FAMILIES`, scored by
:func:`metrics.evaluate_diversity` as ndeval scores them).  Adding a diversity
family is its declaration here and its kernel::

    intent_measure("P_IA", spellings=("P-IA",), cutoff=True, label="P-IA@{k}", tip="...", doc="...",
                   kernel="metrics.measures.diversity", explainer="metrics.explain.intent_rows:p_ia")

    @kernel("P_IA")                      # in metrics/measures/diversity.py
    def p_ia(m, ranked, judged, judged_ids, S, ideal=False) -> Steps: ...

* The declaration is all a name needs: its spellings (ir_measures' and
  ndeval's), the parameters it takes (``cutoff``: it must be given one,
  ``alpha``, ``beta``; ``rel`` always), the window's ``label`` and ``tip``,
  ``ir_measures`` and the docstring (``doc``: the convention).  Telling a
  diversity name apart (:func:`is_intent_name`, :func:`judged_against`) and
  reading it (:func:`metrics.measures.diversity_syntax.parse_diversity`) import
  no kernel; ``kernel`` names the module that registers the kernel, imported
  when a value is first computed (:meth:`IntentFamily.kernel_function`).
* The kernel gets the measure, the query's (ranks, intents) relevance of the
  ranking and of the judged documents, the judged documents' ids and S (the
  intents with a relevant document, > 0), and returns
  :class:`metrics.measures.diversity.Steps` (its ``value`` is the value).
* ``explainer`` is where the explain floor writes out its working
  (``module:function``), None when it does not.

Nothing else changes either: the names, the window's labels and tooltips, the
CLI, the measures page and the common tests take the family up.
"""

from __future__ import annotations

import functools
import inspect
import re
import warnings
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Callable, NamedTuple

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
    "JUDGED_AGAINST",
    "IntentFamily",
    "INTENT_FAMILIES",
    "INTENT_SPELLINGS",
    "KERNELS",
    "intent_measure",
    "kernel",
    "unregister_intent_family",
    "judged_against",
    "intent_family_of",
    "is_intent_name",
    "every_family",
]

from metrics.measures.aggregates import MIN_GEO_MEAN, count, geometric_mean, mean, no_summary, total
from metrics.measures.names import as_name, foreign_name
from metrics.measures.order import BEYOND_TREC_EVAL, MEASURE_ORDER, TREC_EVAL_TABLE
from metrics.measures.params import MAX_CUTOFF, DoubleCutoffs, DoubleParams, LongCutoffs, NoParams, ParamPairs

# ---------------------------------------------------------------- registry

_ORDER_INDEX = {name: i for i, name in enumerate(MEASURE_ORDER)}


class Family(NamedTuple):
    """A registered measure family (a record: a named tuple, defined at every ``ir-eval`` start for a third
    of a frozen dataclass's cost).

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
    things and none is "best" (see :mod:`metrics.presentation`); ``judged``: what it is judged against,
    ``"qrels"`` (ad hoc qrels) for every family here (see :class:`IntentFamily` for the others).
    """

    name: str
    func: Callable
    params: Any
    aggregate: Callable
    kind: str = "double"
    per_query: bool = True
    summary: bool = True
    order: float = 0.0
    options: dict = {}  # (never changed: measure() gives each family a dict of its own)
    doc: str = ""
    label: str = ""
    group: str = ""
    ir_measures: str | None = None
    aliases: tuple[str, ...] = ()
    neutral: bool = False
    judged: str = "qrels"  # what it is judged against (JUDGED_AGAINST): ad hoc qrels

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
    """How many positional parameters ``func`` takes (asked once: inspect.signature costs more than a measure;
    a plain function's code says it for less)."""
    n = _POSITIONAL.get(func)
    if n is None:
        if inspect.isfunction(func) and not hasattr(func, "__wrapped__"):
            n = func.__code__.co_argcount  # the positional-only and positional-or-keyword parameters
        else:  # a method, a partial, a callable object, a wrapped function: what its signature says
            n = sum(
                1
                for p in inspect.signature(func).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
            )
        _POSITIONAL[func] = n
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
        if name in FAMILIES or name in INTENT_SPELLINGS:
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


# ------------------------------------------- families judged against intent qrels (diversity)

#: what a family is judged against: ad hoc qrels (``qid 0 docid grade``) or intent qrels (``qid intent docid
#: grade``, the TREC Web track's diversity qrels, scored by :func:`metrics.evaluate_diversity`)
JUDGED_AGAINST = ("qrels", "intents")
#: the cutoff of an intent family's default request (ndeval's depth, the TREC Web track's @20)
INTENT_DEFAULT_CUTOFF = 20


class IntentFamily(NamedTuple):
    """A registered family judged against intent qrels (:func:`intent_measure`; a named tuple, as
    :class:`Family`).

    ``spellings``: every name it is written under (its own, ir_measures' and ndeval's: ``alpha-nDCG``);
    ``cutoff``, ``alpha``, ``beta``: the parameters it takes besides ``rel`` (a cutoff family must be given
    one: ``alpha_nDCG@20``); ``label``: how the window shows it (``{k}``: the cutoff); ``tip``: one sentence
    for tooltips; ``ir_measures``: ir_measures' name of it; ``doc``: its convention (the measures page and
    Help show it); ``kernel``: the module whose :func:`kernel` registers its kernel, imported when the kernel
    is first asked for (telling a diversity name apart imports no kernel); ``explainer``: where its working
    is written out (``module:function`` of the explain floor), None when it is not.
    """

    name: str
    spellings: tuple[str, ...]
    cutoff: bool
    alpha: bool
    beta: bool
    label: str
    tip: str
    ir_measures: str
    doc: str
    kernel: str
    explainer: str | None = None
    order: float = 0.0
    group: str = "diversity"
    kind: str = "double"
    judged: str = "intents"

    @property
    def parameters(self) -> tuple[str, ...]:
        """The parameters it takes: some of ``cutoff``, ``alpha``, ``beta``, and always ``rel``."""
        taken = (("cutoff", self.cutoff), ("alpha", self.alpha), ("beta", self.beta), ("rel", True))
        return tuple(p for p, yes in taken if yes)

    @property
    def default_request(self) -> str:
        """The name of its default measure (``alpha_nDCG@20``, ``NRBP``)."""
        return self.name + (f"@{INTENT_DEFAULT_CUTOFF}" if self.cutoff else "")

    def kernel_function(self) -> Callable:
        """Its kernel, ``f(measure, ranked, judged, judged_ids, S, ideal) -> Steps`` (the kernel module is
        imported on first use)."""
        if self.name not in KERNELS:
            import_module(self.kernel)
        try:
            return KERNELS[self.name]
        except KeyError:
            raise LookupError(f"{self.kernel} registers no kernel for {self.name}") from None


#: canonical name -> the family, for the families judged against intent qrels
INTENT_FAMILIES: dict[str, IntentFamily] = {}
#: every spelling of an intent family's name -> its canonical name (``alpha-nDCG`` -> ``alpha_nDCG``)
INTENT_SPELLINGS: dict[str, str] = {}
#: canonical name -> the kernel registered for it (:func:`kernel`)
KERNELS: dict[str, Callable] = {}


def intent_measure(
    name: str,
    *,
    spellings: tuple[str, ...] = (),
    cutoff: bool,
    alpha: bool = False,
    beta: bool = False,
    label: str = "",
    tip: str = "",
    ir_measures: str | None = None,
    doc: str,
    kernel: str,
    explainer: str | None = None,
) -> IntentFamily:
    """Register a family judged against intent qrels (the declaration: names, parameters, label, doc; the
    kernel is registered apart with :func:`kernel`, in the module ``kernel`` names)."""
    taken = [s for s in (name, *spellings) if s in INTENT_SPELLINGS or s in FAMILIES or s in NICKNAMES]
    if taken:
        raise ValueError(f"measure name {taken[0]!r} registered twice")
    fam = IntentFamily(
        name=name,
        spellings=tuple(spellings),
        cutoff=cutoff,
        alpha=alpha,
        beta=beta,
        label=label or name.replace("_", "-") + ("@{k}" if cutoff else ""),
        tip=tip,
        ir_measures=ir_measures or name,
        doc=" ".join(doc.split()),
        kernel=kernel,
        explainer=explainer,
        order=float(len(INTENT_FAMILIES)),
    )
    INTENT_FAMILIES[name] = fam
    for spelling in (name, *spellings):
        INTENT_SPELLINGS[spelling] = name
    return fam


def kernel(name: str):
    """Register the decorated function as the kernel of intent family ``name``:
    ``f(measure, ranked, judged, judged_ids, S, ideal) -> Steps`` for a query with S > 0 intents that have a
    relevant document (:func:`metrics.measures.diversity.steps` gives S = 0 its 0 itself)."""

    def deco(func):
        if name not in INTENT_FAMILIES:
            raise ValueError(f"no intent family {name!r} is declared (intent_measure)")
        if name in KERNELS:
            raise ValueError(f"kernel of {name!r} registered twice")
        KERNELS[name] = func
        return func

    return deco


def unregister_intent_family(name: str) -> None:
    """Take intent family ``name`` (its spellings and kernel) out of the registry again (a family registered
    for a while only, as a test's)."""
    fam = INTENT_FAMILIES.pop(name)
    for spelling in (fam.name, *fam.spellings):
        INTENT_SPELLINGS.pop(spelling, None)
    KERNELS.pop(name, None)


_HEAD = re.compile(r"\s*([A-Za-z_][A-Za-z_-]*)")


def intent_family_of(name) -> IntentFamily | None:
    """The intent family whose name ``name`` begins with (``alpha_nDCG`` for ``alpha-nDCG(rel=2)@20``, also
    when its parameters do not fit), None for another name; reads no more than the name's first word."""
    head = _HEAD.match(str(name))
    canonical = INTENT_SPELLINGS.get(head.group(1)) if head else None
    return None if canonical is None else INTENT_FAMILIES[canonical]


def is_intent_name(name) -> bool:
    """Whether ``name`` names a measure judged against intent qrels (a diversity measure's name)."""
    return intent_family_of(name) is not None


def judged_against(name) -> str | None:
    """What the family of the measure named ``name`` is judged against: ``"intents"`` for a diversity
    measure's name (``alpha_nDCG@20``, ``ERR-IA(rel=2)@10``, also with parameters that do not fit),
    ``"qrels"`` for another registered family's, None for a name that is neither."""
    if is_intent_name(name):
        return "intents"
    return "qrels" if family_named(name) is not None else None


def every_family() -> dict[str, Family | IntentFamily]:
    """Every registered family, those judged against ad hoc qrels (:data:`FAMILIES`) and those judged against
    intent qrels (:data:`INTENT_FAMILIES`), by name."""
    return {**FAMILIES, **INTENT_FAMILIES}


_DIVERSITY = "metrics.measures.diversity"  # the kernels (numpy, imported when a diversity measure is scored)
_ROWS = "metrics.explain.intent_rows"  # where the workings are written out

intent_measure(
    "alpha_nDCG",
    spellings=("alpha-nDCG",),
    cutoff=True,
    alpha=True,
    label="α-nDCG@{k}",
    tip="α-nDCG (Clarke et al. 2008): nDCG whose gain for an intent already covered above shrinks by "
    "(1 − α) per document; ideal ranking built greedily, as ndeval builds it (α = 0.5).",
    doc="""alpha-nDCG@k (ndeval's alpha-nDCG; alpha 0.5): sum_{i<k} g_i / log2(i + 2) divided by the same sum
    over the ideal ranking, g_i = sum over the intents j the document at rank i is relevant to of
    (1 - alpha)**c_ij, c_ij the documents above rank i relevant to intent j. ndeval builds the ideal ranking
    greedily: at each rank the judged document with the largest gain given the ranks above, ties to the larger
    docid (byte order). 0 when the ranking gains nothing, and for a query with no intent that has a relevant
    document (S = 0).""",
    kernel=_DIVERSITY,
    explainer=f"{_ROWS}:alpha_ndcg",
)
intent_measure(
    "ERR_IA",
    spellings=("ERR-IA",),
    cutoff=True,
    alpha=True,
    tip="Intent-aware expected reciprocal rank: the novelty-discounted gains over 1/rank, normalised by "
    "the best possible value (ndeval's ERR-IA).",
    doc="""ERR-IA@k (ndeval's ERR-IA; alpha 0.5): sum_{i<k} g_i / (i + 1) divided by its "ideal ideal" value
    sum_{i<k} S (1 - alpha)**i / (i + 1), S the query's intents with a relevant document. For k = 1 ndeval does
    not divide (its normalising loop starts at the second rank), so ERR_IA@1 is g_0, kept for agreement with
    ndeval. 0 for S = 0.""",
    kernel=_DIVERSITY,
    explainer=f"{_ROWS}:err_ia",
)
intent_measure(
    "P_IA",
    spellings=("P-IA",),
    cutoff=True,
    tip="Intent-aware precision: relevant (document, intent) pairs in the first k ranks over k times the "
    "number of intents with a relevant document.",
    doc="""P-IA@k (intent-aware precision, ndeval's P-IA): the relevant (document, intent) pairs among the first
    k ranks divided by k S (k, not the number retrieved). 0 for S = 0.""",
    kernel=_DIVERSITY,
    explainer=f"{_ROWS}:p_ia",
)
intent_measure(
    "StRecall",
    spellings=("strec",),
    cutoff=True,
    label="Subtopic recall@{k}",
    tip="Subtopic recall: the share of the query's intents (with a relevant document) covered by the first k ranks.",
    doc="""StRecall@k (subtopic recall, ndeval's strec): the intents with a relevant document among the first k
    ranks, divided by S. 0 for S = 0.""",
    kernel=_DIVERSITY,
    explainer=f"{_ROWS}:st_recall",
)
intent_measure(
    "NRBP",
    cutoff=False,
    alpha=True,
    beta=True,
    tip="Novelty- and rank-biased precision (Clarke et al. 2009): the novelty-discounted gains over the "
    "whole ranking with persistence β = 0.5, α = 0.5.",
    doc="""NRBP (novelty- and rank-biased precision, ndeval's NRBP; alpha 0.5, beta 0.5): the sum over the
    whole ranking of g_i beta**i, times (1 - (1 - alpha) beta) / S. 0 for S = 0.""",
    kernel=_DIVERSITY,
    explainer=f"{_ROWS}:nrbp",
)
intent_measure(
    "alpha_DCG",
    spellings=("alpha-DCG",),
    cutoff=True,
    alpha=True,
    label="α-DCG@{k}",
    tip="α-DCG: α-nDCG's discounted gain divided by ndeval's \"ideal ideal\" value, not by the ideal ranking's.",
    doc="""alpha-DCG@k (pyndeval's and ir_measures' alpha_DCG; alpha 0.5): alpha-nDCG's sum_{i<k}
    g_i / log2(i + 2) divided by ndeval's "ideal ideal" value S sum_{i<k} (1 - alpha)**i / log2(i + 2) (not
    divided for k = 1, as ndeval). 0 for S = 0.""",
    kernel=_DIVERSITY,
    explainer=f"{_ROWS}:alpha_dcg",
)
intent_measure(
    "nERR_IA",
    spellings=("nERR-IA",),
    cutoff=True,
    alpha=True,
    tip="Normalised ERR-IA: the ranking's ERR-IA over that of ndeval's greedy ideal ranking.",
    doc="""nERR-IA@k (ndeval's nERR-IA; alpha 0.5): ERR-IA@k of the ranking divided by ERR-IA@k of ndeval's
    greedy ideal ranking; 0 when the ranking gains nothing, and for S = 0.""",
    kernel=_DIVERSITY,
    explainer=f"{_ROWS}:n_err_ia",
)
intent_measure(
    "nNRBP",
    cutoff=False,
    alpha=True,
    beta=True,
    tip="Normalised NRBP: the ranking's NRBP over that of ndeval's greedy ideal ranking.",
    doc="""nNRBP (ndeval's nNRBP; alpha 0.5, beta 0.5): NRBP of the ranking divided by NRBP of ndeval's greedy
    ideal ranking of every relevant document; 0 when the ranking gains nothing, and for S = 0, where ndeval's
    is 0 / 0 (NaN, which would make the mean NaN: the one value that differs from ndeval's).""",
    kernel=_DIVERSITY,
    explainer=f"{_ROWS}:n_nrbp",
)
intent_measure(
    "AP_IA",
    spellings=("AP-IA", "MAP-IA", "MAP_IA"),
    cutoff=False,
    tip="Intent-aware average precision: the mean over the query's intents of each intent's average precision.",
    doc="""AP-IA (ndeval's MAP-IA, ir_measures' AP_IA): the mean over the S intents of each intent's average
    precision, the precision at the rank of each document relevant to the intent summed over the whole ranking
    and divided by the intent's relevant judged documents. 0 for S = 0.""",
    kernel=_DIVERSITY,
    explainer=f"{_ROWS}:ap_ia",
)
