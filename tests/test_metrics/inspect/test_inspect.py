"""File inspection (metrics.inspect.files, ir-eval --inspect) on files shaped like real collections.

Every figure is checked against a value computed here with plain Python over
the generated lines, not with the module's own code.
"""

from __future__ import annotations

import gzip
import json
import statistics
import subprocess
import sys
from collections import Counter, defaultdict

import numpy as np
import pytest

import metrics
from metrics.inspect import files as mi


def _dl19_like(tmp_path, *, sep=" ", qrels_iter="Q0", gz=False, seed=1):
    """43 queries, 1000-deep run with tied scores, a rank column that disagrees in places and two tags;
    qrels with ~200 graded judgments per query (some queries without a relevant document)."""
    rng = np.random.default_rng(seed)
    qids = [str(q) for q in rng.choice(np.arange(19000, 1_200_000), size=43, replace=False)]
    run_rows, qrels_rows = [], []
    for qi, q in enumerate(qids):
        scores = np.round(rng.normal(10, 2, size=1000), 2)  # two decimals: ties
        order = np.argsort(-scores, kind="stable")
        for rank, d in enumerate(order, 1):
            shown = rank if not (qi == 5 and rank in (3, 4)) else (7 - rank)  # swap ranks 3 and 4 of one query
            tag = "bm25" if qi < 40 else "bm25_run2"
            run_rows.append((q, f"D{d}", shown, float(scores[d]), tag))
        judged = rng.choice(1000, size=200, replace=False)
        for d in judged:
            grade = 0 if qi in (1, 2) else int(rng.choice(4, p=[0.6, 0.2, 0.15, 0.05]))
            qrels_rows.append((q, f"D{d}", grade))
    run_text = "".join(f"{q}{sep}Q0{sep}{d}{sep}{r}{sep}{s}{sep}{t}\n" for q, d, r, s, t in run_rows)
    qrels_text = "# judged by assessors\n" + "".join(
        f"{q}{sep}{qrels_iter}{sep}{d}{sep}{g}\n" for q, d, g in qrels_rows
    )
    run_path = tmp_path / ("run.txt.gz" if gz else "run.txt")
    qrels_path = tmp_path / ("qrels.txt.gz" if gz else "qrels.txt")
    for path, text in ((run_path, run_text), (qrels_path, qrels_text)):
        path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    return run_path, qrels_path, run_rows, qrels_rows


def _expected_run(rows):
    by_q = defaultdict(list)
    for q, d, r, s, t in rows:
        by_q[q].append((d, r, s))
    per_query = [len(v) for v in by_q.values()]
    tied = 0
    tied_q = 0
    contradictions = 0
    for docs in by_q.values():
        counts = Counter(s for _, _, s in docs)
        n = sum(c for c in counts.values() if c > 1)
        tied += n
        tied_q += n > 0
        by_rank = sorted(docs, key=lambda x: x[1])
        contradictions += sum(1 for a, b in zip(by_rank, by_rank[1:]) if b[2] > a[2])
    tags = Counter(t for *_, t in rows)
    return per_query, tied, tied_q, contradictions, tags


