"""Measures beyond trec_eval: textbook nDCG and AP variants, ERR, Judged.

``ndcg_ext`` -- nDCG with a choice of gain, discount and ideal ranking.
With the default options it is trec_eval's ``ndcg`` (whole ranking) and
``ndcg_cut`` (at a cutoff), to the last bit.  Options (values are text, as in
a measure name such as ``ndcg_ext_10(discount=jk,gain=exp)``):

* ``gain``: ``linear`` (the grade, trec_eval) or ``exp`` (2**grade - 1).
  Documents that are not judged, or judged with a grade <= 0, gain 0.
* ``discount``: ``log`` (divide the gain at rank i by log_b(i + 1), trec_eval
  with b = 2) or ``jk`` (Järvelin and Kekäläinen 2002: divide by log_b(i),
  ranks i < b undiscounted, so rank 1 always is).
* ``base``: the base b of the logarithm (a number > 1, default 2).  With the
  ``log`` discount it scales DCG and ideal DCG alike, so nDCG does not depend
  on it and measure names leave it out; it matters for ``jk`` (and for DCG
  itself, see :func:`metrics.engine.curves.at_k`).
* ``ideal``: ``all`` (ideal ranking of all judged documents of the query,
  retrieved or not: trec_eval) or ``retrieved`` (the retrieved documents of
  the query, reordered by decreasing gain).
* ``gains``: grade -> gain pairs written ``1:3;2:9`` (ir_measures'
  ``nDCG(gains={1: 3, 2: 9})@10``): each judged document's grade is replaced
  by its gain before the ``gain`` function applies, grades not listed keep
  their own value (ir_measures maps the qrels the same way, ``gains.get(grade,
  grade)``); the ideal ranking orders the judged documents by the mapped
  gain.  Grades and gains must be >= 0 (a negative grade is "unjudged" here,
  whatever its value).

nDCG is DCG / ideal DCG, both over the first k ranks for a cutoff k; 0 when
the ideal DCG is 0 (no document with positive gain).  Sums run left to right
over the ranks, as trec_eval's.

``map_ext`` -- average precision with ``precision=observed`` (trec_eval's
``map``) or ``precision=interpolated``: each retrieved relevant document
contributes the interpolated precision at its rank (the highest precision at
that rank or below it, trec_eval's definition for ``iprec_at_recall``)
instead of the precision there; the sum is divided by the number of relevant
documents, retrieved or not (``over=all``), or, with ``over=retrieved``, by
the number of relevant documents retrieved (the textbook definition that sums
P(k) x rel(k) over the ranking and divides by the sum of rel(k)).

``ERR`` -- expected reciprocal rank as computed by the TREC Web track's
``gdeval.pl`` (ir_measures' ``ERR@k``): the stopping probability at a
document of grade g is (2**g - 1) / 2**4 (maximum grade 4; grades above it
are refused, as gdeval does; negative grades and unjudged documents count 0),
ERR@k = sum over ranks i <= k of R_i / i * prod over j < i of (1 - R_j).

``Judged`` -- ir_measures' judgment rate: the fraction of the first
min(k, num_ret) retrieved documents that appear in the qrels of the query
(with any grade, negative ones included).

For ``ndcg_ext``, ``ERR`` and ``Judged`` the cutoff 0 (the default, written
without a suffix: ``ERR``, ``Judged``) means the whole ranking.
"""

from __future__ import annotations

import functools
import math
import re
from typing import NamedTuple

import numpy as np

from metrics.measures._kernels import (
    at_depth,
    cutoff_matrix,
    ranks_within,
    segment_accumulate,
    segment_count,
    segment_cumsum,
    segment_total,
)
from metrics.measures.registry import LongCutoffs, measure
from metrics.ranking.judged import NONPOOL

__all__ = ["NDCG_DEFAULTS", "NdcgOptions", "ndcg_options", "dcg_matrices", "ERR_MAX_GRADE", "WHOLE_RANKING"]

