"""What starting the window imports: scipy (half a second) only when a comparison or report needs it."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import os, sys
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication
from PySide6.QtCore import QSettings
app = QApplication([])
from workbench.views.main_window import MainWindow
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
