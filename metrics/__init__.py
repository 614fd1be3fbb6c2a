"""Core of ir-workbench: readers, trec_eval-exact measures, curves, comparisons, reports.

Pure numpy/pandas/scipy; this package never imports Qt.

>>> import metrics
>>> qrels = metrics.read_qrels("qrels.txt")            # doctest: +SKIP
>>> run = metrics.read_run("run.txt")                  # doctest: +SKIP
>>> metrics.evaluate(qrels, run, ["map", "nDCG@10"]).summary()  # doctest: +SKIP
>>> ev = metrics.evaluator(qrels, ["map", "nDCG@10"])  # qrels encoded once  # doctest: +SKIP
>>> ev.evaluate(run).summary()                         # for any number of runs  # doctest: +SKIP
"""

from typing import TYPE_CHECKING

from metrics.lazy_names import lazy_names

if TYPE_CHECKING:
    from metrics.analysis import (
        condensed_scores,
        contrast,
        coverage_by_query,
        judgment_coverage,
        judgment_holes,
        mean_overlap,
        measure_agreement,
        overlap_matrix,
        query_extremes,
        query_traits,
        rank_overlap,
        ranking_flips,
        tau_ap,
        trait_correlations,
        versus,
    )
    from metrics.documents import documents
    from metrics.engine.evaluate import evaluate
    from metrics.engine.evaluation import Evaluation
    from metrics.engine.intents import evaluate_diversity, read_intent_qrels
    from metrics.engine.irm_calls import calc_aggregate, iter_calc
    from metrics.engine.settings import MeasureSet, Settings
    from metrics.errors import Cancelled, InputError, IntentQrelsError
    from metrics.examples import WorkedExample, example_names, open_example
    from metrics.explain import side_by_side
    from metrics.fusion import fuse
    from metrics.io.readers import LoadedFile, detect_kind, read_file, read_qrels, read_ranked_judgments, read_run
    from metrics.io.writers import write_qrels, write_run
    from metrics.judgments import compare_qrels, leave_one_out, reproduction, system_agreement
    from metrics.measures import FAMILIES, Measure, parse_measures
    from metrics.measures.names import (
        AP,
        DCG,
        ERR,
        ERR_IA,
        F1,
        NRBP,
        P_IA,
        RBP,
        RR,
        Accuracy,
        Bpref,
        Compat,
        IPrec,
        Judged,
        MeasureName,
        NumQ,
        NumRel,
        NumRelRet,
        NumRet,
        P,
        R,
        Rprec,
        SetF,
        SetP,
        SetR,
        StRecall,
        Success,
        alpha_nDCG,
        infAP,
        nDCG,
    )
    from metrics.ranking.judged import JudgedRanking, build_ranking
    from metrics.scale.evaluator import Evaluator, evaluator

