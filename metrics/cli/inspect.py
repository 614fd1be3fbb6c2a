"""``ir-eval --inspect FILE...``: what each file holds, as text or JSON (:mod:`metrics.inspect.files`)."""

from __future__ import annotations

import json
import sys

from metrics.cli.common import add_level_option, settings_of_args
from metrics.errors import InputError
from metrics.inspect.files import Inspection, inspect_file, json_default
from metrics.io.columns import read_columns
from metrics.io.readers import detect_kind_with_reason


def format_text(inspections) -> str:
    """The inspections as text for a terminal."""
    blocks = []
    for ins in inspections:
        d = ins.to_dict() if isinstance(ins, Inspection) else ins
        lines = [
            f"{d['path']}",
            f"  kind          {d['kind'] or 'unknown'} ({d['kind_reason']})",
            *([f"  layout        {d['layout']}"] if d.get("layout", "TREC") != "TREC" else []),
            f"  size          {d['size']:,} bytes, {d['lines']:,} data lines, {d['comment_lines']:,} comment lines",
            f"  queries       {d['queries']:,}",
        ]
        if "docs_per_query" in d:
            s = d["docs_per_query"]
            lines += [
                f"  documents     {d['documents']:,} ({s['min']} / {s['median']:g} / {s['max']} per query)",
                f"  scores        {d['score_range'][0]:g} to {d['score_range'][1]:g}",
                f"  tied scores   {d['tied_scores']:,} documents in {d['tied_queries']:,} queries",
                f"  rank column   {d['rank_contradictions']:,} documents scored above the one ranked before them",
            ]
            if d["tags"]:
                lines.append("  tags          " + ", ".join(f"{t} ({n:,})" for t, n in d["tags"].items()))
        if "intents_per_query" in d:
            s = d["intents_per_query"]
            lines += [
                f"  judgments     {d['judgments']:,}",
                f"  intents       {s['min']} / {s['median']:g} / {s['max']} per query",
                "  grades        " + ", ".join(f"{g}: {n:,}" for g, n in d["grades"].items()),
            ]
        elif "grades" in d:
            s, r = d["judgments_per_query"], d["relevant_per_query"]
            lines += [
                f"  judgments     {d['judgments']:,} ({s['min']} / {s['median']:g} / {s['max']} per query)",
                "  grades        " + ", ".join(f"{g}: {n:,}" for g, n in d["grades"].items()),
                f"  relevant      {r['min']} / {r['median']:g} / {r['max']} per query "
                f"(grade >= {d['relevance_level']})",
                f"  no relevant   {len(d['queries_without_relevant'])} queries",
            ]
        a = d.get("against_qrels")
        if a:
            depth = a["judged_depth"]
            lines += [
                f"  vs qrels      {a['shared_queries']} shared queries, "
                f"{len(a['queries_only_in_run'])} only in the run, "
                f"{len(a['queries_only_in_qrels'])} only in the qrels"
            ]
            if a["judged_at_10"] is not None:
                lines += [
                    f"  judged        {100 * a['judged_at_10']:.1f}% of the top 10, "
                    f"{100 * a['judged_at_100']:.1f}% of the top 100; judged to depth "
                    f"{depth['min']} / {depth['median']:g} / {depth['max']}"
                ]
        for p in d["problems"]:
            where = f"line {p['line']}: " if p.get("line") else ""
            lines.append(f"  {p['severity']:<13} {where}{p['message']}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def main(argv: list[str]) -> int:
    """``ir-eval --inspect FILE... [--format text|json] [-l N]``; exit 2 when a file cannot be read."""
    import argparse

    p = argparse.ArgumentParser(
        prog="ir-eval --inspect", description="Describe qrels and run files without evaluating them."
    )
    p.add_argument("--inspect", action="store_true", required=True)
    p.add_argument("files", metavar="FILE", nargs="+")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_level_option(p)
    args = p.parse_args(argv)
    qrels = None
    for path in args.files:  # the first qrels file, to hold the runs against
        try:
            if detect_kind_with_reason(path)[0] == "qrels":
                qrels = read_columns(path, "qrels")
                break
        except (InputError, OSError):
            continue
    out = [
        inspect_file(
            path, qrels=qrels if qrels is not None and qrels.path != path else None, settings=settings_of_args(args)
        )
        for path in args.files
    ]
    if args.format == "json":
        json.dump([i.to_dict() for i in out], sys.stdout, indent=1, default=json_default)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(format_text(out))
    return 2 if any(not i.readable for i in out) else 0
