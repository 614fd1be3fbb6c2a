"""Is the evaluation itself sound?  Judgments against judgments, systems ranked under each, the pool's
bias, and reproductions.

* :func:`compare` (``metrics.compare_qrels``): two qrels on the pairs both judged: the confusion matrix,
  Cohen's kappa, Krippendorff's alpha, per query and overall (:mod:`metrics.judgments.agreement`).
* :func:`system_agreement`: each run's score and rank under two qrels, Kendall's tau and tau_AP between
  the orderings, the pairs that flip (:mod:`metrics.judgments.systems`).
* :func:`leave_one_out`: leave-one-run-out pool bias, Zobel 1998 (:mod:`metrics.judgments.pool`).
* :func:`reproduction`: Breuer et al.'s measures of a reproduction (:mod:`metrics.judgments.reproduction`).

Each returns a dataclass of plain frames and numbers; a value that cannot be computed is NaN with the
reason in the result's ``not_computable``.
"""

from metrics.judgments.agreement import QrelsAgreement, compare
from metrics.judgments.pool import PoolBias, leave_one_out
from metrics.judgments.reproduction import Reproduction, reproduction
from metrics.judgments.systems import SystemAgreement, system_agreement

#: :func:`compare` by the name ``metrics`` gives it (``metrics.compare`` is the comparison of runs)
compare_qrels = compare

__all__ = [
    "compare",
    "compare_qrels",
    "system_agreement",
    "leave_one_out",
    "reproduction",
    "QrelsAgreement",
    "SystemAgreement",
    "PoolBias",
    "Reproduction",
]
