"""``ir-eval --example NAME``: a textbook's worked example, its printed numbers beside the exact ones.

``ir-eval --example list`` names the gallery's examples (:mod:`metrics.examples`).  For one example the
text is its description, the numbers the text prints next to the exact values under the text's
convention and trec_eval's, the notes on any difference (a text that rounded early or slipped), then
the conventions of each measure side by side (:func:`metrics.explain.side_by_side`) and the paths of
its qrels and run, ordinary TREC files that ``ir-eval`` and the window open as any others.
``--format json`` prints the same as JSON.
"""

from __future__ import annotations

import json
import sys

from metrics.errors import EXIT_USAGE

__all__ = ["main", "parser"]

LIST = "list"


def parser():
    from metrics.cli.common import Parser

    p = Parser(
        prog="ir-eval --example",
        description="Show a textbook's worked example: the numbers it prints, the exact values under its "
        "convention and trec_eval's, side by side, and why they differ. 'list' names the examples.",
    )
    p.add_argument("--example", dest="name", metavar="NAME", required=True, help="the example ('list': all of them)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text (Markdown; the default) or json")
    p.add_argument("--debug", action="store_true", help="show the traceback of an unexpected error")
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    from metrics.examples import UnknownExample, example_names, open_example

    if args.name == LIST:
        examples = [open_example(name) for name in example_names()]
        if args.format == "json":
            _dump([{"name": e.name, "title": e.title} for e in examples])
        else:
            width = max(len(e.name) for e in examples)
            sys.stdout.write("".join(f"{e.name:<{width}}  {e.title}\n" for e in examples))
        return 0
    try:
        example = open_example(args.name)
    except UnknownExample as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        _dump(_as_dict(example))
    else:
        sys.stdout.write("\n".join(_text_lines(example)) + "\n")
    sys.stdout.flush()
    return 0


def _dump(data) -> None:
    json.dump(data, sys.stdout, indent=1, ensure_ascii=False, allow_nan=False)
    sys.stdout.write("\n")


def exact_text(value: float) -> str:
    """An exact value with six decimals, its trailing zeros dropped (0.675, 0.830357, 1120.306961)."""
    return f"{value:.6f}".rstrip("0").rstrip(".")


def _pairs(example) -> list[tuple[str, str]]:
    """The (measure, query) pairs of the example's numbers, each once, in the order of the numbers."""
    return list(dict.fromkeys((n.measure, n.query) for n in example.numbers))


def _text_lines(example) -> list[str]:
    from metrics.explain.model import Table
    from metrics.explain.textbook import as_table

    table = example.table()
    rows = tuple(
        {
            "number": r["number"],
            "query": r["query"],
            "printed": r["printed"] or "-",
            "exact": exact_text(r["exact"]),
            "agrees": "-" if r["agrees"] is None else ("yes" if r["agrees"] else "no"),
            "trec_eval's convention": exact_text(r["trec_eval convention"]),
            "trec_eval prints": r["trec_eval prints"] or "-",
        }
        for r in table.to_dict("records")
    )
    columns = ("number", "query", "printed", "exact", "agrees", "trec_eval's convention", "trec_eval prints")
    lines = [f"Worked example {example.name}: {example.title}", "", f"Source: {example.source}", ""]
    lines += [f"Convention: {example.convention}", ""]
    lines += Table("The text's numbers, exact under its convention, and trec_eval's", columns, rows).markdown()
    notes = [f"- {r['number']}: {r['note']}" for r in table.to_dict("records") if r["note"]]
    if notes:
        lines += ["", "Where the numbers differ:", ""] + notes
    for measure, query in _pairs(example):
        what = "the summary" if query == "all" else f"query {query}"
        lines += [""] + as_table(example.side_by_side(measure, query), f"{measure}, {what}").markdown()
    levels = "" if example.level == 1 else f" -l {example.level}"
    measures = " ".join(f"-m {m}" for m in dict.fromkeys(n.measure for n in example.numbers))
    lines += [
        "",
        f"Qrels: {example.qrels_path}",
        f"Run: {example.run_path}",
        f"trec_eval's numbers: ir-eval -q{levels} {measures} QRELS RUN",
    ]
    return lines


def _as_dict(example) -> dict:
    from metrics.explain.textbook import records

    table = example.table()
    numbers = [
        {
            "label": r["number"],
            "query": r["query"],
            "printed": r["printed"] or None,
            "exact": r["exact"],
            "agrees": r["agrees"],
            "trec_eval_convention": r["trec_eval convention"],
            "trec_eval_prints": r["trec_eval prints"] or None,
            "note": r["note"],
        }
        for r in table.to_dict("records")
    ]
    conventions = []
    for measure, query in _pairs(example):
        rows = records(example.side_by_side(measure, query))
        conventions.append({"measure": measure, "query": query, "rows": rows})
    return {
        "name": example.name,
        "title": example.title,
        "source": example.source,
        "convention": example.convention,
        "level": example.level,
        "qrels": str(example.qrels_path),
        "run": str(example.run_path),
        "numbers": numbers,
        "conventions": conventions,
    }