@pytest.mark.parametrize("sep, qrels_iter, gz", [(" ", "Q0", False), ("\t", "0", False), (" ", "0.5", True)])
def test_run_and_qrels_figures_in_real_layouts(tmp_path, sep, qrels_iter, gz):
    run_path, qrels_path, run_rows, qrels_rows = _dl19_like(tmp_path, sep=sep, qrels_iter=qrels_iter, gz=gz)
    q = mi.inspect_file(qrels_path).to_dict()
    assert q["kind"] == "qrels" and "4 fields" in q["kind_reason"]
    assert q["lines"] == len(qrels_rows) and q["comment_lines"] == 1
    assert q["head"][0]["line"] == 2 and q["head"][0]["fields"] == [str(x) for x in qrels_rows[0]][:1] + [
        qrels_iter,
        qrels_rows[0][1],
        str(qrels_rows[0][2]),
    ]
    assert q["columns"] == ["qid", "iter", "docid", "grade"]
    assert q["queries"] == 43 and q["judgments"] == len(qrels_rows)
    assert q["grades"] == dict(sorted(Counter(g for *_, g in qrels_rows).items()))
    relevant = Counter()
    for qq, _, g in qrels_rows:
        relevant[qq] += g >= 1
    assert q["relevant_per_query"] == {
        "min": min(relevant.values()),
        "max": max(relevant.values()),
        "median": statistics.median(relevant.values()),
    }
    assert sorted(q["queries_without_relevant"]) == sorted(k for k, v in relevant.items() if v == 0)

    qrels = metrics.read_qrels(qrels_path)
    r = mi.inspect_file(run_path, qrels=qrels).to_dict()
    per_query, tied, tied_q, contradictions, tags = _expected_run(run_rows)
    assert r["kind"] == "run" and r["lines"] == len(run_rows) and r["documents"] == len(run_rows)
    assert r["docs_per_query"]["min"] == r["docs_per_query"]["max"] == 1000
    assert sum(r["docs_per_query"]["histogram"]["counts"]) == 43
    assert r["score_range"] == [min(s for *_, s, _ in run_rows), max(s for *_, s, _ in run_rows)]
    assert (r["tied_scores"], r["tied_queries"]) == (tied, tied_q) and tied > 0
    assert r["rank_contradictions"] == contradictions == 1
    assert r["tags"] == dict(tags)
    messages = " ".join(p["message"] for p in r["problems"])
    assert "2 different run tags" in messages and "higher score than the document ranked" in messages
    a = r["against_qrels"]
    assert a["shared_queries"] == 43 and a["queries_only_in_run"] == [] and a["queries_only_in_qrels"] == []
    # judged fractions in trec_eval's order (score descending, docid descending)
    judged = {(qq, d) for qq, d, _ in qrels_rows}
    by_q = defaultdict(list)
    for qq, d, _, s, _ in run_rows:
        by_q[qq].append((s, d))
    at10, at100, depth = [], [], []
    for qq, docs in by_q.items():
        ranked = [d for s, d in sorted(docs, reverse=True)]
        flags = [(qq, d) in judged for d in ranked]
        at10.append(sum(flags[:10]) / 10)
        at100.append(sum(flags[:100]) / 100)
        depth.append(flags.index(False) if False in flags else len(flags))
    assert a["judged_at_10"] == pytest.approx(sum(at10) / len(at10))
    assert a["judged_at_100"] == pytest.approx(sum(at100) / len(at100))
    assert a["judged_depth"] == {"min": min(depth), "median": statistics.median(depth), "max": max(depth)}


def test_a_run_sharing_no_query_with_the_qrels_is_a_problem(tmp_path):
    run = tmp_path / "robust.run"
    run.write_text("".join(f"30{q} Q0 X{d} {d + 1} {10 - d} robust\n" for q in range(3) for d in range(5)))
    qrels = tmp_path / "dl.qrels"
    qrels.write_text("19335 Q0 1017759 0\n19335 Q0 1082489 1\n")
    r = mi.inspect_file(run, qrels=metrics.read_qrels(qrels)).to_dict()
    assert r["against_qrels"]["shared_queries"] == 0
    assert r["against_qrels"]["queries_only_in_qrels"] == ["19335"]
    assert any(
        p["severity"] == "error" and "no query of this run is in the qrels" in p["message"] for p in r["problems"]
    )


def test_a_bad_file_is_still_described_with_its_error_and_line(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("# header\n1 Q0 a 1 2.0 t\n1 Q0 b 2 x t\n")
    d = mi.inspect_file(bad).to_dict()
    assert d["kind"] == "run" and d["lines"] == 2 and d["comment_lines"] == 1
    assert [h["line"] for h in d["head"]] == [2, 3]
    (problem,) = d["problems"]
    assert problem["severity"] == "error" and problem["line"] == 3 and "bad.run" in problem["message"]


def test_cli_inspect_json_round_trip(tmp_path):
    run_path, qrels_path, run_rows, qrels_rows = _dl19_like(tmp_path)
    bad = tmp_path / "bad.txt"
    bad.write_text("1 0 a\n")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "metrics.cli.ir_eval",
            "--inspect",
            str(qrels_path),
            str(run_path),
            str(bad),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2, out.stderr  # one file could not be read
    doc = json.loads(out.stdout)
    assert [d["path"] for d in doc] == [str(qrels_path), str(run_path), str(bad)]
    assert [d["kind"] for d in doc] == ["qrels", "run", None]
    assert doc[0]["lines"] == len(qrels_rows) and doc[0]["queries"] == 43 and "grades" in doc[0]
    assert "relevant_per_query" in doc[0]
    assert doc[1]["docs_per_query"]["median"] == 1000 and doc[1]["tags"]["bm25"] == 40 * 1000
    assert doc[1]["tied_scores"] > 0 and doc[1]["against_qrels"]["shared_queries"] == 43
    assert doc[2]["problems"][0]["line"] == 1 and "3 columns" in doc[2]["problems"][0]["message"]
