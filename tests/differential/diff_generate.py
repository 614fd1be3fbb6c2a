"""Qrels and run files with the variation real files bring, for the differential tests.

One generator, two sources of choices: :class:`RandomSource` (a seeded :class:`random.Random`, for
large cases and the long command) and :class:`DrawSource` (hypothesis' ``draw``, for
:func:`cases`).  A case is kept as lines of fields with their blanks and line ends (:class:`Line`),
so that it can be rendered to bytes, and made smaller line by line (:mod:`diff_minimize`).

Everything generated here is accepted by trec_eval 10.0 (``get_qrels.c``, ``get_trec_results.c``):
qrels lines of exactly 4 fields, no blank or comment lines in qrels; run lines of 6 fields (a few
with more, which trec_eval skips), blank and ``#`` lines in runs; no duplicate document in a query;
ids without blanks or NUL bytes, never starting with ``#``; a qrels query missing from a run only
with ``-c``.  What trec_eval refuses or reads otherwise is in :mod:`diff_intended`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

# ---------------------------------------------------------------------------------------------- sources


class RandomSource:
    """Choices from a seeded :class:`random.Random`."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, items):
        return items[self.rng.randrange(len(items))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def sample(self, items, k: int) -> list:
        return self.rng.sample(items, k)


class DrawSource:
    """Choices drawn by hypothesis (each choice shrinks towards the first item, ``False`` and ``lo``)."""

    def __init__(self, draw):
        from hypothesis import strategies as st

        self.draw = draw
        self.st = st

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))

    def choice(self, items):
        return items[self.draw(self.st.integers(0, len(items) - 1))]

    def chance(self, p: float) -> bool:
        return self.draw(self.st.integers(0, 999)) >= 1000 - round(p * 1000)


# ---------------------------------------------------------------------------------------------- files


@dataclass
class Line:
    """One line: its fields and the blanks around and between them, or a blank or ``#`` line (``text``)."""

    fields: tuple = ()
    seps: tuple = ()
    lead: bytes = b""
    trail: bytes = b""
    end: bytes = b"\n"
    text: bytes = b""  # a blank or comment line (no fields)

    def render(self) -> bytes:
        if not self.fields:
            return self.text + self.end
        parts = [self.lead, self.fields[0]]
        for sep, f in zip(self.seps, self.fields[1:]):
            parts += [sep, f]
        return b"".join(parts) + self.trail + self.end

    def plain(self) -> Line:
        """The same fields, one space apart, LF-ended."""
        if not self.fields:
            return self
        return Line(self.fields, (b" ",) * (len(self.fields) - 1))

    @property
    def data(self) -> bool:
        return bool(self.fields)


@dataclass
class TextFile:
    lines: list
    final_newline: bool = True
    bom: bool = False  # only in diff_intended's cases

    def render(self) -> bytes:
        out = b"".join(line.render() for line in self.lines)
        if not self.final_newline and out.endswith(b"\n"):
            out = out[:-1]
        return (b"\xef\xbb\xbf" if self.bom else b"") + out

    def data_lines(self) -> list:
        return [line for line in self.lines if line.data]


@dataclass
class Case:
    """A qrels file, one or more runs scored against it, the trec_eval flags, and what was varied."""

    qrels: TextFile
    runs: list
    flags: tuple = ()
    features: set = field(default_factory=set)

    def write(self, directory) -> tuple:
        """Write ``qrels.txt`` and ``run.txt`` (``run2.txt``...) into ``directory``; return the paths."""
        from pathlib import Path

        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        qrels = d / "qrels.txt"
        qrels.write_bytes(self.qrels.render())
        runs = []
        for i, run in enumerate(self.runs):
            p = d / ("run.txt" if i == 0 else f"run{i + 1}.txt")
            p.write_bytes(run.render())
            runs.append(str(p))
        return str(qrels), runs

    def __repr__(self) -> str:
        lines = sum(len(r.data_lines()) for r in self.runs)
        return (
            f"Case(flags={' '.join(self.flags) or '(none)'}, qrels lines={len(self.qrels.data_lines())}, "
            f"runs={len(self.runs)}, run lines={lines}, features={sorted(self.features)})"
        )

    def with_flags(self, flags) -> Case:
        return replace(self, flags=tuple(flags))


# ---------------------------------------------------------------------------------------------- ids

