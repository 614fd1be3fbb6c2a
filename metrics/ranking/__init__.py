"""The judged ranking: a run joined with its qrels, in trec_eval's order.

:mod:`metrics.ranking.qrels_index` encodes qrels once for every run; :mod:`metrics.ranking.rank_order`
is trec_eval's order of documents (score descending, ties by docid descending);
:mod:`metrics.ranking.judged` joins a run with the encoded qrels into the columns every measure reads.
Above :mod:`metrics.io`, below :mod:`metrics.measures`.
"""
