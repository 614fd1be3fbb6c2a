"""Tests of metrics.report: exports read back, bold best values, marks, atomic writes."""

import base64
import os
import struct
import zlib
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from metrics import report
from metrics.compare import compare

RUNS = ["base", "strong_run", "weak#2"]


def per_query_frame() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    rows = []
    for run, shift in zip(RUNS, (0.0, 0.3, -0.2)):
        for q in range(1, 13):
            qid = f"{q:03d}"
            rows.append((run, qid, "map", float(np.clip(0.4 + shift + rng.normal(0, 0.05), 0, 1))))
            rows.append((run, qid, "P_10", float(np.clip(0.5 + shift + rng.normal(0, 0.05), 0, 1))))
            rows.append((run, qid, "num_ret", 1000.0))
    frame = pd.DataFrame(rows, columns=["run", "query_id", "measure", "value"])
    frame["query_id"] = frame["query_id"].astype("str")
    return frame


def aggregate_frame(per_query: pd.DataFrame) -> pd.DataFrame:
    return per_query.groupby(["run", "measure"], sort=False)["value"].mean().reset_index()


@pytest.fixture(scope="module")
def frames():
    pq = per_query_frame()
    agg = aggregate_frame(pq)
    comp = compare(pq, "base", test="t", correction="holm", bootstrap=200)
    return pq, agg, comp


def test_summary_table_keeps_input_order(frames):
    _, agg, _ = frames
    wide = report.summary_table(agg)
    assert list(wide.index) == RUNS
    assert list(wide.columns) == ["map", "P_10", "num_ret"]
    row = agg.loc[(agg["run"] == "weak#2") & (agg["measure"] == "P_10"), "value"].item()
    assert wide.loc["weak#2", "P_10"] == row


# ------------------------------------------------------------------ CSV


def header_lines(path) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        return [line for line in fh if line.startswith("#")]


def test_summary_csv_reads_back_at_full_precision(frames, tmp_path):
    _, agg, _ = frames
    qrels = pd.DataFrame({"query_id": [], "doc_id": [], "relevance": []})
    qrels.attrs["path"] = "/data/qrels.robust04.txt"
    path = report.export(agg, tmp_path / "summary.csv", qrels=qrels)
    header = "".join(header_lines(path))
    assert "# qrels: /data/qrels.robust04.txt" in header
    assert "# runs: base, strong_run, weak#2" in header
    assert "# measures: map, P_10, num_ret" in header
    back = pd.read_csv(path, comment="#")
    wide = report.summary_table(agg)
    assert list(back["run"]) == RUNS  # the '#' inside a quoted run name survives
    assert list(back.columns[1:]) == list(wide.columns)
    np.testing.assert_array_equal(back[wide.columns].to_numpy(), wide.to_numpy())


def test_per_query_csv_reads_back_at_full_precision(frames, tmp_path):
    pq, _, _ = frames
    path = report.export(pq, tmp_path / "per_query.csv", qrels="qrels.txt")
    assert "# qrels: qrels.txt\n" in header_lines(path)
    back = pd.read_csv(path, comment="#", dtype={"query_id": str})
    expected = report.per_query_table(pq)
    assert list(back.columns) == ["run", "query_id", "map", "P_10", "num_ret"]
    assert list(back["query_id"][:3]) == ["001", "002", "003"]
    assert list(back["run"]) == list(expected["run"])
    np.testing.assert_array_equal(back.iloc[:, 2:].to_numpy(), expected.iloc[:, 2:].to_numpy())
    # every tidy value is in the wide table
    assert len(back) * 3 == len(pq)