LATIN1 = [b"caf\xe9", b"\xa0nbsp", b"x\x85nel", b"\xff", b"na\xefve", b"\xe9t\xe9", b"A\xb0B"]
UTF8 = [
    "é",
    "ü-doc",
    "文書",
    "Ωμέγα",
    "😀",
    "a\u00a0b",  # no-break space: a blank to str.split, not to C's isspace
    "em\u2003space",
    "ideo\u3000space",
    "nel\u0085x",  # a line break to str.splitlines
    "ls\u2028x",
    "İ",
]
CONTROL = [b"fs\x1cx", b"gs\x1dx", b"rs\x1ex", b"us\x1fx", b"del\x7fx", b"soh\x01x"]
PUNCT = b"!\"$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
PREFIXES = [b"FBIS3-", b"LA0101", b"doc", b"clueweb09-en0000-", b"MARCO_", b"d", b"D", b"q", b"Q"]
ID_KINDS = ("numeric", "padded", "alnum", "punct", "utf8", "latin1", "control", "short", "long600", "brace", "comma")
ID_KINDS_RARE = ("long5000",)
#: what JSON, a header, CSV or topic tags begin with, at the start of an id (trec_eval reads them as ids)
OPENERS = [b"{", b"{}", b'{"', b'{"q":', b"[", b"[1,", b"<", b"<top>", b'<topic_number="1">', b"<num>"]
#: commas and quotes inside an id (CSV's separators and quotes)
COMMAS = [b"a,b", b'"q"', b'"x,y"', b",", b"'s'", b'say,"hi"']


def make_id(src, kind: str, n: int) -> bytes:
    """A distinct-ish id of ``kind`` built around the number ``n``."""
    digits = str(n).encode()
    if kind == "numeric":
        return digits
    if kind == "padded":
        return b"0" * src.integer(1, 3) + digits
    if kind == "alnum":
        return src.choice(PREFIXES) + digits
    if kind == "punct":
        return bytes([src.choice(PUNCT)]) + b"x" + digits + bytes([src.choice(PUNCT)])
    if kind == "utf8":
        return src.choice(UTF8).encode() + digits
    if kind == "latin1":
        return src.choice(LATIN1) + digits
    if kind == "control":
        return src.choice(CONTROL) + digits
    if kind == "short":
        return bytes([src.choice(b"abcdefghijklmnopqrstuvwxyzABCXYZ0123456789")])
    if kind == "long600":
        return (b"L" + digits + b"-") * 2 + b"x" * (600 - 2 * (len(digits) + 2)) + src.choice([b"", b"y"])
    if kind == "long5000":
        return digits + b"-" + b"z" * 5000
    if kind == "brace":
        return src.choice(OPENERS) + digits
    if kind == "comma":
        return src.choice(COMMAS) + digits if src.chance(0.5) else digits + src.choice(COMMAS)
    if kind == "hash":  # (documents only: a query id starting with '#' makes a comment line)
        return b"#" + digits
    raise ValueError(kind)


def id_set(src, kinds, count: int, taken=None) -> list:
    """``count`` distinct ids of the given kinds (with "padded", "007" and "7" both where they fit)."""
    taken = set() if taken is None else taken
    out: list = []
    attempts = 0
    while len(out) < count and attempts < count * 20:
        attempts += 1
        kind = src.choice(kinds)
        n = src.integer(0, max(999, count * 10))
        ident = make_id(src, kind, n)
        if kind == "short" and attempts > count * 5:
            ident += str(n).encode()
        if ident in taken or (ident.startswith(b"#") and kind != "hash"):
            continue
        taken.add(ident)
        out.append(ident)
        if kind == "padded" and len(out) < count and str(n).encode() not in taken:
            taken.add(str(n).encode())
            out.append(str(n).encode())  # "7" beside "007": different ids
    while len(out) < count:  # kinds with few distinct ids
        ident = b"x%d" % (len(taken) + len(out))
        if ident not in taken:
            taken.add(ident)
            out.append(ident)
    return out


# ---------------------------------------------------------------------------------------------- values

SCORE_KINDS = ("int", "decimal", "exp", "ties", "huge", "negative", "negzero", "precise", "spelling")


def score_text(src, kind: str, i: int, n: int) -> bytes:
    """A score of ``kind`` for the ``i``-th of ``n`` documents (trec_eval reads it with atof)."""
    if kind == "int":
        return str(src.integer(-3, 60)).encode()
    if kind == "decimal":
        return f"{src.integer(0, 99999) / 10000:.4f}".encode()
    if kind == "exp":
        m = src.choice(["1", "2.5", "-3.25", "9.75", "7"])
        e = src.choice(["e-4", "E+3", "e10", "E-07", "e0", "e+00"])
        return (m + e).encode()
    if kind == "ties":
        return src.choice([b"1", b"1.0", b"1.00", b"0.5", b"0.50", b"2", b"5e-1", b"10e-1"])
    if kind == "huge":
        return src.choice([b"1e300", b"-1e300", b"1.7976931348623157e308", b"4.9e-324", b"1e-320", b"1e308", b"2e300"])
    if kind == "negative":
        return f"-{src.integer(0, 9999) / 100:g}".encode()
    if kind == "negzero":
        return src.choice([b"-0", b"0", b"-0.0", b"+0", b"0.0", b"-0e5"])
    if kind == "precise":
        return src.choice(
            [b"0.30000000000000004", b"0.3", b"0.29999999999999999", b"0.1234567890123456789", b"0.12345678901234568"]
        )
    if kind == "spelling":
        return src.choice([b".5", b"5.", b"+2", b"1E3", b"00012", b"-.25", b"3.000000000000000000001"])
    raise ValueError(kind)