#: the cutoff value meaning "no cutoff" for the families of this module
WHOLE_RANKING = 0
#: gdeval.pl's maximum grade (``$MAX_JUDGMENT``)
ERR_MAX_GRADE = 4

#: trec_eval's nDCG, the default of every nDCG option (the one place they are written: the ``ndcg_ext``
#: family's registered options, :class:`NdcgOptions` and the window read them)
NDCG_DEFAULTS = {"gain": "linear", "discount": "log", "base": "2", "ideal": "all"}

_GAINS = ("linear", "exp")
_DISCOUNTS = ("log", "jk")
_IDEALS = ("all", "retrieved")


class OptionalCutoffs(LongCutoffs):
    """Integer rank cutoffs where 0 stands for the whole ranking.

    One measure per cutoff, named ``<family>_<k>``, or ``<family>`` for 0.
    """

    def __init__(self, *default: int):
        super().__init__(*(default or (WHOLE_RANKING,)))

    def parse(self, text: str) -> tuple:
        values = []
        for t in text.split(","):
            t = t.strip()
            if not re.fullmatch(r"\d+", t):
                raise ValueError(f"cutoff must be a non-negative integer, not {t!r}")
            values.append(int(t))
        values.sort()
        if len(set(values)) != len(values):
            raise ValueError("duplicate cutoffs")
        return tuple(values)

    def suffix(self, params: tuple) -> str:
        return "" if params[0] == WHOLE_RANKING else f"_{params[0]}"

    def trec_suffix(self, params: tuple, text: str | None) -> str:
        return self.suffix(params)

    def from_suffix(self, text: str) -> tuple:
        if not re.fullmatch(r"[1-9]\d*", text):
            raise ValueError(text)
        return (int(text),)


# ------------------------------------------------------------------ options


def _format_number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


class NdcgOptions(NamedTuple):
    """Validated nDCG options (see the module docstring); a named tuple, defined at every start for a tenth
    of a frozen dataclass's cost."""

    gain: str = NDCG_DEFAULTS["gain"]
    discount: str = NDCG_DEFAULTS["discount"]
    base: float = float(NDCG_DEFAULTS["base"])
    ideal: str = NDCG_DEFAULTS["ideal"]
    #: (grade, gain) pairs, sorted by grade; empty: the gain of a grade is the grade
    gains: tuple = ()

    def non_default(self) -> tuple[tuple[str, str], ...]:
        """The options that differ from trec_eval's, as sorted (name, text) pairs:
        the ``options`` of a canonical :class:`~metrics.measures.registry.Measure`."""
        default = NdcgOptions()
        out = []
        for name in ("base", "discount", "gain", "gains", "ideal"):
            if name == "base" and self.discount == "log":
                continue  # log_b(i+1) scales DCG and ideal DCG alike: nDCG does not depend on b
            value = getattr(self, name)
            if value != getattr(default, name):
                if name == "gains":
                    value = gains_text(value)
                out.append((name, _format_number(value) if name == "base" else value))
        return tuple(out)

    @property
    def is_trec(self) -> bool:
        """True when the nDCG these options give is trec_eval's."""
        return not self.non_default()


def gains_text(pairs) -> str:
    """``((1, 3.0), (2, 9.0))`` as the option text ``1:3;2:9``."""
    return ";".join(f"{g}:{_format_number(v)}" for g, v in pairs)


