"""The window with many runs: from starting ``ir-workbench`` on N DL19-shaped runs until every run is
scored and the summary shows them, against ``ir-eval`` scoring the same files with the window's
default measures, both whole processes (offscreen).

    python benchmarks/window_many_runs.py [--runs 100] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

WINDOW = """
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from workbench.views.main_window import MainWindow
w = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat), deferred=True)
w.resize(1400, 900)
w.show()
files = sys.argv[3:]
runs = len(files) - 1
w.when_ready(lambda: w.open_files(files))

def check():
    s = getattr(w, "session", None)
    if s is not None and s.results is not None and not s.busy and len(s.results.runs) == runs:
        app.processEvents()  # the summary painted with every run
        print(len(s.results.runs))
        app.quit()
    else:
        QTimer.singleShot(20, check)

QTimer.singleShot(20, check)
QTimer.singleShot(int(float(sys.argv[2]) * 1000), app.quit)
app.exec()
os._exit(0)
"""
MEASURES = ("map", "P.10", "ndcg_cut.10", "Rprec", "recip_rank", "bpref", "recall.100")


def timed(cmd: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True)
    return time.perf_counter() - start, out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    import everyday  # the DL19 shape of benchmarks/everyday.py

    with tempfile.TemporaryDirectory() as tmp:
        qrels, runs = everyday.generate(Path(tmp), "dl19", runs=args.runs)
        files = [str(qrels), *map(str, runs)]
        settings = os.path.join(tmp, "settings.ini")
        cli = [sys.executable, "-m", "metrics", *[a for m in MEASURES for a in ("-m", m)], *files]
        window = [sys.executable, "-c", WINDOW, settings, str(args.timeout), *files]
        cli_times, window_times = [], []
        for _ in range(args.rounds):
            cli_times.append(timed(cli)[0])
            seconds, out = timed(window)
            if out.strip() != str(args.runs):
                raise SystemExit(f"the window did not show {args.runs} runs within {args.timeout:g} s")
            window_times.append(seconds)
    c, w = statistics.median(cli_times), statistics.median(window_times)
    print(f"{args.runs} DL19-shaped runs, the window's 7 default measures (median of {args.rounds}, whole process)")
    print(f"ir-eval                           {c:.2f} s")
    print(f"ir-workbench until every run shows {w:.2f} s   {w / c:.1f}x ir-eval")


if __name__ == "__main__":
    main()
