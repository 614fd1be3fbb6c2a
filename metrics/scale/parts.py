"""One large run file scored in parts: split at query boundaries (:func:`partitions`), each part read
(:func:`_read_range`) and scored by a process (:func:`score_part`), and the parts' results merged into
the one run's (:func:`merge`), equal to scoring it whole (a query cut by a boundary is scored again
whole, :func:`in_parts`)."""

from __future__ import annotations

import itertools
import os
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Optional

from metrics.engine.settings import Settings
from metrics.scale.split import SPLIT_BYTES, SPLIT_ENV, split_threshold  # noqa: F401  (importable from here)


@dataclass(frozen=True)
class WorkerState:
    """What every worker needs to score a run file: sent once (inherited here, scattered by Dask).

    ``qrels``: encoded (:func:`metrics.ranking.judged.encode_qrels`); ``measures``: parsed; ``settings``:
    trec_eval's options (:class:`~metrics.engine.settings.Settings`); ``ranked``: the runs are ranked
    judgments; ``queries`` / ``summary``: the per-query and summary lines of trec_eval's output are wanted."""

    qrels: Any
    measures: Any  # parsed (a list of metrics.Measure)
    settings: Settings
    ranked: bool = False
    queries: bool = False
    summary: bool = True


@dataclass
class Part:
    """What :func:`score_part` gives for one byte range of a run file."""

    query_ids: list  # the evaluated queries (qrels queries with results in the range), in trec_eval's order
    values: list  # per measure asked for: its per-query values (None for runid, whose value is the run's)
    width: int  # judged grades the measures saw (columns of the ranking's rel_levels)
    qids: list  # every query id in the range, run-only ones too (bytes), to tell whether ranges share one
    first_tag: str  # tags of the range's first and last lines ("" for a range without lines)
    last_tag: str


