"""From which size a run file is scored in parts (:mod:`metrics.scale.parts`): apart from the parts and
the worker processes, so that ``ir-eval`` tells whether a run needs them without importing them."""

from __future__ import annotations

import os
from typing import Optional

#: run files of at least this many bytes are scored in parts when two processes or workers can share them
SPLIT_BYTES = 64 << 20


#: the environment variable that sets :data:`SPLIT_BYTES` (a number of bytes)
SPLIT_ENV = "IR_EVAL_SPLIT_BYTES"


def split_threshold(value: Optional[int] = None) -> int:
    """The size from which a run file is scored in parts: ``value``, else ``$IR_EVAL_SPLIT_BYTES``,
    else :data:`SPLIT_BYTES`."""
    if value is not None:
        return max(1, int(value))
    text = os.environ.get(SPLIT_ENV, "").strip()
    return max(1, int(text)) if text.isdigit() else SPLIT_BYTES
