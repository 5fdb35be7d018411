# SPDX-License-Identifier: GPL-2.0-only
"""tools/plot.py: S1/S2/S4/S5 TSV -> SVG, with published figures kept apart."""
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLOT = ROOT / "tools" / "plot.py"
NS = "{http://www.w3.org/2000/svg}"
HEADER = ("arch\tfolio\tlab_before_ms\tlab_after_ms\t"
          "published_before_ms\tpublished_after_ms\n")
ROWS = [
    ("x86", "4K", "58.5", "58.5", "58.11", "57.72"),
    ("x86", "64K", "26.7", "13.5", "-", "-"),
    ("x86", "2048K", "24.1", "10.2", "23.79", "-"),
    ("arm64", "4K", "55.1", "55.1", "-", "-"),
    ("arm64", "64K", "41.7", "11.3", "-", "-"),
    ("arm64", "2048K", "39.2", "8.1", "-", "-"),
]


def run_plot(*args):
    return subprocess.run([sys.executable, str(PLOT), *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def write_tsv(d, rows, header=HEADER):
    (d / "S5.tsv").write_text(header + "".join("\t".join(r) + "\n" for r in rows))


def classes(el):
    return el.get("class", "").split()


def check_svg(d, archs, expect_markers):
    svg = d / "S5.svg"
    root = ET.parse(svg).getroot()
    assert root.tag == NS + "svg"
    panels = [g for g in root.iter(NS + "g") if "panel" in classes(g)]
    assert sorted(p.get("data-arch") for p in panels) == sorted(archs)
    for p in panels:
        titles = "".join(p.itertext())
        assert f"S5 munmap \u2014 {p.get('data-arch')}" in titles
    legend = next(g for g in root.iter(NS + "g") if "legend" in classes(g))
    assert "published" in "".join(legend.itertext())
    markers = [e for e in root.iter() if "marker" in classes(e)]
    assert len(markers) == expect_markers
    # Published points are hollow and never joined by a line.
    for m in markers:
        if any(c.startswith("published") for c in classes(m)):
            assert m.get("fill") == "white"
    lines = [e for e in root.iter(NS + "polyline") if "line" in classes(e)]
    assert not any(c.startswith("published") for e in lines for c in classes(e))
    return root


def test_synthetic_s5(tmp_path):
    write_tsv(tmp_path, ROWS)
    p = run_plot(tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(tmp_path / "S5.svg")
    values = sum(1 for r in ROWS for v in r[2:] if v != "-")
    check_svg(tmp_path, ["x86", "arm64"], values)


def test_no_published_at_all(tmp_path):
    rows = [r[:4] + ("-", "-") for r in ROWS if r[0] == "arm64"]
    write_tsv(tmp_path, rows)
    p = run_plot(tmp_path)
    assert p.returncode == 0, p.stderr
    check_svg(tmp_path, ["arm64"], 2 * len(rows))


MALFORMED = [
    ("bad header", "arch\tfolio\n", ROWS),
    ("short row", HEADER, [("x86", "4K", "1.0")]),
    ("not a number", HEADER, [("x86", "4K", "abc", "1.0", "-", "-")]),
    ("lab value missing", HEADER, [("x86", "4K", "-", "1.0", "-", "-")]),
    ("bad folio", HEADER, [("x86", "48Q", "1.0", "1.0", "-", "-")]),
    ("no rows", HEADER, []),
]


@pytest.mark.parametrize("what,header,rows", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_tsv(tmp_path, what, header, rows):
    write_tsv(tmp_path, rows, header)
    p = run_plot(tmp_path)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("plot: error: "), p.stderr
    assert p.stdout == ""
    assert not (tmp_path / "S5.svg").exists()


def test_missing_dir(tmp_path):
    p = run_plot(tmp_path / "nosuch")
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("plot: error: ")


def test_nothing_to_plot(tmp_path):
    """A directory with no plottable table: an error alone, nothing to do with
    --if-any (reproduce S3 --out, whose table has no plot)."""
    (tmp_path / "S3.tsv").write_text("row\tafter\n")
    p = run_plot(tmp_path)
    assert p.returncode == 2 and "no TSV this tool can plot" in p.stderr
    p = subprocess.run([sys.executable, str(PLOT), "--if-any", str(tmp_path)],
                       capture_output=True, text=True)
    assert p.returncode == 0 and not p.stderr and not list(tmp_path.glob("*.svg"))


@pytest.mark.skipif(not (ROOT / "ptelab").exists(), reason="./ptelab not built")
def test_real_reproduce(tmp_path):
    r = subprocess.run([str(ROOT / "ptelab"), "reproduce", "S5", "--out", str(tmp_path),
                        "--size", "64M"], capture_output=True, text=True, cwd=ROOT,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    p = run_plot(tmp_path)
    assert p.returncode == 0, p.stderr
    rows = [ln.split("\t") for ln in (tmp_path / "S5.tsv").read_text().splitlines()[1:]
            if ln.strip()]
    archs = sorted({r[0] for r in rows})
    check_svg(tmp_path, archs, sum(1 for r in rows for v in r[2:] if v not in ("-", "")))


# --- S1, S2, S4: bar charts ------------------------------------------------

S1_HEADER = "run\tmodelled_s\tyoung_read\tyoung_atomic\treclaimed_bytes\tpublished_s\n"
S1_ROWS = [
    ("mglru before", "0.47102", "38437629", "36176592", "8589934592", "0.470"),
    ("mglru after", "0.18037", "5308416", "4718592", "8589934592", "0.180"),
    ("classic before", "0.85649", "80216064", "75497472", "8589934592", "-"),
    ("classic after", "0.19666", "5308416", "4718592", "8589934592", "-"),
]
S2_HEADER = "variant\tlab_1node_pct\tlab_2node_pct\tpublished_1node_pct\n"
S2_ROWS = [
    ("baseline", "0.00", "0.00", "-"),
    ("no-opt", "189.33", "424.95", "+190%"),
    ("simple-full", "7.89", "7.82", "+8%"),
    ("clear-ptes", "-2.50", "3.96", "-3%"),
]
S4_HEADER = ("run\tmodelled_s\tpte_read_per_get\tmerges_per_get\tgather_share"
             "\tcontpte_ptep_get_share\tpublished_s\tpublished_share\n")
S4_ROWS = [
    ("total before", "31.4900", "16.000", "32.000", "0.06553", "0.06553", "31.49", "0.06790"),
    ("total after", "29.6200", "2.000", "2.000", "0.00640", "0.00640", "28.11", "0.00280"),
    ("v7-cold before", "3.2010", "16.000", "0.000", "0.30710", "0.30710", "3.201", "0.31940"),
    ("linux-7.3", "29.6300", "2.000", "2.000", "0.00641", "0.00641", "-", "-"),
]
S4_PUB = 6  # the published_s column
TABLES = {"S1": (S1_HEADER, S1_ROWS), "S2": (S2_HEADER, S2_ROWS),
          "S4": (S4_HEADER, S4_ROWS)}


def write_table(d, name, header, rows):
    (d / f"{name}.tsv").write_text(header + "".join("\t".join(r) + "\n" for r in rows))


def check_bars(d, name, rows, lab_cols, pub_col, pub_kind):
    """Every row is a group; lab bars filled; published hollow, labelled."""
    root = ET.parse(d / f"{name}.svg").getroot()
    assert root.tag == NS + "svg"
    assert name in "".join(root.itertext())
    groups = [g for g in root.iter(NS + "g") if "group" in classes(g)]
    assert [g.get("data-label") for g in groups] == [r[0] for r in rows]
    legend = next(g for g in root.iter(NS + "g") if "legend" in classes(g))
    assert "published" in "".join(legend.itertext())
    assert "not computed" in "".join(legend.itertext())
    for g, row in zip(groups, rows):
        lab = [e for e in g if "lab" in classes(e)]
        pub = [e for e in g if "published" in classes(e)]
        assert len(lab) == len(lab_cols)
        assert all(e.get("fill") != "white" for e in lab)
        assert len(pub) == (0 if row[pub_col] in ("-", "") else 1)
        for e in pub:
            assert pub_kind in classes(e)
            assert e.get("fill") == "white" and e.get("stroke")
    return root


def test_s1(tmp_path):
    write_table(tmp_path, "S1", S1_HEADER, S1_ROWS)
    p = run_plot(tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(tmp_path / "S1.svg")
    check_bars(tmp_path, "S1", S1_ROWS, ["modelled_s"], 5, "bar")


def test_s2(tmp_path):
    write_table(tmp_path, "S2", S2_HEADER, S2_ROWS)
    p = run_plot(tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(tmp_path / "S2.svg")
    root = check_bars(tmp_path, "S2", S2_ROWS, ["lab_1node_pct", "lab_2node_pct"],
                      3, "marker")
    # A negative figure draws down from the zero line, not off the axis.
    for e in root.iter(NS + "rect"):
        if e.get("height") is not None and "bar" in classes(e):
            assert float(e.get("height")) >= 0


def test_s4(tmp_path):
    write_table(tmp_path, "S4", S4_HEADER, S4_ROWS)
    p = run_plot(tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(tmp_path / "S4.svg")
    check_bars(tmp_path, "S4", S4_ROWS, ["modelled_s"], S4_PUB, "bar")


def test_all_tables(tmp_path):
    for name, (header, rows) in TABLES.items():
        write_table(tmp_path, name, header, rows)
    write_tsv(tmp_path, ROWS)
    (tmp_path / "S3.tsv").write_text("not\ta\ttable\n")   # unknown: ignored
    p = run_plot(tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [str(tmp_path / f"{n}.svg") for n in ("S1", "S2", "S4", "S5")]
    assert not (tmp_path / "S3.svg").exists()


def test_no_published_bars(tmp_path):
    rows = [r[:S4_PUB] + ("-", "-") for r in S4_ROWS]
    write_table(tmp_path, "S4", S4_HEADER, rows)
    p = run_plot(tmp_path)
    assert p.returncode == 0, p.stderr
    check_bars(tmp_path, "S4", rows, ["modelled_s"], S4_PUB, "bar")


def test_no_known_table(tmp_path):
    (tmp_path / "S3.tsv").write_text("x\n1\n")
    p = run_plot(tmp_path)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("plot: error: ")


def replace(rows, i, col, value):
    rows = [list(r) for r in rows]
    rows[i][col] = value
    return [tuple(r) for r in rows]


BAR_MALFORMED = [
    ("S1 bad header", "S1", S4_HEADER, S1_ROWS),
    ("S1 short row", "S1", S1_HEADER, [S1_ROWS[0][:3]]),
    ("S1 modelled missing", "S1", S1_HEADER, replace(S1_ROWS, 0, 1, "-")),
    ("S1 negative time", "S1", S1_HEADER, replace(S1_ROWS, 1, 1, "-0.5")),
    ("S1 bad published", "S1", S1_HEADER, replace(S1_ROWS, 2, 5, "n/a")),
    ("S1 repeated run", "S1", S1_HEADER, S1_ROWS + [S1_ROWS[0]]),
    ("S1 no rows", "S1", S1_HEADER, []),
    ("S2 bad header", "S2", "variant\tlab_1node_pct\n", S2_ROWS),
    ("S2 lab missing", "S2", S2_HEADER, replace(S2_ROWS, 1, 2, "-")),
    ("S2 bad published", "S2", S2_HEADER, replace(S2_ROWS, 1, 3, "lots%")),
    ("S2 nan", "S2", S2_HEADER, replace(S2_ROWS, 1, 1, "nan")),
    ("S2 empty variant", "S2", S2_HEADER, replace(S2_ROWS, 1, 0, " ")),
    ("S4 long row", "S4", S4_HEADER, [S4_ROWS[0] + ("1",)]),
    ("S4 not a number", "S4", S4_HEADER, replace(S4_ROWS, 0, 1, "abc")),
    ("S4 no rows", "S4", S4_HEADER, []),
]


@pytest.mark.parametrize("what,name,header,rows", BAR_MALFORMED,
                         ids=[m[0] for m in BAR_MALFORMED])
def test_malformed_bar_table(tmp_path, what, name, header, rows):
    # A good S5 next to the bad table: nothing may be written at all.
    write_tsv(tmp_path, ROWS)
    write_table(tmp_path, name, header, rows)
    p = run_plot(tmp_path)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("plot: error: "), p.stderr
    assert name in lines[0]
    assert p.stdout == ""
    assert not list(tmp_path.glob("*.svg"))


@pytest.mark.skipif(not (ROOT / "ptelab").exists(), reason="./ptelab not built")
def test_real_reproduce_bars(tmp_path):
    r = subprocess.run([str(ROOT / "ptelab"), "reproduce", "S1", "S2", "S4", "--out",
                        str(tmp_path), "--size", "64M"], capture_output=True, text=True,
                       cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    p = run_plot(tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [str(tmp_path / f"{n}.svg") for n in ("S1", "S2", "S4")]
    for name, lab_cols, pub_col, kind in (("S1", ["modelled_s"], 5, "bar"),
                                          ("S2", ["lab_1node_pct", "lab_2node_pct"], 3,
                                           "marker"),
                                          ("S4", ["modelled_s"], S4_PUB, "bar")):
        rows = [tuple(ln.split("\t")) for ln in
                (tmp_path / f"{name}.tsv").read_text().splitlines()[1:] if ln.strip()]
        check_bars(tmp_path, name, rows, lab_cols, pub_col, kind)


def test_fitted_bars_differ_from_predictions_and_values_are_written(tmp_path):
    rows = [("mglru before", "0.47000", "1", "1", "1", "0.470"),
            ("mglru after", "0.18000", "1", "1", "1", "0.180"),
            ("classic before", "0.60000", "1", "1", "1", "-")]
    write_table(tmp_path, "S1", S1_HEADER, rows)
    (tmp_path / "S1.jsonl").write_text('{"profile": "arm64-server-32c"}\n')
    assert run_plot(tmp_path).returncode == 0
    root = ET.parse(tmp_path / "S1.svg").getroot()
    groups = {g.get("data-label"): g for g in root.iter(NS + "g") if "group" in classes(g)}
    for label, fit in (("mglru before", True), ("mglru after", True), ("classic before", False)):
        bar = next(e for e in groups[label] if "lab" in classes(e))
        assert ("fitted" in classes(bar)) == fit and ("prediction" in classes(bar)) != fit
        assert bar.get("fill").startswith("url(#hatch-") == fit
        values = [t.text for t in groups[label] if "value" in classes(t)]
        assert values == [f"{float(next(r for r in rows if r[0] == label)[1]):.3g}"]
    text = "".join(root.itertext())
    assert "hatched: fitted" in text and "solid: prediction" in text
    assert "modelled with profile arm64-server-32c" in text
    assert "modelled time (s)" in text


def test_s5_rings_fitted_points(tmp_path):
    write_tsv(tmp_path, ROWS)
    assert run_plot(tmp_path).returncode == 0
    root = ET.parse(tmp_path / "S5.svg").getroot()
    rings = [e for e in root.iter(NS + "circle") if "fitted" in classes(e)]
    # x86 4K before and after, 2048K before (its after has no published figure)
    assert len(rings) == 3
    assert "ringed: fitted" in "".join(root.itertext())
