"""The window with many runs: from starting ``ir-workbench`` on N DL19-shaped runs until every run's
scores show, against ``ir-eval`` scoring the same files with the window's default measures, both whole
processes (offscreen).

Three moments of the window are timed: the first paint of the scores (every run scored and every view
showing them: the summary, the per-query table and the plots, each of which takes new scores in on a turn
of the event loop of its own), the first full paint (their marks of significance against the baseline
shown too: the first comparison imports scipy.special, after the scores are painted) and idle (nothing
left to do: also the inspection of the file opened last, which waits for that paint).  The window's
process starts as ``ir-workbench`` does (``workbench.system.process``, the worker processes started
before Qt).  The CPU time of each (the window's process and its worker processes apart) says how much
of the wall time the machine's cores could overlap at best.

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
import os, sys, time
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from workbench.system import process
process.prepare()
from workbench.state import early as ahead
early = ahead.start(sys.argv[3:])  # as ir-workbench FILES... does, before its window
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from workbench.views.window.main_window import MainWindow
w = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat), deferred=True)
w.resize(1400, 900)
w.show()
files = sys.argv[3:]
runs = len(files) - 1
# as ir-workbench FILES... does: the views painted with the first scores
def read():
    if early is not None:
        w.session.use_scoring(*early)
    w.session.reading.open_files(files)
    w.startup.paint_with_first_scores()
w.startup.when_session_ready(read)
w.startup.when_ready(process.started)
scores, painted = [], []

def cpu_seconds():  # (user + system) of this process and of its worker processes, read before they stop
    import resource
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = 0.0
    for pid in os.listdir("/proc"):
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except (OSError, ValueError):
            continue
        if int(fields[1]) == os.getpid():
            workers += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own.ru_utime + own.ru_stime, workers

def check():
    s = w.session if w.session_made else None
    # every view has taken the scores in (the plots and the per-query table do on turns of their own)
    shown = s is not None and s.results is not None and len(s.results.runs) == runs and w.built
    shown = shown and not s.after_paint.turns_pending
    if shown and not scores and not s.evaluation.evaluating and w.updatesEnabled():
        app.processEvents()  # every view painted with them
        scores.append(time.time())
    if shown and scores and not painted and not s.evaluation.evaluating and s.model.comparison_current():
        app.processEvents()  # the marks of significance painted too
        painted.append(time.time())
    if shown and painted and not s.busy:
        print(len(s.results.runs), scores[0], painted[0], time.time(), *cpu_seconds())
        app.quit()
    else:
        QTimer.singleShot(10, check)

QTimer.singleShot(10, check)
QTimer.singleShot(int(float(sys.argv[2]) * 1000), app.quit)
app.exec()
os._exit(0)
"""
MEASURES = ("map", "P.10", "ndcg_cut.10", "Rprec", "recip_rank", "bpref", "recall.100")


def timed(cmd: list[str]) -> tuple[float, str, float, float, float]:
    """Wall time, output, peak resident memory (MiB) of the command's process (``wait4``'s ``ru_maxrss``:
    the largest of the process and its waited-for children, e.g. scoring processes), the time it
    started (``time.time()``) and its CPU seconds (user + system, with its waited-for children)."""
    with tempfile.TemporaryFile("w+") as out:
        began = time.time()
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE, text=True)
        assert proc.stderr is not None
        said = proc.stderr.read()  # (read to its end before the wait: a full pipe would block the command)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            raise subprocess.CalledProcessError(proc.returncode, cmd[:3] + ["..."], stderr=said)
        out.seek(0)
        return seconds, out.read(), usage.ru_maxrss / 1024, began, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument(
        "--data", type=Path, help="a folder with dl19.qrels and dl19.<i>.run files to use (made there when missing)"
    )
    args = parser.parse_args()
    import compileall

    import everyday  # the DL19 shape of benchmarks/everyday.py

    import metrics
    import workbench

    # byte-compiled as an installed package is (see benchmarks/everyday.py)
    for package in (metrics, workbench):
        compileall.compile_dir(os.path.dirname(package.__file__), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.data or Path(tmp)
        qrels, runs = folder / "dl19.qrels", [folder / f"dl19.{i}.run" for i in range(args.runs)]
        if not (qrels.exists() and all(p.exists() for p in runs)):
            folder.mkdir(parents=True, exist_ok=True)
            qrels, runs = everyday.generate(folder, "dl19", runs=args.runs)
        files = [str(qrels), *map(str, runs)]
        settings = os.path.join(tmp, "settings.ini")
        cli = [sys.executable, "-m", "metrics", *[a for m in MEASURES for a in ("-m", m)], *files]
        window = [sys.executable, "-c", WINDOW, settings, str(args.timeout), *files]
        cli_times, scored, painted, idle, cli_peak, window_peak = [], [], [], [], [], []
        cli_cpu, window_cpu, workers_cpu = [], [], []
        for _ in range(args.rounds):
            seconds, _, peak, _, cpu = timed(cli)
            cli_times.append(seconds)
            cli_peak.append(peak)
            cli_cpu.append(cpu)
            seconds, out, peak, began, _ = timed(window)
            fields = out.split()
            if len(fields) != 6 or fields[0] != str(args.runs):
                raise SystemExit(f"the window did not show {args.runs} runs within {args.timeout:g} s")
            scored.append(float(fields[1]) - began)
            painted.append(float(fields[2]) - began)
            idle.append(seconds)
            window_peak.append(peak)
            window_cpu.append(float(fields[4]))
            workers_cpu.append(float(fields[5]))
    c, i = statistics.median(cli_times), statistics.median(idle)
    cc, wc, kc = statistics.median(cli_cpu), statistics.median(window_cpu), statistics.median(workers_cpu)
    print(f"{args.runs} DL19-shaped runs, the window's 7 default measures (median of {args.rounds}, whole process)")
    print(f"ir-eval                                   {c:6.2f} s  {max(cli_peak):6.0f} MiB   CPU {cc:.2f} s")
    for what, moments in (
        ("every run's scores painted", scored),
        ("and their marks of significance", painted),
    ):
        m = statistics.median(moments)
        print(f"ir-workbench, {what:<32} {m:6.2f} s             {m / c:.1f}x ir-eval")
        # each round times ir-eval and then the window, so the ratio of a round is not moved by a machine
        # whose speed drifts from round to round
        ratios = sorted(w / t for w, t in zip(moments, cli_times))
        print(
            f"  the same, round by round                         {statistics.median(ratios):.2f}x ir-eval "
            f"(median; {ratios[0]:.2f}x to {ratios[-1]:.2f}x)"
        )
    print(
        f"ir-workbench, idle (and exited)           {i:6.2f} s  {max(window_peak):6.0f} MiB   {i / c:.1f}x ir-eval, "
        f"CPU {wc:.2f} s in the window's process and {kc:.2f} s in its workers"
    )


if __name__ == "__main__":
    main()
