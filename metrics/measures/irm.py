"""ir_measures-style measure names: ``AP``, ``nDCG@10``, ``P(rel=2)@5`` ...

Registered as a measure syntax, so :func:`~metrics.parse_measures` and
:func:`~metrics.evaluate` accept these names next to trec_eval's.  A name is
``Name``, ``Name@value`` or ``Name(arg=value, ...)@value``; values are
numbers, words (quoted or not), ``True``/``False`` or, for ``gains``, a dict
``{1: 3, 2: 9}``.  Where trec_eval has the measure, the name becomes the
same :class:`Measure`, so ``nDCG@10`` *is* ``ndcg_cut_10`` (same column,
same values); the others are families of extra.py and irm_families.py:

========================  =================================  ==========================
ir_measures name          measure                            notes
========================  =================================  ==========================
AP, MAP                   map
AP@k                      map_cut_k
RR, MRR                   recip_rank
RR@k, MRR@k               rr_cut_k                           MS MARCO's MRR@10 (*)
nDCG, NDCG                ndcg
nDCG@k                    ndcg_cut_k
nDCG(gains={1:3,2:9})     ndcg_1=3,2=9                       trec_eval's gain pairs
nDCG(gains={1:3,2:9})@k   ndcg_ext_k(gains=1:3;2:9)          grades mapped, as ir_measures
nDCG(dcg=exp-log2)@k      ndcg_ext_k(gain=exp)               gdeval's nDCG
P@k, Precision@k          P_k
R@k, Recall@k             recall_k
Rprec, RPrec              Rprec
Bpref, BPref              bpref
Success@k                 success_k
infAP                     infAP
IPrec@x                   iprec_at_recall_x
NumQ                      num_q
NumRet                    num_ret
NumRelRet, NumRet(rel=1)  num_rel_ret                        NumRet(rel=r): num_rel_ret(rel=r)
NumRel                    num_rel
SetP / SetRelP            set_P / set_relative_P             SetP(relative=True) = SetRelP
SetR                      set_recall
SetF, SetF(beta=b)        set_F, set_F_b
SetAP                     set_map
RBP, RBP(p=x)             rbp_ext(p=x)                       graded, not rescaled
RBP@k                     rbp_ext_k                          (trectools' RBP)
RBP(rel=r)[@k]            rbp_ext[_k](binary_at=r)           binary (cwl_eval's RBP)
ERR@k                     ERR_k                              gdeval's ERR (see extra.py)
Judged@k                  Judged_k                           ir_measures' judgment rate
Compat(p=x,normalize=b)   compat(p=x,normalize=false)        irm_families.py
Accuracy[@k]              Accuracy[_k]                       NaN where undefined
DCG@k, F1@k, Hits@k       dcg_cut_k, f1_cut_k, hits_k
INST, INSQ(T=t,max_rel=m) inst, insq(T=t,max_rel=m)          cwl_eval's (cwl.py)
BPM(max_rel=m)@k          bpm_k(max_rel=m)                   T, min_rel, max_rel
SDCG(max_rel=m)@k         sdcg_k(max_rel=m)                  min_rel, max_rel
NERR8(max_rel=m)@k        nerr8_k(max_rel=m)                 NERR9@k too; cwl_eval's
NERR10(p=x,max_rel=m)     nerr10(max_rel=m,p=x)              NERR11(T=t,...) too
========================  =================================  ==========================

(*) Tied scores are ordered as trec_eval orders them (document id descending)
for every measure here; ir_measures computes ``RR@k`` with its MS MARCO
provider, which breaks ties by document id ascending, so on runs with ties the
two differ (``ir-eval --irm`` follows each provider: :mod:`metrics.cli.irm`).
A set measure with a cutoff (``SetP(rel=2)@5``) is refused, naming the measure
of the first k documents (``P(rel=2)@5``); ranx's ``f1`` and ``precision``
without a cutoff are over the whole retrieved list (``SetF``, ``SetP``).

``rel=r`` (P, AP, RR, R, Rprec, Bpref, Success, infAP, IPrec, NumRel, the set
measures) sets the relevance level of that measure alone: ``P(rel=2)@5`` is
``P_5(rel=2)``.  An explicit ``rel=1`` is kept (it stays 1 whatever the
evaluation's relevance level), the default follows the evaluation.

``judged_only=True`` (P, RR, Rprec, AP, nDCG, R, SetAP, SetF, SetP,
Success, IPrec: where ir_measures has the parameter) computes that measure
alone on the ranking without its unjudged documents (trec_eval's ``-J``),
next to measures of the whole ranking: ``nDCG(judged_only=True)@10`` is
``ndcg_cut_10(judged_only=true)``.  The canonical form takes it for any
family; ir_measures' names refuse it where ir_measures does
(``Bpref(judged_only=True)``).

``RBP`` is ir_measures' RBP (see irm_families.py): the gain of a document is
its grade, not rescaled, while trec_eval's ``rbp`` (trec_eval syntax:
``rbp``, ``rbp.p=0.8``) rescales a query's grades into [0, 1] when any is
above 1; on binary qrels the two agree.  ``rel`` of RBP and Accuracy must be
>= 1 (ir_measures counts documents outside the qrels as grade 0, which a
level <= 0 would make relevant).  Diversity measures (``alpha_nDCG@k``,
``ERR_IA@k``, ``P_IA@k``, ``StRecall@k``, ``NRBP``) need intent-annotated qrels:
:func:`metrics.evaluate_diversity` computes them (diversity.py); here they
are refused with a ValueError saying so.

Textbook variants, as options of nDCG and AP (they name measures of the
``ndcg_ext`` and ``map_ext`` families; with trec_eval's defaults they are
plain ``ndcg``/``ndcg_cut``/``map``)::

    nDCG(gain=exp, discount=jk, base=2, ideal=retrieved)@10
        gain      linear (default) | exp          2**grade - 1
        discount  log (default)    | jk           log_b(i+1) | log_b(i), ranks < b undiscounted
        base      2 (default)      | any b > 1
        ideal     all (default)    | retrieved    all judged docs | the retrieved docs
    AP(interpolated)            = AP(precision=interpolated)

The canonical name lists only the options that differ from the defaults, in
alphabetical order: ``nDCG(gain=exp,discount=jk)@10`` is
``ndcg_ext_10(discount=jk,gain=exp)``, and :func:`ir_measures_name` writes it
back as ``nDCG(discount=jk,gain=exp)@10``.

(Longer than 500 lines on purpose: reading and writing ir_measures' and ranx's names live together,
so that writing stays the inverse of reading.)
"""