GRADE_KINDS = ("binary", "graded", "negative", "large")


def grade_text(src, kind: str) -> bytes:
    if kind == "binary":
        g = src.choice([0, 1])
    elif kind == "graded":
        g = src.choice([0, 0, 1, 2, 3])
    elif kind == "negative":
        g = src.choice([-2, -1, -1, 0, 1, 2])
    else:
        g = src.choice([0, 1, 100, 1000, 3])
    return str(g).encode()


RANK_KINDS = ("consistent", "zero_based", "contradicting", "constant", "huge", "text")
ITER_VALUES = (b"Q0", b"0", b"0.5", b"iter", b"q0", b"1")


# ---------------------------------------------------------------------------------------------- blanks

SEPS_COMMON = (b" ", b" ", b" ", b"\t")
SEPS_ODD = (b"  ", b"\t\t", b" \t ", b"\t ", b"   \t", b" \r", b"\r", b"\r ", b" \r\t")
SEPS_RARE = (b"\x0b", b"\x0c", b" \x0b ")  # also blanks to C's isspace
LEADS = (b" ", b"\t", b"  \t", b"\r", b" \r ")
TRAILS = (b" ", b"\t", b"  ", b" \t", b"\r", b" \r")


@dataclass
class Style:
    """How blanks and line ends vary in one file."""

    odd_seps: float = 0.0
    rare_seps: float = 0.0
    lead: float = 0.0
    trail: float = 0.0
    crlf: float = 0.0
    blank_lines: float = 0.0  # runs only
    comments: float = 0.0  # runs only
    extra_columns: float = 0.0  # runs only
    topic_comments: bool = False  # runs only: comment lines hold topic tags ('# <top> <num> ...')
    final_newline: bool = True
    blanks: str = "all"  # which odd blanks: "all", "spaces_tabs" (no CR), "cr" (with a CR)


def draw_style(src, run: bool) -> Style:
    if src.chance(0.25):
        return Style(final_newline=not src.chance(0.2))
    p = (0.0, 0.05, 0.3, 1.0)
    return Style(
        odd_seps=src.choice(p),
        rare_seps=0.02 if src.chance(0.15) else 0.0,
        lead=src.choice(p),
        trail=src.choice(p),
        crlf=src.choice(p),
        blank_lines=src.choice(p[:3]) if run else 0.0,
        comments=src.choice(p[:3]) if run else 0.0,
        extra_columns=src.choice((0.05, 0.3)) if run and src.chance(0.2) else 0.0,
        topic_comments=run and src.chance(0.1),
        final_newline=not src.chance(0.3),
    )


def _blanks(choices, which: str):
    if which == "spaces_tabs":
        return tuple(c for c in choices if b"\r" not in c)
    if which == "cr":
        return tuple(c for c in choices if b"\r" in c)
    return choices


def dress(src, fields: tuple, style: Style, force: bool = False) -> Line:
    """A data line with blanks chosen by ``style`` (``force``: at least one variation)."""
    seps = []
    odd, leads, trails = (_blanks(c, style.blanks) for c in (SEPS_ODD, LEADS, TRAILS))
    for _ in fields[1:]:
        if style.rare_seps and src.chance(style.rare_seps):
            seps.append(src.choice(SEPS_RARE))
        elif src.chance(style.odd_seps):
            seps.append(src.choice(odd))
        else:
            seps.append(src.choice(SEPS_COMMON))
    line = Line(
        tuple(fields),
        tuple(seps),
        lead=src.choice(leads) if src.chance(style.lead) else b"",
        trail=src.choice(trails) if src.chance(style.trail) else b"",
        end=b"\r\n" if src.chance(style.crlf) else b"\n",
    )
    if force and line == line.plain():
        what = src.integer(0, 3)
        if what == 0:
            line.lead = src.choice(LEADS)
        elif what == 1:
            line.trail = src.choice(TRAILS)
        elif what == 2:
            line.end = b"\r\n"
        else:
            seps[src.integer(0, len(seps) - 1)] = src.choice(SEPS_ODD)
            line.seps = tuple(seps)
    return line


TOPIC_COMMENTS = [b"# <top> <num> Number: 301", b'#<topic number="1">', b"# </top>", b"#<top>", b"# <title> x\ty"]


