"""Before Qt starts on Linux: are the system libraries of Qt's xcb plugin there?

Without them Qt aborts with its own message ("could not load the Qt platform
plugin xcb...") that does not say what to install.  This checks the libraries
Qt 6 names in its X11 requirements and prints one install command instead.
Plain Python: runs before PySide6 is imported.
"""

from __future__ import annotations

import ctypes.util
import os
import sys

# library name for ctypes.util.find_library -> Debian/Ubuntu package
XCB_LIBRARIES = {
    "xcb-cursor": "libxcb-cursor0",
    "xcb-icccm": "libxcb-icccm4",
    "xcb-image": "libxcb-image0",
    "xcb-keysyms": "libxcb-keysyms1",
    "xcb-render-util": "libxcb-render-util0",
    "xcb-shape": "libxcb-shape0",
    "xcb-xkb": "libxcb-xkb1",
    "xkbcommon-x11": "libxkbcommon-x11-0",
    "EGL": "libegl1",
    "fontconfig": "libfontconfig1",
}


def uses_xcb(environ=os.environ, platform: str = sys.platform) -> bool:
    """Whether Qt would use its xcb plugin: Linux, an X display, and no other platform asked for."""
    if not platform.startswith("linux"):
        return False
    wanted = environ.get("QT_QPA_PLATFORM", "")
    if wanted:
        return wanted.split(":")[0].split(";")[0] == "xcb"
    return bool(environ.get("DISPLAY")) and not environ.get("WAYLAND_DISPLAY")


def missing_packages(find=ctypes.util.find_library) -> list[str]:
    return [package for lib, package in XCB_LIBRARIES.items() if find(lib) is None]


def advice(packages: list[str]) -> str:
    return (
        "ir-workbench: Qt cannot open a window on this X11 desktop: system libraries are missing "
        f"({', '.join(packages)}).\nInstall them with:\n\n    sudo apt-get install {' '.join(packages)}\n\n"
        "(on Fedora: sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-image xcb-util-keysyms "
        "xcb-util-renderutil libxkbcommon-x11)"
    )


def check() -> str | None:
    """The message to print and stop with, or None when the window can start."""
    if not uses_xcb():
        return None
    missing = missing_packages()
    return advice(missing) if missing else None
