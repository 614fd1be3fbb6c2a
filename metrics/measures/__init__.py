"""The measure registry and all measure families.

Each module registers its families with :func:`~metrics.measures.registry.measure`
where they are written; importing this package registers them all.
"""

from metrics.measures import counts, gains, interpolated, judgments, precision, sets  # noqa: F401  (registration)
from metrics.measures.registry import (  # noqa: F401
    FAMILIES,
    NICKNAMES,
    Family,
    Measure,
    display_label,
    family_named,
    family_of,
    is_count,
    is_neutral,
    measure,
    parse_measures,
    syntax,
)

# trec_eval 10.0's measure sets (measures.c)
NICKNAMES["official"] = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)
NICKNAMES["all_trec"] = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
    "relstring",
    "recall",
    "unj",
    "rbp",
    "rbp_resid",
    "infAP",
    "gm_bpref",
    "utility",
    "11pt_avg",
    "ndcg",
    "relative_P",
    "Rprec_mult",
    "success",
    "map_cut",
    "ndcg_cut",
    "ndcg_rel",
    "Rndcg",
    "binG",
    "G",
    "set_P",
    "set_recall",
    "set_relative_P",
    "set_map",
    "set_F",
    "num_nonrel_judged_ret",
)
NICKNAMES["set"] = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "utility",
    "set_P",
    "set_recall",
    "set_relative_P",
    "set_map",
    "set_F",
)

# measures beyond trec_eval and the ir_measures-style names
from metrics.measures import cwl, extra, irm, irm_families  # noqa: E402,F401  (registration)