def filler(src, comment: bool, topics: bool = False) -> Line:
    """A blank or comment line of a run (``topics``: comments holding topic tags)."""
    if comment:
        lead = src.choice([b"", b"", b" ", b"\t", b" \r"])
        body = src.choice([b"# comment", b"#", b"#qid Q0 docno rank score tag", b"## x\ty \r z", b"#\xc3\xa9"])
        if topics:
            body = src.choice(TOPIC_COMMENTS)
        return Line(text=lead + body, end=src.choice([b"\n", b"\r\n"]))
    return Line(text=src.choice([b"", b"", b" ", b"\t", b" \t ", b"\r", b" \r"]), end=b"\n")


def extras(src, fields: tuple) -> tuple:
    """1 to 12 fields after a run line's tag, which trec_eval ignores: words, numbers, a '#', or a second
    record (two lines joined into one of 12 fields, as a lost newline or an old Mac's lone CR joins them)."""
    k = src.integer(0, 4)
    if k == 0:
        return src.choice([(b"extra",), (b"1", b"2"), (b"#x",)])
    if k == 1:
        return tuple(fields)  # the same record again: read, it would be a duplicate document
    if k == 2:
        return tuple(fields[:2]) + (fields[2] + b"-joined",) + tuple(fields[3:])
    return tuple(b"x%d" % i if i % 3 else b"%d.5" % i for i in range(src.integer(1, 12)))


def decorate(src, lines: list, style: Style, run: bool) -> TextFile:
    """Dressed lines, with a variation on the first and last lines when the style has any, and blank
    and comment lines (runs) at the start, the end and in between; lines of more than 6 fields (runs,
    the first line among them when the style has any), joined by a lone CR now and then."""
    fancy = replace(style, final_newline=True, blanks="all") != Style()
    out = []
    for i, fields in enumerate(lines):
        edge = i in (0, len(lines) - 1) and fancy
        if run and (style.blank_lines or style.comments) and (src.chance(style.blank_lines + style.comments) or edge):
            if src.chance(0.5) or edge:
                comment = src.chance(style.comments / (style.blank_lines + style.comments))
                out.append(filler(src, comment=comment, topics=style.topic_comments))
        more = ()
        if run and style.extra_columns and (src.chance(style.extra_columns) or (i == 0 and src.chance(0.5))):
            more = extras(src, fields)
        line = dress(src, tuple(fields) + more, style, force=edge and src.chance(0.7))
        if more and src.chance(0.3):
            line.seps = line.seps[:5] + (b"\r",) + line.seps[6:]  # the tag and what follows joined by a CR
        out.append(line)
    if run and (style.blank_lines or style.comments) and src.chance(0.5):
        out.append(filler(src, comment=src.chance(0.5), topics=style.topic_comments))
    return TextFile(out, final_newline=style.final_newline)


# ---------------------------------------------------------------------------------------------- cases

FLAG_SETS = (
    (),
    ("-c",),
    ("-M", "5"),
    ("-l", "2"),
    ("-J",),
    ("-c", "-M", "5"),
    ("-c", "-J", "-l", "2"),
    ("-M", "5", "-J"),
)


@dataclass
class Plan:
    """The sizes and kinds of one case; ``generate`` fills in the rest."""

    queries: int = 4
    docs: int = 20
    depth: int = 15
    judged: int = 10
    runs: int = 1
    qid_kinds: tuple = ("numeric",)
    doc_kinds: tuple = ("alnum",)
    scores: tuple = ("decimal",)
    grades: str = "graded"
    ranks: str = "consistent"
    iters: tuple = (b"Q0",)
    qrels_iters: tuple = (b"0",)
    tags: tuple = (b"run",)
    order: str = "grouped"  # grouped, sorted, shuffled (runs), reversed
    run_only: int = 0
    qrels_only: int = 0
    one_doc: bool = False
    exact: bool = False  # every query with ``depth`` documents and ``judged`` judgments
    qrels_style: Style = field(default_factory=Style)
    run_style: Style = field(default_factory=Style)
    header_words: bool = False  # the first lines' ids are the words headers use (header_words_first)


def draw_plan(src, flags=(), small: bool = True) -> Plan:
    kinds = ID_KINDS + (ID_KINDS_RARE if src.chance(0.05) else ())
    qid_kinds = tuple({src.choice(kinds) for _ in range(src.integer(1, 2))})
    doc_kinds = tuple({src.choice(kinds + ("hash",)) for _ in range(src.integer(1, 3))})
    scores = tuple({src.choice(SCORE_KINDS) for _ in range(src.integer(1, 3))})
    tags = (src.choice([b"run", b"Anserini", b"bm25_\xc3\xa9", b"t"]),)
    if src.chance(0.15):
        tags += (src.choice([b"other", b"last-tag"]),)
    return Plan(
        queries=src.integer(1, 6 if small else 40),
        docs=src.integer(1, 30 if small else 200),
        depth=src.integer(1, 20 if small else 150),
        judged=src.integer(1, 15 if small else 100),
        runs=src.choice([1, 1, 1, 2, 3]),
        qid_kinds=qid_kinds,
        doc_kinds=doc_kinds,
        scores=scores,
        grades=src.choice(GRADE_KINDS),
        ranks=src.choice(RANK_KINDS),
        iters=tuple({src.choice(ITER_VALUES) for _ in range(src.integer(1, 2))}),
        qrels_iters=tuple({src.choice((b"0", b"Q0", b"0.5", b"iter", b"1")) for _ in range(src.integer(1, 2))}),
        tags=tags,
        order=src.choice(["grouped", "grouped", "sorted", "reversed", "shuffled"]),
        run_only=src.choice([0, 0, 1, 2]),
        qrels_only=src.choice([0, 0, 1, 2]) if "-c" in flags else 0,
        one_doc=src.chance(0.15),
        qrels_style=draw_style(src, run=False),
        run_style=draw_style(src, run=True),
        header_words=src.chance(0.1),
    )


