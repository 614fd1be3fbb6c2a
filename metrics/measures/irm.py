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

The syntax is read in :mod:`metrics.measures.irm_syntax`, each family is built in
:mod:`metrics.measures.irm_builders`, and :mod:`metrics.measures.irm_names` writes a measure back
(tests/test_metrics/measures/test_measures_extra.py checks that writing stays the inverse of reading for every family).
"""

from __future__ import annotations

import re

from metrics.measures.irm_builders import _BUILDERS
from metrics.measures.irm_names import _compose, ir_measures_name
from metrics.measures.irm_syntax import JUDGED_ONLY, JUDGED_ONLY_OPTION, _Args, aliases, read_measures
from metrics.measures.registry import FAMILIES, Measure, ambiguous_names, syntax

__all__ = ["parse_ir_measures", "ir_measures_name", "IR_MEASURES_NAMES"]  # noqa: F822  (module __getattr__)


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
    read = read_measures(text)
    if read is None:
        return None
    name, args, at = read
    name = aliases().get(name, name)
    builder = _BUILDERS.get(name)
    if builder is None:
        from metrics.measures.registry import is_intent_name

        if is_intent_name(text):
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
#: ranx's names and the ir_measures names they stand for (``ir-eval --list-measures``)
RANX_NAMES = dict(_RANX)
#: ranx's names without a cutoff that are over the whole retrieved list (ranx's k=0): set measures
_RANX_WHOLE_LIST = {"precision": "SetP", "f1": "SetF"}  # (bare "recall" is trec_eval's family)
#: a ranx name: the metric, a cutoff (``@10``) or rbp's persistence (``rbp.95``), a relevance level (``-l2``)
_RANX_NAME = re.compile(r"\s*([a-z_][a-z0-9_-]*?)\s*(?:@\s*(\d+)|\.(\d+))?\s*(?:-l(\d+))?\s*")


def _ranx_rbp(text: str, digits: str | None, level: str | None, dot: bool) -> list[Measure]:
    """ranx's ``rbp.95`` and ``rbp@95`` (the digits are the persistence's decimals either way) are refused:
    each names two measures here.  ``rbp.95`` is trec_eval's ``rbp`` with a parameter trec_eval refuses
    (``malformed pair parameters``), which may mean trec_eval's ``rbp.p=0.95`` (grades rescaled) or ranx's
    RBP, ir_measures' ``RBP(p=0.95)`` (grades as gains); ``rbp@95`` reads as ir_measures' ``RBP@95`` (the
    first 95 documents) as well as ranx's persistence 0.95.  The error names both spellings."""
    if digits is None:
        raise ValueError(f"ranx's {text.strip()!r} needs its persistence: rbp.95, which is RBP(p=0.95) here")
    p = float(f"0.{digits}")
    if level is not None and int(level) != 1:
        raise ValueError(
            f"ranx's {text.strip()!r} (the grades from {level} up as gains) has no counterpart here; "
            f"RBP(p={p:g}) gains every positive grade, RBP(p={p:g},rel={level}) gains 1 from grade {level} up"
        )
    if dot:
        raise ValueError(
            f"measure {text.strip()!r}: trec_eval refuses it (malformed pair parameters in {digits!r}); "
            f"did you mean trec_eval's rbp with persistence {p:g} (grades rescaled), rbp.p={p:g}, or ranx's "
            f"rbp.{digits}, ir_measures' RBP(p={p:g}) (the grades as gains)?"
        )
    raise ValueError(
        f"measure {text.strip()!r} means two things: ranx's persistence {p:g}, RBP(p={p:g}), or "
        f"ir_measures' cutoff, RBP@{digits} (the first {digits} documents, p=0.8); write one of these"
    )


def _ranx_level(text: str, name: str, level: int) -> str:
    """The ir_measures name of ranx's ``name`` at relevance level ``level`` (``precision@10-l2``)."""
    if name == "ndcg":  # ranx drops the judgments below the level: they gain nothing, the others their grade
        return "nDCG(gains={" + ",".join(f"{g}:0" for g in range(1, level)) + "})"
    if "(" in _RANX[name]:
        raise ValueError(f"ranx's {text.strip()!r} has no counterpart here (a relevance level on {name})")
    return f"{_RANX[name]}(rel={level})"