def _gain_pairs(gains) -> tuple:
    """(grade, gain) pairs, sorted, from a dict, pairs or the option text ``1:3;2:9``; an identity
    mapping (every gain equal to its grade) is no mapping."""
    if isinstance(gains, str):
        items = []
        for part in filter(None, (t.strip() for t in gains.split(";"))):
            g, sep, v = part.partition(":")
            if not sep:
                raise ValueError(f"nDCG gains must be grade:gain pairs, not {part!r}")
            items.append((g.strip(), v.strip()))
    elif isinstance(gains, dict):
        items = list(gains.items())
    else:
        items = list(gains)
    out = {}
    for g, v in items:
        try:
            gf, vf = float(g), float(v)
        except (TypeError, ValueError):
            raise ValueError(f"nDCG gains: grade {g!r} and gain {v!r} must be numbers") from None
        if isinstance(g, bool) or not gf.is_integer() or gf < 0:
            raise ValueError(f"nDCG gains: grades must be whole numbers >= 0, not {g!r}")
        if not math.isfinite(vf) or vf < 0:
            raise ValueError(f"nDCG gains: gains must be finite numbers >= 0, not {v!r}")
        if int(gf) in out:
            raise ValueError(f"nDCG gains: grade {int(gf)} given twice")
        out[int(gf)] = vf
    return tuple(sorted((g, v) for g, v in out.items() if v != g))


def ndcg_options(
    gain=NDCG_DEFAULTS["gain"],
    discount=NDCG_DEFAULTS["discount"],
    base=NDCG_DEFAULTS["base"],
    ideal=NDCG_DEFAULTS["ideal"],
    gains=(),
) -> NdcgOptions:
    """Check and normalise nDCG options given as text or values.

    ``discount="log2"`` is accepted for ``log``; ``base`` may be text;
    ``gains`` a dict, (grade, gain) pairs or the text ``1:3;2:9``.
    Raises ValueError for anything else.
    """
    gain, discount, ideal = str(gain).strip().lower(), str(discount).strip().lower(), str(ideal).strip().lower()
    if discount == "log2":
        discount = "log"
    if gain not in _GAINS:
        raise ValueError(f"nDCG gain must be one of {', '.join(_GAINS)}, not {gain!r}")
    if discount not in _DISCOUNTS:
        raise ValueError(f"nDCG discount must be one of {', '.join(_DISCOUNTS)}, not {discount!r}")
    if ideal not in _IDEALS:
        raise ValueError(f"nDCG ideal must be one of {', '.join(_IDEALS)}, not {ideal!r}")
    try:
        b = float(base)
    except (TypeError, ValueError):
        raise ValueError(f"nDCG base must be a number, not {base!r}") from None
    if not (math.isfinite(b) and b > 1.0):
        raise ValueError(f"nDCG base must be a finite number > 1, not {base!r}")
    return NdcgOptions(gain=gain, discount=discount, base=b, ideal=ideal, gains=_gain_pairs(gains))


# ------------------------------------------------------------------ kernels


def gain_values(grades: np.ndarray, gain: str, mapping: tuple = ()) -> np.ndarray:
    """Gain per relevance code; codes <= 0 (non-relevant, not judged) gain 0.  ``mapping``: (grade,
    value) pairs replacing the grade of judged documents (codes >= 0) before the gain applies."""
    g = np.asarray(grades)
    if mapping:
        mapped = g.astype(np.float64)
        for grade, value in mapping:
            mapped[g == grade] = value
        g = mapped
    pos = g > 0
    if gain == "exp":
        return np.where(pos, np.exp2(np.where(pos, g, 0).astype(np.float64)) - 1.0, 0.0)
    return np.where(pos, g, 0).astype(np.float64)


def discount_table(n: int, opts: NdcgOptions) -> np.ndarray:
    """Divisor of the gain at each 0-based rank < n, through the C library's
    log2 / log (as trec_eval), element by element; read-only.  Tables of up
    to 4,096 ranks are kept (every run of a collection asks for the same)."""
    return _kept_discount_table(n, opts) if n <= 4096 else _make_discount_table(n, opts)


@functools.lru_cache(maxsize=32)
def _kept_discount_table(n: int, opts: NdcgOptions) -> np.ndarray:
    return _make_discount_table(n, opts)


