"""How the window's process starts: set before anything heavy is imported, undone once it has started.

* **One BLAS thread.** numpy's and scipy's OpenBLAS start a thread per core, and after each matrix
  product (the bootstraps of the comparisons) those threads spin, waiting for more work, on the cores the
  window's worker processes are scoring runs on: about 0.4 s of CPU while 100 runs are scored on two
  cores, for products that take milliseconds on one thread.  ``OPENBLAS_NUM_THREADS`` is set only if the
  user has not set it (their value is kept), before numpy is imported, and the worker processes inherit it.
* **No garbage collection while starting.** Importing Qt, pandas and pyqtgraph makes hundreds of
  thousands of objects, and the collector traced them all again every few thousand: about 0.25 s of
  the start.  Collection is off from :func:`prepare` until :func:`started`, which moves what exists
  then (modules, classes, the views) out of the collector's sight (``gc.freeze``: objects that live
  as long as the process) and turns it on again.  (What is garbage at that moment stays: about 500
  objects with 100 runs, against 0.09 s for a collection to find them.)  This is the recipe of the ``gc`` documentation,
  which also frees worker processes forked meanwhile (:func:`workbench.scoring.service.start`)
  from copying the pages the collector would otherwise touch.
* **Garbage collected on the window's thread only.** A collection that a worker thread happens to run
  (any allocation may start one) and that finds Qt objects destroys them on that thread, where Qt's locks
  and Python's then wait on each other: a window test hung for good so. :func:`collect_on_gui_thread`
  (pyqtgraph's ``GarbageCollector``: automatic collection off, a timer on the window's thread collecting
  each generation past its threshold) is installed by the window once its views are built.
"""

from __future__ import annotations

import gc
import os


def prepare() -> None:
    """At the very start of the window's process (before numpy is imported)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    gc.disable()


def started() -> None:
    """Once the window's views are built: what exists is frozen out of the collector's sight, and garbage is
    collected from now on by the window's thread (:func:`collect_on_gui_thread`)."""
    gc.freeze()
    collect_on_gui_thread()  # (the window's views installed it already: garbage is not collected otherwise)


#: the collector of this process (made with the first window; it lives as long as the process)
_collector: object | None = None


def collect_on_gui_thread() -> None:
    """Collect garbage on the window's thread only, a timer's tick at a time (once per process, with a
    QApplication): automatic collection is turned off."""
    global _collector
    if _collector is None:
        from pyqtgraph.util.garbage_collector import GarbageCollector

        _collector = GarbageCollector(interval=0.25)