def _shuffle(src, items: list) -> list:
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = src.integer(0, i)
        items[i], items[j] = items[j], items[i]
    return items


def _rank(src, kind: str, i: int, n: int) -> bytes:
    if kind == "consistent":
        return str(i + 1).encode()
    if kind == "zero_based":
        return str(i).encode()
    if kind == "contradicting":
        return str(src.integer(0, n + 5)).encode()
    if kind == "constant":
        return b"1"
    if kind == "huge":
        return b"99999999999999999999"
    return src.choice([b"r", b"-1", b"1.5", b"NA"])


def _sample(src, pool: list, k: int) -> list:
    k = max(0, min(k, len(pool)))
    if hasattr(src, "sample"):
        return src.sample(pool, k)
    return _shuffle(src, pool)[:k]


def generate(src, flags=(), plan: Plan | None = None) -> Case:
    """A case for ``flags``: ``plan`` (drawn when not given) fixes its kinds and sizes."""
    plan = draw_plan(src, flags) if plan is None else plan
    taken: set = set()
    n_both = max(1, plan.queries)
    qids = id_set(src, plan.qid_kinds, n_both + plan.run_only + plan.qrels_only, taken)
    both = qids[:n_both]
    run_only = qids[n_both : n_both + plan.run_only]
    qrels_only = qids[n_both + plan.run_only :]
    docs = id_set(src, plan.doc_kinds, max(1, plan.docs), set(taken))
    one_doc = set(src.choice(both) for _ in range(1)) if plan.one_doc else set()

    qrels_rows = []
    for q in both + qrels_only:
        k = 1 if q in one_doc else plan.judged if plan.exact else src.integer(1, max(1, plan.judged))
        judged = _sample(src, docs, k)
        grades = [grade_text(src, plan.grades) for _ in judged]
        if max(int(g) for g in grades) < 0:  # trec_eval 10.0 fails or crashes on a query without a grade >= 0
            grades[0] = b"0"
        for d, g in zip(judged, grades):
            qrels_rows.append((q, src.choice(plan.qrels_iters), d, g))
    if plan.order in ("shuffled", "reversed"):
        qrels_rows = qrels_rows[::-1] if plan.order == "reversed" else _shuffle(src, qrels_rows)
    elif plan.order == "sorted":
        qrels_rows.sort()

    runs = []
    for r in range(max(1, plan.runs)):
        rows = []
        order = both + run_only
        order = sorted(order) if plan.order == "sorted" else _shuffle(src, order)
        for q in order:
            k = 1 if q in one_doc else plan.depth if plan.exact else src.integer(1, max(1, plan.depth))
            retrieved = _sample(src, docs, k)
            scores = [score_text(src, src.choice(plan.scores), i, len(retrieved)) for i in range(len(retrieved))]
            for i, (d, s) in enumerate(zip(retrieved, scores)):
                tag = plan.tags[0] if len(plan.tags) == 1 or not src.chance(0.3) else src.choice(plan.tags)
                rows.append((q, src.choice(plan.iters), d, _rank(src, plan.ranks, i, k), s, tag))
        if plan.order == "shuffled":
            rows = _shuffle(src, rows)
        elif plan.order == "reversed":
            rows = rows[::-1]
        runs.append(decorate(src, rows, plan.run_style, run=True))
    features = {f"qid:{k}" for k in plan.qid_kinds} | {f"doc:{k}" for k in plan.doc_kinds}
    features |= {f"score:{k}" for k in plan.scores} | {f"grades:{plan.grades}", f"ranks:{plan.ranks}"}
    case = Case(decorate(src, qrels_rows, plan.qrels_style, run=False), runs, tuple(flags), features)
    if plan.header_words:
        case = header_words_first(src, case)
        case.features.add("header_words")
    return case


#: the words header lines are made of, as ids: a valid TREC line of them is data to trec_eval
QID_WORDS = (b"qid", b"query_id", b"Q0", b"label", b"q_id", b"queryid")
DOC_WORDS = (b"docid", b"docno", b"doc_id", b"score", b"rel", b"relevance", b"label", b"corpus-id")