def _make_discount_table(n: int, opts: NdcgOptions) -> np.ndarray:
    ranks = range(1, n + 1)  # 1-based
    xs = [i + 1 for i in ranks] if opts.discount == "log" else list(ranks)
    if opts.base == 2.0:
        d = [math.log2(x) for x in xs]
    else:
        lb = math.log(opts.base)
        d = [math.log(x) / lb for x in xs]
    if opts.discount == "jk":
        d = [1.0 if i < opts.base else v for i, v in zip(ranks, d)]
    table = np.asarray(d, dtype=np.float64).reshape(n)
    table.flags.writeable = False
    return table


def ideal_all(r, opts: NdcgOptions):
    """Ideal gains of every query from its judged grades, best first, laid
    end to end: (gains, offsets)."""
    levels = r.rel_levels  # (nq, max_grade + 1)
    nq = r.n_queries
    # the grades in decreasing order of gain (best first), those with a positive gain only
    gain_of = gain_values(np.arange(levels.shape[1]), opts.gain, opts.gains)
    grades = np.argsort(-gain_of, kind="stable")
    grades = grades[gain_of[grades] > 0]
    if not len(grades):
        return np.zeros(0), np.zeros(nq + 1, dtype=np.int64)
    counts = levels[:, grades]  # (nq, len(grades))
    per_query = counts.sum(axis=1)
    offsets = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(per_query, out=offsets[1:])
    g = np.repeat(np.broadcast_to(gain_of[grades], counts.shape).ravel(), counts.ravel())
    return g, offsets


def ideal_retrieved(r, gains: np.ndarray):
    """Ideal gains from the retrieved documents only: positive gains of each
    query sorted decreasing, (gains, offsets)."""
    pos = gains > 0
    q = r.qidx[pos]
    g = gains[pos]
    order = np.lexsort((-g, q))
    per_query = np.bincount(q, minlength=r.n_queries)
    offsets = np.zeros(r.n_queries + 1, dtype=np.int64)
    np.cumsum(per_query, out=offsets[1:])
    return g[order], offsets


def _prefix_dcg(gains: np.ndarray, offsets: np.ndarray, opts: NdcgOptions) -> np.ndarray:
    lengths = np.diff(offsets)
    rank0 = ranks_within(offsets)
    table = discount_table(int(lengths.max()) if len(lengths) else 0, opts)
    contrib = np.where(gains != 0, gains / table[rank0], 0.0) if len(gains) else np.zeros(0)
    return segment_cumsum(contrib, offsets)


