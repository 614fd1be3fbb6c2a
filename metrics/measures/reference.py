"""A reference of every measure family, generated from the registry (the window's Help reads it).

Nothing here is written by hand per measure: names, parameters, kinds and
descriptions all come from the families' registrations and docstrings, so the
reference cannot drift from what is computed.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from metrics.measures.irm_names import ir_measures_name
from metrics.measures.registry import FAMILIES, INTENT_FAMILIES, NICKNAMES, parse_measures


@dataclass(frozen=True)
class Entry:
    """One family's section of the measures page: its names, parameters, options, kind and sets."""

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
    judged: str = "qrels"  # what it is judged against: ad hoc qrels, or intent qrels (the diversity measures)
    takes: tuple[str, ...] = ()  # an intent family's parameters (cutoff, alpha, beta, rel)
    spellings: tuple[str, ...] = ()  # an intent family's other names (ndeval's)


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
    for name, intent in INTENT_FAMILIES.items():  # judged against intent qrels, after the ad hoc families
        out.append(
            Entry(
                family=name,
                trec_names=(intent.default_request,),
                ir_measures=(intent.ir_measures,),
                parameters="",
                options={},
                kind=intent.kind,
                sets=(),
                doc=intent.doc,
                group=intent.group,
                label=intent.label,
                judged=intent.judged,
                takes=intent.parameters,
                spellings=intent.spellings,
            )
        )
    return out


def _intent_facts(e: Entry, code=lambda text: f"`{text}`") -> list[str]:
    """What the page says of a family judged against intent qrels, ``code`` marking up names and commands."""
    facts = [
        f"judged against intent qrels ({code('qid intent docid grade')}): {code('metrics.evaluate_diversity')}, "
        f"{code('ir-eval -m NAME INTENT_QRELS RUN')}",
        f"default request {code(e.trec_names[0])}",
        "parameters: " + ", ".join(code(p) for p in e.takes),
    ]
    if e.spellings:
        facts.append("also written " + ", ".join(code(n) for n in e.spellings))
    return facts


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
        if e.judged == "intents":
            facts = _intent_facts(e, lambda text: f"<code>{html.escape(text)}</code>") + facts[1:]
        if e.sets:
            facts.append("<b>in:</b> " + ", ".join(e.sets))
        rows.append(
            f"<h3 id='{html.escape(e.family)}'>{html.escape(e.family)}</h3>"
            f"<p>{html.escape(e.doc)}</p><p>{' · '.join(facts)}</p>"
        )
    return "\n".join(rows)


# The hand-written part of docs/measures.md: what the families have in common, and the names of the other
# ecosystems that map onto them.  The page itself is made by ``python -m metrics.measures.reference``.
PAGE_INTRO = """# Measures

This page is generated from the measure registry (`python -m metrics.measures.reference > docs/measures.md`;
a test keeps it equal to what the registry holds).
"""


def to_markdown(items: list[Entry] | None = None) -> str:
    """docs/measures.md: the introduction, then a section per family as the registry defines it."""
    items = entries() if items is None else items
    out = [PAGE_INTRO, INTRO_TEXT, "", "## Every family", ""]
    for e in items:
        out += [f"### `{e.family}`", "", e.doc or "(no description)", ""]
        facts = []
        if e.parameters:
            names = ", ".join(f"`{n}`" for n in e.trec_names[:6]) + (" ..." if len(e.trec_names) > 6 else "")
            facts.append(f"default parameters `{e.parameters}` ({names})")
        if e.ir_measures:
            facts.append("ir_measures: " + ", ".join(f"`{n}`" for n in e.ir_measures[:4]))
        if e.options:
            facts.append("options: " + ", ".join(f"`{k}={v}`" for k, v in e.options.items()))
        kind = {"long": "a count", "text": "text"}.get(e.kind)
        if kind:
            facts.append(f"value: {kind}")
        if e.sets:
            facts.append("in: " + ", ".join(f"`{s}`" for s in e.sets))
        if e.judged == "intents":
            facts += _intent_facts(e)
        out += [f"- {f}" for f in facts] + ([""] if facts else [])
    return "\n".join(out).rstrip() + "\n"


