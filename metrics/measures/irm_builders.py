"""How each ir_measures family, with its parameters, becomes this project's measure (trec_eval's, or one
of the extra families), or a refusal that says what to write instead."""

from __future__ import annotations

import math

from metrics.measures import extra
from metrics.measures.irm_names import _num
from metrics.measures.irm_syntax import _Args
from metrics.measures.registry import FAMILIES, Measure


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
    over = str(args.pop("over", "all")).strip().lower()
    if kind not in ("observed", "interpolated"):
        raise ValueError(f"{name}: precision must be observed or interpolated, not {kind!r}")
    if over not in ("all", "retrieved"):
        raise ValueError(f"{name}: over must be all or retrieved, not {over!r}")
    args.done()
    options = tuple(sorted({"precision": kind, "over": over}.items() - {("precision", "observed"), ("over", "all")}))
    if options:
        if k is not None:
            raise ValueError(f"{name}: interpolated AP and AP over the relevant retrieved are for the whole ranking")
        return Measure("map_ext", (), rel, options)
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
