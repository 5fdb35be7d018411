# SPDX-License-Identifier: GPL-2.0-only
"""tools/plot.py: S5.tsv -> S5.svg, with published figures kept apart."""
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
    check_svg(tmp_path, archs, sum(1 for r in rows for v in r[2:] if v != "-"))
