"""``ir-eval --irm QRELS RUN MEASURE...``: ir_measures' command line, for scripts written around it.

Arguments and options are those of ``ir_measures`` 0.4.3 (``python -m
ir_measures qrels run measures...``): measures as separate arguments or
several in one, ``-q/--by_query`` (per-query lines, then the ``all`` lines),
``-n/--no_summary`` (with ``-q``), ``-p/--places`` (default 4; -1 for every
digit) and ``-o/--output_format tsv|jsonl``.  The output is ir_measures':
``measure<TAB>value`` (``query<TAB>measure<TAB>value`` with ``-q``), each
measure under the name ir_measures prints for it (aliases resolved,
parameters at their defaults left out, the others in the order written:
``MAP`` prints ``AP``, ``P(rel=1)@5`` prints ``P@5``).

As in ir_measures, a query of the qrels that the run lacks scores 0 (the
default value of its measures) and counts in the mean: the evaluation is
trec_eval's ``-c``.  Per-query lines come query by query (trec_eval's query
order), measures in the order given; ir_measures' order depends on which of
its providers computes a measure.  ``--provider`` is refused: every measure
is computed here.  Diversity measures (``alpha_nDCG@20``, ``NRBP``, ...) read
the qrels as intent-annotated qrels (``qid intent docid grade``) and cannot
be mixed with the others in one call.

Tied scores: ir_measures orders a run by the provider that computes each
measure, and its providers break ties differently; ``--irm`` follows each:

* pytrec_eval (most measures): trec_eval's order, ties by document id
  descending;
* its MS MARCO and judged providers (``RR@k``, ``Judged@k``) and ``Compat``:
  ties by document id ascending (on runs with tied scores, such as MS
  MARCO-style runs, ``RR@10`` then differs from trec_eval's ``rr_cut.10``).
  One exception remains: ``Compat``'s ideal ranking puts
  relevant documents of one grade with tied scores in the qrels' order in
  ir_measures, in the ranking's order here;
* cwl_eval and its accuracy provider (``INST``, ``INSQ``, ``BPM``, ``SDCG``,
  ``NERR8``-``NERR11``, ``RBP(rel=r)``, ``Accuracy``): a stable sort by
  score, ties in the run's order.

The library (:func:`metrics.evaluate`) and ``ir-eval`` itself keep
trec_eval's order for every measure.
"""

from __future__ import annotations

import argparse
import json
import sys

from metrics.engine.evaluate import evaluate
from metrics.engine.evaluation import Evaluation
from metrics.errors import InputError
from metrics.io.readers import read_qrels, read_run
from metrics.measures import parse_measures
from metrics.measures.irm_syntax import aliases, read_measures
from metrics.measures.registry import is_intent_name

__all__ = ["main", "printed_name"]

# parameters left out of a printed name at these values (ir_measures' defaults)
_DEFAULTS = {"judged_only": False, "relative": False, "normalize": True, "dcg": "log2", "alpha": 0.5}
_PER_MEASURE: dict[str, dict[str, float | None]] = {
    "rel": {"RBP": None, "NumRet": None},  # no default level: always printed
    "p": {"RBP": 0.8, "Compat": 0.95},
    "beta": {"SetF": 1.0, "NRBP": 0.5},
}


def _default(name: str, key: str):
    if key in _PER_MEASURE:
        return _PER_MEASURE[key].get(name, 1 if key == "rel" else None)
    return _DEFAULTS.get(key)


def _value_text(value) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(f"{k!r}:{v!r}" for k, v in value.items()) + "}"
    return repr(value)


def printed_name(text: str) -> str:
    """The name ir_measures prints for the measure written ``text``."""
    read = read_measures(text)
    if read is None:
        return text.strip()
    name, args, at = read
    name = aliases().get(name, name)
    shown = []
    for key, value in args.items():
        if key == "gains" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k != v}  # an identity pair is no mapping
            if not value:
                continue
        default = _default(name, key)
        if default is not None and not isinstance(value, dict) and value == default:
            continue
        shown.append(f"{key}={_value_text(value)}")
    return name + (f"({','.join(shown)})" if shown else "") + ("" if at is None else f"@{at}")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="ir-eval --irm", description="ir_measures' command line: ir-eval --irm QRELS RUN MEASURE..."
    )
    p.add_argument("qrels")
    p.add_argument("run")
    p.add_argument("measures", nargs="+")
    p.add_argument("--places", "-p", type=int, default=4)
    p.add_argument("--by_query", "-q", action="store_true")
    p.add_argument("--no_summary", "-n", action="store_true")
    p.add_argument("--output_format", "-o", choices=("tsv", "jsonl"), default="tsv")
    p.add_argument("--provider")
    return p


#: the families ir_measures computes with a provider whose order of tied scores is not trec_eval's:
#: "docid" (document id ascending: msmarco, judged, compat) or "file" (the run's order: cwl_eval, accuracy)
TIE_ORDER = {
    "rr_cut": "docid",
    "Judged": "docid",
    "compat": "docid",
    **dict.fromkeys(("inst", "insq", "bpm", "sdcg", "nerr8", "nerr9", "nerr10", "nerr11", "Accuracy"), "file"),
}


def tie_order(m) -> str | None:
    """How ir_measures' provider for measure ``m`` orders tied scores ("docid", "file"), None for
    trec_eval's order."""
    if m.family == "rbp_ext":  # RBP(rel=r) is cwl_eval's
        return "file" if dict(m.options).get("binary_at") else None
    return TIE_ORDER.get(m.family)


