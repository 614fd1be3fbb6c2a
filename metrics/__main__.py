"""``python -m metrics``: the ``ir-eval`` command line."""

import sys

from metrics.cli import main

sys.exit(main())
