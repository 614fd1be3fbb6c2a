"""Time from starting the process until the window is shown: ir-workbench's main window against a bare
PySide6 window, both whole processes, interleaved, medians (offscreen unless --display is given).
The main window shows itself first and builds its views just after: both moments are timed.

    python benchmarks/window_start.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

BARE = """
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication([])
w = QMainWindow(); w.resize(1400, 900); w.show(); app.processEvents()
import os; os._exit(0)
"""
WORKBENCH = """
import sys
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
app = QApplication([])
from workbench.views.main_window import MainWindow
w = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat), deferred=True)
w.resize(1400, 900); w.show(); app.processEvents()
if sys.argv[2] == "ready":  # until the views are built too
    while w._ready is not None:
        app.processEvents()
import os; os._exit(0)
"""


def once(code: str, settings: str, until: str = "shown") -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, settings, until], check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--display", action="store_true", help="use the real display instead of offscreen")
    args = parser.parse_args()
    if not args.display:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    with tempfile.TemporaryDirectory() as tmp:
        settings = os.path.join(tmp, "settings.ini")
        bare, window, ready = [], [], []
        for _ in range(args.rounds):
            bare.append(once(BARE, settings))
            window.append(once(WORKBENCH, settings))
            ready.append(once(WORKBENCH, settings, "ready"))
    b, w, r = statistics.median(bare), statistics.median(window), statistics.median(ready)
    print(f"until the window is shown (median of {args.rounds}, whole process)")
    print(f"bare PySide6 window                    {b:.3f} s")
    print(f"ir-workbench main window, shown        {w:.3f} s   {w / b:.1f}x bare")
    print(f"ir-workbench main window, views built  {r:.3f} s   {r / b:.1f}x bare")


if __name__ == "__main__":
    main()