def parse_ranx(text: str) -> list[Measure] | None:
    """ranx's names (``precision@10``, ``mrr@10``, ``ndcg_burges@10``, ``hit_rate@10``, ``r-precision``,
    ``map@100``, a relevance level as in ``precision@10-l2``) as the measures they compute (``rbp.95``: refused
    naming its two readings); None
    for other names.  Lower-case only, so that trec_eval's and ir_measures' own names keep their meaning
    (``map`` is the same measure either way)."""
    m = _RANX_NAME.fullmatch(text)
    if m is None:
        return None
    name, cutoff, decimals, level = m.groups()
    if name == "rbp":
        return _ranx_rbp(text, decimals if decimals is not None else cutoff, level, decimals is not None)
    if name not in _RANX or decimals is not None:
        return None
    if cutoff is None and name in _RANX_WHOLE_LIST:
        base = _RANX_WHOLE_LIST[name]
        if level is not None and int(level) != 1:
            base = f"{base}(rel={int(level)})"
    elif level is not None and int(level) != 1:
        base = _ranx_level(text, name, int(level))
    else:
        base = _RANX[name]
    return parse_ir_measures(base + ("" if cutoff is None else f"@{cutoff}"))


syntax(parse_ranx)
setattr(parse_ranx, "names", tuple(_RANX))  # the names difflib suggests from (registry.known_names)


#: BEIR's ``Accuracy@k`` under a name that says what it is: the share of queries with a relevant document among
#: the first k, i.e. the mean of ``Success@k`` (over every qrels query, as BEIR divides by them: ``complete``)
_TOP_K_ACCURACY = r"\s*(?:top_k_accuracy|TopKAccuracy)\s*@\s*(\d+)\s*"  # compiled when first used (re's cache)
#: ir_measures' Accuracy with only a cutoff: what BEIR's users write for another measure
_AMBIGUOUS_ACCURACY = re.compile(r"\s*Accuracy\s*@\s*(\d+)\s*")


@syntax
def parse_top_k_accuracy(text: str) -> list[Measure] | None:
    """``top_k_accuracy@10`` (BEIR's function) or ``TopKAccuracy@10``: BEIR's Accuracy@10, Success@10."""
    m = re.fullmatch(_TOP_K_ACCURACY, text)
    return None if m is None else parse_ir_measures(f"Success@{m.group(1)}")


setattr(parse_top_k_accuracy, "names", ("top_k_accuracy", "TopKAccuracy"))


@ambiguous_names
def ambiguity(text: str) -> str | None:
    """The warning for a name that two tools read differently (``Accuracy@10``: ir_measures' measure here, not
    BEIR's), else None."""
    m = _AMBIGUOUS_ACCURACY.fullmatch(text)
    if m is None:
        return None
    k = m.group(1)
    return (
        f"'{text.strip()}' is read as ir_measures' Accuracy@{k} (the share of (relevant, non-relevant) pairs among "
        f"the first {k} where the relevant document ranks first); BEIR's Accuracy@{k}, the share of "
        f"queries with a relevant document among the first {k}, is top_k_accuracy@{k} (Success@{k}; with "
        "complete=True, as BEIR counts every qrels query)"
    )


@syntax(before_trec=True)
def parse_ranx_spellings(text: str) -> list[Measure] | None:
    """ranx's spellings that trec_eval's and ir_measures' syntax would misread: ``rbp.95`` and a relevance
    level (``ndcg@10-l2``); None for any other text."""
    m = _RANX_NAME.fullmatch(text)
    if m is None or not (m.group(1) == "rbp" and (m.group(2) or m.group(3)) or m.group(4) is not None):
        return None
    return parse_ranx(text)


# ------------------------------------------------------------------ writing
