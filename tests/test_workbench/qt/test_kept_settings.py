"""The window's kept settings are written from a thread of their own: a setting reaches the disk while the
window's thread is busy elsewhere (a ``QSettings`` set on that thread writes from its event loop, so the
file would not change until it ran), what was set is read back at once, the newest value is the one left
on disk, and closing writes what was set and stops the thread."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import time  # noqa: E402

from PySide6.QtCore import QByteArray, QSettings  # noqa: E402

from workbench.qt.kept_settings import KeptSettings  # noqa: E402


def _on_disk_within(path, text: str, seconds: float = 10.0) -> bool:
    """Whether ``text`` shows in the file at ``path`` within ``seconds``, the caller's thread (the window's)
    handling no event meanwhile."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists() and text in path.read_text():
            return True
        time.sleep(0.01)
    return False


def test_a_setting_reaches_the_disk_while_the_window_s_thread_is_busy(qapp, tmp_path):
    ini = tmp_path / "settings.ini"
    kept = KeptSettings(QSettings(str(ini), QSettings.Format.IniFormat))
    kept.set_value("lastExportDir", "/data/exports")
    assert kept.value("lastExportDir") == "/data/exports"  # (at once, before it is on disk)
    assert _on_disk_within(ini, "lastExportDir=/data/exports")
    assert kept.close()
    assert QSettings(str(ini), QSettings.Format.IniFormat).value("lastExportDir") == "/data/exports"


def test_the_newest_value_is_the_one_kept_and_every_kind_survives(qapp, tmp_path):
    ini = tmp_path / "settings.ini"
    kept = KeptSettings(QSettings(str(ini), QSettings.Format.IniFormat))
    for i in range(200):
        kept.set_value("recentFiles", [f"/runs/run{i}.txt", "/runs/qrels.txt"])
        assert kept.value("recentFiles") == [f"/runs/run{i}.txt", "/runs/qrels.txt"]
    kept.set_value("geometry", QByteArray(b"\x01\x02\xff"))
    kept.set_value("filesWidthGiven", 312)
    assert kept.close()
    back = QSettings(str(ini), QSettings.Format.IniFormat)
    assert back.value("recentFiles") == ["/runs/run199.txt", "/runs/qrels.txt"]
    assert bytes(back.value("geometry").data()) == b"\x01\x02\xff"
    assert int(back.value("filesWidthGiven")) == 312
    assert kept.value("missing", "given") == "given"


def test_values_kept_before_are_read_and_nothing_is_written_until_something_is_set(qapp, tmp_path):
    ini = tmp_path / "settings.ini"
    before = QSettings(str(ini), QSettings.Format.IniFormat)
    before.setValue("chosenKinds", '{"/a/run.txt": "run"}')
    before.sync()
    stamp = ini.stat().st_mtime_ns
    kept = KeptSettings(QSettings(str(ini), QSettings.Format.IniFormat))
    assert kept.value("chosenKinds") == '{"/a/run.txt": "run"}'
    assert kept.file_name() == str(ini)
    assert kept.flush()  # (no writer: nothing to wait for)
    assert ini.stat().st_mtime_ns == stamp


def test_closing_stops_the_writer_after_writing_and_a_later_value_starts_another(qapp, tmp_path):
    import threading

    ini = tmp_path / "settings.ini"

    def writers() -> int:
        return sum(t.name == "settings writer" for t in threading.enumerate())

    kept = KeptSettings(QSettings(str(ini), QSettings.Format.IniFormat))
    before = writers()
    kept.set_value("windowState", QByteArray(b"state"))
    assert writers() == before + 1
    assert kept.close()
    assert writers() == before
    assert "windowState=" in ini.read_text()
    kept.set_value("lastExportDir", "/after/closing")
    assert _on_disk_within(ini, "lastExportDir=/after/closing")
    assert kept.close() and QSettings(str(ini), QSettings.Format.IniFormat).value("windowState") == b"state"


def test_a_writer_that_cannot_start_keeps_the_values_until_one_can(qapp, tmp_path, monkeypatch, caplog):
    from workbench.qt import kept_settings

    ini = tmp_path / "settings.ini"
    kept = KeptSettings(QSettings(str(ini), QSettings.Format.IniFormat))
    made = kept_settings._Writer

    def broken(*args):
        raise RuntimeError("no writer here")

    monkeypatch.setattr(kept_settings, "_Writer", broken)
    with caplog.at_level("WARNING", logger="workbench.qt.kept_settings"):
        kept.set_value("lastExportDir", "/first")  # (no wait for a writer that never comes)
    assert "could not be written" in caplog.text and kept.value("lastExportDir") == "/first"
    monkeypatch.setattr(kept_settings, "_Writer", made)
    kept.set_value("recentFiles", ["/runs/a.run"])
    assert kept.close()
    back = QSettings(str(ini), QSettings.Format.IniFormat)
    assert back.value("lastExportDir") == "/first" and back.value("recentFiles") in (["/runs/a.run"], "/runs/a.run")


def test_the_window_keeps_a_recent_file_while_its_thread_is_busy(qtbot, tmp_path):
    from workbench.views.window.main_window import MainWindow

    ini = tmp_path / "window.ini"
    w = MainWindow(settings=QSettings(str(ini), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    run = tmp_path / "bm25.run"
    w.parts.recent.remember(str(run))
    assert w.parts.recent.paths()[0] == str(run)
    assert _on_disk_within(ini, str(run))  # (no event handled: written by the settings' own thread)
    w.close()
    again = MainWindow(settings=QSettings(str(ini), QSettings.Format.IniFormat))
    qtbot.addWidget(again)
    assert again.parts.recent.paths()[0] == str(run)
    again.close()
