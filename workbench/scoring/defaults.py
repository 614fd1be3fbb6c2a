"""What a new session scores with until the user says otherwise (its measures and options), and how it
reads measure names.

Importable without pandas: the runs opened with the window are scored with them before its session
exists (:meth:`workbench.scoring.service.ScoringService.score_ahead`).
"""

from __future__ import annotations

from metrics.engine.settings import Settings

DEFAULT_MEASURES = ("map", "P.10", "ndcg_cut.10", "Rprec", "recip_rank", "bpref", "recall.100")
RELEVANCE_LEVEL = 1  # trec_eval's -l: the lowest grade counted as relevant
K_MAX = 100  # the NDCG@k curve's deepest k
K_LIMIT = 10_000  # the deepest k the window draws NDCG@k to (its K box, and what a workspace may ask)
SETTINGS = Settings(relevance_level=RELEVANCE_LEVEL, k_max=K_MAX)  # trec_eval's, NDCG@1 to 100


def parse_each(spec) -> tuple[list | None, list[str]]:
    """The measures named in ``spec``, and a sentence for each name that is not one.

    One bad name among several does not stop the others from being computed.
    ``(None, [])`` for an empty spec (the default set).
    """
    from metrics.measures import parse_measures

    if not spec:
        return None, []
    measures: dict = {}
    bad: list[str] = []
    for name in spec:
        try:
            for m in parse_measures([name]):
                measures.setdefault(m, None)
        except (ValueError, KeyError) as exc:
            bad.append(f"{name!r}: {exc}")
    return list(measures), bad
