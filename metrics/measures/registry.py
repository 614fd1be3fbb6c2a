"""Measure identity, the registry of measure families, and measure parsing.

A *family* is one registered function over a :class:`~metrics.ranking.JudgedRanking`
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

* The function gets the :class:`~metrics.ranking.JudgedRanking` ``r`` and,
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
import math
import re
from dataclasses import dataclass, field
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
    "TREC_EVAL_TABLE",
    "family_named",
    "is_count",
    "is_neutral",
    "display_label",
]

MIN_GEO_MEAN = 0.00001
MAX_CUTOFF = 2**31 - 1  # rank cutoffs are C ints in trec_eval

# ----------------------------------------------------------------- aggregates
# An aggregate maps the per-query values of one measure (trec order) and the
# ranking to the "all" value.  Sums are sequential in query order, as in C.


def _seq_sum(values: np.ndarray) -> float:
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def _num_queries(r) -> int:
    # trec_eval -c divides by the number of qrels queries
    return r.num_qrels_queries if r.complete else r.n_queries


def mean(values: np.ndarray, r) -> float:
    """Arithmetic mean over the evaluated queries (all qrels queries with -c)."""
    n = _num_queries(r)
    s = _seq_sum(values)
    return s / n if n else s


def geometric_mean(values: np.ndarray, r) -> float:
    """exp(mean(log(max(v, MIN_GEO_MEAN)))), trec_eval's gm_map/gm_bpref."""
    n = _num_queries(r)
    if n == 0:
        return 0.0
    logs = np.log(np.maximum(values, MIN_GEO_MEAN))
    s = _seq_sum(logs)
    if r.complete:
        s += (n - len(values)) * math.log(MIN_GEO_MEAN)
    return math.exp(s / n)


def total(values: np.ndarray, r) -> float:
    """Sum over queries (num_ret, num_rel_ret, ...)."""
    return _seq_sum(values)


def count(values: np.ndarray, r) -> float:
    """Number of queries averaged over (num_q)."""
    return float(_num_queries(r))


def no_summary(values, r):
    return None


# ------------------------------------------------------------- parameter kinds


def _atol(text: str) -> int:
    m = re.match(r"\s*[+-]?\d+", text)
    return int(m.group(0)) if m else 0


