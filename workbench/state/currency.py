"""The rules that say whether what the window shows is current: plain Python, no Qt.

:class:`workbench.state.session.SessionModel` holds the state (and the Qt
session turns its changes into signals); these functions decide, from that state alone, what an evaluation
would be computed from and why what is shown is out of date, so they are
tested without a QApplication (``tests/test_workbench/state/test_workbench_state.py``).
"""

from __future__ import annotations

from metrics.engine.settings import MeasureSet, Settings
from workbench.scoring import intents as diversity
from workbench.state.workspace import Workspace


def evaluation_key(workspace: Workspace, measures, settings: Settings) -> tuple | None:
    """What an evaluation of these files and options would be computed from (None: nothing to evaluate).

    Files count with their version (bumped whenever new content is stored), runs with their label, so
    results whose key differs from this one are out of date.
    """
    q = workspace.qrels_entry()
    runs = workspace.run_entries()
    judgments = (
        [(q.path, q.version)]
        if q is not None
        else [(e.path, e.version) for e in runs if e.kind == "ranked" and e.qrels is not None]
    )
    # the diversity measures are scored against the intent qrels, the others against the judgments
    intents = workspace.intents_entry()
    adhoc, wanted = diversity.split(measures)
    scored = (judgments and (adhoc or not wanted)) or (intents is not None and wanted)
    if not scored or not runs:
        return None
    return (
        tuple(judgments),
        tuple((e.label, e.path, e.version) for e in runs),
        MeasureSet.of(measures),
        settings,
        None if intents is None or not wanted else (intents.path, intents.version),
    )


def identities(workspace: Workspace) -> tuple[dict[str, tuple], tuple]:
    """The identity of what each run file held in memory and each part of the qrels held when read
    (:func:`workbench.scoring.service.file_identity`): the keys of their scores.  Parts in the order of
    :meth:`Workspace.qrels_parts`."""
    from workbench.scoring.service import file_identity

    runs = {e.label: file_identity(e.path, e.size, e.mtime, e.kind) for e in workspace.run_entries()}
    q = workspace.qrels_entry()
    parts = [q] if q is not None else [e for e in workspace.run_entries() if e.kind == "ranked" and e.qrels is not None]
    return runs, tuple(file_identity(e.path, e.size, e.mtime, e.kind) for e in parts)


def intents_identity(workspace: Workspace) -> tuple | None:
    """The identity of the intent qrels in use (None: none)."""
    from workbench.scoring.service import file_identity

    e = workspace.intents_entry()
    return None if e is None else file_identity(e.path, e.size, e.mtime, e.kind)


def evaluation_state(results, key, evaluating: bool) -> str:
    """``"empty"`` (nothing to evaluate), ``"computing"``, ``"current"`` or ``"outdated"``."""
    if evaluating:
        return "computing"
    if key is None and results is None:
        return "empty"
    return "current" if results is not None and results.request.key == key else "outdated"


def comparison_current(comparison, results, baseline, settings) -> bool:
    """Whether a comparison belongs to these results, this baseline and these settings."""
    return (
        comparison is not None
        and results is not None
        and comparison.request.per_query is results.evaluation.per_query
        and comparison.request.baseline == baseline
        and comparison.request.settings == settings
    )


def stale_reasons(
    state: str, results, comparison, comparison_is_current: bool, changed_on_disk, deleted=(), unscorable=()
) -> list[str]:
    """Why what is shown does not match what is loaded, in words for the user (empty: it matches)."""
    reasons = []
    if state == "outdated":
        reasons.append(
            "the scores shown are not those of the files and options now loaded"
            if results is not None
            else "the loaded files are not evaluated"
        )
    elif results is not None and comparison is not None and not comparison_is_current:
        reasons.append("the significance marks are not those of the scores shown")
    left_out = {e.path for e in unscorable}
    for e in changed_on_disk:
        if e.path in left_out:
            reasons.append(f"{e.name} changed on disk and was not read again: its scores are left out until it is")
        else:
            reasons.append(f"{e.name} changed on disk and was not read again")
    for e in deleted:
        if e.path in left_out:
            reasons.append(f"{e.name} was deleted from disk: it cannot be scored")
        else:
            reasons.append(f"{e.name} was deleted from disk: what is shown is what it held when it was read")
    return reasons