def test_comparison_csv_reads_back_equal(frames, tmp_path):
    pq, _, comp = frames
    # add a row with NaN statistics and one with an infinite effect size
    qids = [f"{q:03d}" for q in range(1, 9)]
    extra = pd.DataFrame(
        {
            "run": ["base"] * 8 + ["shifted"] * 8,
            "query_id": qids * 2,
            "measure": "R_prec",
            "value": [q / 8 for q in range(8)] + [q / 8 + 0.25 for q in range(8)],
        }
    )
    lonely = pd.DataFrame({"run": ["lonely"], "query_id": ["001"], "measure": ["map"], "value": [0.5]})
    comp = compare(pd.concat([pq, extra, lonely], ignore_index=True), "base", bootstrap=100)
    path = report.export(comp, tmp_path / "comparison.csv")
    header = "".join(header_lines(path))
    assert "paired t-test" in header and "Holm" in header and "alpha = 0.05" in header
    assert "# runs: base, strong_run, weak#2, shifted, lonely" in header
    back = pd.read_csv(path, comment="#")
    assert np.isinf(back["effect_size"]).any() and back["p_value"].isna().any()
    for col in ("run", "measure", "baseline", "test", "correction"):
        back[col] = back[col].astype(comp[col].dtype)
    pd.testing.assert_frame_equal(back, pd.DataFrame(comp), check_exact=True)  # read back: a plain frame


# ------------------------------------------------------------------ Markdown and LaTeX


def test_summary_markdown_bold_best_and_marks(frames):
    _, agg, comp = frames
    text = report.to_markdown(agg, comparison=comp)
    wide = report.summary_table(agg)
    best_map = f"**{wide.loc['strong_run', 'map']:.4f}**\u2020"
    assert best_map in text
    assert f"{wide.loc['weak#2', 'map']:.4f}\u2021" in text
    assert "| base (baseline) |" in text
    # every run has 1000 retrieved documents: no best value, shown as an integer
    assert "| 1000 |" in text and "**1000**" not in text
    assert "**Bold**: best value per measure" in text
    assert "\u2020 significantly higher, \u2021 significantly lower" in text
    assert "Test: paired t-test" in text and "Correction: Holm" in text and "alpha = 0.05" in text
    table_lines = [line for line in text.splitlines() if line.startswith("|")]
    assert len(table_lines) == 2 + len(RUNS)
    assert all(line.count(" | ") == 3 for line in table_lines[2:])


def test_summary_without_comparison_has_no_marks(frames):
    _, agg, _ = frames
    text = report.to_markdown(agg)
    assert "\u2020" not in text and "\u2021" not in text and "**Bold**" in text


def test_counts_describing_the_data_are_never_bold():
    agg = pd.DataFrame(
        {
            "run": ["a", "b", "a", "b"],
            "measure": ["num_ret", "num_ret", "num_rel_ret", "num_rel_ret"],
            "value": [1000.0, 900.0, 50.0, 60.0],
        }
    )
    text = report.to_markdown(agg)
    assert "| a | 1000 | 50 |" in text and "| b | 900 | **60** |" in text


def test_lower_is_better_bolds_the_smallest(frames):
    _, agg, _ = frames
    wide = report.summary_table(agg)
    text = report.to_markdown(agg, lower_is_better=["P_10"])
    assert f"**{wide.loc['weak#2', 'P_10']:.4f}**" in text
    assert f"**{wide.loc['strong_run', 'map']:.4f}**" in text
    assert "lowest for P_10" in text


def test_comparison_markdown(frames):
    _, _, comp = frames
    text = report.to_markdown(comp)
    strong = comp.set_index(["run", "measure"]).loc[("strong_run", "map")]
    assert f"**{strong['mean']:.4f}**\u2020" in text
    assert f"{strong['wins']}/{strong['ties']}/{strong['losses']}" in text
    assert "p (holm)" in text and "95% CI" in text
    assert "Correction: Holm over the tests of each measure apart (2 per measure; 4 tests in all)" in text


