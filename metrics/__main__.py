"""``python -m metrics``: the ``ir-eval`` command line."""

if __name__ == "__main__":
    from metrics.startup import one_blas_thread

    one_blas_thread()  # (before numpy is imported)
    from metrics.cli.ir_eval import run

    run()
