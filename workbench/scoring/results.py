"""What the window asks an evaluation for (:class:`Request`) and what it gives (:class:`Results`: the
summary, the per-query values and the curves of every run), and how its queries are ordered; made by
:mod:`workbench.scoring.evaluation` and, for the diversity measures, :mod:`workbench.scoring.diversity`."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np
import pandas as pd

from metrics.engine.settings import Settings
from metrics.io.ids import shown
from workbench.scoring.defaults import SETTINGS

if TYPE_CHECKING:
    from metrics.engine.evaluation import Evaluation
    from metrics.io.table import Columns
    from workbench.scoring.run_on_disk import RunOnDisk
    from workbench.scoring.service import ScoringService


class KeptScores(Protocol):
    """What a :class:`Request` may carry to keep scores from one evaluation to the next: the window's
    :class:`workbench.scoring.evaluation.RunCache` (named here by what it does, since it is made by the
    module that imports this one)."""

    service: ScoringService

    def kept(self, qrels_id: Any, settings: Settings, measures: Any, kind: str = "qrels") -> Any: ...

    def close(self) -> None: ...


MEAN = "all"  # query_id under which metrics.engine.curves reports the mean over queries


class CurveTable:
    """Curves per (query, run) looked up without scanning anything.

    Made from a tidy ``frame`` (columns ``run``, ``query_id``, the ``x`` column, the ``y`` column), or
    with :meth:`from_blocks` from the per-run blocks of :func:`metrics.engine.curves.evaluate_with_curves`
    (``tidy=False``), which the window uses: no frame of one row per point is made.
    """

    def __init__(self, frame: pd.DataFrame, x: str, y: str):
        frame = frame.sort_values(["query_id", "run", x], kind="stable").reset_index(drop=True)
        xs, ys = frame[x].to_numpy(dtype=float), frame[y].to_numpy(dtype=float)
        # grouped by two columns, each key is a (query, run) pair: pandas-stubs type a key as any Hashable
        groups = cast(
            "dict[tuple[Hashable, Hashable], np.ndarray]", frame.groupby(["query_id", "run"], sort=False).indices
        )
        self._curves = {(str(q), str(r)): (xs[idx], ys[idx]) for (q, r), idx in groups.items()}

    @classmethod
    def from_blocks(cls, blocks) -> CurveTable:
        """From ``(label, query ids, x values, values (queries x points), mean)`` blocks, one per run; the
        mean is the curve of query :data:`MEAN`."""
        table = cls.__new__(cls)
        table._curves = {}
        for label, qids, xs, values, overall in blocks:
            x = np.asarray(xs, dtype=float)
            values = np.asarray(values, dtype=float)
            for i, q in enumerate(qids):
                table._curves[(str(q), str(label))] = (x, values[i])
            table._curves[(MEAN, str(label))] = (x, np.asarray(overall, dtype=float))
        return table

    def get(self, query_id: str, run: str) -> tuple[np.ndarray, np.ndarray] | None:
        return self._curves.get((str(query_id), str(run)))

    def __contains__(self, key) -> bool:
        return key in self._curves

    def __len__(self) -> int:
        return len(self._curves)


@dataclass
class Results:
    """An evaluation as the window shows it: the request it answers, its frames by measure, and its runs."""

    request: Request
    evaluation: Evaluation
    summary: pd.DataFrame  # index runs, columns measure names
    per_query: dict[str, pd.DataFrame]  # measure name -> index query_id, columns runs
    measures: list[str]
    runs: list[str]
    query_ids: list[str]  # all evaluated queries, natural order
    pr: CurveTable
    ndcg: CurveTable
    extra: dict = field(default_factory=dict)
    # run -> (queries evaluated, i.e. both retrieved and judged; queries in the run)
    coverage: dict[str, tuple[int, int]] = field(default_factory=dict)
    measure_errors: list[str] = field(default_factory=list)  # names that were skipped, with the reason
    failed: dict[str, str] = field(default_factory=dict)  # run on disk -> why its file could not be read

    def unscored(self) -> list[str]:
        """Runs that share no query with the qrels: their zeros are not scores."""
        return [r for r, (shared, _) in self.coverage.items() if shared == 0]

    @property
    def problems(self) -> list[str]:
        """Sentences about runs that match the qrels badly, for the user."""
        out = [f"Measure skipped: {e}" for e in self.measure_errors]
        for run, (shared, total) in self.coverage.items():
            if shared == 0:
                out.append(
                    f"Run {run!r} shares no query with the qrels: it is not scored (is it a run of another collection?)"
                )
            elif shared < total:
                out.append(f"Run {run!r}: only {shared} of its {total} queries are in the qrels")
        return out


def _wide_per_query(ev) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """Each measure's values as a frame (index query_id in natural order, one column per run, NaN where a
    run has no value), made from the runs' numpy blocks; and every evaluated query in natural order."""
    blocks = [r for r in ev.results if r.names and r.query_ids]
    query_ids = sort_queries({str(q) for r in blocks for q in r.query_ids})
    row = {q: i for i, q in enumerate(query_ids)}
    runs = list(ev.runs)
    column = {run: j for j, run in enumerate(runs)}
    measures = list(dict.fromkeys(str(n) for r in blocks for n in r.names))
    cube = np.full((len(measures), len(query_ids), len(runs)), np.nan)
    present = np.zeros((len(measures), len(query_ids)), dtype=bool)  # the queries some run has a value for
    where = {m: k for k, m in enumerate(measures)}
    for r in blocks:
        rows = np.fromiter((row[str(q)] for q in r.query_ids), dtype=np.int64, count=len(r.query_ids))
        ks = np.asarray([where[str(n)] for n in r.names])
        cube[ks[:, None], rows[None, :], column[r.label]] = r.values.T
        present[ks[:, None], rows[None, :]] = True
    ids = np.asarray(query_ids, dtype=object)
    # (typed where they are made: inferred, the frames and the labels had the type checker weigh every
    # overload of pandas' constructors, 0.5 s of its run)
    wide: dict[str, pd.DataFrame] = {}
    for m, k in where.items():
        labels: list[str] = [shown(q) for q in ids[present[k]]]
        wide[m] = pd.DataFrame(cube[k][present[k]], index=pd.Index(labels, dtype="str", name="query_id"), columns=runs)
    return wide, query_ids


