"""A reference of every measure family, generated from the registry (the window's Help reads it).

Nothing here is written by hand per measure: names, parameters, kinds and
descriptions all come from the families' registrations and docstrings, so the
reference cannot drift from what is computed.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from metrics.measures.irm_names import ir_measures_name
from metrics.measures.registry import FAMILIES, NICKNAMES, parse_measures


@dataclass(frozen=True)
class Entry:
    family: str
    trec_names: tuple[str, ...]  # output names of the default request (P_5, P_10, ...)
    ir_measures: tuple[str, ...]  # the same measures in ir_measures' notation, where it has them
    parameters: str  # default parameters as trec_eval's -m syntax takes them ("" if none)
    options: dict  # variant options and their defaults
    kind: str  # "double", "long" (a count) or "text"
    sets: tuple[str, ...]  # trec_eval sets that contain it (official, all_trec, set)
    doc: str
    group: str = ""  # the kind of measure (the module that defines it)
    label: str = ""  # the label the window shows ("P@{k}"), "" if none


def _params_text(params) -> str:
    default = getattr(params, "default", ())
    if not default:
        return ""
    return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in default)


def entries() -> list[Entry]:
    out = []
    for name, fam in sorted(FAMILIES.items(), key=lambda kv: (kv[1].order, kv[0])):
        try:
            measures = parse_measures([name])
        except (ValueError, KeyError):
            measures = []
        irm = tuple(dict.fromkeys(n for n in (ir_measures_name(m) for m in measures) if n))
        out.append(
            Entry(
                family=name,
                trec_names=tuple(str(m) for m in measures),
                ir_measures=irm,
                parameters=_params_text(fam.params),
                options=dict(fam.options),
                kind=fam.kind,
                sets=tuple(s for s, members in NICKNAMES.items() if name in members),
                doc=" ".join((fam.doc or "").split()),
                group=fam.group,
                label=fam.label,
            )
        )
    return out


def to_html(items: list[Entry] | None = None) -> str:
    """The reference as an HTML fragment (a table per family)."""
    items = entries() if items is None else items
    rows = []
    for e in items:
        names = ", ".join(e.trec_names[:6]) + (" …" if len(e.trec_names) > 6 else "")
        facts = [
            f"<b>trec_eval:</b> <code>{html.escape(e.family)}</code>"
            + (
                f" (default parameters <code>{html.escape(e.parameters)}</code>: {html.escape(names)})"
                if e.parameters
                else ""
            )
        ]
        if e.ir_measures:
            facts.append(
                "<b>ir_measures:</b> " + ", ".join(f"<code>{html.escape(n)}</code>" for n in e.ir_measures[:4])
            )
        if e.options:
            facts.append(
                "<b>options:</b> "
                + ", ".join(f"<code>{html.escape(str(k))}={html.escape(str(v))}</code>" for k, v in e.options.items())
            )
        kind = {"long": "a count", "text": "text"}.get(e.kind)
        if kind:
            facts.append(f"<b>value:</b> {kind}")
        if e.sets:
            facts.append("<b>in:</b> " + ", ".join(e.sets))
        rows.append(
            f"<h3 id='{html.escape(e.family)}'>{html.escape(e.family)}</h3>"
            f"<p>{html.escape(e.doc)}</p><p>{' · '.join(facts)}</p>"
        )
    return "\n".join(rows)


def _first_sentence(doc: str) -> str:
    return doc.partition(". ")[0].rstrip(".")


def name_list() -> list[tuple[str, str]]:
    """Every measure name ``parse_measures`` accepts, written without parameters, with what it means: the
    trec_eval families (with the names they print), trec_eval's sets, ir_measures' names and the other
    tools' names (ranx, BEIR) as the measures they stand for.  ``ir-eval --list-measures`` prints it."""
    from metrics.measures.irm import RANX_NAMES

    rows: list[tuple[str, str]] = []
    irm: dict[str, list[str]] = {}
    for e in entries():
        shown = ", ".join(e.trec_names[:3]) + (", ..." if len(e.trec_names) > 3 else "")
        params = f" (trec_eval syntax {e.family}.{e.parameters})" if e.parameters else ""
        rows.append((e.family, f"{_first_sentence(e.doc)}; prints {shown}{params}"))
        fam = FAMILIES[e.family]
        for name in (fam.ir_measures, *fam.aliases):
            if name:
                irm.setdefault(name, []).append(e.family)
    for name, members in NICKNAMES.items():
        rows.append((name, f"trec_eval's set of {len(members)} measures: {', '.join(members)}"))
    for name, families in irm.items():
        rows.append((name, f"ir_measures' {name} (Name@k, Name(rel=r)): {' / '.join(families)}"))
    for name, meant in RANX_NAMES.items():
        bare = f"; bare {name} is trec_eval's {name}" if name in FAMILIES else ""
        try:
            at = "@k" if parse_measures(f"{name}@10") else ""
        except ValueError:
            at = ""  # over the whole ranking only (r-precision, bpref)
        meaning = f"ranx's {name}{at} (and {name}{at}-lN: from grade N up): ir_measures' {meant}{at}{bare}"
        rows.append((f"{name}{at}", meaning))
    rows.append(("top_k_accuracy@k", "BEIR's Accuracy@k: Success@k (also TopKAccuracy@k)"))
    rows.append(("rbp.NN, rbp@NN", "refused: trec_eval's rbp.p=0.NN or ranx's RBP(p=0.NN) (or RBP@NN), write one"))
    return rows
