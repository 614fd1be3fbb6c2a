"""Make a failing case small: fewer runs, flags, queries and lines, plain blanks, short ids and numbers,
for as long as the same door still fails the same way and trec_eval still accepts the files."""

from __future__ import annotations

import re
import tempfile
from dataclasses import replace

import diff_doors
from diff_generate import Case, Line, TextFile

FLAG_GROUPS = {"-M": 2, "-l": 2}


def signature(m: diff_doors.Mismatch) -> str:
    """What kind of failure: the exit status and the last line of the message (numbers and quoted text
    left out), or "output differs"."""
    if m.got.rc != 0:
        last = [line for line in m.got.err.strip().splitlines() if line.strip()][-1:] or [""]
        text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", last[0])
        text = re.sub(r"0x[0-9a-fA-F]+|\\u[0-9a-fA-F]{4}", "0xN", text)
        return f"exit {m.got.rc}: " + re.sub(r"\d+", "N", text)[:160]
    return "output differs"


def failure(case: Case, door: str) -> diff_doors.Mismatch | None:
    """The door's mismatch on ``case``, or None (also when trec_eval refuses the case)."""
    if not diff_doors.applicable(door, case.flags):
        return None
    with tempfile.TemporaryDirectory(prefix="diff-min-") as work:
        qrels, runs = case.write(work + "/case")
        used = diff_doors.several(runs) if door in diff_doors.MULTI else runs[:1]
        if diff_doors.expected(qrels, used, case.flags).rc != 0:
            return None
        return diff_doors.compare(door, qrels, runs, case.flags, work)


def _flag_groups(flags) -> list:
    out, i = [], 0
    flags = list(flags)
    while i < len(flags):
        n = FLAG_GROUPS.get(flags[i], 1)
        out.append(tuple(flags[i : i + n]))
        i += n
    return out


def _map_files(case: Case, fn) -> Case:
    """``case`` with every line of every file replaced by ``fn(line, is_run)`` (None drops it)."""

    def one(tf: TextFile, run: bool) -> TextFile:
        lines = [x for x in (fn(line, run) for line in tf.lines) if x is not None]
        return replace(tf, lines=lines)

    return replace(case, qrels=one(case.qrels, False), runs=[one(r, True) for r in case.runs])


def _valid(case: Case) -> bool:
    return bool(case.qrels.data_lines()) and all(r.data_lines() for r in case.runs)


class Minimizer:
    def __init__(self, case: Case, door: str, budget: int = 600):
        self.door = door
        self.budget = budget
        self.calls = 0
        first = failure(case, door)
        if first is None:
            raise ValueError("the case does not fail")
        self.sig = signature(first)
        self.best, self.mismatch = case, first

    def attempt(self, candidate: Case) -> bool:
        if self.calls >= self.budget or not _valid(candidate):
            return False
        self.calls += 1
        m = failure(candidate, self.door)
        if m is not None and signature(m) == self.sig:
            self.best, self.mismatch = candidate, m
            return True
        return False

    def _ddmin(self, items: list, build) -> None:
        """Drop chunks of ``items`` (halves, quarters, ... single items) while ``build(kept)`` still fails."""
        n = 2
        while len(items) >= 1:
            size = max(1, len(items) // n)
            removed = False
            for start in range(0, len(items), size):
                kept = items[:start] + items[start + size :]
                if kept != items and self.attempt(build(kept)):
                    items = kept
                    removed = True
                    break
            if removed:
                n = max(2, n - 1)
            elif size == 1:
                break
            else:
                n = min(len(items), n * 2)
            if self.calls >= self.budget:
                break
        return None

    def run(self) -> tuple[Case, diff_doors.Mismatch]:
        base = self.best
        if len(base.runs) > 1:
            self.attempt(replace(base, runs=base.runs[:1]))
        for group in _flag_groups(self.best.flags):
            flags = [f for g in _flag_groups(self.best.flags) if g != group for f in g]
            self.attempt(self.best.with_flags(flags))
        # whole queries
        qids = sorted({line.fields[0] for line in self.best.qrels.data_lines()} | self._run_qids())

        def without_queries(kept):
            keep = set(kept)
            return _map_files(self.best, lambda line, run: line if not line.data or line.fields[0] in keep else None)

        self._ddmin(qids, without_queries)
        # lines of each file
        for which in ["qrels"] + [i for i in range(len(self.best.runs))]:
            lines = list(self._file(which).lines)
            self._ddmin(lines, lambda kept, w=which: self._with_file(w, kept))
        # blanks, line ends, final newline
        for which in ["qrels"] + [i for i in range(len(self.best.runs))]:
            tf = self._file(which)
            self.attempt(self._with_file(which, [line.plain() for line in tf.lines]))
            for i in range(len(self._file(which).lines)):
                lines = list(self._file(which).lines)
                if lines[i].data and lines[i] != lines[i].plain():
                    self.attempt(self._with_file(which, lines[:i] + [lines[i].plain()] + lines[i + 1 :]))
            if not self._file(which).final_newline:
                self.attempt(self._with(which, replace(self._file(which), final_newline=True)))
        self._shorten_ids()
        self._plain_values()
        return self.best, self.mismatch

    def _run_qids(self) -> set:
        return {line.fields[0] for r in self.best.runs for line in r.data_lines()}

    def _file(self, which) -> TextFile:
        return self.best.qrels if which == "qrels" else self.best.runs[which]

    def _with(self, which, tf: TextFile) -> Case:
        if which == "qrels":
            return replace(self.best, qrels=tf)
        runs = list(self.best.runs)
        runs[which] = tf
        return replace(self.best, runs=runs)

    def _with_file(self, which, lines) -> Case:
        return self._with(which, replace(self._file(which), lines=list(lines)))

    def _shorten_ids(self) -> None:
        """Each query and document id renamed to a short plain one, where the failure stays."""
        for pos, prefix in ((0, b"q"), (2, b"d")):
            ids = []
            for tf in [self.best.qrels, *self.best.runs]:
                for line in tf.data_lines():
                    if line.fields[pos] not in ids:
                        ids.append(line.fields[pos])
            for n, old in enumerate(ids):
                new = prefix + str(n + 1).encode()
                if old == new:
                    continue

                def rename(line: Line, run: bool, old=old, new=new, pos=pos) -> Line:
                    if not line.data or line.fields[pos] != old:
                        return line
                    fields = list(line.fields)
                    fields[pos] = new
                    return replace(line, fields=tuple(fields))

                self.attempt(_map_files(self.best, rename))

    def _plain_values(self) -> None:
        """Iteration, rank, score and tag columns made plain ("0"/"Q0", the line's rank, "1", "r"), one
        column at a time, then line by line."""
        for col, value in ((1, None), (3, None), (5, b"r"), (4, b"1")):

            def plain(line: Line, run: bool, col=col, value=value) -> Line:
                if not line.data or (not run and col > 1) or col >= len(line.fields):
                    return line
                fields = list(line.fields)
                fields[col] = (
                    value if value is not None else (b"Q0" if run and col == 1 else b"0" if col == 1 else b"1")
                )
                return replace(line, fields=tuple(fields[: 6 if run else 4]))

            self.attempt(_map_files(self.best, plain))


def minimize(case: Case, door: str, budget: int = 600) -> tuple[Case, diff_doors.Mismatch, str]:
    """(smaller case, its mismatch, the failure's signature)."""
    m = Minimizer(case, door, budget)
    small, mismatch = m.run()
    return small, mismatch, m.sig