def query_sort_key(q) -> tuple:
    """Natural order of query ids: numbers by value first, then other ids alphabetically."""
    s = str(q)
    try:
        return (0, float(s), s)
    except ValueError:
        return (1, 0.0, s)


def sort_queries(ids) -> list[str]:
    return sorted((str(q) for q in ids), key=query_sort_key)


@dataclass(frozen=True)
class Request:
    """Inputs of one evaluation; a value, so a worker can own it."""

    #: the window gives its qrels parts (a tuple of columns), which compute() merges: the request of its
    #: Results holds one (a frame of each document's best grade over the intents when only diversity
    #: measures are scored); frames are read as columns are
    qrels: Columns | pd.DataFrame | tuple[Columns | pd.DataFrame, ...]
    #: label -> the run held (columns; a frame is read as columns are) or scored from its file
    runs: Mapping[str, Columns | RunOnDisk | pd.DataFrame]
    measures: tuple[str, ...]
    settings: Settings = SETTINGS  # the level, the nDCG variant, the curves' k (metrics.Settings)
    qrels_name: str | None = None
    key: tuple | None = None  # what the session evaluated (SessionModel.evaluation_key); compared, never read
    cache: KeptScores | None = field(default=None, compare=False, repr=False)  # scores kept from the last evaluation
    #: the intent qrels in use (:mod:`workbench.scoring.intents`): the diversity measures are scored against them
    intents: pd.DataFrame | None = field(default=None, compare=False, repr=False)
    #: the file of the intent qrels, when diversity measures are asked for (exports state it)
    intents_name: str | None = None
    #: label -> the identity of the file each run held in memory was read from
    #: (:func:`workbench.scoring.service.file_identity`): its scores' key; a run without one is known by a digest
    identities: Mapping[str, object] | None = field(default=None, compare=False, repr=False)
    #: the identity of each part of ``qrels`` (idem)
    qrels_identity: tuple | None = field(default=None, compare=False, repr=False)
    #: the identity of the intent qrels file (idem)
    intents_identity: object = field(default=None, compare=False, repr=False)

    @property
    def relevance_level(self) -> int:
        return self.settings.relevance_level

    @property
    def k_max(self) -> int:
        return self.settings.k_max