INTRO_TEXT = """\
* **trec_eval's `all_trec`**: runid num_q num_ret num_rel num_rel_ret map
  gm_map Rprec bpref recip_rank iprec_at_recall P recall infAP gm_bpref
  Rprec_mult utility 11pt_avg binG G ndcg ndcg_rel Rndcg ndcg_cut map_cut
  relative_P success set_P set_relative_P set_recall set_map set_F
  num_nonrel_judged_ret rbp rbp_resid unj relstring, with trec_eval's
  parameters (`P.5,10`, `ndcg.1=3,2=9`, `iprec_at_recall..10,.20`,
  `utility.2,-1,0,0`, `rbp.p=0.8`, `Rprec_mult.0.2`, `relstring.20`), and the
  `official` set by default.
* **ir_measures-style names**, mapped onto the same measures: `AP`, `AP@100`,
  `RR`, `nDCG`, `nDCG@10`, `P@5`, `R@100`, `Rprec`, `Bpref`, `Success@1`,
  `infAP`, `IPrec@0.5`, `NumRet`, `NumRel`, `NumRelRet`, `SetP`, `SetR`,
  `SetF`, a relevance level per measure (`P(rel=2)@5`), and
  measures trec_eval lacks: `RR@10` (MS MARCO's MRR@10), `DCG@10`
  (`DCG(gain=exp)@10`), `F1@10`, `ERR@20` (as gdeval computes it) and
  `Judged@10`; `ir-eval -m 'AP nDCG@10 P@10'` takes ir_measures' list form.
* **ir_measures' per-measure options and measures**, checked against
  ir_measures 0.4.3's own providers: `judged_only=True` for one measure
  (`nDCG(judged_only=True)@10`, `P(judged_only=True)@5`: trec_eval's `-J`
  for that measure alone; pytrec_eval), custom gains with a cutoff
  (`nDCG(gains={0:0,1:1,2:3,3:7})@10`; pytrec_eval), `RBP`, `RBP@10` and
  `RBP(p=0.95)` with the grades as gains (trectools; trec_eval's `rbp`
  rescales grades above 1 into [0, 1], so on graded qrels `rbp` and `RBP`
  differ), `RBP(rel=2)` with binary relevance at grade >= 2 (cwl_eval),
  `Compat` (Clarke et al.'s compatibility; ir_measures' compat, but for runs with negative scores,
  where ir_measures puts the unretrieved relevant documents first in the ideal ranking: see `compat`) and
  `Accuracy@k` (ir_measures' accuracy; a query without a relevant or without
  a non-relevant document in the top k has no value and is left out of the
  mean).
* **cwl_eval's user models** (C/W/L), checked against cwl-eval 1.0.12 through
  ir_measures: `INST(max_rel=3)`, `INSQ(T=2,max_rel=3)`, `BPM(max_rel=3)@20`,
  `SDCG(max_rel=3)@10`, gains the grades scaled from `[min_rel, max_rel]` to
  [0, 1], over 1000 ranks as cwl_eval.
* **Diversity measures** over intent-annotated qrels (`qid intent docid
  grade`, as the TREC Web track's diversity qrels): `alpha_nDCG@20`,
  `ERR_IA@20`, `P_IA@10`, `StRecall@10` and `NRBP` (ndeval's spellings
  `alpha-nDCG@20`, `ERR-IA@20`, `P-IA@10`, `strec@10` too; `alpha`, `beta`
  and `rel` parameters), computed as ndeval computes them and checked against
  pyndeval: `metrics.evaluate_diversity(metrics.read_intent_qrels(path),
  run, "alpha_nDCG@20 ERR_IA@20 NRBP")`.  Ties in a run are ranked by docid
  descending, as trec_eval ranks them (pyndeval: ascending). The relevance
  level (`relevance_level=2`, `ir-eval -l 2`, the window's "Relevant from
  grade") applies to the names that set no `rel`: `alpha_nDCG@20` at level 2
  is `alpha_nDCG(rel=2)@20`. `ir-eval --explain`,
  `metrics.explain.explain_diversity` and the window's Explain dock show how
  each value was computed. ndeval's four others, as pyndeval and ir_measures
  name them, come from the same kernels and equal pyndeval's per query:
  `alpha_DCG@k` (`alpha-DCG@k`), `nERR_IA@k` (`nERR-IA@k`: ERR-IA over the
  ideal ranking's), `nNRBP` and `AP_IA` (ndeval's `MAP-IA`), but for `nNRBP`
  on a query no intent of which has a relevant document, 0 here where ndeval's
  is 0 / 0 (NaN, which would make the mean NaN); `--explain` writes out
  their working too (nERR-IA's and nNRBP's beside ndeval's greedy ideal
  ranking, AP-IA's precision at each relevant (rank, intent) pair and each
  intent's AP).
* **ranx's names** as aliases: `precision@10`, `recall@100`, `mrr`, `mrr@10`,
  `ndcg@10`, `ndcg_burges@10`, `hit_rate@10`, `hits@10`, `f1@10`,
  `r-precision`, `map@100`, `dcg@10`, `dcg_burges@10`, with a relevance
  level `precision@10-l2`, `ndcg@10-l2` (checked against ranx on
  runs without tied scores: ranx breaks ties its own way, trec_eval by docid). ranx's `rbp.95` is refused:
  trec_eval refuses it too, and it could mean trec_eval's `rbp.p=0.95` (grades rescaled) or ranx's
  `RBP(p=0.95)`; `ir-eval --list-measures` lists every name with what it means.
* **Textbook variants**: `nDCG(gain=exp,discount=jk,base=2,ideal=retrieved)@10`
  (gain linear or `2^rel-1`; discount `log2(i+1)` or Järvelin–Kekäläinen
  `log_b(i)` with the first b ranks undiscounted; ideal ranking from all
  judgments or from the retrieved documents only) and `AP(interpolated)`
  (AP from interpolated precision at each relevant document's recall).
* **Curves** (`metrics.engine.curves`): interpolated precision at any recall levels
  (11 points by default) and P@k, R@k, DCG@k, NDCG@k for k = 1..K, per query
  and averaged.
"""


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
        if e.judged == "intents":
            rows += [(n, f"{e.family} written otherwise (ndeval, ir_measures; intent qrels)") for n in e.spellings]
            continue
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


if __name__ == "__main__":
    import sys

    sys.stdout.write(to_markdown())
