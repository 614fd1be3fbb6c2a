"""Time from starting the process until the window is shown: ir-workbench's main window against a bare
PySide6 window, both whole processes, interleaved, medians (offscreen unless --display is given).
The main window shows itself first and builds its views just after: both moments are timed, and the
longest time the window's thread was kept from handling events in between (one event-loop pass).

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
from workbench.views.window.main_window import MainWindow
w = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat), deferred=True)
w.resize(1400, 900); w.show(); app.processEvents()
if sys.argv[2] == "ready":  # until the views are built too, ticking a 10 ms timer in the event loop
    import time
    from PySide6.QtCore import QTimer
    last, gap = [time.perf_counter()], [0.0]
    def tick():
        now = time.perf_counter()
        gap[0], last[0] = max(gap[0], now - last[0]), now
        if w.built:
            print(max(0.0, gap[0] - 0.010))  # the longest time between two ticks, less the timer's 10 ms
            app.quit()
    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(10)
    app.exec()
import os; os._exit(0)
"""


def once(code: str, settings: str, until: str = "shown") -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code, settings, until], check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - start, out.stdout.decode().strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--display", action="store_true", help="use the real display instead of offscreen")
    args = parser.parse_args()
    if not args.display:
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    with tempfile.TemporaryDirectory() as tmp:
        settings = os.path.join(tmp, "settings.ini")
        bare, window, ready, blocked = [], [], [], []
        for _ in range(args.rounds):
            bare.append(once(BARE, settings)[0])
            window.append(once(WORKBENCH, settings)[0])
            seconds, longest = once(WORKBENCH, settings, "ready")
            ready.append(seconds)
            blocked.append(float(longest))
    b, w, r = statistics.median(bare), statistics.median(window), statistics.median(ready)
    print(f"until the window is shown (median of {args.rounds}, whole process)")
    print(f"bare PySide6 window                    {b:.3f} s")
    print(f"ir-workbench main window, shown        {w:.3f} s   {w / b:.1f}x bare")
    print(f"ir-workbench main window, views built  {r:.3f} s   {r / b:.1f}x bare")
    print(f"window's thread blocked at most        {statistics.median(blocked):.3f} s (between shown and built)")


if __name__ == "__main__":
    main()
