"""Exports and the log never touch the disk on the window's thread: every file system call they make is
recorded with the thread that makes it, while the window exports plots (PNG, SVG), tables and a report,
refuses an input file, asks once before replacing a file, and logs a message."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import builtins  # noqa: E402
import html  # noqa: E402
import logging  # noqa: E402
import logging.handlers  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtWidgets import QFileDialog  # noqa: E402
from qt_support import close_window, open_window  # noqa: E402

from metrics.io import fileio  # noqa: E402
from workbench.state.export import settings_of  # noqa: E402
from workbench.system import logs  # noqa: E402
from workbench.views.dialogs.report import ReportDialog  # noqa: E402

TIMEOUT = 30000
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def window(qtbot, tmp_path):
    w = open_window(qtbot, tmp_path, ("map", "P.10", "ndcg_cut.10"))
    yield w
    close_window(w)


@pytest.fixture
def files(tmp_path):
    """A qrels file with grades 0-2 and two runs with ties, 6 queries."""
    qrels, runs = [], {"alpha": [], "beta": []}
    for q in range(1, 7):
        for d in range(10):
            qrels.append(f"{q} 0 D{d} {(q + d) % 3}")
        for r, (name, lines) in enumerate(runs.items()):
            for rank in range(10):
                d = (rank * (3, 7)[r] + q) % 10
                lines.append(f"{q}\tQ0\tD{d}\t{rank + 1}\t{round(1 - rank / 20, 1)}\t{name}")
    out = {"qrels": tmp_path / "qrels.txt"}
    out["qrels"].write_text("\n".join(qrels) + "\n")
    for name, lines in runs.items():
        out[name] = tmp_path / f"run_{name}.txt"
        out[name].write_text("\n".join(lines) + "\n")
    return out


class DiskCalls:
    """Every call to the file system functions exports and logging use, kept with its thread's name and
    where it came from when it is made on the window's (the main) thread."""

    NAMES = (
        (os, "stat"),
        (os, "lstat"),
        (os, "open"),
        (os, "replace"),
        (os, "scandir"),
        (os, "makedirs"),
        (os.path, "exists"),
        (os.path, "isdir"),
        (os.path, "isfile"),
        (builtins, "open"),
        (fileio, "write_bytes"),
        (fileio, "check_not_input"),
    )

    def __init__(self, monkeypatch):
        self.on_window_thread: list[str] = []
        self.elsewhere: list[str] = []
        for owner, name in self.NAMES:
            monkeypatch.setattr(owner, name, self._recording(name, getattr(owner, name)))

    def _recording(self, name, real):
        def call(*args, **kwargs):
            if threading.current_thread() is threading.main_thread() and not importing():
                where = "\n".join(f"  {f.f_code.co_filename}:{f.f_lineno} {f.f_code.co_name}" for f in callers())
                self.on_window_thread.append(f"{name}{args!r}\n{where}")
            else:
                self.elsewhere.append(name)
            return real(*args, **kwargs)

        return call


def callers(depth: int = 8):
    """The frames that called a recorded function (no line read from disk: that would be recorded)."""
    frame = sys._getframe(2)
    while frame is not None and depth:
        yield frame
        frame, depth = frame.f_back, depth - 1


def importing() -> bool:
    """Whether Python is importing a module (the window imports some modules when first used: that reads
    their files wherever it happens, and is not what these tests look at)."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("<frozen importlib") or "shibokensupport" in name:
            return True
        frame = frame.f_back
    return False


def wait_idle(qtbot, window):
    qtbot.waitUntil(lambda: not window.session.busy, timeout=TIMEOUT)


def exported(qtbot, window, what, path):
    with qtbot.waitSignal(window.sigExported, timeout=TIMEOUT) as blocker:
        assert window.parts.exports.export(what, str(path))
    assert blocker.args == [str(path)]


@pytest.fixture
def log_file(tmp_path, monkeypatch):
    """The window's log, set up as the app does, in ``tmp_path``; the root logger is left as it was."""
    monkeypatch.setattr(logs, "log_dir", lambda: str(tmp_path / "log"))
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    path = logs.setup()
    yield path
    logs.stop()
    for h in list(root.handlers):
        if h not in handlers:
            root.removeHandler(h)
            h.close()
    root.setLevel(level)


