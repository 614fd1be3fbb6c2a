"""Many more generated cases than the test suite runs, through every door; each failure is made small
and written to a folder of its own.

    python tests/differential/diff_long.py --examples 500 --out /tmp/diff-out
    python tests/differential/diff_long.py --examples 200 --doors cli,json,window --seed 7 --out DIR

Each folder holds ``qrels.txt``, ``run.txt`` (``run2.txt``...), ``flags.txt``, ``door.txt`` (the door,
trec_eval's command, what went wrong), ``expected.txt``, ``got.txt``, ``stderr.txt`` and ``diff.txt``.
At most ``--per-kind`` folders are written per door and kind of failure.  Exit status 1 when anything
failed.  trec_eval is found as the tests find it (``TREC_EVAL_BIN``, see tests/trec_eval_ref.py).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
for folder in (HERE, HERE.parent):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import diff_doors  # noqa: E402
import diff_generate  # noqa: E402
import diff_minimize  # noqa: E402
import trec_eval_ref  # noqa: E402


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:50] or "failure"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--examples", type=int, default=200, help="generated cases (default 200)")
    p.add_argument("--out", required=True, help="folder for the failures")
    p.add_argument("--seed", default="long", help="seed of the generator (default 'long')")
    p.add_argument("--doors", default="all", help=f"comma-separated, of {', '.join(diff_doors.DOORS)} (default all)")
    p.add_argument("--large", action="store_true", help="cases up to 40 queries and 150 documents per query")
    p.add_argument("--per-kind", type=int, default=3, help="folders written per door and kind of failure")
    p.add_argument("--no-minimize", action="store_true", help="write failures as generated")
    p.add_argument("--budget", type=int, default=400, help="door calls spent making one failure small")
    args = p.parse_args(argv)
    if not trec_eval_ref.BIN:
        print(f"diff_long: {trec_eval_ref.REASON}", file=sys.stderr)
        return 2
    doors = list(diff_doors.DOORS) if args.doors == "all" else args.doors.split(",")
    unknown = [d for d in doors if d not in diff_doors.DOORS]
    if unknown:
        p.error(f"unknown doors: {', '.join(unknown)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    kinds: Counter = Counter()
    written = 0
    start = time.monotonic()
    for i in range(args.examples):
        case = diff_generate.seeded_case(f"{args.seed}-{i}", small=not args.large)
        with tempfile.TemporaryDirectory(prefix="diff-long-") as work:
            qrels, runs = case.write(work + "/case")
            for door in doors:
                if not diff_doors.applicable(door, case.flags):
                    continue
                m = diff_doors.compare(door, qrels, runs, case.flags, work)
                if m is None:
                    continue
                sig = diff_minimize.signature(m)
                kinds[(door, sig)] += 1
                if kinds[(door, sig)] > args.per_kind:
                    continue
                small = case
                if not args.no_minimize:
                    try:
                        small, m, sig = diff_minimize.minimize(case, door, args.budget)
                    except ValueError:
                        pass  # fails only with what the minimizer cannot rebuild: keep it whole
                written += 1
                folder = out / f"{written:03d}-{door}-{_slug(sig)}"
                diff_doors.save(small, m, folder)
                (folder / "features.txt").write_text(f"example {args.seed}-{i}\n" + "\n".join(sorted(case.features)))
                print(f"[{i}] {door}: {sig} -> {folder}", flush=True)
        if (i + 1) % 25 == 0:
            print(f"{i + 1} examples, {sum(kinds.values())} failures, {time.monotonic() - start:.0f} s", flush=True)
    print(f"\n{args.examples} examples, {sum(kinds.values())} failures in {time.monotonic() - start:.0f} s")
    for (door, sig), n in sorted(kinds.items()):
        print(f"{n:5d}  {door}: {sig}")
    return 1 if kinds else 0


if __name__ == "__main__":
    sys.exit(main())
