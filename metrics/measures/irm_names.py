"""A measure written back in ir_measures' syntax (:func:`ir_measures_name`), so that the names a user
typed are the names the results carry."""

from __future__ import annotations

from metrics.measures import extra
from metrics.measures.irm_syntax import JUDGED_ONLY, JUDGED_ONLY_OPTION, aliases, read_measures
from metrics.measures.registry import FAMILIES, LongCutoffs, Measure, NoParams


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
    options = dict(m.options)
    if set(options) - {"precision", "over"}:
        return None
    args = rel + (["interpolated"] if options.get("precision") == "interpolated" else [])
    args += ["over=retrieved"] if options.get("over") == "retrieved" else []
    return _compose(name, args)


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
        read = None if base is None else read_measures(base)
        if base is None or read is None:
            return None
        bare, _, at = read
        if aliases().get(bare, bare) not in JUDGED_ONLY:
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
