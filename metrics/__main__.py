"""``python -m metrics``: the ``ir-eval`` command line."""

from metrics.cli.ir_eval import run

if __name__ == "__main__":
    run()
