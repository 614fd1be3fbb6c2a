"""``ir-eval --compare BASELINE --format json``: every number in full, NaN and infinities as null."""

from __future__ import annotations

import json

import pytest
from scipy import stats

from metrics.cli import ir_eval as cli

QUERIES = 60


@pytest.fixture
def files(tmp_path):
    """One relevant document per query: ``top`` ranks it first, ``near`` second or third, ``second`` second."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 rel{q} 1\n" + f"q{q} 0 no{q} 0\n" for q in range(QUERIES)))
    ranks = {"top": [1] * QUERIES, "near": [2 + q % 2 for q in range(QUERIES)], "second": [2] * QUERIES}
    paths = {"qrels": qrels}
    for name, where in ranks.items():
        lines = []
        for q, rank in enumerate(where):
            docs = [f"no{q}_{k}" for k in range(5)]
            docs.insert(rank - 1, f"rel{q}")
            lines += [f"q{q} Q0 {doc} {r} {10 - r} {name}\n" for r, doc in enumerate(docs, 1)]
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text("".join(lines))
    return paths


def test_tiny_p_values_and_infinities_survive_in_the_json(files, capsys):
    argv = ["--compare", "top", "-m", "recip_rank", "--format", "json", "--seed", "1"]
    code = cli.main([*argv, str(files["qrels"]), str(files["top"]), str(files["near"]), str(files["second"])])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = {r["run"]: r for r in json.loads(out)}
    assert set(rows) == {"near", "second"}
    near = rows["near"]
    # reciprocal ranks 1/2 and 1/3 against 1: a paired t-test p-value far below 1e-20, written in full
    expected = stats.ttest_rel([1 / (2 + q % 2) for q in range(QUERIES)], [1.0] * QUERIES).pvalue
    assert 0.0 < expected < 1e-20
    assert near["p_value"] == pytest.approx(expected, rel=1e-12, abs=0.0)  # not rounded to 0
    assert near["baseline"] == "top" and near["n_queries"] == QUERIES and near["losses"] == QUERIES
    assert near["significant"] is True and near["test"] == "t" and near["alpha"] == 0.05
    assert near["delta"] == pytest.approx(-(1 / 2 + 2 / 3) / 2, rel=1e-12)
    # every difference -1/2: no spread, an infinite effect size (null) and a p-value of 0
    second = rows["second"]
    assert second["effect_size"] is None and second["p_value"] == 0.0 and second["delta"] == -0.5


def test_every_digit_of_small_numbers_is_written(files, capsys, monkeypatch):
    # pandas' to_json wrote 1.2345678901234e-15 as 0.0 and kept 10 digits of others
    import metrics.compare

    real = metrics.compare.compare
    tiny = [1e-20, 1.2345678901234e-15]

    def with_tiny_p_values(*args, **kwargs):
        table = real(*args, **kwargs)
        table["p_value"] = tiny
        table["p_corrected"] = [3e-11, 0.012345678901234567]
        return table

    monkeypatch.setattr(metrics.compare, "compare", with_tiny_p_values)
    argv = ["--compare", "top", "-m", "recip_rank", "--format", "json"]
    assert cli.main([*argv, str(files["qrels"]), str(files["top"]), str(files["near"]), str(files["second"])]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["p_value"] for r in rows] == tiny
    assert [r["p_corrected"] for r in rows] == [3e-11, 0.012345678901234567]