from __future__ import annotations

import ast
import math
import re

from metrics.measures import extra
from metrics.measures.registry import FAMILIES, LongCutoffs, Measure, NoParams, syntax

__all__ = ["parse_ir_measures", "ir_measures_name", "IR_MEASURES_NAMES"]  # noqa: F822  (module __getattr__)


def _aliases() -> dict[str, str]:
    """Other spellings of ir_measures' names (``MAP`` for ``AP``), as the registry records them."""
    return {alias: fam.ir_measures for fam in FAMILIES.values() if fam.ir_measures for alias in fam.aliases}


_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*(?:@\s*([^()@\s]+))?\s*", re.S)
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


def _read(text: str):
    """(name, {arg: value}, at-value or None), or None when not this syntax."""
    m = _NAME.fullmatch(text)
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


def _cutoff(name: str, at, args: _Args, *, required: bool) -> int | None:
    k = args.pop("cutoff", None) if at is None else at
    if k is None:
        if required:
            raise ValueError(f"{name} needs a cutoff: {name}@k")
        return None
    if isinstance(k, bool) or not isinstance(k, (int, float)) or not float(k).is_integer() or k <= 0:
        raise ValueError(f"{name}: the cutoff must be a positive integer, not {k!r}")
    return int(k)


def _family(name: str):
    if name not in FAMILIES:
        raise ValueError(f"measure family {name!r} is not available")
    return FAMILIES[name]


def _trec(family: str, param_text: str | None = None, rel=None, options=()) -> Measure:
    """The measure of a trec_eval family, its parameters read by the family's own parser."""
    fam = _family(family)
    if param_text is None:
        params = fam.params.default if not fam.params.expands else None
    else:
        params = fam.params.parse(param_text)
    if fam.params.expands:
        if params is None or len(params) != 1:
            raise ValueError(f"{family}: exactly one cutoff expected")
        return Measure(family, params, rel, tuple(options))
    return Measure(family, tuple(params or ()), rel, tuple(options))


