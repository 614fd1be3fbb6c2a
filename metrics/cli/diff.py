"""``ir-eval --diff RUN_A RUN_B --docs COLLECTION [--qrels QRELS] [--topics FILE] [--top K] [--queries N]
[--by rbo|tau_ap|MEASURE] -o page.html``: two runs compared query by query, written as one self-contained
HTML page (:mod:`metrics.report.diff_page`): the queries ranked by how much the runs differ
(:func:`metrics.analysis.contrast.contrast`), and for the first N of them both rankings to depth K with
each document's grade, title and snippet (:mod:`metrics.documents`).  Written atomically, never over an
input file."""

from __future__ import annotations

import argparse
import os
import sys

from metrics.cli.common import Parser, UsageError, guarded, unreadable
from metrics.errors import EXIT_OUTPUT, EXIT_USAGE, InputError


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="ir-eval",
        description="Compare two runs query by query and write an HTML page to share: the queries ranked by how "
        "much the runs differ, and for the first of them both rankings side by side with the documents' text.",
        epilog="The collection (MS MARCO collection.tsv, BEIR corpus.jsonl, Pyserini JSONL or TREC <DOC> files, "
        "plain or gzip) is indexed once into the cache folder ($IR_WORKBENCH_CACHE, else "
        "$XDG_CACHE_HOME/ir-workbench or ~/.cache/ir-workbench) and found again next time.",
    )
    p.add_argument("--debug", action="store_true", help="show the traceback of an unexpected error")
    p.add_argument("--diff", nargs=2, metavar=("RUN_A", "RUN_B"), required=True, help="the two runs")
    p.add_argument("--docs", metavar="COLLECTION", help="the documents (their titles and snippets on the page)")
    p.add_argument("--qrels", metavar="QRELS", help="relevance judgments: grades shown, unjudged documents marked")
    p.add_argument("--topics", metavar="FILE", help="query texts (qid<TAB>text or TREC topics): words marked")
    p.add_argument("--top", type=int, default=10, metavar="K", help="documents shown (and compared) per run (10)")
    p.add_argument("--queries", type=int, default=20, metavar="N", help="queries shown, most different first (20)")
    p.add_argument(
        "--by",
        default="rbo",
        metavar="CONTRAST",
        help="rbo (rank-biased overlap), tau_ap (AP rank correlation) or a measure's name (needs --qrels)",
    )
    p.add_argument("-p", dest="p", type=float, default=0.9, help="RBO's persistence (0.9)")
    p.add_argument("--skip-bad-lines", action="store_true", help="leave out the collection's bad lines, counted")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="the page to write (HTML)")
    return p


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    return guarded(lambda: _run(args), args.debug)


def _inputs(args) -> list[str]:
    return [x for x in (*args.diff, args.docs, args.qrels, args.topics) if x]


