"""Intent (diversity) qrels in the window, and the diversity measures scored against them (plain Python, no Qt).

An intent qrels file (``qid intent docid grade``, the TREC Web track's diversity qrels for ndeval) is a
kind of its own, ``"intents"``, beside the ad hoc qrels: reading a file as ad hoc qrels raises
:class:`metrics.IntentQrelsError` when it is one, and :func:`read_intents` then reads it
(:func:`metrics.read_intent_qrels`).  One intent qrels file is in use at a time.

The measures chosen in the window are one list; the diversity names among them (:func:`is_diversity`:
``alpha_nDCG@20``, ``ERR-IA@20``, ``NRBP(beta=0.8)`` ...) are scored by :func:`metrics.evaluate_diversity`
against the intent qrels, in the evaluation's worker (:func:`compute`), the others against the ad hoc
qrels as before; their values are columns of the same tables.  Without intent qrels the diversity names
are not computed; without ad hoc qrels the diversity measures alone are.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import metrics
from metrics.errors import InputError
from metrics.measures.diversity_syntax import parse_diversity
from metrics.measures.registry import intent_family_of

if TYPE_CHECKING:  # (pandas is imported where the frames are made: the window's first steps need none)
    import pandas as pd

KIND = "intents"
#: what the TREC Web track reported (ndeval's defaults), offered when intent qrels are first loaded
DEFAULTS = ("alpha_nDCG@20", "ERR_IA@20", "NRBP", "P_IA@20", "StRecall@20")


def family(name: str) -> str | None:
    """The diversity family ``name`` names (``"alpha_nDCG"`` for ``alpha-nDCG@20``), None for another measure:
    the families and their spellings are the measure registry's (:data:`metrics.measures.registry.INTENT_FAMILIES`)."""
    fam = intent_family_of(name)
    return None if fam is None else fam.name


def is_diversity(name: str) -> bool:
    """Whether ``name`` is a diversity measure's (scored against intent qrels)."""
    return intent_family_of(name) is not None


def split(measures) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``measures`` as (ad hoc names, diversity names), each in the order given."""
    measures = tuple(measures or ())
    return tuple(m for m in measures if not is_diversity(m)), tuple(m for m in measures if is_diversity(m))


def label(name: str) -> str:
    """How the window shows a diversity measure: its family's registered label (``α-nDCG@20`` for
    ``alpha_nDCG@20``); the name as written when it sets parameters or is not a diversity measure's."""
    fam = intent_family_of(name)
    if fam is None:
        return str(name)
    try:
        m = parse_diversity(str(name))
    except ValueError:
        return str(name)
    if m is None or "(" in str(name):
        return str(name)
    return fam.label.format(k=m.cutoff)


def tip(name: str) -> str:
    """One sentence about a diversity measure, for tooltips (empty for another measure)."""
    fam = intent_family_of(name)
    if fam is None:
        return ""
    return f"{fam.name}: {fam.tip} Scored against the intent qrels (qid intent docid grade)."


# ----------------------------------------------------------------------------------- the file


@dataclass(frozen=True, eq=False)
class IntentQrels:
    """Intent qrels as loaded: the frame (:func:`metrics.read_intent_qrels`) and what it holds."""

    frame: pd.DataFrame  # query_id, intent, doc_id (str), relevance (int64)
    queries: int
    intents: int  # (query, intent) pairs
    judgements: int
    least: int  # intents per query, least and most
    most: int

    def summary(self) -> str:
        """What the Files panel says of it."""
        return f"{self.queries} queries, {self.intents} intents, {self.judgements} judgements"

    def details(self) -> str:
        spread = f"{self.least}" if self.least == self.most else f"{self.least}-{self.most}"
        return (
            f"Intent (diversity) qrels: {self.queries} queries, {self.intents} intents ({spread} per query), "
            f"{self.judgements} judgements. The diversity measures (α-nDCG@20, ERR-IA@20, NRBP, P-IA@20, "
            "subtopic recall@20) are scored against them; the other measures against the ad hoc qrels."
        )


@dataclass
class IntentsFile:
    """What reading an intent qrels file gives the window (as :class:`workbench.state.loading.QueriesFile`)."""

    path: str
    intents: IntentQrels
    kind: str = KIND
    run: None = None
    qrels: None = None
    warnings: list = dataclasses.field(default_factory=list)
    digest: str | None = None


def read_intents(path: str, digest: str | None = None) -> IntentsFile:
    """Read an intent qrels file (in a worker); raises :class:`metrics.InputError` naming the line."""
    frame = metrics.read_intent_qrels(path)
    if frame.empty:
        raise InputError(f"{path}: no intent judgments", expected="lines 'qid intent docid grade'")
    pairs = frame.drop_duplicates(["query_id", "intent"])
    per_query = pairs.groupby("query_id", sort=False).size()
    facts = IntentQrels(
        frame,
        queries=int(len(per_query)),
        intents=int(len(pairs)),
        judgements=int(len(frame)),
        least=int(per_query.min()),
        most=int(per_query.max()),
    )
    return IntentsFile(path, facts, digest=digest)


def intents_frame(workspace) -> pd.DataFrame | None:
    """The intent qrels in use, as the evaluation takes them (None: none loaded)."""
    e = workspace.intents_entry()
    return None if e is None else e.intents.frame


def offer_defaults(model) -> None:
    """Intent qrels loaded for the first time in a session whose measures name no diversity measure: the
    TREC Web track's ones are added, as a change of the measures (their tick boxes in the Measures panel,
    or Edit > Undo, take them away again)."""
    if model.diversity_offered:
        return
    model.diversity_offered = True
    if not split(model.measures)[1]:
        model.set_measures(tuple(model.measures) + DEFAULTS)


def missing(workspace, measures) -> str:
    """What to load (or choose) to see scores, when there is nothing to evaluate."""
    adhoc, wanted = split(measures)
    has_intents = workspace.intents_entry() is not None
    if not workspace.run_entries():
        return (
            "Load a run to see scores" if workspace.qrels_entry() or has_intents else "Load a qrels file to see scores"
        )
    if wanted and not adhoc:
        return "Load intent qrels (qid intent docid grade) to see the diversity measures"
    if has_intents and not wanted:
        return "Load a qrels file, or choose diversity measures, to see scores"
    return "Load a qrels file to see scores"