def _atof(text: str) -> float:
    m = re.match(r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", text, re.I)
    return float(m.group(0)) if m else 0.0


def _fmt_num(v: float) -> str:
    return repr(int(v)) if float(v).is_integer() and abs(v) < 1e15 else repr(float(v))


class NoParams:
    """The family takes no parameters."""

    expands = False
    default: tuple = ()

    def parse(self, text: str) -> tuple:
        raise ValueError("takes no parameters")

    def suffix(self, params: tuple) -> str:
        return ""

    def trec_suffix(self, params: tuple, text: str | None) -> str:
        return ""


class LongCutoffs:
    """Integer rank cutoffs, like trec_eval's ``P.5,10``: sorted, positive, unique.

    One measure per cutoff, named ``<family>_<cutoff>``.
    """

    expands = True

    def __init__(self, *default: int):
        self.default = tuple(default)

    def parse(self, text: str) -> tuple:
        tokens = text.split(",")
        # trec_eval reads each with atol ("23.4" is 23); a token without leading digits is no cutoff
        if not all(re.match(r"\s*[+-]?\d", t) for t in tokens):
            raise ValueError(f"cutoffs must be positive whole numbers, not {text!r}")
        values = sorted(_atol(t) for t in tokens)
        if values[0] <= 0:
            raise ValueError("cutoffs must be positive")
        if values[-1] > MAX_CUTOFF:
            raise ValueError(f"cutoff {values[-1]} is too large (at most {MAX_CUTOFF})")
        if len(set(values)) != len(values):
            raise ValueError("duplicate cutoffs")
        return tuple(values)

    def suffix(self, params: tuple) -> str:
        return f"_{params[0]}"

    def trec_suffix(self, params: tuple, text: str | None) -> str:
        return f"_{params[0]}"

    def from_suffix(self, text: str) -> tuple:
        if not re.fullmatch(r"\d+", text):
            raise ValueError(text)
        return self.parse(text)


class DoubleCutoffs:
    """Fractional cutoffs (``iprec_at_recall.0,.5``): sorted, unique.

    One measure per cutoff, named ``<family>_<cutoff %3.2f>`` like trec_eval
    (more digits in the canonical name when two decimals do not round-trip).
    """

    expands = True

    def __init__(self, *default: float):
        self.default = tuple(float(d) for d in default)

    def parse(self, text: str) -> tuple:
        values = sorted(_atof(t) for t in text.split(","))
        if len(set(values)) != len(values):
            raise ValueError("duplicate cutoffs")
        return tuple(values)

    def suffix(self, params: tuple) -> str:
        v = params[0]
        two = f"{v:3.2f}"
        return "_" + (two if float(two) == v else repr(float(v)))

    def trec_suffix(self, params: tuple, text: str | None) -> str:
        return f"_{params[0]:3.2f}"

    def from_suffix(self, text: str) -> tuple:
        float(text)
        return self.parse(text)


class _OneMeasureParams:
    """Parameters that make one measure: trec_eval prints them as given."""

    expands = False

    def parse(self, text: str) -> tuple:  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def suffix(self, params: tuple) -> str:  # pragma: no cover
        raise NotImplementedError

    def trec_suffix(self, params: tuple, text: str | None) -> str:
        if text is not None:
            return "_" + text
        return self.suffix(params)

    def from_suffix(self, text: str) -> tuple:
        return self.parse(text)


class DoubleParams(_OneMeasureParams):
    """A list of numbers making one measure (``utility.1,-1,0,0``); ``count``: how many it needs."""

    def __init__(self, *default: float, count: int | None = None, what: str = "parameters"):
        self.default = tuple(float(d) for d in default)
        self.count, self.what = count, what

    def parse(self, text: str) -> tuple:
        values = tuple(_atof(t) for t in text.split(","))
        if self.count is not None and len(values) != self.count:
            raise ValueError(f"improper number of {self.what} (need {self.count}, got {len(values)})")
        return values

    def suffix(self, params: tuple) -> str:
        if params == self.default:
            return ""
        return "_" + ",".join(_fmt_num(v) for v in params)


class ParamPairs(_OneMeasureParams):
    """``name=value`` pairs making one measure (``ndcg.1=3,2=9``, ``rbp.p=0.8``)."""

    default: tuple = ()

    def parse(self, text: str) -> tuple:
        pairs = []
        for item in text.split(","):
            if "=" not in item or item.startswith("=") or item.count("=") != 1:
                raise ValueError(f"malformed pair parameters in '{text}'")
            name, value = item.split("=")
            pairs.append((name, _atof(value)))
        return tuple(pairs)

    def suffix(self, params: tuple) -> str:
        if not params:
            return ""
        return "_" + ",".join(f"{k}={_fmt_num(v)}" for k, v in params)


# ---------------------------------------------------------------- registry

#: trec_eval 10.0's measure table (``te_trec_measures`` in measures.c), in its order; trec_eval prints
#: measures in this order, and so do we.  Names not implemented here keep their place all the same.
TREC_EVAL_TABLE = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "infAP",
    "gm_bpref",
    "Rprec_mult",
    "utility",
    "11pt_avg",
    "binG",
    "G",
    "dcg",
    "ideal_dcg",
    "ndcg",
    "ndcg_rel",
    "Rndcg",
    "ndcg_cut",
    "map_cut",
    "relative_P",
    "success",
    "set_P",
    "set_relative_P",
    "set_recall",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
    "prefs_num_prefs_poss",
    "prefs_num_prefs_ful",
    "prefs_num_prefs_ful_ret",
    "prefs_simp",
    "prefs_pair",
    "prefs_avgjg",
    "prefs_avgjg_Rnonrel",
    "prefs_simp_ret",
    "prefs_pair_ret",
    "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp",
    "prefs_pair_imp",
    "prefs_avgjg_imp",
    "map_avgjg",
    "P_avgjg",
    "Rprec_mult_avgjg",
    "yaap",
    "rbp",
    "rbp_resid",
    "unj",
)
#: the families beyond trec_eval, after its table in this order
BEYOND_TREC_EVAL = ("ndcg_ext", "map_ext", "ERR", "Judged", "rr_cut", "dcg_cut", "f1_cut", "hits")
#: output order of the families: a family's ``order`` is its index here
MEASURE_ORDER = TREC_EVAL_TABLE + BEYOND_TREC_EVAL
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
        """Per-query values: (n_queries, len(params)) for cutoff families,
        (n_queries,) otherwise."""
        n_args = sum(
            1
            for p in inspect.signature(self.func).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        )
        args = (ranking, params)[:n_args]
        kwargs = {**self.options, **(options or {})}
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.func(*args, **kwargs) if kwargs else self.func(*args)


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


def syntax(func):
    """Register an extra measure syntax: ``func(text) -> list[Measure] | None``.

    Tried after trec_eval syntax; return None when the text is not yours.
    """
    _SYNTAXES.append(func)
    return func


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
    """trec_eval -m semantics: families are marked, parameters come from the
    first ``family.params`` given for that family."""
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
                    raise ValueError(f"measure '{n}.{args[n]}': {exc}") from None
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
    if isinstance(spec, (str, Measure)):
        spec = [spec]
    measures: list[Measure] = []
    trec_items: list[str] = []
    for item in spec:
        if isinstance(item, Measure):
            if item.family not in FAMILIES:
                raise ValueError(f"unknown measure family {item.family!r}")
            measures.append(item)
            continue
        if not isinstance(item, str):
            raise TypeError(f"measure must be str or Measure, not {type(item).__name__}")
        text = item.strip()
        name = text.partition(".")[0]
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
            raise ValueError(f"unknown measure {item!r}")
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