def _run(args) -> int:
    try:
        if args.top < 1 or args.queries < 1:
            raise UsageError("--top and --queries take a number of 1 or more")
        if "-" in _inputs(args):
            raise UsageError("--diff reads files, not standard input ('-')")
        by = args.by
        if by.lower() not in ("rbo", "tau_ap", "tauap"):
            from metrics.measures import parse_measures

            if len(parse_measures([by])) != 1:
                raise UsageError(f"--by takes one measure, not {by!r}")
            if not args.qrels:
                raise UsageError(f"--by {by} needs --qrels")
        from metrics.io.fileio import check_not_input

        check_not_input(args.output, _inputs(args))
    except (UsageError, ValueError, KeyError) as exc:
        print(f"ir-eval: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except PermissionError as exc:
        print(f"ir-eval: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return EXIT_USAGE
    try:
        html, shown, compared = _page(args)
    except (InputError, FileNotFoundError) as exc:
        return unreadable(exc)
    from metrics.io.fileio import write_text

    try:
        write_text(args.output, html, overwrite=True, protect=_inputs(args))
    except OSError as exc:
        print(f"ir-eval: {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_OUTPUT
    print(f"{args.output}: {shown} of {compared} queries compared by {args.by}, to depth {args.top}")
    return 0


def _told_indexing(path: str):
    """A progress callback that says once, on standard error, that the collection is being indexed."""
    said: list[bool] = []

    def progress(fraction: float) -> bool:
        if not said and fraction < 1.0:
            said.append(True)
            print(f"ir-eval: indexing {path} (once: the index is kept for next time)", file=sys.stderr)
        return True

    return progress


def _page(args) -> tuple[str, int, int]:
    store = None
    if args.docs:
        from metrics.documents import open_documents

        store = open_documents(
            args.docs, _told_indexing(args.docs), on_error="skip" if args.skip_bad_lines else "raise"
        )
    texts: dict[str, str] = {}
    if args.topics:
        from metrics.io.topics import read_queries

        texts = read_queries(args.topics)
    name_a, name_b = (os.path.basename(x) for x in args.diff)
    try:
        return comparison_page(
            args.diff[0],
            args.diff[1],
            labels=(name_a, name_b if name_b != name_a else args.diff[1]),
            named=(args.diff[0], args.diff[1]),
            store=store,
            collection=args.docs,
            qrels=args.qrels,
            qrels_name=args.qrels,
            texts=texts,
            texts_name=args.topics,
            by=args.by,
            top=args.top,
            queries=args.queries,
            p=args.p,
        )
    finally:
        if store is not None:
            store.close()


def comparison_page(
    run_a,
    run_b,
    *,
    labels: tuple[str, str],
    named: tuple[str, str] | None = None,
    store=None,
    collection: str | None = None,
    qrels=None,
    qrels_name: str | None = None,
    texts: dict[str, str] | None = None,
    texts_name: str | None = None,
    by: str = "rbo",
    top: int = 10,
    queries: int = 20,
    p: float = 0.9,
    ranked=None,
    extra: list[tuple[str, str]] | None = None,
) -> tuple[str, int, int]:
    """The page of ``ir-eval --diff`` (:func:`metrics.report.diff_page.diff_page`), of ``run_a`` against
    ``run_b`` (anything :func:`metrics.evaluate` takes; ``labels`` their names on the page, ``named``
    what the settings call them, the labels by default): the queries ranked by ``by`` (see
    :func:`metrics.analysis.contrast.contrast`; ``ranked``: that ranking made already, a frame
    ``query_id, value, rank``), and the first ``queries`` of them with both rankings to depth ``top``,
    the documents' titles and snippets from ``store`` (a :class:`~metrics.documents.DocumentStore`, or
    None; ``collection`` its name), their grades from ``qrels`` (``qrels_name`` its name), the query
    words of ``texts`` (id -> text; ``texts_name`` where they come from) marked; ``extra`` settings
    stated after the page's own.  Returns the page, the number of queries shown and compared."""
    import numpy as np

    from metrics.analysis.contrast import contrast
    from metrics.analysis.ranked import loaded_runs, top_documents
    from metrics.io.ids import ids_to_text
    from metrics.ranking.qrels_index import NONPOOL, UNJUDGED
    from metrics.report.diff_page import PageDocument, PageQuery, diff_page

    texts = texts or {}
    named = named or labels
    enc = None
    if qrels is not None:
        from metrics.engine.evaluate import encoded

        enc = encoded(qrels)
    runs = loaded_runs({"a": run_a, "b": run_b})
    table = ranked if ranked is not None else contrast(runs["a"], runs["b"], qrels, by, top, p=p)
    top_docs = top_documents(runs, top, enc, judge=enc is not None)
    where = {q: i for i, q in enumerate(top_docs.queries)}
    docs = ids_to_text(top_docs.doc) if len(top_docs.doc) else []

    def listed(r: int, q: int) -> list[PageDocument]:
        rows = np.flatnonzero((top_docs.run == r) & (top_docs.query == q))
        out = []
        for i in rows[np.argsort(top_docs.rank[rows], kind="stable")].tolist():
            grade: int | str | None = None
            if top_docs.rel is not None:
                code = int(top_docs.rel[i])
                grade = "unjudged" if code in (NONPOOL, UNJUDGED) else code
            out.append(PageDocument(int(top_docs.rank[i]) + 1, docs[i], grade))
        return out

    chosen: list[PageQuery] = []
    for qid, value, rank in table[["query_id", "value", "rank"]].itertuples(index=False):
        if len(chosen) >= queries:
            break
        q = where.get(qid)
        if q is None:
            continue  # (a query of the ranking that no run's top documents hold)
        chosen.append(PageQuery(str(qid), texts.get(str(qid), ""), float(value), int(rank), listed(0, q), listed(1, q)))
    settings = [
        ("run A", named[0]),
        ("run B", named[1]),
        ("collection", f"{collection} ({store.format}, {len(store)} documents)" if store is not None else "none given"),
        ("qrels", qrels_name or ("given" if qrels is not None else "none given (no grades)")),
        ("query texts", texts_name or ("given" if texts else "none given (no words marked)")),
        ("queries ranked by", _by_sentence(by)),
        ("depth compared and shown", str(top)),
        ("queries shown", f"{len(chosen)} of {len(table)} that both runs answer"),
    ]
    if store is not None and store.skipped.count:
        lines = ", ".join(map(str, store.skipped.lines))
        settings.append(("collection lines left out", f"{store.skipped.count} (lines {lines}...)"))
    settings += list(extra or [])
    overview = [(str(q), float(v), int(r)) for q, v, r in table[["query_id", "value", "rank"]].itertuples(index=False)]
    page = diff_page(
        chosen,
        overview,
        store,
        settings=settings,
        labels=labels,
        measure=by,
        judged=enc is not None,
    )
    return page, len(chosen), len(table)


def _by_sentence(by: str) -> str:
    from metrics.analysis.contrast import CONTRASTS

    key = by.lower().replace("-", "_")
    key = "tau_ap" if key == "tauap" else key
    if key in CONTRASTS:
        return f"{by}: {CONTRASTS[key]}"
    return f"{by}: run B's value less run A's, the largest difference either way first"