def partitions(path: str, workers: int, threshold: int, ranked: bool = False) -> int:
    """Into how many byte ranges the run file ``path`` is cut for ``workers`` processes or worker
    threads: 1 (one task) unless it is a plain file of at least ``threshold`` bytes and ``workers``
    is 2 or more; never more than ``workers``, nor ranges under a quarter of ``threshold``.  Ranked
    judgments, gzip files and files this process cannot see are scored in one task."""
    from metrics.io.textfile import GZIP_MAGIC, first_binary_byte

    if ranked or workers < 2:
        return 1
    try:
        size = os.path.getsize(path)
        if size < threshold:
            return 1
        with open(path, "rb") as f:
            start = f.read(1 << 16)
            if start[:2] == GZIP_MAGIC:  # gzip: no byte ranges
                return 1
            if first_binary_byte(start) >= 0:  # binary data: one task refuses it at once, no worker is started
                return 1
            if not _trec_columns(start):  # a header's columns or JSON: read whole, by the one reader
                return 1
    except OSError:  # not here (a worker may see it), or not a file: its task says what is wrong
        return 1
    return max(1, min(workers, size // max(1, threshold // 4)))


def _trec_columns(head: bytes) -> bool:
    """Whether a run file starting with ``head`` has TREC's columns (not a header's, nor JSON)."""
    from metrics.errors import InputError
    from metrics.io.detect import layout_of_chunk

    head = head.removeprefix(b"\xef\xbb\xbf")
    cut = head.rfind(b"\n") + 1
    try:
        layout = layout_of_chunk(head[:cut] if cut else head, "run")[0]
    except InputError:
        return False
    return layout is None or layout.trec


def _boundary(f, pos: int, size: int) -> int:
    """Where a range that nominally starts at byte ``pos`` of the open file ``f`` starts: the start of
    the first line at or after ``pos`` whose query id differs from that of the line there (blank and
    comment lines are passed over); 0 at the start, ``size`` past the last query.  The ranges on both
    sides compute the same boundary, so the ranges hold every line once."""
    from metrics.io.textfile import MAX_LINE_BYTES

    if pos <= 0:
        return 0
    if pos >= size:
        return size
    f.seek(pos - 1)
    # to the start of the next line (pos itself when a line ends just before it); lines are read with a
    # bound, so that a file without newlines (binary data) is not read whole: its range starts at the end,
    # and the one task left reads the file and says what is wrong at once
    if not f.readline(MAX_LINE_BYTES).endswith(b"\n"):
        return size
    qid = None
    while True:
        here = f.tell()
        line = f.readline(MAX_LINE_BYTES)
        if not line or not line.endswith(b"\n") and len(line) == MAX_LINE_BYTES:
            return size
        fields = line.split(None, 1)
        if not fields or fields[0].startswith(b"#"):
            continue
        if qid is None:
            qid = fields[0]
        elif fields[0] != qid:
            return here


def _read_range(source: str, display: str, part: int, parts: int):
    """The lines of range ``part`` of ``parts`` of the run file ``source`` as
    :class:`~metrics.io.columns.Columns` (None for an empty range), read by the numpy reader's vectorised
    split; raises ``Irregular`` (or :class:`~metrics.errors.InputError`) for what needs the file read
    as a whole to be reported or read exactly."""
    from metrics.io.formats import RUN
    from metrics.io.numbers import Irregular
    from metrics.io.textfile import GZIP_MAGIC, MAX_LINE_BYTES, check_text, without_bom
    from metrics.io.tokens import Filled, assemble, parse

    with open(source, "rb", buffering=1 << 16) as f:
        size = os.fstat(f.fileno()).st_size
        head = f.read(1 << 16)
        if head[:2] == GZIP_MAGIC or not _trec_columns(head):
            raise Irregular
        start = _boundary(f, size * part // parts, size)
        end = _boundary(f, size * (part + 1) // parts, size)
        if start >= end:
            return None
        f.seek(start)
        filled = Filled()
        left, carry, at_start = end - start, b"", start == 0
        while left > 0:
            block = f.read(min(_READ_BYTES, left))
            if not block:  # the file is shorter than it was
                raise Irregular
            left -= len(block)
            if at_start:
                block, at_start = without_bom(block, display), False
            data = carry + block if carry else block
            if left == 0:
                chunk, carry = (data if data.endswith(b"\n") else data + b"\n"), b""
            else:
                cut = data.rfind(b"\n") + 1
                chunk, carry = data[:cut], data[cut:]
                if len(carry) > MAX_LINE_BYTES:
                    raise Irregular
                if not chunk:
                    continue
            check_text(chunk, 1, display)  # line numbers are not the file's: the caller reads it again
            filled.add(parse(chunk, "run"), 1 - left / (end - start))
    return assemble(display, RUN, None, filled, whole=False) if filled.columns is not None else None


def score_part(
    s: WorkerState,
    path: str,
    part: int,
    parts: int,
    width: Optional[int] = None,
    before: Optional[list] = None,
    source: Optional[str] = None,
):
    """Range ``part`` of ``parts`` of the run file ``source`` (by default ``path``) read and scored with
    the :func:`state` ``s``: a :class:`Part`, or None when the run is to be scored in one task (a line
    the fast reader does not take, invalid text: one task reads the whole file and says where).

    Qrels queries without results are not scored here (``-c``: :func:`merge` does).  Two things make a
    query's values depend on other queries of the run, and the caller may give them: ``width``, the
    judged grades the whole run's measures see (the highest grade of its evaluated queries + 1; a
    range whose own queries have fewer is scored with that many), and ``before``, queries of other
    ranges that come just before a query of this one whose qrels hold no grade >= 0 (trec_eval's gain
    measures give such a query the grades of the query evaluated before it): they are scored here
    too, on one placeholder line each, and left out of the result."""
    import dataclasses

    import numpy as np

    from metrics.engine.evaluate import compute
    from metrics.errors import InputError
    from metrics.io.ids import concat, stretch_heads
    from metrics.io.numbers import Irregular
    from metrics.io.table import Columns
    from metrics.measures import FAMILIES
    from metrics.ranking.judged import build_ranking, frozen

    source = path if source is None else source
    try:
        cols = _read_range(source, path, part, parts)
    except (Irregular, InputError, OSError):  # one task reports the error as one process does
        return None
    if cols is None:
        return Part([], [None] * len(s.measures), 0, [], "", "")
    qid = cols.qid
    qids = list(dict.fromkeys(qid[stretch_heads(qid)].tolist()))
    first_tag, last_tag = cols.name, cols.run_id
    enc = s.qrels
    if before:
        index = {q: i for i, q in enumerate(enc.queries)}
        keys = enc.query_keys[np.array([index[q] for q in before], dtype=np.int64)]
        cols = Columns(
            "run",
            concat([cols.qid, keys]),
            concat([cols.doc, np.full(len(keys), b"-", dtype="S8")]),
            np.concatenate([cols.value, np.zeros(len(keys))]),
            name=first_tag,
            run_id=last_tag,
        )
    ranking = build_ranking(enc, cols, run_id=last_tag, **s.settings.replace(complete=False).trec_options())
    del cols, qid
    natural = ranking.rel_levels.shape[1]
    if width is not None and width > natural:  # zero counts of the grades its queries lack
        padded = np.zeros((ranking.n_queries, width), dtype=ranking.rel_levels.dtype)
        padded[:, :natural] = ranking.rel_levels
        ranking = dataclasses.replace(ranking, rel_levels=frozen(padded))
    query_ids = ranking.query_ids.tolist()
    own: Any = slice(None)
    if before:
        others = set(before)
        own = np.array([q not in others for q in query_ids], dtype=bool)
        query_ids = [q for q in query_ids if q not in others]
    values = [
        None if m.kind == "text" and not FAMILIES[m.family].per_query else np.asarray(v)[own]
        for m, v, _ in compute(ranking, s.measures)
    ]
    return Part(query_ids, values, ranking.rel_levels.shape[1], qids, first_tag, last_tag)


def _complete_width(qrels) -> int:
    """Judged grades of every qrels query (highest grade >= 0, + 1): what the measures see with ``-c``."""
    judged = qrels.rel[qrels.rel >= 0]
    return int(judged.max()) + 1 if len(judged) else 0


def merge(
    s: WorkerState, path: str, parts: list, rescore: Callable[[int, int, list], Optional[Part]]
) -> Optional[Scored]:
    """The :class:`Scored` output of a run from its :class:`Part` s (in file order), byte for byte those
    of :func:`score_file`; None when only one task can give them (a part is None, a query id is in
    two parts).  ``rescore(k, width, before)`` scores part k again, as :func:`score_part` does, when
    its values depend on queries of other parts."""
    import numpy as np

    from metrics.engine.evaluate import compute, result_of
    from metrics.engine.evaluation import Evaluation
    from metrics.io.labels import unique_label
    from metrics.io.table import Columns
    from metrics.measures import FAMILIES
    from metrics.ranking.judged import build_ranking

    if any(p is None for p in parts):
        return None
    seen: set = set()
    for p in parts:
        if not seen.isdisjoint(p.qids):
            return None  # not grouped by query: one task finds duplicate documents and scores it
        seen.update(p.qids)
    lined = [p for p in parts if p.first_tag or p.last_tag]
    if not lined:
        return None
    enc, wanted, options = s.qrels, s.measures, s.settings.trec_options()
    first, last = lined[0].first_tag, lined[-1].last_tag
    label = unique_label(first or "run1", set())
    run_id = last or first or label
    warnings: list = []
    if last != first:  # the numpy reader's words (metrics.io.columns)
        warnings.append(
            f"{path}: the run tag changes from {first!r} (first line) to "
            f"{last!r} (last line); the run is labelled {first!r} and "
            f"its runid is {last!r}, as trec_eval reports it"
        )
    # the evaluated queries of the whole run, one line each: its query order, its warnings, its
    # summary counts, and with -c the values of the qrels queries it lacks
    code = {q: i for i, q in enumerate(enc.queries)}
    present = np.array(sorted({code[q] for p in parts for q in p.query_ids}), dtype=np.int64)
    stub = Columns(
        "run",
        enc.query_keys[present],
        np.full(len(present), b"-", dtype="S8"),
        np.zeros(len(present)),
        path=path,
        name=first,
        run_id=run_id,
    )
    ranking = build_ranking(enc, stub, run_id=run_id, warnings=warnings, **options)
    qids = ranking.query_ids.tolist()
    n = len(qids)
    where = {q: i for i, q in enumerate(qids)}
    source = np.full(n, -1, dtype=np.int64)
    for k, p in enumerate(parts):
        source[[where[q] for q in p.query_ids]] = k
    # a query whose qrels hold no grade >= 0 takes its ideal gains from the query evaluated before it
    # that has some (trec_eval's gain measures): its part must score that query too
    valid = ranking.num_rel_levels > 0
    last_valid = np.full(n, -1, dtype=np.int64)  # the last query with grades >= 0 before each query
    last_valid[1:] = np.maximum.accumulate(np.where(valid, np.arange(n), -1))[:-1]
    lacking = (~valid) & (source >= 0) & (last_valid >= 0)
    lacking &= source[np.maximum(last_valid, 0)] != source
    before: dict = {}
    for i in np.flatnonzero(lacking).tolist():
        before.setdefault(int(source[i]), set()).add(qids[last_valid[i]])
    width = ranking.rel_levels.shape[1]
    for k, p in enumerate(parts):
        if p.query_ids and (p.width != width or k in before):
            again = rescore(k, width, sorted(before.get(k, ())))
            if again is None:
                return None
            parts[k] = again
    rows = [np.array([where[q] for q in p.query_ids], dtype=np.int64) for p in parts]

    def merged():
        """Each measure's values, put together from the parts, and its aggregate over them."""
        for j, (m, stub_values, _) in enumerate(compute(ranking, wanted)):
            if m.kind == "text":
                values = np.array(stub_values, dtype=object)
            else:
                kinds = [np.asarray(stub_values)] + [p.values[j] for p, r in zip(parts, rows) if len(r)]
                values = np.array(stub_values, dtype=np.result_type(*kinds))
            for p, r in zip(parts, rows):
                if len(r) and p.values[j] is not None:
                    values[r] = p.values[j]
            yield m, values, FAMILIES[m.family].aggregate(values, ranking)

    result = result_of(label, qids, merged(), {})
    if not qids:
        warnings.append(f"run {label!r}: no queries with both results and relevance info")
    ev = Evaluation(runs=[label], measures=wanted, query_ids={label: qids}, results=[result], warnings=warnings)
    text = "".join(ev.trec_text(label, queries=s.queries, summary=s.summary))
    return Scored(path, text, warnings, bool(qids))


def in_parts(
    s: WorkerState,
    runs: Iterable[tuple[str, str, int]],
    run: Callable[[Iterator[tuple]], Iterator],
    rescore: Callable[[tuple], Any],
) -> Iterator[Scored]:
    """Score ``runs`` ((source, name, number of parts) each) with the tasks ``(source, name, part,
    parts, width, before)`` run by ``run`` (results in order; ``part`` -1: the whole run, the others as
    :func:`score_part`), merging the parts of each run; ``rescore(task)`` runs one more task and
    waits for it."""
    plans: deque = deque()
    width = _complete_width(s.qrels) if s.settings.complete else None

    def tasks() -> Iterator[tuple]:
        for source, name, parts in runs:
            plans.append((source, name, parts))
            if parts <= 1:
                yield (source, name, -1, 1, None, None)
            else:
                yield from ((source, name, k, parts, width, None) for k in range(parts))

    results = run(tasks())
    try:
        for first in results:
            source, name, parts = plans.popleft()
            if parts <= 1:
                yield first
                continue
            got = [first, *itertools.islice(results, parts - 1)]
            scored = merge(s, name, got, lambda k, w, b: rescore((source, name, k, parts, w, b)))
            yield scored if scored is not None else rescore((source, name, -1, 1, None, None))
    finally:
        close = getattr(results, "close", None)
        if close is not None:  # the tasks in flight are let go now, not when the generator is collected
            close()


_READ_BYTES = 1 << 20  # bytes read and parsed at a time by score_part (the numpy reader's chunk)


@dataclass
class Scored:
    """A run scored in a worker process: trec_eval's lines for it, its warnings, whether a query was scored."""

    path: str
    text: str  # trec_eval's lines, each ending in a newline (one string: sent between processes in one piece)
    warnings: list
    evaluated: bool  # some query had both results and judgments

    @property
    def lines(self) -> list:
        """The lines of :attr:`text`, without their newlines."""
        return self.text.split("\n")[:-1]
