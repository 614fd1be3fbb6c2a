"""The check that runs before Qt on Linux desktops, and the log of unexpected errors."""

from __future__ import annotations

import logging
import sys

from workbench.system import logs, platform_check


def test_xcb_is_checked_only_where_qt_would_use_it():
    assert platform_check.uses_xcb({"DISPLAY": ":0"}, "linux")
    assert not platform_check.uses_xcb({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert not platform_check.uses_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, "linux")
    assert platform_check.uses_xcb({"QT_QPA_PLATFORM": "xcb"}, "linux")
    assert not platform_check.uses_xcb({"DISPLAY": ":0"}, "darwin")
    assert not platform_check.uses_xcb({}, "linux")


def test_missing_libraries_give_one_install_command():
    present = {"xcb-icccm", "xcb-image"}
    missing = platform_check.missing_packages(lambda lib: f"lib{lib}.so" if lib in present else None)
    assert "libxcb-cursor0" in missing and "libxcb-icccm4" not in missing
    text = platform_check.advice(["libxcb-cursor0"])
    assert "sudo apt-get install libxcb-cursor0\n" in text


def test_unexpected_errors_are_logged_with_their_traceback_and_told_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(logs, "log_dir", lambda: str(tmp_path))
    told = []
    root = logging.getLogger()
    handlers = list(root.handlers)
    hook = sys.excepthook
    try:
        path = logs.setup(told.append)
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())
        logs.stop()  # (the records queued are written)
    finally:
        for h in root.handlers:
            if h not in handlers:
                root.removeHandler(h)
                h.close()
        sys.excepthook = hook
    text = open(path, encoding="utf-8").read()
    assert "Traceback" in text and "RuntimeError: boom" in text
    assert told == [f"Unexpected error: RuntimeError: boom (details in {path})"]