def header_words_first(src, case: Case) -> Case:
    """``case`` with the query and document ids of the qrels' and the first run's first data lines renamed
    into the words headers use (``qid 0 docno 1``, ``query_id Q0 doc_id 3 2.5 run``), everywhere they
    occur, and that run line's rank now and then ``rank``: each still a valid TREC line."""
    used = {line.fields[k] for tf in (case.qrels, *case.runs) for line in tf.data_lines() for k in (0, 2)}
    for tf_of in (lambda c: c.qrels, lambda c: c.runs[0]):
        first = tf_of(case).data_lines()[0]
        for position, words in ((0, QID_WORDS), (2, DOC_WORDS)):
            old = first.fields[position]
            if old in QID_WORDS + DOC_WORDS:
                continue  # renamed with the other file's first line
            free = [w for w in words if w not in used]
            if not free:
                continue
            new = src.choice(free)
            used.add(new)
            case = rename_id(case, position, old, new)
    run = case.runs[0]
    if src.chance(0.5):
        lines = list(run.lines)
        i = next(k for k, line in enumerate(lines) if line.data)
        lines[i] = replace(lines[i], fields=lines[i].fields[:3] + (b"rank",) + lines[i].fields[4:])
        case = replace(case, runs=[replace(run, lines=lines), *case.runs[1:]])
    return case


PLAIN = Plan(queries=5, docs=25, depth=15, judged=10)


def _styled(**kw) -> dict:
    return {"qrels_style": Style(**kw), "run_style": Style(**kw)}


def _run_styled(**kw) -> dict:
    return {"run_style": Style(**kw)}


#: one variation each, on an otherwise plain case (numeric query ids, "d"-like document ids, decimal
#: scores, grades 0-3, ranks 1..n, Q0/0, one space, LF): name -> (plan fields, flags or None to rotate)
VARIATIONS = {
    "blank_runs": (_styled(odd_seps=0.7, blanks="spaces_tabs"), None),
    "lead_trail_blanks": (_styled(lead=0.5, trail=0.5, blanks="spaces_tabs"), None),
    "crlf": (_styled(crlf=1.0), None),
    "crlf_some_lines": (_styled(crlf=0.3), None),
    "lone_cr": (_styled(odd_seps=0.4, lead=0.2, trail=0.2, blanks="cr"), None),
    "no_final_newline": (_styled(final_newline=False), None),
    "no_final_newline_crlf": (_styled(final_newline=False, crlf=1.0), None),
    "run_blank_and_comment_lines": (_run_styled(blank_lines=0.3, comments=0.3), None),
    "vertical_tab_form_feed": (_styled(rare_seps=0.3), None),
    "run_extra_columns": (_run_styled(extra_columns=0.3), None),
    "ids_numeric": ({"qid_kinds": ("numeric",), "doc_kinds": ("numeric",)}, None),
    "ids_zero_padded": ({"qid_kinds": ("padded",), "doc_kinds": ("padded",)}, None),
    "ids_alphanumeric": ({"qid_kinds": ("alnum",), "doc_kinds": ("alnum",)}, None),
    "ids_punctuation": ({"qid_kinds": ("punct",), "doc_kinds": ("punct",)}, None),
    "ids_utf8": ({"qid_kinds": ("utf8",), "doc_kinds": ("utf8",)}, None),
    "ids_latin1": ({"qid_kinds": ("latin1",), "doc_kinds": ("latin1",)}, None),
    "ids_control_bytes": ({"qid_kinds": ("control",), "doc_kinds": ("control",)}, None),
    "ids_one_byte": ({"qid_kinds": ("short",), "doc_kinds": ("short",)}, None),
    "ids_600_bytes": ({"doc_kinds": ("long600", "alnum")}, None),
    "qids_600_bytes": ({"qid_kinds": ("long600",)}, None),
    "ids_5000_bytes": ({"doc_kinds": ("long5000", "alnum"), "qid_kinds": ("long5000", "numeric")}, None),
    "run_only_queries": ({"run_only": 2}, None),
    "qrels_only_queries": ({"qrels_only": 2}, ("-c",)),
    "scores_integer": ({"scores": ("int",)}, None),
    "scores_exponent": ({"scores": ("exp",)}, None),
    "scores_many_ties": ({"scores": ("ties",)}, None),
    "scores_huge": ({"scores": ("huge", "decimal")}, None),
    "scores_negative": ({"scores": ("negative",)}, None),
    "scores_minus_zero": ({"scores": ("negzero", "ties")}, None),
    "scores_17_digits": ({"scores": ("precise",)}, None),
    "scores_spellings": ({"scores": ("spelling", "int")}, None),
    "grades_negative": ({"grades": "negative"}, None),
    "grades_large": ({"grades": "large"}, None),
    "grades_binary": ({"grades": "binary"}, None),
    "ranks_zero_based": ({"ranks": "zero_based"}, None),
    "ranks_contradicting": ({"ranks": "contradicting"}, None),
    "ranks_text": ({"ranks": "text"}, None),
    "ranks_huge": ({"ranks": "huge"}, None),
    "iteration_columns": ({"iters": (b"0", b"Q0", b"0.5", b"iter"), "qrels_iters": (b"0", b"Q0", b"0.5", b"x")}, None),
    "one_document_queries": ({"one_doc": True, "depth": 1, "judged": 1, "queries": 3}, None),
    "lines_shuffled": ({"order": "shuffled"}, None),
    "lines_reversed": ({"order": "reversed"}, None),
    "tags_differ_by_line": ({"tags": (b"first", b"last")}, None),
    "several_runs": ({"runs": 3}, None),
    "run_long_lines": (_run_styled(extra_columns=0.4), None),
    "ids_opening_as_json_csv_or_tags": ({"qid_kinds": ("brace",), "doc_kinds": ("brace", "hash")}, None),
    "ids_commas_and_quotes": ({"qid_kinds": ("comma",), "doc_kinds": ("comma",)}, None),
    "header_words_first": ({"header_words": True, "iters": (b"Q0",), "qrels_iters": (b"0", b"Q0")}, None),
    "comments_with_topic_tags": (_run_styled(comments=0.4, topic_comments=True), None),
}


