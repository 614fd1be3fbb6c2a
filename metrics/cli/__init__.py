"""The command lines: ``ir-eval`` (trec_eval's options and output, :mod:`metrics.cli.ir_eval`), its
``--irm`` mode (ir_measures' output, :mod:`metrics.cli.irm`), ``--explain`` and ``--inspect``.
The top layer: nothing below imports it.
"""

from metrics.cli.ir_eval import main, run

__all__ = ["main", "run"]