def _no_cutoff(name, at, args):
    if _cutoff(name, at, args, required=False) is not None:
        raise ValueError(f"{name} takes no cutoff")


def _ndcg(name, at, args: _Args) -> Measure:
    k = _cutoff(name, at, args, required=False)
    gains = args.pop("gains")
    dcg = args.pop("dcg")
    opts = {key: args.pop(key) for key in ("gain", "discount", "base", "ideal") if key in args.items}
    if dcg is not None:
        dcg = str(dcg)
        if dcg not in ("log2", "exp-log2"):
            raise ValueError(f"{name}: dcg must be log2 or exp-log2, not {dcg!r}")
        want = "exp" if dcg == "exp-log2" else "linear"
        if opts.setdefault("gain", want) != want:
            raise ValueError(f"{name}: dcg={dcg} contradicts gain={opts['gain']}")
    variant = extra.ndcg_options(**opts)
    if args.rel() is not None:
        raise ValueError(f"{name}: nDCG takes no relevance level (gains are the grades)")
    args.done()
    if gains is not None:
        if not isinstance(gains, dict):
            raise ValueError(f"{name}: gains must be a dict {{grade: gain}}")
        if variant.gain != "linear":
            raise ValueError(f"{name}: gains replace the grades as gains; they do not combine with gain={variant.gain}")
        if k is None and variant.is_trec:
            items = sorted((int(g), float(v)) for g, v in gains.items())
            text = ",".join(f"{g}={v!r}" for g, v in items)
            return _trec("ndcg", text)  # trec_eval's ndcg.1=3,2=9
        variant = extra.ndcg_options(**opts, gains=gains)
    if variant.is_trec:
        return _trec("ndcg") if k is None else _trec("ndcg_cut", str(k))
    return Measure("ndcg_ext", (extra.WHOLE_RANKING if k is None else k,), None, variant.non_default())


def _ap(name, at, args: _Args) -> Measure:
    k = _cutoff(name, at, args, required=False)
    rel = args.rel()
    kind = args.pop("precision", "observed")
    if args.flag("interpolated"):
        kind = "interpolated"
    if kind not in ("observed", "interpolated"):
        raise ValueError(f"{name}: precision must be observed or interpolated, not {kind!r}")
    args.done()
    if kind == "interpolated":
        if k is not None:
            raise ValueError(f"{name}: interpolated AP is defined for the whole ranking only")
        return Measure("map_ext", (), rel, (("precision", "interpolated"),))
    return _trec("map", rel=rel) if k is None else _trec("map_cut", str(k), rel)


def _simple(family):
    def make(name, at, args: _Args) -> Measure:
        _no_cutoff(name, at, args)
        rel = args.rel()
        args.done()
        return _trec(family, rel=rel)

    return make


def _cut(family, required=True):
    def make(name, at, args: _Args) -> Measure:
        k = _cutoff(name, at, args, required=required)
        rel = args.rel()
        args.done()
        return _trec(family, str(k), rel)

    return make


def _own_cut(family):
    def make(name, at, args: _Args) -> Measure:
        k = _cutoff(name, at, args, required=False)
        args.done()
        return Measure(family, (extra.WHOLE_RANKING if k is None else k,))

    return make


def _iprec(name, at, args: _Args) -> Measure:
    x = args.pop("recall") if at is None else at
    if x is None or isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ValueError(f"{name} needs a recall level: {name}@0.5")
    rel = args.rel()
    args.done()
    return Measure("iprec_at_recall", (float(x),), rel)


def _num_ret(name, at, args: _Args) -> Measure:
    _no_cutoff(name, at, args)
    rel = args.rel()
    args.done()
    if name == "NumRelRet":
        return _trec("num_rel_ret", rel=rel)
    return _trec("num_ret") if rel is None else _trec("num_rel_ret", rel=rel)


def _set_p(name, at, args: _Args) -> Measure:
    _no_cutoff(name, at, args)
    relative = args.flag("relative") or name == "SetRelP"
    rel = args.rel()
    args.done()
    return _trec("set_relative_P" if relative else "set_P", rel=rel)