def variation_case(name: str, index: int = 0) -> Case:
    """The case of the named variation (its flags rotate over :data:`FLAG_SETS` with ``index``)."""
    fields, flags = VARIATIONS[name]
    src = RandomSource(f"variation-{name}")
    flags = FLAG_SETS[index % len(FLAG_SETS)] if flags is None else flags
    case = generate(src, flags, replace(PLAIN, **fields))
    case.features = {name}
    return case


def cases(flags_choices=FLAG_SETS):
    """A hypothesis strategy of small cases, each with flags from ``flags_choices``."""
    from hypothesis import strategies as st

    @st.composite
    def strategy(draw):
        src = DrawSource(draw)
        flags = src.choice(list(flags_choices))
        return generate(src, flags)

    return strategy()


def seeded_case(seed, flags_choices=FLAG_SETS, small: bool = True) -> Case:
    """The case of ``seed`` from the plain generator."""
    src = RandomSource(seed)
    flags = src.choice(list(flags_choices))
    return generate(src, flags, draw_plan(src, flags, small=small))


def rename_id(case: Case, position: int, old: bytes, new: bytes) -> Case:
    """``case`` with the id ``old`` in field ``position`` (0: query, 2: document) renamed ``new`` everywhere."""

    def one(tf: TextFile) -> TextFile:
        lines = []
        for line in tf.lines:
            if line.data and line.fields[position] == old:
                fields = list(line.fields)
                fields[position] = new
                line = replace(line, fields=tuple(fields))
            lines.append(line)
        return replace(tf, lines=lines)

    return replace(case, qrels=one(case.qrels), runs=[one(r) for r in case.runs])


# ---------------------------------------------------------------------------------------------- large cases

MIB = 1 << 20
HEAVY = Style(odd_seps=0.3, lead=0.3, trail=0.3, crlf=0.3, blank_lines=0.1, comments=0.1)
RUN_HAZARDS = ("crlf_split", "comment_start", "cr_in_line", "blank_middle", "in_long_id", "before_newline")
#: lines of 7 to 18 fields (a second record after the tag, joined by a blank or a lone CR) ending the chunk
#: before a boundary, starting the one after it, or cut by it
LONG_LINE_HAZARDS = ("long_ends_chunk", "long_starts_chunk", "long_cr_starts_chunk", "long_cut")
QRELS_HAZARDS = ("crlf_split", "lead_blanks", "cr_in_line", "before_newline")


