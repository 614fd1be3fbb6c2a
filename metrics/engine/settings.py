"""The evaluation settings (trec_eval's options, the nDCG variant, the curves' cut-offs) as one typed value.

:class:`Settings` is frozen and hashable: the key of every cache of scores, what a workspace saves,
what an export states (:mod:`metrics.report.provenance`), what a worker process receives (pickled
whole), and what :func:`metrics.evaluate` takes (``settings=``, beside its keyword arguments).
:class:`MeasureSet` is the measures asked for, hashable too.  An :class:`~metrics.Evaluation` keeps
the settings that made it and says in a line which ones differ from trec_eval's
(:func:`in_short`, shown above its table in a notebook).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULTS", "MeasureSet", "Settings", "in_short", "settings_of", "in_ndcg_variant"]

#: trec_eval's nDCG variant: gain = grade, discount log2(rank + 1), the ideal ranking of every judged
#: document (the options of the ``ndcg_ext`` family, :data:`metrics.measures.extra.NDCG_DEFAULTS`)
_NDCG = {"gain": ("linear", "exp"), "discount": ("log", "jk"), "ideal": ("all", "retrieved")}
#: the settings a :class:`Settings` reads from a dict under another name (workspace files of earlier versions)
_OLD_NAMES = {"cutoffs": "k_max"}


def _base(value: object) -> str:
    """A logarithm's base as text, one spelling per number (``2``, ``2.0`` and ``"2"`` are ``"2"``)."""
    try:
        number = float(str(value))
    except ValueError:
        raise ValueError(f"nDCG base must be a number, not {value!r}") from None
    if not number > 1:
        raise ValueError(f"nDCG base must be above 1, not {value!r}")
    return format(number, "g")