def test_summary_latex_booktabs_bold_marks_legend(frames):
    _, agg, comp = frames
    text = report.to_latex(agg, comparison=comp, caption="Results on 50% of topics", label="tab:results")
    wide = report.summary_table(agg)
    for piece in (
        r"\begin{tabular}{lrrr}",
        r"\toprule",
        r"\midrule",
        r"\bottomrule",
        r"\caption{Results on 50\% of topics}",
        r"\label{tab:results}",
        r"strong\_run",
        r"weak\#2",
        r"P\_10",
    ):
        assert piece in text
    assert rf"\textbf{{{wide.loc['strong_run', 'map']:.4f}}}\textsuperscript{{\dag}}" in text
    assert rf"{wide.loc['weak#2', 'map']:.4f}\textsuperscript{{\ddag}}" in text
    assert r"\textsuperscript{\dag} significantly higher" in text
    assert r"Test: paired t-test" in text and "Holm" in text and r"$\alpha$ = 0.05" in text
    body = text.split(r"\midrule")[1].split(r"\bottomrule")[0].strip().splitlines()
    assert len(body) == len(RUNS) and all(line.count(" & ") == 3 for line in body)
    assert "_" not in text.replace(r"\_", "")


def test_comparison_latex(frames):
    _, _, comp = frames
    text = report.to_latex(comp)
    assert text.count(r"\textbf{") >= 3  # bold best mean per measure + legend
    assert r"\textsuperscript{\ddag}" in text and r"\textsuperscript{\dag}" in text
    assert text.count(r"\midrule") == 2  # after the header and between the two measures
    assert r"Bootstrap".lower() in text.lower() and "Holm" in text


def test_per_query_markdown_and_latex(frames):
    pq, _, _ = frames
    md = report.to_markdown(pq)
    assert md.splitlines()[0] == "| Run | Query | map | P_10 | num_ret |"
    assert len([line for line in md.splitlines() if line.startswith("|")]) == 2 + 36
    tex = report.to_latex(pq)
    assert tex.count(r"\midrule") == 3  # after the header and between the runs


# ------------------------------------------------------------------ HTML


def tiny_png() -> bytes:
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