def reordered(run, rule: str):
    """The run (:class:`~metrics.io.columns.Columns`) with its scores replaced by ``n - position`` in the order
    (score descending, then document id ascending: ``rule`` "docid"; the run's own order: "file"), so that
    trec_eval's order is that one, without ties."""
    import numpy as np

    from metrics.io.table import Columns, query_codes

    codes = query_codes(run.qid)[1]
    n = len(codes)
    order = np.argsort(run.doc, kind="stable") if rule == "docid" else np.arange(n)
    order = order[np.argsort(-run.value[order], kind="stable")]
    order = order[np.argsort(codes[order], kind="stable")]
    counts = np.bincount(codes) if n else np.zeros(0, dtype=np.int64)
    starts = np.cumsum(counts) - counts
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n) - starts[codes[order]]
    out = Columns("run", run.qid, run.doc, (counts[codes] - position).astype(np.float64), path=run.path)
    out.name, out.run_id = run.name, run.run_id
    return out


def _evaluate_as_providers(qrels, run_frame, by_measure: dict) -> Evaluation:
    """:func:`evaluate` of the measures (keys of ``by_measure``, asked for by its values), each on the run
    ordered as ir_measures' provider for it orders tied scores (:func:`tie_order`); one evaluation."""
    from dataclasses import replace

    from metrics.io.columns import columns_from_frame

    groups: dict = {}
    for m, written in by_measure.items():
        groups.setdefault(tie_order(m), {})[m] = written
    if set(groups) == {None}:
        return evaluate(qrels, run_frame, list(by_measure.values()), complete=True)
    run = columns_from_frame(run_frame, "run")
    parts = [
        evaluate(qrels, run if rule is None else reordered(run, rule), list(names.values()), complete=True)
        for rule, names in groups.items()
    ]
    first = parts[0]
    label = first.runs[0]
    queries = list(first.query_ids[label])
    for ev in parts[1:]:
        assert ev.query_ids[ev.runs[0]] == queries
    import numpy as np

    result = replace(
        first.results[0],
        names=[n for ev in parts for n in ev.results[0].names],
        values=np.concatenate([ev.results[0].values for ev in parts], axis=1),
        aggregates=[a for ev in parts for a in ev.results[0].aggregates],
        texts=[t for ev in parts for t in ev.results[0].texts],
    )
    names = {k: v for ev in parts for k, v in ev.names.items()}
    return replace(first, measures=[m for ev in parts for m in ev.measures], results=[result], names=names)


def _format(value: float, places: int) -> str:
    return f"{value}" if places == -1 else f"{value:.{places}f}"


def main(argv: list[str]) -> int:
    from metrics.cli.common import guarded
    from metrics.errors import EXIT_INPUT, EXIT_USAGE

    args = _parser().parse_args(argv)
    return guarded(lambda: _run(args, EXIT_USAGE, EXIT_INPUT), False)


def _run(args, exit_usage: int, exit_input: int) -> int:
    def fail(message: str, code: int) -> int:
        print(f"ir-eval: {message}", file=sys.stderr)
        return code

    if args.provider:
        return fail("--provider: every measure is computed by ir-eval itself", exit_usage)
    if args.no_summary and not args.by_query:
        return fail("--no_summary (-n) only goes with --by_query (-q)", exit_usage)
    from metrics.cli.common import split_measures

    names = split_measures(args.measures)
    diversity = [is_intent_name(n) for n in names]
    ev: Evaluation
    try:
        if any(diversity) and not all(diversity):
            raise ValueError("diversity measures read intent-annotated qrels: give them in a call of their own")
        if all(diversity):
            from metrics.engine.intents import evaluate_diversity, read_intent_qrels

            ev = evaluate_diversity(read_intent_qrels(args.qrels), read_run(args.run), names, complete=True)
            written = {name: printed_name(name) for name in ev.measure_names()}
        else:
            by_measure: dict = {}  # one line per measure, named as first written (ir_measures dedupes too)
            for n in names:
                by_measure.setdefault(parse_measures([n])[0], n)  # unknown names fail here, before reading
            ev = _evaluate_as_providers(read_qrels(args.qrels), read_run(args.run), by_measure)
            written = {ev.name(m): printed_name(n) for m, n in by_measure.items()}
    except InputError as exc:
        return fail(str(exc), exit_input)
    except (ValueError, KeyError) as exc:
        return fail(str(exc), exit_usage)

    def line(query, name, value):
        value, shown = float(value), written[name]  # counts too are floats there (pytrec_eval's values)
        if args.output_format == "jsonl":
            record = ({"query_id": query} if args.by_query else {}) | {"measure": shown, "value": value}
            return json.dumps(record)
        text = _format(value, args.places)
        return f"{query}\t{shown}\t{text}" if args.by_query else f"{shown}\t{text}"

    out = []
    if args.by_query:
        pq = ev.per_query
        rows = list(zip(pq["query_id"], pq["measure"], pq["value"]))
        place = {n: i for i, n in enumerate(written)}
        first = {q: i for i, q in reversed(list(enumerate(pq["query_id"])))}
        rows.sort(key=lambda row: (first[row[0]], place[row[1]]))  # query by query, measures as written
        out += [line(q, m, v) for q, m, v in rows]
    if not args.no_summary:
        summary = dict(zip(ev.aggregate["measure"], ev.aggregate["value"]))
        out += [line("all", n, summary[n]) for n in written]
    sys.stdout.write("".join(f"{text}\n" for text in out))
    return 0