def _hazard(src, kind: str, fields: tuple, run: bool) -> tuple:
    """(line, offset in the line that is to fall on a chunk boundary)."""
    plain = Line(fields, (b" ",) * (len(fields) - 1))
    if kind == "crlf_split":
        line = replace(plain, end=b"\r\n")
        return line, len(line.render()) - 1
    if kind == "before_newline":
        return plain, len(plain.render()) - 1
    if kind == "comment_start":
        return Line(text=b"# boundary", end=b"\n"), 0
    if kind == "blank_middle":
        return Line(text=b" \t \t ", end=b"\n"), 2
    if kind == "lead_blanks":
        return replace(plain, lead=b"  \t "), 2
    if kind == "cr_in_line":
        seps = (b" ", b" \r ") + (b" ",) * (len(fields) - 3)
        line = replace(plain, seps=seps)
        return line, len(fields[0]) + 1 + len(fields[1]) + 1
    if kind.startswith("long_"):
        record = (fields[0], b"Q0", fields[2] + b"-joined", b"1", b"9.5", fields[5])
        more = (record + (b"x1", b"x2", b"x3", b"x4", b"x5", b"6.5"))[: 1 + (len(fields[0]) + len(fields[2])) % 12]
        seps = (b" ",) * 5 + (b"\r" if "cr" in kind else b" ",) + (b" ",) * (len(more) - 1)
        line = Line(fields + more, seps)
        size = len(line.render())
        return line, {"long_ends_chunk": size, "long_cut": size // 2}.get(kind, 0)
    if kind == "in_long_id":
        fields = fields[:2] + (fields[2] + b"-" + b"w" * 400,) + fields[3:]
        line = Line(fields, (b" ",) * (len(fields) - 1))
        return line, len(fields[0]) + len(fields[1]) + 2 + 200
    raise ValueError(kind)


def _offsets(lines: list) -> list:
    out, pos = [], 0
    for line in lines:
        out.append(pos)
        pos += len(line.render())
    return out


def _at_boundaries(src, lines: list, run: bool, hazards, spare) -> list:
    """Lines near each MiB boundary dressed heavily, and one hazard per boundary placed exactly on it
    (a line of the query around it, with a document of its own from ``spare``)."""
    size = sum(len(line.render()) for line in lines)
    for b, boundary in enumerate(range(MIB, size, MIB)):
        offsets = _offsets(lines)
        near = [i for i, o in enumerate(offsets) if abs(o - boundary) < 6000 and lines[i].data]
        for i in near:
            lines[i] = dress(src, lines[i].fields, HEAVY)
        if run:
            for i in reversed(near[:: max(1, len(near) // 8)]):
                lines.insert(i, filler(src, comment=src.chance(0.5)))
        offsets = _offsets(lines)
        kind = hazards[b % len(hazards)]
        doc = next(spare)
        j = max(k for k, o in enumerate(offsets) if o < boundary - 200)
        for _ in range(6):  # the hazard goes in before line j, with the fields of the data line before it
            before = next(lines[k] for k in range(j - 1, -1, -1) if lines[k].data)
            fields = before.fields[:2] + (doc,) + before.fields[3:]
            line, pos = _hazard(src, kind, fields, run)
            k = max(k for k, o in enumerate(offsets) if o + pos + (2 if run else 0) <= boundary)
            if k == j:
                break
            j = k
        pad = boundary - offsets[j] - pos
        if run:
            lines[j:j] = [Line(text=b"#" + b"-" * (pad - 2), end=b"\n"), line]
        else:
            prev = lines[j - 1]
            lines[j - 1] = replace(prev, trail=prev.trail + b" " * pad)
            lines.insert(j, line)
    return lines


def boundary_case(seed, run_mib: float = 4.2, qrels_mib: float = 2.2, flags=(), run_hazards=RUN_HAZARDS) -> Case:
    """A run of a few MiB and qrels of two, plain but for heavy variation around every MiB boundary (the
    readers' chunks) and one hazard exactly on each: a CR/LF pair cut in two, a comment or blank line
    cut, a CR inside a line, a long id cut, a newline that starts the next chunk."""
    src = RandomSource(seed)
    n_queries = 1600
    qids = id_set(src, ("numeric", "alnum", "utf8"), n_queries)
    docs = id_set(src, ("alnum", "numeric", "padded", "utf8"), 6000)
    spare = iter(id_set(src, ("alnum",), 64, set(docs) | set(qids)))
    per_run = max(1, int(run_mib * MIB / 34 / n_queries))
    per_qrels = max(1, int(qrels_mib * MIB / 17 / n_queries))
    qrels_lines, run_lines = [], []
    for q in qids:
        judged = _sample(src, docs, per_qrels)
        grades = [grade_text(src, "graded") for _ in judged]
        qrels_lines += [Line((q, b"0", d, g), (b" ",) * 3) for d, g in zip(judged, grades)]
        retrieved = _sample(src, docs, per_run)
        for i, d in enumerate(retrieved):
            s = score_text(src, src.choice(("decimal", "ties", "exp")), i, per_run)
            run_lines.append(Line((q, b"Q0", d, str(i + 1).encode(), s, b"big"), (b" ",) * 5))
    for lines in (run_lines, qrels_lines):
        lines[0] = dress(src, lines[0].fields, HEAVY, force=True)
        lines[-1] = dress(src, lines[-1].fields, HEAVY, force=True)
    run_lines.insert(0, filler(src, True))
    run_lines = _at_boundaries(src, run_lines, True, run_hazards, spare)
    qrels_lines = _at_boundaries(src, qrels_lines, False, QRELS_HAZARDS, spare)
    run = TextFile(run_lines, final_newline=False)
    return Case(TextFile(qrels_lines), [run], tuple(flags), {"large:boundaries"})