def _set_f(name, at, args: _Args) -> Measure:
    _no_cutoff(name, at, args)
    beta = args.pop("beta", 1.0)
    if isinstance(beta, bool) or not isinstance(beta, (int, float)):
        raise ValueError(f"{name}: beta must be a number, not {beta!r}")
    rel = args.rel()
    args.done()
    return _trec("set_F", repr(float(beta)), rel)


def _number_option(name, args: _Args, key, default, low=0.0, high=1.0):
    v = args.pop(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (low < v < high):
        raise ValueError(f"{name}: {key} must be a number between {low:g} and {high:g} (exclusive), not {v!r}")
    return [] if float(v) == default else [(key, _num(v))]


def _level_at_least_1(name, rel):
    if rel is not None and rel < 1:
        raise ValueError(f"{name}: rel must be >= 1 here (ir_measures counts documents outside the qrels as grade 0)")
    return rel


def _rbp(name, at, args: _Args) -> Measure:
    k = _cutoff(name, at, args, required=False)
    opts = _number_option(name, args, "p", 0.8)
    rel = _level_at_least_1(name, args.rel())
    args.done()
    if rel is not None:
        opts.append(("binary_at", str(rel)))
    return Measure("rbp_ext", (extra.WHOLE_RANKING if k is None else k,), None, tuple(sorted(opts)))


def _cwl(family, cutoff: bool):
    """cwl_eval's measures (INST, INSQ, BPM@k, SDCG@k, NERR8@k to NERR11): T (p for NERR10), min_rel,
    max_rel (cwl.py)."""

    def make(name, at, args: _Args) -> Measure:
        k = _cutoff(name, at, args, required=cutoff)
        if not cutoff and k is not None:
            raise ValueError(f"{name} takes no cutoff")
        opts = []
        if family == "nerr10":
            opts += _number_option(name, args, "p", 0.9)
        elif family in ("inst", "insq", "bpm", "nerr11"):
            opts += _number_option(name, args, "T", 1.0, low=0.0, high=math.inf)
        elif family == "sdcg" and str(args.pop("dcg", "log2")) != "log2":
            raise ValueError(f"{name}: dcg must be log2")
        for key, default in (("min_rel", 0), ("max_rel", None)):
            v = args.pop(key)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not float(v).is_integer() or v < 0:
                raise ValueError(f"{name}: {key} must be a whole number >= 0, not {v!r}")
            if v != default:
                opts.append((key, str(int(v))))
        args.done()
        return Measure(family, () if k is None else (k,), None, tuple(sorted(opts)))

    return make


def _rbp_ext(name, at, args: _Args) -> Measure:
    """The canonical name: ``rbp_ext(binary_at=2,p=0.9)``."""
    level = args.pop("binary_at")
    if level is not None:
        args.items["rel"] = level
    return _rbp(name, at, args)


def _compat(name, at, args: _Args) -> Measure:
    _no_cutoff(name, at, args)
    opts = _number_option(name, args, "p", 0.95, high=math.inf)
    if "normalize" in args.items and not args.flag("normalize"):
        opts.append(("normalize", "false"))
    args.done()
    return Measure("compat", (), None, tuple(sorted(opts)))


def _accuracy(name, at, args: _Args) -> Measure:
    k = _cutoff(name, at, args, required=False)
    rel = _level_at_least_1(name, args.rel())
    args.done()
    return Measure("Accuracy", (extra.WHOLE_RANKING if k is None else k,), rel)


def _num_q(name, at, args: _Args) -> Measure:
    _no_cutoff(name, at, args)
    args.done()
    return _trec("num_q")


def _rr(name, at, args: _Args) -> Measure:
    k = _cutoff(name, at, args, required=False)
    rel = args.rel()
    args.done()
    return _trec("recip_rank", rel=rel) if k is None else _trec("rr_cut", str(k), rel)


def _dcg(name, at, args: _Args) -> Measure:
    k = _cutoff(name, at, args, required=True)
    gain = str(args.pop("gain", "linear"))
    if gain not in ("linear", "exp"):
        raise ValueError(f"{name}: gain must be linear or exp, not {gain!r}")
    args.done()
    return Measure("dcg_cut", (k,), None, (("gain", gain),) if gain != "linear" else ())


_BUILDERS = {
    "AP": _ap,
    "RR": _rr,
    "DCG": _dcg,
    "F1": _cut("f1_cut"),
    "Hits": _cut("hits"),
    "nDCG": _ndcg,
    "P": _cut("P"),
    "R": _cut("recall"),
    "Rprec": _simple("Rprec"),
    "Bpref": _simple("bpref"),
    "Success": _cut("success"),
    "infAP": _simple("infAP"),
    "IPrec": _iprec,
    "NumQ": _num_q,
    "NumRet": _num_ret,
    "NumRelRet": _num_ret,
    "NumRel": _simple("num_rel"),
    "SetP": _set_p,
    "SetRelP": _set_p,
    "SetR": _simple("set_recall"),
    "SetF": _set_f,
    "SetAP": _simple("set_map"),
    "RBP": _rbp,
    "ERR": _own_cut("ERR"),
    "Compat": _compat,
    "INST": _cwl("inst", False),
    "INSQ": _cwl("insq", False),
    "BPM": _cwl("bpm", True),
    "SDCG": _cwl("sdcg", True),
    "NERR8": _cwl("nerr8", True),
    "NERR9": _cwl("nerr9", True),
    "NERR10": _cwl("nerr10", False),
    "NERR11": _cwl("nerr11", False),
    "Accuracy": _accuracy,
    "Judged": _own_cut("Judged"),
    # canonical names of the variant families, e.g. "ndcg_ext(gain=exp)"
    "ndcg_ext": _ndcg,
    "map_ext": _ap,
    "rbp_ext": _rbp_ext,
}


def __getattr__(name: str):
    if name == "IR_MEASURES_NAMES":
        # every ir_measures name understood here (aliases included), from the registry: asked when
        # used, so that families registered after this module are in it
        return tuple(
            dict.fromkeys(n for fam in FAMILIES.values() if fam.ir_measures for n in (fam.ir_measures, *fam.aliases))
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_ir_measures(text: str) -> list[Measure] | None:
    """The measure named by an ir_measures-style name, as a one-element list;
    None when ``text`` is not such a name.  Raises ValueError when it is one
    but its parameters are not supported."""
    read = _read(text)
    if read is None:
        return None
    name, args, at = read
    name = _aliases().get(name, name)
    builder = _BUILDERS.get(name)
    if builder is None:
        from metrics.measures.diversity import parse_diversity

        if parse_diversity(text) is not None:
            raise ValueError(
                f"measure {text.strip()!r} needs intent-annotated qrels (qid intent docid grade): "
                "use metrics.evaluate_diversity"
            )
        return None
    if name in _SET_AT_K and (at is not None or "cutoff" in args):
        raise ValueError(_set_cutoff_refusal(text, name, args, at))
    try:
        arguments = _Args(name, args)
        judged = name in JUDGED_ONLY and arguments.flag("judged_only")
        m = builder(name, at, arguments)
    except (ValueError, TypeError, SyntaxError) as e:
        raise ValueError(f"measure {text.strip()!r}: {e}") from None
    return [with_judged_only(m) if judged else m]


#: set measures (over the whole retrieved list) and the measure of the first k documents that a cutoff
#: given to them asks for: ``SetP(rel=2)@5`` is refused, naming ``P(rel=2)@5``
_SET_AT_K = {"SetP": "P", "SetR": "R", "SetAP": "AP", "SetF": "F1"}


def _set_cutoff_refusal(text: str, name: str, args: dict, at) -> str:
    """The sentence refusing a set measure with a cutoff, naming what to write for the first k documents
    (ir_measures refuses these names too, "unsupported params found: ['cutoff']")."""
    k = at if at is not None else args.get("cutoff")
    kept = {key: value for key, value in args.items() if key != "cutoff"}
    sentence = f"measure {text.strip()!r}: {name} is a set measure, over the whole retrieved list, and takes no cutoff"
    if set(kept) <= {"rel", "judged_only"} and not (name == "SetR" and "judged_only" in kept):
        inner = ",".join(f"{key}={value}" for key, value in kept.items())
        sentence += f"; for the first {k} documents write {_compose(_SET_AT_K[name], [inner] if inner else [], k)}"
    return sentence


#: the measures for which ir_measures has a ``judged_only`` parameter (and the ndcg/map variants)
JUDGED_ONLY = (
    *("P", "RR", "Rprec", "AP", "nDCG", "R", "SetAP", "SetF", "SetP", "SetRelP", "Success", "IPrec"),
    *("ndcg_ext", "map_ext"),
)
JUDGED_ONLY_OPTION = ("judged_only", "true")


def with_judged_only(m: Measure) -> Measure:
    """``m`` computed on its own ranking without the unjudged documents (ir_measures' ``judged_only=True``):
    the option ``judged_only=true``, which the evaluator applies to the ranking, not to the family."""
    return Measure(m.family, m.params, m.rel, tuple(sorted(set(m.options) | {JUDGED_ONLY_OPTION})), m.trec_text)


syntax(parse_ir_measures)


# ranx's metric names (ranx 0.3), as the ir_measures names they stand for
_RANX = {
    "precision": "P",
    "recall": "R",
    "mrr": "RR",
    "ndcg": "nDCG",
    "ndcg_burges": "nDCG(gain=exp)",
    "hit_rate": "Success",
    "hits": "Hits",
    "f1": "F1",
    "r-precision": "Rprec",
    "r_precision": "Rprec",
    "map": "AP",
    "dcg": "DCG",
    "dcg_burges": "DCG(gain=exp)",
    "bpref": "Bpref",
}
#: ranx's names without a cutoff that are over the whole retrieved list (ranx's k=0): set measures
_RANX_WHOLE_LIST = {"precision": "SetP", "f1": "SetF"}  # (bare "recall" is trec_eval's family)
_RANX_NAME = re.compile(r"\s*([a-z_][a-z0-9_-]*)\s*(?:@\s*(\d+))?\s*")


def parse_ranx(text: str) -> list[Measure] | None:
    """ranx's names (``precision@10``, ``mrr@10``, ``ndcg_burges@10``, ``hit_rate@10``, ``r-precision``,
    ``map@100``, ...) as the measures they compute; None for other names.  Lower-case only, so that
    trec_eval's and ir_measures' own names keep their meaning (``map`` is the same measure either way)."""
    m = _RANX_NAME.fullmatch(text)
    if m is None or m.group(1) not in _RANX:
        return None
    if m.group(2) is None and m.group(1) in _RANX_WHOLE_LIST:
        return parse_ir_measures(_RANX_WHOLE_LIST[m.group(1)])
    name = _RANX[m.group(1)] + ("" if m.group(2) is None else f"@{m.group(2)}")
    return parse_ir_measures(name)


syntax(parse_ranx)


# ------------------------------------------------------------------ writing


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _compose(name: str, args: list[str], at=None) -> str:
    return name + (f"({','.join(args)})" if args else "") + ("" if at is None else f"@{at}")


# ir_measures' names that take no relevance level
_NO_REL = frozenset(
    {
        "nDCG",
        "NumQ",
        "RBP",
        "ERR",
        "Judged",
        "Compat",
        "INST",
        "INSQ",
        "BPM",
        "SDCG",
        "NERR8",
        "NERR9",
        "NERR10",
        "NERR11",
    }
)


def _write_ndcg(m: Measure, name: str, rel: list[str]) -> str | None:
    if not m.params:
        return name
    try:
        gains = ",".join(f"{int(g)}:{_num(v)}" for g, v in m.params)
    except (TypeError, ValueError):
        return None
    return f"{name}(gains={{{gains}}})"


def _write_set_f(m: Measure, name: str, rel: list[str]) -> str | None:
    beta = float(m.params[0]) if m.params else 1.0
    return _compose(name, rel + ([] if beta == 1.0 else [f"beta={_num(beta)}"]))


def _write_own_cut(m: Measure, name: str, rel: list[str]) -> str | None:
    k = m.params[0]
    return _compose(name, [f"{a}={b}" for a, b in m.options], None if k == extra.WHOLE_RANKING else k)


def _write_ndcg_ext(m: Measure, name: str, rel: list[str]) -> str | None:
    k = m.params[0]
    args = []
    for a, b in m.options:
        if a == "gains":  # 1:3;2:9 -> {1:3,2:9}
            b = "{" + ",".join(f"{g}:{_num(v)}" for g, v in extra.ndcg_options(gains=b).gains) + "}"
        args.append(f"{a}={b}")
    return _compose(name, args, None if k == extra.WHOLE_RANKING else k)


def _write_rbp_ext(m: Measure, name: str, rel: list[str]) -> str | None:
    opts = dict(m.options)
    args = ([f"p={opts['p']}"] if "p" in opts else []) + ([f"rel={opts['binary_at']}"] if "binary_at" in opts else [])
    k = m.params[0]
    return _compose(name, args, None if k == extra.WHOLE_RANKING else k)


def _write_cwl(m: Measure, name: str, rel: list[str]) -> str | None:
    opts = dict(m.options)
    args = [f"{key}={opts[key]}" for key in ("T", "p", "min_rel", "max_rel") if key in opts]
    return _compose(name, args, m.params[0] if m.params else None)


def _write_accuracy(m: Measure, name: str, rel: list[str]) -> str | None:
    k = m.params[0]
    return _compose(name, rel, None if k == extra.WHOLE_RANKING else k)


def _write_map_ext(m: Measure, name: str, rel: list[str]) -> str | None:
    return _compose(name, rel + ["interpolated"]) if m.options == (("precision", "interpolated"),) else None


# families whose ir_measures name is written by hand (the others: ``Name(rel=r)`` or ``Name(rel=r)@k``)
_WRITERS = {
    "ndcg": _write_ndcg,
    "iprec_at_recall": lambda m, name, rel: _compose(name, rel, repr(float(m.params[0]))),
    "set_F": _write_set_f,
    "ERR": _write_own_cut,
    "Judged": _write_own_cut,
    "ndcg_ext": _write_ndcg_ext,
    "map_ext": _write_map_ext,
    "rbp_ext": _write_rbp_ext,
    "compat": lambda m, name, rel: _compose(name, [f"{a}={'False' if b == 'false' else b}" for a, b in m.options]),
    "inst": _write_cwl,
    "insq": _write_cwl,
    "bpm": _write_cwl,
    "sdcg": _write_cwl,
    "nerr8": _write_cwl,
    "nerr9": _write_cwl,
    "nerr10": _write_cwl,
    "nerr11": _write_cwl,
    "Accuracy": _write_accuracy,
}
# families whose options are part of their ir_measures name
_WITH_OPTIONS = (
    *("ndcg_ext", "map_ext", "rbp_ext", "compat", "inst", "insq", "bpm", "sdcg"),
    *("nerr8", "nerr9", "nerr10", "nerr11"),
)


def ir_measures_name(m: Measure) -> str | None:
    """The ir_measures-style name of ``m`` (``parse_measures`` of it gives
    ``m`` back), or None when ir_measures has no name for it.  The name is the
    family's registered ``ir_measures`` name."""
    if JUDGED_ONLY_OPTION in m.options:
        base = _ir_measures_name(
            Measure(m.family, m.params, m.rel, tuple(o for o in m.options if o != JUDGED_ONLY_OPTION))
        )
        read = None if base is None else _read(base)
        if base is None or read is None:
            return None
        bare, _, at = read
        if _aliases().get(bare, bare) not in JUDGED_ONLY:
            return None
        inner = base[len(bare) :].partition("@")[0]
        listed = inner[1:-1] if inner.startswith("(") else ""
        return _compose(bare, ["judged_only=True"] + ([listed] if listed else []), at)
    return _ir_measures_name(m)


def _ir_measures_name(m: Measure) -> str | None:
    fam = FAMILIES.get(m.family)
    name = fam.ir_measures if fam is not None else None
    if fam is None or name is None:
        return None
    if m.options and m.family not in _WITH_OPTIONS:
        return None
    if m.rel is not None and name in _NO_REL:
        return None
    rel = [] if m.rel is None else [f"rel={m.rel}"]
    writer = _WRITERS.get(m.family)
    if writer is not None:
        return writer(m, name, rel)
    if isinstance(fam.params, NoParams):
        return _compose(name, rel)
    if type(fam.params) is LongCutoffs:
        return _compose(name, rel, m.params[0])
    return None
