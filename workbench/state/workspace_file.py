"""Workspace files (``*.irwb``): everything the window holds, as a small readable JSON file.

Plain Python (no Qt).  A workspace names its files by paths relative to the
workspace file's folder where that is possible, so a folder of qrels, runs and
workspace can be moved or shared as a whole.  Reading checks the document and
names the file and the entry that is wrong; it does not look at the files
named: a file that has gone missing is found when the workspace is opened
(:func:`workbench.state.listing.look_at`, in a worker) and the rest opens.

Example::

    {
      "format": "ir-workbench workspace",
      "version": 1,
      "files": [
        {"path": "qrels/qrels.dl19.txt", "kind": "qrels"},
        {"path": "qrels/qrels.llm.txt", "kind": "held", "kind_chosen": true},
        {"path": "runs/bm25.run", "kind": "run", "label": "BM25", "kind_chosen": false}
      ],
      "baseline": "runs/bm25.run",
      "measures": ["map", "ndcg_cut.10"],
      "settings": {"relevance_level": 1, "k_max": 100, "gain": "linear", ...},
      "relevance_level": 1,
      "k_max": 100,
      "ndcg_options": {},
      "significance": {"test": "t", "alpha": 0.05, "correction": "holm"},
      "selected_query": null,
      "focus_measure": "map",
      "layout": "<base64 of the window's dock layout>",
      "analysis_view": "overlap"
    }

A file of kind ``held`` is a qrels file held beside the qrels in use (compared with them, scoring
nothing); it is always read again as such.

``analysis_view`` names the view the window's "Why runs differ" dock shows (a file without it leaves the
window's choice as it is).

``settings`` holds every field of :class:`metrics.Settings`; ``relevance_level``, ``k_max`` and
``ndcg_options`` say the same for earlier versions, and are what a file without ``settings`` is read from.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from metrics.engine.settings import Settings
from metrics.errors import InputError

FORMAT = "ir-workbench workspace"
VERSION = 1
SUFFIX = ".irwb"
KINDS = ("qrels", "held", "run", "ranked", "queries", "intents", "collection")
MAX_BYTES = 16 * 1024 * 1024  # a workspace names files; it never holds data


@dataclass
class FileItem:
    """One file of a workspace document: its path, its kind (chosen by the user or detected) and its label."""

    path: str  # absolute
    kind: str | None = None
    label: str | None = None
    kind_chosen: bool = False  # the user corrected the detected kind


@dataclass
class WorkspaceDoc:
    """What a workspace file holds: the files, the baseline, the measures, the settings, what was selected and open."""

    files: list[FileItem] = field(default_factory=list)
    baseline: str | None = None  # absolute path of the baseline run
    measures: tuple[str, ...] = ()
    settings: Settings = field(default_factory=Settings)  # how the numbers are made (metrics.Settings)
    significance: dict = field(default_factory=dict)
    selected_query: str | None = None
    focus_measure: str | None = None
    layout: str | None = None  # base64 text, the window's business
    analysis_view: str | None = None  # the view of why runs differ shown (the window's business too)


def _relative(path: str, folder: str) -> str:
    try:
        return os.path.relpath(path, folder).replace(os.sep, "/")
    except ValueError:  # another drive (Windows): keep it absolute
        return path


def to_json(doc: WorkspaceDoc, workspace_path: str) -> str:
    folder = os.path.dirname(os.path.abspath(workspace_path))
    files = []
    for f in doc.files:
        item: dict = {"path": _relative(f.path, folder), "kind": f.kind}
        if f.label:
            item["label"] = f.label
        if f.kind_chosen:
            item["kind_chosen"] = True
        files.append(item)
    data = {
        "format": FORMAT,
        "version": VERSION,
        "files": files,
        "baseline": _relative(doc.baseline, folder) if doc.baseline else None,
        "measures": list(doc.measures),
        "settings": doc.settings.to_dict(),
        # (the settings as earlier versions read them)
        "relevance_level": doc.settings.relevance_level,
        "k_max": doc.settings.k_max,
        "ndcg_options": doc.settings.ndcg_options(),
        "significance": dict(doc.significance),
        "selected_query": doc.selected_query,
        "focus_measure": doc.focus_measure,
        "layout": doc.layout,
        "analysis_view": doc.analysis_view,
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write(doc: WorkspaceDoc, path: str) -> None:
    """Write atomically (a reader never sees half a workspace), never over a file the workspace names: a
    qrels or run file given as the workspace's path is refused with
    :class:`metrics.io.fileio.ProtectedFileError`, as every export refuses an input file."""
    from metrics.io.fileio import check_not_input, write_text

    check_not_input(path, [f.path for f in doc.files if not f.path.startswith("irds:")])
    write_text(path, to_json(doc, path), overwrite=True)


def _expect(cond: bool, path: str, what: str) -> None:
    if not cond:
        raise InputError(f"{os.path.basename(path)}: {what}")


def read(path: str) -> WorkspaceDoc:
    """Read a workspace file; raises :class:`InputError` naming the file and what is wrong."""
    from metrics.io.textfile import not_regular, open_input

    path = os.path.abspath(path)
    what = not_regular(path)  # (a FIFO would block, a device be read for ever: only regular files are read)
    _expect(what is None, path, f"not a regular file: {what}; a workspace is a file")
    size = os.path.getsize(path)
    too_large = f"{size} bytes is too large for a workspace file (it names files, it does not hold them)"
    _expect(size <= MAX_BYTES, path, too_large)
    try:
        with open_input(path) as fh:
            raw = fh.read(MAX_BYTES + 1)  # (bounded, should the file grow meanwhile)
        _expect(len(raw) <= MAX_BYTES, path, too_large)
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{os.path.basename(path)}: not a workspace file (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{os.path.basename(path)}, line {exc.lineno}: not a workspace file (JSON expected: {exc.msg})"
        ) from None
    except RecursionError:  # (JSON nested thousands deep: Python's own words are no use to the user)
        raise InputError(f"{os.path.basename(path)}: not a workspace file (its JSON is nested too deeply)") from None
    _expect(
        isinstance(data, dict) and data.get("format") == FORMAT,
        path,
        f'not a workspace file (expected "format": "{FORMAT}")',
    )
    _expect(
        isinstance(data.get("version"), int) and data["version"] <= VERSION,
        path,
        f"workspace version {data.get('version')!r} is newer than this program reads ({VERSION})",
    )
    folder = os.path.dirname(path)

    def absolute(p) -> str:
        return os.path.normpath(os.path.join(folder, os.path.expanduser(p)))

    doc = WorkspaceDoc()
    files = data.get("files", [])
    _expect(isinstance(files, list), path, '"files" must be a list')
    for i, item in enumerate(files, 1):
        _expect(
            isinstance(item, dict) and isinstance(item.get("path"), str),
            path,
            f'file {i}: an object with a "path" expected',
        )
        kind = item.get("kind")
        _expect(kind is None or kind in KINDS, path, f"file {i}: kind {kind!r}; expected one of {', '.join(KINDS)}")
        label = item.get("label")
        _expect(label is None or isinstance(label, str), path, f'file {i}: "label" must be text')
        f = FileItem(absolute(item["path"]), kind, label, bool(item.get("kind_chosen", False)))
        doc.files.append(f)  # (whether it is there is looked at when the workspace is opened, in a worker)
    baseline = data.get("baseline")
    doc.baseline = absolute(baseline) if isinstance(baseline, str) else None
    measures = data.get("measures", [])
    _expect(
        isinstance(measures, list) and all(isinstance(m, str) for m in measures),
        path,
        '"measures" must be a list of measure names',
    )
    doc.measures = tuple(measures)
    doc.settings = _settings(data, path)
    value = data.get("significance", {})
    _expect(isinstance(value, dict), path, '"significance" must be an object')
    doc.significance = value
    for name in ("selected_query", "focus_measure", "layout", "analysis_view"):
        value = data.get(name)
        _expect(value is None or isinstance(value, str), path, f'"{name}" must be text or null')
        setattr(doc, name, value)
    return doc


def _settings(data: dict, path: str) -> Settings:
    """The :class:`metrics.Settings` a workspace holds: its ``settings`` object, or (files of earlier
    versions) its ``relevance_level``, ``k_max`` and ``ndcg_options``."""
    saved = data.get("settings")
    if saved is None:
        saved = {name: data[name] for name in ("relevance_level", "k_max", "ndcg_options") if name in data}
    _expect(isinstance(saved, dict), path, '"settings" must be an object')
    from workbench.scoring.defaults import K_LIMIT

    for name, lo, hi in (("relevance_level", -(10**9), 10**9), ("k_max", 1, K_LIMIT)):
        value = saved.get(name, getattr(Settings(), name))
        _expect(
            isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi,
            path,
            f'"{name}" must be a whole number from {lo} to {hi}',
        )
    _expect(isinstance(saved.get("ndcg_options", {}), dict), path, '"ndcg_options" must be an object')
    try:
        return Settings.from_dict(saved)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{os.path.basename(path)}: settings: {exc}") from None
