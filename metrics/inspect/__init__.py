"""What a file holds, before or beside its scores: kind, layout, counts, problems
(:mod:`metrics.inspect.files`; ``ir-eval --inspect`` and the window's Inspect panel).
"""
