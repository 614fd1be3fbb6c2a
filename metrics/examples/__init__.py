"""The textbooks' worked examples, built in: the numbers course texts print, reproduced under their own
conventions and set beside trec_eval's.

>>> from metrics.examples import example_names, open_example
>>> example_names()                                    # doctest: +SKIP
['map', 'mrr', 'ap-positional', 'interpolated-ap', 'ndcg-jk', 'ndcg-gain', 'ndcg-ideal']
>>> ex = open_example("interpolated-ap")
>>> ex.qrels_path.name, ex.run_path.name               # ordinary TREC files: open them as any others
('qrels.txt', 'run.txt')
>>> ex.table()                                         # doctest: +SKIP

Each example is a folder of ``metrics/examples/data`` (installed with the package) holding a tiny qrels,
a run and a manifest (:mod:`metrics.examples.gallery`); its numbers are computed by the measures' kernels
through :func:`metrics.explain.side_by_side`, the table of conventions that Explain shows.
"""

from metrics.examples.gallery import (
    EXAMPLES_DIR,
    PrintedNumber,
    UnknownExample,
    WorkedExample,
    example_names,
    open_example,
)

__all__ = ["EXAMPLES_DIR", "PrintedNumber", "UnknownExample", "WorkedExample", "example_names", "open_example"]