# Every public name is loaded when first used (PEP 562), from the module below that defines it: ``import
# metrics`` imports nothing more, and a command or call pays only for the modules it uses (scoring: numpy
# and the readers, the measures and the evaluator; the DataFrame readers and writers, pandas and pyarrow,
# the analyses, explanations, fusion and comparisons only when asked for).
_LAZY = {
    "evaluate": "engine.evaluate",
    "Evaluation": "engine.evaluation",
    **dict.fromkeys(("MeasureSet", "Settings"), "engine.settings"),
    **dict.fromkeys(("Cancelled", "InputError", "IntentQrelsError"), "errors"),
    **dict.fromkeys(("FAMILIES", "Measure", "parse_measures"), "measures"),
    # ir_measures-style measure objects (metrics.measures.names)
    **dict.fromkeys(("MeasureName", "Accuracy", "Compat", "alpha_nDCG", "ERR_IA", "P_IA"), "measures.names"),
    **dict.fromkeys(("StRecall", "NRBP", "AP", "DCG", "ERR", "F1", "P", "R", "RBP", "RR"), "measures.names"),
    **dict.fromkeys(("Bpref", "IPrec", "Judged", "NumQ", "NumRel", "NumRelRet", "NumRet"), "measures.names"),
    **dict.fromkeys(("Rprec", "SetF", "SetP", "SetR", "Success", "infAP", "nDCG"), "measures.names"),
    **dict.fromkeys(("JudgedRanking", "build_ranking"), "ranking.judged"),
    **dict.fromkeys(("Evaluator", "evaluator"), "scale.evaluator"),
    # why runs differ (metrics.analysis): overlap, judgment coverage, queries, agreement of measures
    **dict.fromkeys(("rank_overlap", "mean_overlap", "overlap_matrix", "judgment_coverage"), "analysis"),
    **dict.fromkeys(("coverage_by_query", "judgment_holes", "condensed_scores", "versus"), "analysis"),
    **dict.fromkeys(("query_traits", "trait_correlations", "query_extremes"), "analysis"),
    **dict.fromkeys(("measure_agreement", "ranking_flips", "contrast", "tau_ap"), "analysis"),
    # is the evaluation sound (metrics.judgments): two qrels, systems under each, pool bias, reproductions
    **dict.fromkeys(("compare_qrels", "system_agreement", "leave_one_out", "reproduction"), "judgments"),
    "evaluate_diversity": "engine.intents",
    "read_intent_qrels": "engine.intents",
    "LoadedFile": "io.readers",
    "detect_kind": "io.readers",
    "read_file": "io.readers",
    "read_qrels": "io.readers",
    "read_ranked_judgments": "io.readers",
    "read_run": "io.readers",
    "write_qrels": "io.writers",
    "write_run": "io.writers",
    # the textbooks' worked examples and the conventions side by side (pandas: loaded when first used)
    "WorkedExample": "examples",
    "example_names": "examples",
    "open_example": "examples",
    "side_by_side": "explain",
    "fuse": "fusion",
    # a collection's documents, indexed once in the cache folder (metrics.documents: sqlite3 when first used)
    "documents": "documents",
    # ir_measures' calls (metrics.engine.irm_calls)
    "calc_aggregate": "engine.irm_calls",
    "iter_calc": "engine.irm_calls",
}

#: the subpackages, imported when first named as ``metrics.NAME`` (``import metrics`` no longer imports them)
_SUBPACKAGES = frozenset(
    ("analysis", "cli", "compare", "engine", "examples", "explain", "fusion", "inspect", "io", "judgments")
    + ("measures",)
    + ("ranking", "report", "scale", "errors", "notebook", "presentation", "stat_methods")
)


__all__ = [
    "MeasureName",
    "Accuracy",
    "Compat",
    "alpha_nDCG",
    "ERR_IA",
    "P_IA",
    "StRecall",
    "NRBP",
    "read_intent_qrels",
    "evaluate_diversity",
    "AP",
    "DCG",
    "ERR",
    "F1",
    "P",
    "R",
    "RBP",
    "RR",
    "Bpref",
    "IPrec",
    "Judged",
    "NumQ",
    "NumRel",
    "NumRelRet",
    "NumRet",
    "Rprec",
    "SetF",
    "SetP",
    "SetR",
    "Success",
    "infAP",
    "nDCG",
    "write_run",
    "write_qrels",
    "evaluate",
    "evaluator",
    "Settings",
    "MeasureSet",
    "Evaluator",
    "Evaluation",
    "parse_measures",
    "Measure",
    "FAMILIES",
    "JudgedRanking",
    "build_ranking",
    "InputError",
    "IntentQrelsError",
    "Cancelled",
    "read_qrels",
    "read_run",
    "read_ranked_judgments",
    "read_file",
    "detect_kind",
    "LoadedFile",
    "WorkedExample",
    "example_names",
    "open_example",
    "side_by_side",
    "fuse",
    "documents",
    "calc_aggregate",
    "iter_calc",
]
# why runs differ (metrics.analysis)
__all__ += ["rank_overlap", "mean_overlap", "overlap_matrix", "judgment_coverage", "coverage_by_query"]
__all__ += ["judgment_holes", "condensed_scores", "versus", "query_traits", "trait_correlations"]
__all__ += ["query_extremes", "measure_agreement", "ranking_flips", "contrast", "tau_ap"]
# is the evaluation sound (metrics.judgments)
__all__ += ["compare_qrels", "system_agreement", "leave_one_out", "reproduction"]

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__, _SUBPACKAGES)
