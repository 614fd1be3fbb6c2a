"""How long the window's thread is kept from running while a large run is read, evaluated and inspected.

The window must stay responsive: every parse and computation runs in a worker,
but work that holds Python's lock for long still starves the window's thread.
This drops a generated run (default 1.5 million lines) with a small qrels file
onto the window (offscreen), ticks a 20 ms timer on the window's thread, and
reports the longest gap between ticks and the time until the window is idle.

    python benchmarks/gui_responsiveness.py [--queries 500] [--depth 3000]
    python benchmarks/gui_responsiveness.py --runs 500 [--openings 7]   # a folder of DL19-shaped runs

With ``--runs`` a folder of that many runs (43 queries of 1,000 documents each) is opened, ``--openings``
times in a new window each, and ``--queries-selected`` of its queries are then selected in turn (each
until the window is idle again); a watchdog thread samples the window's thread whenever it has not
ticked for 0.25 s, and the stack seen most in the longest pause is printed (what kept the window busy).
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


def ticking():
    """A 20 ms timer on the window's thread, started: ``(timer, gaps between its ticks, [last tick])``."""
    from PySide6.QtCore import QTimer

    gaps, last = [], [time.monotonic()]

    def tick():
        now = time.monotonic()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(20)
    timer.timeout.connect(tick)
    timer.start()
    return timer, gaps, last


class Watchdog:
    """Samples the main thread's stack while the window's thread has not ticked for ``after`` seconds."""

    def __init__(self, last: list, after: float = 0.25):
        import threading

        self.last, self.after = last, after
        self.samples: list[tuple[float, str]] = []  # (the pause's start, the stack)
        self._stop = threading.Event()
        self._main = threading.main_thread().ident
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        import sys
        import threading
        import traceback

        while not self._stop.wait(0.05):
            since = self.last[0]
            if time.monotonic() - since > self.after:
                frames = sys._current_frames()
                frame = frames.get(self._main)
                if frame is not None:
                    stack = "".join(traceback.format_stack(frame, limit=12)[-8:])
                    # (the window's thread in Qt's code may be waiting for a thread that holds the interpreter)
                    others = [
                        f"  thread {ident}:\n" + "".join(traceback.format_stack(f, limit=12)[-4:])
                        for ident, f in frames.items()
                        if ident not in (self._main, threading.get_ident())
                    ]
                    self.samples.append((since, stack + "".join(others)))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def culprit(self) -> str:
        """The stack seen most during the longest pause."""
        from collections import Counter

        if not self.samples:
            return ""
        pauses = Counter(since for since, _ in self.samples)
        longest = pauses.most_common(1)[0][0]
        stacks = Counter(stack for since, stack in self.samples if since == longest)
        return stacks.most_common(1)[0][0]


def many_runs(args) -> None:
    """Open a folder of ``args.runs`` DL19-shaped runs, ``args.openings`` times: the longest pauses."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from generate import generate
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from workbench.views.window.main_window import MainWindow

    app = QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "runs"
        generate(folder, queries=43, depth=1000, judged=215, runs=args.runs)
        # (the files written out first: otherwise their writing to disk, hundreds of megabytes, goes on during
        # the openings, and the window's processes wait for the disk as users' already written files do not)
        os.sync()
        worst = []
        for opening in range(args.openings):
            window = MainWindow(settings=QSettings(str(Path(tmp) / f"s{opening}.ini"), QSettings.Format.IniFormat))
            window.show()
            timer, gaps, last = ticking()
            start = time.monotonic()
            dog = Watchdog(last, after=min(0.25, args.show_over))
            window.parts.files.open_files([str(folder)])
            while window.session.busy or window.session.results is None:
                app.processEvents()
                time.sleep(0.002)
            elapsed = time.monotonic() - start
            opening_gaps = list(gaps)
            # then queries selected among the runs in turn, as a user clicks through them (the drill-down
            # of every run ranked again, the per-query views redrawn), each until the window is idle
            gaps.clear()
            last[0] = time.monotonic()
            queries = list(window.session.results.query_ids)[: args.queries_selected]
            for query in queries:
                window.session.model.select_query(query)
                while window.session.busy:
                    app.processEvents()
                    time.sleep(0.002)
            selecting = max(gaps, default=0.0)
            timer.stop()
            dog.stop()
            window.session.shutdown()
            window.close()
            window.deleteLater()
            app.processEvents()
            worst.append(max(max(opening_gaps), selecting))
            print(
                f"opening {opening + 1}: {args.runs} runs idle after {elapsed:.2f} s; longest pause of the "
                f"window's thread {max(opening_gaps) * 1000:.0f} ms; then {len(queries)} queries selected in "
                f"turn: longest pause {selecting * 1000:.0f} ms"
            )
            if worst[-1] > args.show_over:
                print("  busy with:\n" + "\n".join("    " + line for line in dog.culprit().splitlines()))
        print(f"longest pause over {args.openings} openings: {max(worst) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--depth", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=0, help="open a folder of this many DL19-shaped runs")
    parser.add_argument("--openings", type=int, default=7)
    parser.add_argument(
        "--queries-selected", type=int, default=10, help="with --runs: queries then selected in turn, each until idle"
    )
    parser.add_argument("--show-over", type=float, default=0.5, help="print the stack of pauses over this (s)")
    args = parser.parse_args()
    if args.runs:
        many_runs(args)
        return

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from workbench.views.window.main_window import MainWindow

    app = QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = write_data(Path(tmp), args.queries, args.depth)
        window = MainWindow(settings=QSettings(str(Path(tmp) / "s.ini"), QSettings.Format.IniFormat))
        window.show()
        timer, gaps, last = ticking()
        start = time.monotonic()
        window.parts.files.open_files([str(qrels), str(run)])
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