class TableParser(HTMLParser):
    VOID = {"meta", "img", "br", "hr", "link", "input"}

    def __init__(self):
        super().__init__()
        self.stack, self.tables, self.images, self.cell = [], [], [], None

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs))
        if tag in self.VOID:
            return
        self.stack.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"unbalanced </{tag}> in {self.stack}"
        self.stack.pop()
        if tag in ("td", "th"):
            self.tables[-1][-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def test_html_report_parses_and_embeds_images(frames, tmp_path):
    pq, agg, comp = frames
    png = tiny_png()
    path = report.write_html_report(
        tmp_path / "report.html",
        summary=agg,
        per_query=pq,
        comparison=comp,
        images={"Differences <map>": png},
        qrels="qrels.txt",
        title="Robust & co",
    )
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    parser = TableParser()
    parser.feed(text)
    parser.close()
    assert parser.stack == []
    summary, comparison, per_query = parser.tables
    assert summary[0] == ["Run", "map", "P_10", "num_ret"]
    assert [row[0] for row in summary[1:]] == ["base (baseline)", "strong_run", "weak#2"]
    wide = report.summary_table(agg)
    assert summary[2][1] == f"{wide.loc['strong_run', 'map']:.4f}\u2020"
    assert "<strong>" in text and "<sup>\u2020</sup>" in text
    assert len(comparison) == 1 + 2 * 3 and len(per_query) == 1 + 36
    assert "paired t-test" in text and "Holm" in text and "alpha = 0.05" in text
    assert "Robust &amp; co" in text and "Differences &lt;map&gt;" in text
    (image,) = parser.images
    assert image["src"].startswith("data:image/png;base64,")
    assert base64.b64decode(image["src"].split(",", 1)[1]) == png


def test_html_rejects_non_png_and_empty_reports(frames):
    _, agg, _ = frames
    with pytest.raises(ValueError, match="not a PNG"):
        report.html_report(summary=agg, images=[("x", b"GIF89a....")])
    with pytest.raises(ValueError, match="nothing to report"):
        report.html_report()


# ------------------------------------------------------------------ writing


def test_export_refuses_to_overwrite_and_leaves_no_temp_files(frames, tmp_path):
    _, agg, _ = frames
    target = tmp_path / "table.md"
    report.export(agg, target)
    first = target.read_text(encoding="utf-8")
    with pytest.raises(FileExistsError):
        report.export(agg, target, lower_is_better=["map"])
    assert target.read_text(encoding="utf-8") == first
    report.export(agg, target, lower_is_better=["map"], overwrite=True)
    assert target.read_text(encoding="utf-8") != first
    assert sorted(os.listdir(tmp_path)) == ["table.md"]


def test_refuses_a_file_that_appears_during_the_write(tmp_path, monkeypatch):
    target = tmp_path / "out.csv"
    real_fsync = os.fsync

    def fsync_then_someone_writes(fd):
        real_fsync(fd)
        target.write_text("theirs")

    monkeypatch.setattr(os, "fsync", fsync_then_someone_writes)
    with pytest.raises(FileExistsError):
        report.write_text(target, "ours")
    assert target.read_text() == "theirs"
    assert sorted(os.listdir(tmp_path)) == ["out.csv"]


def test_failed_write_removes_the_temp_file(tmp_path, monkeypatch):
    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        report.write_text(tmp_path / "x.tex", "content", overwrite=True)
    assert os.listdir(tmp_path) == []


def test_format_and_kind_detection(frames, tmp_path):
    _, agg, comp = frames
    assert report.export(comp, tmp_path / "c.TEX").read_text().startswith(r"\begin{table}")
    assert report.export(agg, tmp_path / "s.txt", format="md").read_text().startswith("| Run")
    with pytest.raises(ValueError, match="format"):
        report.export(agg, tmp_path / "s.xlsx")
    with pytest.raises(ValueError, match="kind"):
        report.to_csv(pd.DataFrame({"a": [1]}))
    with pytest.raises(ValueError, match="needs column"):
        report.to_csv(agg, kind="per_query")


def test_exports_of_an_evaluation(tmp_path):
    from metrics import evaluate

    qrels = pd.DataFrame(
        {
            "query_id": ["1", "1", "1", "2", "2", "3", "3"],
            "doc_id": ["a", "b", "c", "a", "d", "e", "f"],
            "relevance": [1, 0, 2, 1, 1, 1, 0],
        }
    )
    qrels.attrs["path"] = "qrels.test"
    r1 = pd.DataFrame(
        {
            "query_id": ["1", "1", "1", "2", "2", "3", "3"],
            "doc_id": ["a", "b", "c", "d", "x", "f", "e"],
            "score": [3.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    r2 = pd.DataFrame(
        {
            "query_id": ["1", "1", "2", "2", "3", "3"],
            "doc_id": ["c", "a", "a", "d", "e", "z"],
            "score": [3.0, 2.0, 2.0, 1.0, 2.0, 1.0],
        }
    )
    ev = evaluate(qrels, {"first": r1, "second": r2}, ["map", "P.2"])
    path = report.export(ev, tmp_path / "summary.csv", qrels=qrels)
    assert "# qrels: qrels.test\n" in header_lines(path)
    back = pd.read_csv(path, comment="#").set_index("run")
    summary = ev.summary()
    np.testing.assert_array_equal(back[summary.columns].to_numpy(), summary.to_numpy())
    per_query = report.export(ev, tmp_path / "per_query.md", kind="per_query").read_text()
    assert per_query.count("\n| first |") == 3
    rows = [line.split(" | ")[:2] for line in per_query.splitlines()[2:] if line.startswith("|")]
    assert rows == [["| first", q] for q in "123"] + [["| second", q] for q in "123"]


def test_per_query_table_groups_rows_by_run():
    frame = pd.DataFrame(
        {"run": ["x", "y", "x", "y"], "query_id": ["2", "2", "1", "1"], "measure": "map", "value": [0.1, 0.2, 0.3, 0.4]}
    )
    table = report.per_query_table(frame)
    assert list(zip(table["run"], table["query_id"])) == [("x", "2"), ("x", "1"), ("y", "2"), ("y", "1")]
    assert list(table["map"]) == [0.1, 0.3, 0.2, 0.4]
