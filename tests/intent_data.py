"""A small collection with intent (diversity) qrels, for the window's and ir-eval's tests of the diversity
measures (tests/gui/test_gui_diversity.py, tests/test_metrics/cli/test_cli_diversity.py)."""

# 4 queries with 3, 2, 4 and 2 intents; grades 0, 1, 2 and negative ones; documents judged for several
# intents of a query (d1, d8, d10); query 104 has no relevant document for any intent
INTENTS = """\
# qid intent docid grade
101 1 d1 1
101 1 d2 2
101 1 d3 0
101 2 d1 1
101 2 d4 1
101 3 d5 2
101 3 d6 -1
102 1 d7 1
102 1 d8 1
102 2 d8 2
102 2 d9 0
103 1 d10 1
103 2 d11 1
103 3 d10 2
103 3 d12 1
103 4 d13 1
104 1 d14 0
104 2 d15 -2
"""
QRELS = """\
101 0 d1 1
101 0 d2 2
101 0 d3 0
101 0 d4 1
101 0 d5 2
101 0 d6 0
102 0 d7 1
102 0 d8 2
102 0 d9 0
103 0 d10 2
103 0 d11 1
103 0 d12 1
103 0 d13 1
104 0 d14 0
104 0 d15 0
"""
# tied scores (x1 and d2, d9 and d8, d10 and d13; d6 and d5, d11 and y2) and documents judged nowhere
# (x1, x2, y1, y2); sysB retrieves nothing for query 104
RUN_A = """\
101 Q0 d1 1 5.0 sysA
101 Q0 d2 2 4.0 sysA
101 Q0 x1 3 4.0 sysA
101 Q0 d5 4 3.0 sysA
101 Q0 d4 5 2.0 sysA
102 Q0 d9 1 3.0 sysA
102 Q0 d8 2 3.0 sysA
102 Q0 x2 3 1.0 sysA
103 Q0 d10 1 2.0 sysA
103 Q0 d13 2 2.0 sysA
103 Q0 d12 3 1.5 sysA
104 Q0 d14 1 1.0 sysA
"""
RUN_B = """\
101 Q0 d4 1 9.0 sysB
101 Q0 d6 2 8.0 sysB
101 Q0 d5 3 8.0 sysB
101 Q0 y1 4 7.0 sysB
102 Q0 d7 1 2.0 sysB
102 Q0 d8 2 1.0 sysB
103 Q0 d11 1 3.0 sysB
103 Q0 y2 2 3.0 sysB
103 Q0 d10 3 2.0 sysB
103 Q0 d12 4 1.0 sysB
"""


def write_files(folder) -> dict:
    """``intents.txt``, ``qrels.txt``, ``runA.txt`` and ``runB.txt`` written in ``folder`` (made if missing):
    their paths by name ("intents", "qrels", "runA", "runB")."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"intents": INTENTS, "qrels": QRELS, "runA": RUN_A, "runB": RUN_B}
    for name, text in files.items():
        (folder / f"{name}.txt").write_text(text)
    return {name: folder / f"{name}.txt" for name in files}