@dataclass(frozen=True)
class Settings:
    """How a number is made, beside the qrels, the run and the measure: trec_eval's options, the nDCG
    variant and the cut-offs of the NDCG@k curves.  Defaults are trec_eval 10.0's.

    ``relevance_level`` (``-l``): the lowest grade counted as relevant.  ``complete`` (``-c``): average over
    every query of the qrels, those a run lacks scoring 0.  ``max_docs`` (``-M``): ranks kept per query
    (None: all).  ``judged_only`` (``-J``): unjudged documents dropped from the rankings.
    ``num_docs_in_coll`` (``-N``): documents in the collection (``utility``).  ``k_max``: the NDCG@k
    curves run from k = 1 to this.  ``gain`` (``linear``: the grade, ``exp``: 2^grade - 1), ``discount``
    (``log``: log_base(rank + 1), ``jk``: Järvelin and Kekäläinen's log_base(rank), rank 1 undiscounted),
    ``base`` and ``ideal`` (``all`` judged documents, or the ``retrieved`` ones): the nDCG variant, which
    :func:`metrics.evaluate` applies to trec_eval's nDCG measures (:func:`in_ndcg_variant`: ``ndcg_cut.10``
    is computed and named ``ndcg_ext_10(gain=exp)``) and the curves to NDCG@k.

    Values are checked and put in one spelling when made, so two settings that make the same numbers are
    equal and hash alike."""

    relevance_level: int = 1
    complete: bool = False
    max_docs: int | None = None
    judged_only: bool = False
    num_docs_in_coll: int = 0
    k_max: int = 100
    gain: str = "linear"
    discount: str = "log"
    base: str = "2"
    ideal: str = "all"

    def __post_init__(self) -> None:
        fix = object.__setattr__  # (frozen: the one spelling is set here, once)
        fix(self, "relevance_level", int(self.relevance_level))
        fix(self, "complete", _flag("complete", self.complete))
        fix(self, "judged_only", _flag("judged_only", self.judged_only))
        if self.max_docs is not None:
            fix(self, "max_docs", int(self.max_docs))
            if self.max_docs < 0:
                raise ValueError("max_docs must be >= 0")
        fix(self, "num_docs_in_coll", int(self.num_docs_in_coll))
        fix(self, "k_max", int(self.k_max))
        if self.k_max < 1:
            raise ValueError(f"k_max must be at least 1, not {self.k_max}")
        for name, allowed in _NDCG.items():
            value = str(getattr(self, name))
            if value not in allowed:
                raise ValueError(f"nDCG {name} must be one of {', '.join(allowed)}, not {value!r}")
            fix(self, name, value)
        fix(self, "base", _base(self.base))

    # ------------------------------------------------------------------ what each consumer reads
    def trec_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`metrics.ranking.judged.build_ranking` (trec_eval's ``-l -c -M -J -N``)."""
        return dict(
            relevance_level=self.relevance_level,
            complete=self.complete,
            max_docs=self.max_docs,
            judged_only=self.judged_only,
            num_docs_in_coll=self.num_docs_in_coll,
        )

    def ndcg_options(self) -> dict[str, str]:
        """The nDCG options that differ from trec_eval's (empty: trec_eval's nDCG)."""
        default = Settings()
        return {
            name: getattr(self, name)
            for name in ("gain", "discount", "base", "ideal")
            if getattr(self, name) != getattr(default, name)
        }

    def with_ndcg(self, options: Mapping[str, object]) -> Settings:
        """These settings with the nDCG ``options`` (name -> value; None: trec_eval's)."""
        default = Settings()
        changes: dict[str, Any] = {}
        for name, value in options.items():
            if name not in ("gain", "discount", "base", "ideal"):
                raise ValueError(f"unknown nDCG option {name!r} (gain, discount, base or ideal)")
            changes[name] = getattr(default, name) if value is None else value
        return dataclasses.replace(self, **changes)

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------------ saved and read back
    def to_dict(self) -> dict[str, Any]:
        """Every setting by name (what a workspace saves; :meth:`from_dict` reads it back)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Settings:
        """Settings from a dict of :meth:`to_dict`, or of an earlier workspace file (``relevance_level``,
        ``k_max`` and an ``ndcg_options`` dict); names it does not know are refused (a misspelt setting
        would be a default one without a word)."""
        data = {_OLD_NAMES.get(k, k): v for k, v in data.items()}
        ndcg = data.pop("ndcg_options", None) or {}
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown setting {', '.join(map(repr, unknown))}")
        return cls(**data).with_ndcg(dict(ndcg))

    @classmethod
    def of(cls, source: object) -> Settings:
        """The settings of an :class:`~metrics.Evaluation`, of a dict (:meth:`from_dict`), or these
        settings themselves; trec_eval's for None."""
        if source is None:
            return cls()
        if isinstance(source, Settings):
            return source
        if isinstance(source, Mapping):
            return cls.from_dict(source)
        return cls.of(getattr(source, "settings", None))

    def describe(self) -> str:
        """What differs from trec_eval's defaults, in a line (:func:`in_short`)."""
        return in_short(self)


def _flag(name: str, value: object) -> bool:
    if isinstance(value, str):
        if value.strip().lower() not in ("true", "false"):
            raise ValueError(f"{name} must be true or false, not {value!r}")
        return value.strip().lower() == "true"
    return bool(value)


@dataclass(frozen=True)
class MeasureSet:
    """The measures asked for, as the names they were asked by, in order: hashable, so a key of the
    caches of scores together with :class:`Settings`.  ``parsed()`` gives the registry's measures."""

    names: tuple[str, ...] = ()

    @classmethod
    def of(cls, measures: Iterable[object] | str | None) -> MeasureSet:
        if measures is None:
            return cls()
        if isinstance(measures, (str, MeasureSet)):
            return measures if isinstance(measures, MeasureSet) else cls((measures,))
        return cls(tuple(str(m) for m in measures))

    def parsed(self) -> list:
        """The registry's :class:`~metrics.measures.Measure` values (trec_eval's official set when empty)."""
        from metrics.measures import parse_measures

        return parse_measures(list(self.names) or None)

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


#: trec_eval's defaults of the settings that change a number (``-l``, ``-c``, ``-M``, ``-J``, ``-N``)
DEFAULTS = Settings().trec_options()


def in_ndcg_variant(measures: list, settings: Settings) -> list:
    """``measures`` (the registry's :class:`~metrics.measures.Measure` values) as ``settings`` compute
    them: under an nDCG variant other than trec_eval's, trec_eval's ``ndcg`` and ``ndcg_cut`` measures
    (asked for by any name: ``ndcg_cut.10``, ``nDCG@10``, ``NDCG``, a set such as ``all_trec``) are the
    ``ndcg_ext`` family's with the variant's options (``ndcg_ext_10(gain=exp)``), named so; an nDCG
    with gain values, options or a relevance level of its own stays as asked.  The one place of this
    rule: :func:`metrics.evaluate` and every door that scores through it."""
    options = settings.ndcg_options()
    if not options:
        return measures
    from metrics.measures import parse_measures

    suffix = "(" + ",".join(f"{k}={v}" for k, v in sorted(options.items())) + ")"
    out: list = []
    for m in measures:
        plain = m.family in ("ndcg", "ndcg_cut") and m.rel is None and not m.options
        if plain and m.family == "ndcg" and not m.params:
            out += parse_measures(["ndcg_ext" + suffix])
        elif plain and m.family == "ndcg_cut":
            out += parse_measures([f"ndcg_ext_{m.params[0]}{suffix}"])
        else:
            out.append(m)
    return list(dict.fromkeys(out))


def settings_of(source) -> Settings:
    """The :class:`Settings` of an :class:`~metrics.Evaluation`, a dict or a :class:`Settings` (trec_eval's
    defaults for None)."""
    return Settings.of(source)


def in_short(settings) -> str:
    """The settings that differ from trec_eval's defaults, in a line (``relevant from grade 2 (-l 2); ...``),
    or "trec_eval's defaults": what a notebook's table says above it."""
    s = Settings.of(settings)
    words = []
    if s.relevance_level != 1:
        words.append(f"relevant from grade {s.relevance_level} (-l {s.relevance_level})")
    if s.complete:
        words.append("queries of the qrels missing from a run score 0 (-c)")
    if s.max_docs:
        words.append(f"first {s.max_docs} documents of each ranking (-M {s.max_docs})")
    if s.judged_only:
        words.append("unjudged documents dropped (-J)")
    if s.num_docs_in_coll:
        words.append(f"{s.num_docs_in_coll} documents in the collection (-N)")
    return "; ".join(words) if words else "trec_eval's defaults"
