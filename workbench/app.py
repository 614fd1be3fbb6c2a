"""``ir-workbench [FILES...]``: open the window (the bundled sample without files).

``ir-workbench --screenshot out.png [FILES...]`` renders the window once every
file is loaded and evaluated, saves it and exits.
"""

from __future__ import annotations

import argparse
import sys

APP_NAME = "ir-workbench"


def parse_args(argv):
    parser = argparse.ArgumentParser(prog=APP_NAME, description="Score IR runs side by side.")
    parser.add_argument("files", nargs="*", help="qrels, run or ranked-judgment files, or folders of them")
    parser.add_argument("--screenshot", metavar="PNG", help="save a picture of the window when done, then exit")
    parser.add_argument("--size", default="1400x900", help="window size for --screenshot (default 1400x900)")
    parser.add_argument("--query", help="select this query (with --screenshot)")
    parser.add_argument("--timeout", type=float, default=120.0, help="give up on --screenshot after this many seconds")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)

    from workbench.system import platform_check, process

    process.prepare()  # one BLAS thread, no garbage collection until the views are built

    problem = platform_check.check()
    if problem:
        print(problem, file=sys.stderr)
        return 3

    # a folder of many runs: the service that will score them starts now, before Qt and the session, its
    # processes already scoring the runs as the session's first evaluation will ask for them (without files,
    # the core is imported once the window is shown)
    early = None
    if args.files:
        from workbench.state import early as ahead

        early = ahead.start(args.files)

    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    from workbench.views.window.main_window import MainWindow

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    if args.screenshot:
        # a picture shows the default layout, not the one this user arranged
        settings = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, APP_NAME, "screenshot")
        settings.clear()
        settings.sync()  # (now, before the window is made: never from its event loop)
    else:
        settings = QSettings(APP_NAME, APP_NAME)
    # the window shows itself first and builds its views (pandas, pyqtgraph) right after, unless a
    # picture of it is asked for
    from workbench.system import logs

    logs.setup()  # before any file is read: tracebacks go to the log file, never to the terminal
    window = MainWindow(settings=settings, deferred=not args.screenshot)

    if args.screenshot:
        w, h = (int(v) for v in args.size.lower().split("x"))
        window.resize(w, h)
    window.show()

    # files (or the sample) are read as soon as the session is made, while the views are still being
    # built; a workspace file also sets the layout, so it waits for the views
    at_once = True
    if args.files:
        from workbench.state import workspace_file

        at_once = not any(str(p).lower().endswith(workspace_file.SUFFIX) for p in args.files)

    def read() -> None:
        from metrics.io.readers import use_jemalloc_pool

        use_jemalloc_pool()
        if early is not None:
            window.session.use_scoring(*early)
        if at_once and args.files:
            window.session.reading.open_files(args.files)
        elif at_once:
            window.session.reading.open_sample()
        if at_once and not args.screenshot:
            window.startup.paint_with_first_scores()

    def start() -> None:
        logs.setup(window.parts.bars.messages.add)
        if at_once:
            window.update_title()
        else:
            window.parts.files.open_files(args.files)

    window.startup.when_session_ready(read)
    window.startup.when_ready(start)
    window.startup.when_ready(process.started)

    status = {"code": 0}
    if args.screenshot:
        session = window.session
        done = {"shot": False}

        def shoot():
            if done["shot"]:
                return
            done["shot"] = True
            if args.query:
                session.model.select_query(args.query)
            app.processEvents()
            ok = window.grab().save(args.screenshot)
            if not ok:
                print(f"{APP_NAME}: could not write {args.screenshot}", file=sys.stderr)
                status["code"] = 1
            window.close()
            app.quit()

        def on_idle():
            if args.query and not done.get("asked"):
                done["asked"] = True
                session.model.select_query(args.query)
                if session.busy:
                    return  # the query's drill-down is computed first; the next idle takes the picture
            QTimer.singleShot(300, shoot)

        def on_timeout():
            print(f"{APP_NAME}: gave up waiting after {args.timeout:g} s", file=sys.stderr)
            status["code"] = 2
            shoot()

        session.sigIdle.connect(on_idle)
        QTimer.singleShot(int(args.timeout * 1000), on_timeout)
    try:
        app.exec()
        if early is not None and not hasattr(window, "session"):  # (a session closes the service it uses)
            early[0].close()
    finally:
        logs.stop()  # every record logged is in the file before the process leaves
    return status["code"]


if __name__ == "__main__":
    sys.exit(main())