def _top(x: np.ndarray, offsets: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``depth`` values of each segment of ``x``, and their offsets (the running sums within a
    segment, sequential from its start, are the same for those ranks)."""
    lengths = np.diff(offsets)
    if not len(lengths) or lengths.max() <= depth:
        return x, offsets
    kept = np.minimum(lengths, depth)
    return x[ranks_within(offsets) < depth], np.concatenate([[0], np.cumsum(kept)]).astype(offsets.dtype)


def dcg_matrices(r, cutoffs, opts: NdcgOptions = NdcgOptions()):
    """DCG and ideal DCG at each cutoff: two ``(n_queries, len(cutoffs))``
    arrays.  A cutoff of 0 means the whole ranking (whole ideal ranking)."""
    cut = np.asarray(cutoffs, dtype=np.int64)
    gains = gain_values(r.rel, opts.gain, opts.gains)
    top, offsets = gains, r.offsets
    if len(cut) and not (cut == WHOLE_RANKING).any():
        top, offsets = _top(gains, offsets, int(cut.max()))  # the ranks below the deepest cutoff are not read
    prefix = _prefix_dcg(top, offsets, opts)
    big = np.iinfo(np.int64).max
    depth = cutoff_matrix(r.n_queries, np.where(cut == WHOLE_RANKING, big, cut))
    dcg = at_depth(prefix, offsets, depth, 0.0)
    if opts.ideal == "retrieved":
        igains, ioffsets = ideal_retrieved(r, gains)
    else:
        igains, ioffsets = ideal_all(r, opts)
    iprefix = _prefix_dcg(igains, ioffsets, opts)
    idcg = at_depth(iprefix, ioffsets, depth, 0.0)
    return dcg, idcg


def ndcg_ratio(dcg: np.ndarray, idcg: np.ndarray) -> np.ndarray:
    """DCG / ideal DCG element-wise; 0 where the ideal DCG is 0 (no relevant document)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(idcg > 0.0, dcg / np.where(idcg > 0.0, idcg, 1.0), 0.0)


# ----------------------------------------------------------------- families


@measure(
    "ndcg_ext",
    params=OptionalCutoffs(WHOLE_RANKING),
    options={**NDCG_DEFAULTS, "gains": ""},
    ir_measures="nDCG",
)
def ndcg_ext(r, cutoffs, **options):
    """nDCG with a choice of gain (linear | exp), discount (log: log_b(i+1) |
    jk: log_b(i), ranks i < b undiscounted), base b, ideal ranking (all
    judged documents | retrieved documents) and grade -> gain mapping
    (``gains=1:3;2:9``).  DCG / ideal DCG over the first k ranks (whole
    ranking for cutoff 0); 0 when the ideal DCG is 0.  Defaults are
    trec_eval's ndcg / ndcg_cut.  Summary: mean."""
    unknown = set(options) - {"gain", "discount", "base", "ideal", "gains"}
    if unknown:
        raise ValueError(f"ndcg_ext: unknown options {sorted(unknown)}")
    dcg, idcg = dcg_matrices(r, cutoffs, ndcg_options(**options))
    return ndcg_ratio(dcg, idcg)


def _precision_prefix(r):
    isrel = r.isrel()
    return isrel, segment_count(isrel, r.offsets) / (r.rank + 1.0)


@measure("map_ext", options={"precision": "observed", "over": "all"}, ir_measures="AP")
def map_ext(r, **options):
    """Average precision; precision=observed is trec_eval's map, and
    precision=interpolated sums, over the retrieved relevant documents, the
    interpolated precision at their ranks (highest precision at that rank or
    any later one) instead.  Divided by the number of relevant documents
    (over=all, trec_eval's), or by the number of relevant documents retrieved
    (over=retrieved); 0 when none is retrieved.  Summary: mean."""
    kind = str(options.pop("precision", "observed")).strip().lower()
    over = str(options.pop("over", "all")).strip().lower()
    if options:
        raise ValueError(f"map_ext: unknown options {sorted(options)}")
    if kind not in ("observed", "interpolated"):
        raise ValueError(f"map_ext precision must be observed or interpolated, not {kind!r}")
    if over not in ("all", "retrieved"):
        raise ValueError(f"map_ext over must be all or retrieved, not {over!r}")
    isrel, prec = _precision_prefix(r)
    if kind == "interpolated":
        prec = segment_accumulate(prec, r.offsets, np.maximum, fill=-np.inf, reverse=True)
    total = segment_total(segment_cumsum(np.where(isrel, prec, 0.0), r.offsets), r.offsets)
    # trec_eval tests its own count of ranks with a code >= the level (at a
    # negative level more than num_rel_ret)
    found = segment_total(r.relcum, r.offsets, 0)
    divisor = r.num_rel if over == "all" else found
    return np.where(found > 0, total / np.maximum(divisor, 1), 0.0)


def _depths(r, cutoffs) -> np.ndarray:
    cut = np.asarray(cutoffs, dtype=np.int64)
    full = r.num_ret[:, None]
    return np.where(cut[None, :] == WHOLE_RANKING, full, np.minimum(cut[None, :], full))


@measure("ERR", params=OptionalCutoffs(WHOLE_RANKING), ir_measures="ERR")
def expected_reciprocal_rank(r, cutoffs):
    """Expected reciprocal rank, gdeval.pl's convention: stopping probability
    R = (2**g - 1) / 16 for grade g (grades above 4 raise ValueError; grades
    <= 0 and unjudged documents give 0); sum over the first k ranks of
    R_i / i times the product of (1 - R_j) above rank i.  Whole ranking for
    cutoff 0.  A query without relevant documents scores 0 (gdeval leaves it
    out).  Summary: mean."""
    if r.rel_levels.shape[1] > ERR_MAX_GRADE + 1:  # a judged grade (retrieved or not) above 4
        raise ValueError(f"ERR: grades above {ERR_MAX_GRADE} are not defined (gdeval's maximum grade)")
    stop = gain_values(r.rel, "exp") / float(2**ERR_MAX_GRADE)
    keep = segment_accumulate(1.0 - stop, r.offsets, np.multiply, fill=1.0)
    before = np.ones(len(stop))
    inner = np.ones(len(stop), dtype=bool)
    inner[r.offsets[:-1][np.diff(r.offsets) > 0]] = False
    before[inner] = keep[np.nonzero(inner)[0] - 1]
    prefix = segment_cumsum(stop * before / (r.rank + 1.0), r.offsets)
    return at_depth(prefix, r.offsets, _depths(r, cutoffs), 0.0)


@measure("Judged", params=OptionalCutoffs(WHOLE_RANKING), ir_measures="Judged")
def judged(r, cutoffs):
    """Judgment rate: retrieved documents among the first min(k, num_ret)
    that appear in the qrels (any grade) divided by min(k, num_ret); the
    whole ranking for cutoff 0; 0 for an empty ranking.  Summary: mean."""
    depth = _depths(r, cutoffs)
    hits = at_depth(segment_count(r.rel != NONPOOL, r.offsets), r.offsets, depth, 0)
    return np.where(depth > 0, hits / np.maximum(depth, 1), 0.0)


# ------------------------------------------------ cutoff measures of ir_measures and ranx


def _hits(r, cutoffs):
    k = cutoff_matrix(r.n_queries, cutoffs)
    return at_depth(r.relcum, r.offsets, k, 0), k


@measure("rr_cut", params=LongCutoffs(10), ir_measures="RR")
def reciprocal_rank_cut(r, cutoffs):
    """Reciprocal rank within the top k (MS MARCO's MRR@10): 1 / rank of the first relevant document if
    it is among the first k, else 0.  Summary: mean."""
    isrel = r.isrel()
    first = np.full(r.n_queries, -1, dtype=np.int64)
    idx = np.nonzero(isrel)[0]
    q = r.qidx[idx]
    first[q[::-1]] = r.rank[idx][::-1]  # reversed assignment keeps the smallest rank
    cut = np.asarray(cutoffs, dtype=np.int64)[None, :]
    rank = first[:, None]
    return np.where((rank >= 0) & (rank < cut), 1.0 / (rank + 1.0), 0.0)


@measure("dcg_cut", params=LongCutoffs(10), options={"gain": "linear"})
def dcg_cut(r, cutoffs, **options):
    """DCG over the first k ranks: sum of gain / log2(rank + 1), the gain being the grade (trec_eval's
    and ranx's ``dcg``) or 2**grade - 1 with gain=exp (ranx's ``dcg_burges``); negative grades and
    unjudged documents give 0.  Summary: mean."""
    dcg, _ = dcg_matrices(r, cutoffs, ndcg_options(gain=options.get("gain", "linear")))
    return dcg


@measure("f1_cut", params=LongCutoffs(10), ir_measures="F1")
def f1_cut(r, cutoffs):
    """F1 at k: 2 P R / (P + R) with P = relevant in the top k / k and R = relevant in the top k /
    num_rel; 0 when no relevant document is in the top k.  Summary: mean."""
    hits, k = _hits(r, cutoffs)
    p = hits / k
    nrel = r.num_rel[:, None]
    rec = np.where(nrel > 0, hits / np.maximum(nrel, 1), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(hits > 0, 2.0 * p * rec / (p + rec), 0.0)


@measure("hits", params=LongCutoffs(10), ir_measures="Hits")
def hits_cut(r, cutoffs):
    """Number of relevant documents among the first k (ranx's ``hits@k``).  Summary: mean."""
    return _hits(r, cutoffs)[0].astype(np.float64)
