"""What starting the window imports: scipy (half a second) only when a comparison or report needs it."""

from __future__ import annotations

import gzip
import subprocess
import sys

import pytest

CODE = """
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication
from PySide6.QtCore import QSettings
app = QApplication([])
from workbench.views.window.main_window import MainWindow
w = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat))
w.show()
app.processEvents()
print(",".join(m for m in ("scipy", "scipy.stats", "metrics.compare", "metrics.report") if m in sys.modules))
w.session.shutdown()
"""


def test_showing_the_window_imports_neither_scipy_nor_the_report_writers(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", CODE, str(tmp_path / "s.ini")], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


SCORING = """
import sys
before = set(sys.modules)  # what the interpreter loaded at start-up (site, .pth files) is not ours
import metrics.cli.ir_eval
print(",".join(sorted(m for m in HEAVY if m in sys.modules and m not in before)))
status = metrics.cli.ir_eval.main(sys.argv[1:])
print(",".join(sorted(m for m in HEAVY if m in sys.modules and m not in before)))
sys.exit(status)
"""
HEAVY = ("pandas", "pyarrow", "scipy", "multiprocessing", "numpy.ma", "importlib.metadata", "shutil")


@pytest.mark.parametrize("measures", [["-m", "all_trec"], ["-m", "ndcg_cut.10"], ["-m", "AP nDCG@10", "-q", "-c"]])
def test_scoring_a_run_imports_neither_pandas_nor_scipy(tmp_path, measures):
    """``import metrics.cli.ir_eval`` and scoring runs (the usual DL/MS MARCO layout, gzip, tabs) need numpy only."""
    qrels, run, gz = tmp_path / "qrels.txt", tmp_path / "run.txt", tmp_path / "run2.txt.gz"
    qrels.write_text("".join(f"{q} Q0 d{d} {d % 3}\n" for q in (1, 2, 3) for d in range(20)))
    lines = "".join(f"{q}\tQ0\td{d}\t{r}\t{10 - r / 10}\tbm25\n" for q in (1, 2) for r, d in enumerate(range(30)))
    run.write_text(lines.replace("\t", " "))
    with gzip.open(gz, "wt") as fh:
        fh.write(lines)
    code = f"HEAVY = {HEAVY!r}\n" + SCORING
    out = subprocess.run(
        [sys.executable, "-c", code, *measures, str(qrels), str(run), str(gz)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    after_import, after_scoring = out.stdout.splitlines()[0], out.stdout.splitlines()[-1]
    assert after_import == "" and after_scoring == ""
    assert "map                   \tall\t" in out.stdout or "ndcg_cut_10           \tall\t" in out.stdout


SHOWN_FIRST = """
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication
from PySide6.QtCore import QSettings
app = QApplication([])
from workbench.views.window.main_window import MainWindow
w = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat), deferred=True)
w.show()
app.processEvents()
print(",".join(m for m in ("numpy", "metrics", "pandas", "pyarrow", "pyqtgraph", "scipy") if m in sys.modules))
while not w.built:
    app.processEvents()
print(",".join(m for m in ("pandas", "pyqtgraph") if m in sys.modules))
os._exit(0)
"""


def test_the_window_is_shown_before_the_core_pandas_and_pyqtgraph_are_imported(tmp_path):
    """The main window's module and its first frame import neither numpy nor the core (which took 0.1 s of
    the window's start when the workspace files' module was imported with it), nor pandas or pyqtgraph."""
    out = subprocess.run(
        [sys.executable, "-c", SHOWN_FIRST, str(tmp_path / "s.ini")], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    shown, built = out.stdout.splitlines()
    assert shown == "" and built == "pandas,pyqtgraph"


PROCESS = """
import gc, os, sys
from workbench.system import process
process.prepare()
import numpy
threads = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else 1
print(os.environ["OPENBLAS_NUM_THREADS"], gc.isenabled(), threads)
from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer
app = QCoreApplication([])
process.started()
print(gc.isenabled(), gc.get_freeze_count() > 1000)
import weakref
class Node: pass
a, b = Node(), Node()
a.other, b.other = b, a  # a cycle: only a collection frees it
gone = weakref.ref(a)
del a, b
junk = [[Node()] for _ in range(5000)]  # past generation 0's threshold
loop = QEventLoop()
QTimer.singleShot(800, loop.quit)
loop.exec()
print(gone() is None)
"""


@pytest.mark.parametrize("preset", [None, "3"])
def test_the_window_process_starts_with_one_blas_thread_and_collects_garbage_once_started(preset):
    """``process.prepare``: one BLAS thread (numpy's OpenBLAS starts none of its own; a user's setting is
    kept) and no garbage collection; ``process.started``: the objects made so far frozen, and garbage collected
    on the window's thread (a timer), never automatically by whichever thread allocates."""
    import os

    env = dict(os.environ)
    env.pop("OPENBLAS_NUM_THREADS", None)
    if preset:
        env["OPENBLAS_NUM_THREADS"] = preset
    out = subprocess.run([sys.executable, "-c", PROCESS], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    first, second, third = out.stdout.splitlines()
    blas, collecting, threads = first.split()
    assert (blas, collecting) == (preset or "1", "False")
    if not preset:
        assert threads == "1"
    # started: what exists is frozen, and garbage is collected by a timer of the window's thread only
    # (automatic collection stays off: a worker thread never collects the window's Qt objects)
    assert second == "False True"
    assert third == "True"
