"""How long the window's thread is kept from running while a large run is read, evaluated and inspected.

The window must stay responsive: every parse and computation runs in a worker,
but work that holds Python's lock for long still starves the window's thread.
This drops a generated run (default 1.5 million lines) with a small qrels file
onto the window (offscreen), ticks a 20 ms timer on the window's thread, and
reports the longest gap between ticks and the time until the window is idle.

    python benchmarks/gui_responsiveness.py [--queries 500] [--depth 3000]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def write_data(folder: Path, queries: int, depth: int) -> tuple[Path, Path]:
    run, qrels = folder / "big.run", folder / "qrels.txt"
    with open(run, "w") as fh:
        for q in range(queries):
            fh.write("".join(f"{q} Q0 doc{d} {d} {1.0 / d:.6f} bigrun\n" for d in range(1, depth + 1)))
    with open(qrels, "w") as fh:
        fh.write("".join(f"{q} 0 doc{d} {d % 3}\n" for q in range(queries) for d in range(1, 40)))
    return qrels, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--depth", type=int, default=3000)
    args = parser.parse_args()

    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from workbench.views.main_window import MainWindow

    app = QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = write_data(Path(tmp), args.queries, args.depth)
        window = MainWindow(settings=QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window.show()
        gaps, last = [], [time.monotonic()]

        def tick():
            now = time.monotonic()
            gaps.append(now - last[0])
            last[0] = now

        timer = QTimer()
        timer.setInterval(20)
        timer.timeout.connect(tick)
        start = time.monotonic()
        timer.start()
        window.open_files([str(qrels), str(run)])
        while window.session.busy or window.session.results is None or window.session.inspection is None:
            app.processEvents()
            time.sleep(0.002)
        elapsed = time.monotonic() - start
        timer.stop()
        window.session.shutdown()
        p99 = sorted(gaps)[int(len(gaps) * 0.99)]
        print(
            f"{args.queries * args.depth:,} run lines: idle after {elapsed:.2f} s; longest gap of the "
            f"window's thread {max(gaps) * 1000:.0f} ms; 99th percentile {p99 * 1000:.0f} ms "
            f"({len(gaps)} ticks of 20 ms)"
        )


if __name__ == "__main__":
    main()
