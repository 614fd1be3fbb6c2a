"""``python -m metrics``: the ``ir-eval`` command line."""

import sys

from metrics.cli import main

if __name__ == "__main__":
    sys.exit(main())