def test_exports_and_the_log_touch_the_disk_only_in_workers(qtbot, window, files, tmp_path, monkeypatch, log_file):
    window.parts.files.open_files([str(files[n]) for n in ("qrels", "alpha", "beta")])
    qtbot.waitUntil(lambda: window.session.results is not None and not window.session.busy, timeout=TIMEOUT)
    results = window.session.results
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.csv").write_text("old\n")
    asked: list[str] = []
    monkeypatch.setattr(window.parts.exports, "confirm_overwrite", lambda p: asked.append(p) or True)
    opened_in: list[str] = []

    def save_name(parent, caption, start, filters, **options):
        opened_in.append(os.path.dirname(start))
        return str(out / "asked.svg"), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_name)
    emitted_on: list[str] = []
    emit = logging.handlers.RotatingFileHandler.emit

    def emit_here(handler, record):
        emitted_on.append(threading.current_thread().name)
        emit(handler, record)

    monkeypatch.setattr(logging.handlers.RotatingFileHandler, "emit", emit_here)
    protected = str(files["alpha"])
    before = files["alpha"].read_bytes()

    disk = DiskCalls(monkeypatch)
    exported(qtbot, window, "pr", out / "pr.png")
    exported(qtbot, window, "ndcg", out / "ndcg.svg")
    exported(qtbot, window, "per_query_table", out / "table.csv")
    exported(qtbot, window, "summary", out / "summary.csv")  # (it exists: the user is asked)
    exported(qtbot, window, "pr", out / "again.png")
    exported(qtbot, window, "pr", out / "again.png")  # (now it exists)
    assert window.parts.exports.export("pr", protected)
    qtbot.waitUntil(lambda: "loaded as input" in window.parts.bars.messages.text(), timeout=TIMEOUT)
    wait_idle(qtbot, window)
    with qtbot.waitSignal(window.sigExported, timeout=TIMEOUT):
        window.parts.exports.export_dialog("ndcg")  # (opens in the folder of the last export)
    dialog = ReportDialog(window.session, lambda p: True, str(out), window)
    with qtbot.waitSignal(dialog.sigWritten, timeout=TIMEOUT):
        assert dialog.export(str(out / "report.html"), "html")
    with qtbot.waitSignal(dialog.sigFailed, timeout=TIMEOUT) as refused:
        assert dialog.export(protected, "markdown", table="summary")
    logging.getLogger("workbench").warning("logged on the window's thread")
    on_window_thread = list(disk.on_window_thread)
    logs.stop()  # (as the app leaves: what is queued is written)
    monkeypatch.undo()  # (the recorders go)

    assert on_window_thread == [], "\n".join(on_window_thread)
    assert {"write_bytes", "check_not_input", "exists", "isdir", "open"} <= set(disk.elsewhere)
    # what was written
    png = (out / "pr.png").read_bytes()
    assert png[:8] == PNG
    image = QImage(str(out / "pr.png"))
    assert (image.width(), image.height()) == (2400, 1560)
    assert image.text("Description") == "\n".join(f"{k}: {v}" for k, v in settings_of(results))
    again = tmp_path / "again.png"
    window.parts.views.pr_plot.export_image(str(again))  # (drawn, encoded and written on this thread, as before)
    assert again.read_bytes() == png  # encoded in a worker, byte for byte the same
    svg = (out / "ndcg.svg").read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and "<svg" in svg
    (desc,) = re.findall(r"<desc>(.*?)</desc>", svg, flags=re.S)
    assert html.unescape(desc) == "\n".join(f"{k}: {v}" for k, v in settings_of(results, curves=True))
    assert f"cut-offs: k = 1 to {results.request.k_max}" in html.unescape(desc)
    assert (out / "asked.svg").read_text(encoding="utf-8").startswith("<?xml")
    assert opened_in == [str(out)]  # (the dialog opens where the last export went)
    assert window.settings.value("lastExportDir") == str(out)
    assert asked == [str(out / "summary.csv"), str(out / "again.png")]  # once for each file that existed
    assert (out / "again.png").read_bytes() == png
    stated = [f"# {k}: {v}" for k, v in settings_of(results) if k != "measures"]  # (the table has one)
    assert "# relevance level: 1 (grades >= 1 count as relevant; trec_eval's default)" in stated
    for name in ("summary.csv", "table.csv"):
        lines = (out / name).read_text(encoding="utf-8-sig").splitlines()
        assert set(stated) <= set(lines), name
    summary = pd.read_csv(out / "summary.csv", comment="#").set_index("run")
    np.testing.assert_array_equal(summary.loc[["alpha", "beta"], "map"], results.summary.loc[["alpha", "beta"], "map"])
    table = pd.read_csv(out / "table.csv", comment="#", dtype={"query_id": str}).set_index("query_id")
    np.testing.assert_array_equal(table["Δ beta"], table["beta"] - table["alpha"])
    assert (out / "report.html").read_text(encoding="utf-8").count("data:image/png;base64,") == 3
    assert f"Export to {protected} failed: run_alpha.txt is loaded as input" in window.parts.bars.messages.text()
    assert refused.args == [f"{protected} is loaded as input and is never written to; choose another file."]
    assert files["alpha"].read_bytes() == before
    # the log: written by its own thread, every record in the file once it stops
    assert emitted_on and threading.main_thread().name not in emitted_on
    assert "WARNING workbench: logged on the window's thread" in open(log_file, encoding="utf-8").read()


def test_the_app_writes_every_record_logged_before_it_leaves(tmp_path):
    """``ir-workbench --screenshot`` stops the log's thread as it leaves: records logged at the last moment
    are in the file even when the process then ends with ``os._exit`` (no exit handlers run)."""
    import subprocess

    script = (
        "import logging, os, sys\n"
        "from workbench import app\n"
        "from workbench.system import logs\n"
        f"logs.log_dir = lambda: {str(tmp_path)!r}\n"
        "stop = logs.stop\n"
        "def last_words():\n"
        "    for i in range(2000):\n"
        "        logging.getLogger('workbench').info('record %d', i)\n"
        "    stop()\n"
        "logs.stop = last_words\n"
        "code = app.main(sys.argv[1:])\n"
        "os._exit(code)\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "cfg"))
    shot = tmp_path / "shot.png"
    proc = subprocess.run(
        [sys.executable, "-c", script, "--screenshot", str(shot), "--size", "900x600"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert shot.read_bytes()[:8] == PNG
    lines = [
        line for line in (tmp_path / "ir-workbench.log").read_text(encoding="utf-8").splitlines() if "record " in line
    ]
    assert len(lines) == 2000 and lines[-1].endswith("INFO workbench: record 1999")
