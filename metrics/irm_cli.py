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
be mixed with the others in one call.  The qrels are a file (ir_datasets ids
are not looked up).
"""

from __future__ import annotations

import argparse
import json
import sys

from .errors import InputError
from .evaluate import Evaluation, evaluate
from .measures import parse_measures
from .measures.diversity import parse_diversity
from .measures.irm import _aliases, _read, split_top_level
from .readers import read_qrels, read_run

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
    read = _read(text)
    if read is None:
        return text.strip()
    name, args, at = read
    name = _aliases().get(name, name)
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


def _format(value: float, places: int) -> str:
    return f"{value}" if places == -1 else f"{value:.{places}f}"


def main(argv: list[str]) -> int:
    from .cli import EXIT_INPUT, EXIT_USAGE, _guarded

    args = _parser().parse_args(argv)
    return _guarded(lambda: _run(args, EXIT_USAGE, EXIT_INPUT), False)


def _run(args, exit_usage: int, exit_input: int) -> int:
    def fail(message: str, code: int) -> int:
        print(f"ir-eval: {message}", file=sys.stderr)
        return code

    if args.provider:
        return fail("--provider: every measure is computed by ir-eval itself", exit_usage)
    if args.no_summary and not args.by_query:
        return fail("--no_summary (-n) only goes with --by_query (-q)", exit_usage)
    names = [n for value in args.measures for n in split_top_level(value, str.isspace)]
    diversity = [parse_diversity(n) is not None for n in names]
    ev: Evaluation
    try:
        if any(diversity) and not all(diversity):
            raise ValueError("diversity measures read intent-annotated qrels: give them in a call of their own")
        if all(diversity):
            from .intents import evaluate_diversity, read_intent_qrels

            ev = evaluate_diversity(read_intent_qrels(args.qrels), read_run(args.run), names, complete=True)
            written = {name: printed_name(name) for name in ev.measure_names()}
        else:
            by_measure: dict = {}  # one line per measure, named as first written (ir_measures dedupes too)
            for n in names:
                by_measure.setdefault(parse_measures([n])[0], n)  # unknown names fail here, before reading
            ev = evaluate(read_qrels(args.qrels), read_run(args.run), list(by_measure.values()), complete=True)
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
        out += [line(q, m, v) for q, m, v in zip(pq["query_id"], pq["measure"], pq["value"])]
    if not args.no_summary:
        summary = dict(zip(ev.aggregate["measure"], ev.aggregate["value"]))
        out += [line("all", n, summary[n]) for n in written]
    sys.stdout.write("".join(f"{text}\n" for text in out))
    return 0
