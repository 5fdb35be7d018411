# SPDX-License-Identifier: GPL-2.0-only
"""reproduce --out DIR: REPORT.md with provenance, tables within 80 columns,
residuals marked fitted or prediction; JSONL records labelled; plots say
"modelled"."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import _binary

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    d = tmp_path_factory.mktemp("reproduce")
    p = subprocess.run([_binary(), "reproduce", "--size", "64M", "--out", str(d)],
                       capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    return d


def test_report_has_provenance_tables_and_marks(out):
    report = (out / "REPORT.md").read_text()
    assert all(len(l) <= 80 for l in report.splitlines()), \
        [l for l in report.splitlines() if len(l) > 80][:3]
    version = subprocess.run([_binary(), "--version"], capture_output=True, text=True).stdout
    assert f"- ptelab: {version.strip()}" in report
    flat = " ".join(report.split())   # long lines are wrapped to 80 columns
    assert f"- command: `ptelab reproduce --size 64M --out {out}`" in flat
    assert re.search(r"^- date: \d{4}-\d\d-\d\d \d\d:\d\d UTC$", report, re.M)
    assert "  - `ref`: built in (the reference)" in report
    for prof in ("arm64-server-32c", "x86-kvm-host", "mobile-arm64-soc", "altra-1node"):
        line = next(l for l in (ROOT / "profiles" / f"{prof}.prof").read_text().splitlines()
                    if l.startswith("fitted_on"))
        assert f"`{prof}`: {' '.join(line.split('=', 1)[1].split())}" in flat
    for exp in ("S1", "S2", "S3", "S4", "S5"):
        assert f"## {exp}" in report
    # S3's published ratios hold at any scale: its residuals are there, marked
    assert re.search(r"^\| mglru before \| [\d.]+ s \| 600 s \| [+-][\d.]+% \| \*\*fitted\*\* \|$",
                     report, re.M)
    assert re.search(r"^\| mglru after \| [\d.]+ s \| 50 s \| [+-][\d.]+% \| \*prediction\* \|$",
                     report, re.M)
    assert "![S1: modelled against published](S1.svg)" in report
    assert "Yu Zhao" in report   # S3's source


def test_jsonl_records_say_their_experiment_and_row(out):
    for f in out.glob("S*.jsonl"):
        for line in f.read_text().splitlines():
            j = json.loads(line)
            assert j["experiment"] == f.stem and j["row"], line[:120]
            assert j["version"].startswith("ptelab ") and j["backend"]["kind"]
    s5 = [json.loads(l)["row"] for l in (out / "S5.jsonl").read_text().splitlines()]
    assert s5[:2] == ["x86 4K before", "x86 4K after"]


def test_plots_say_modelled(out):
    for f in ("S1.svg", "S4.svg", "S5.svg", "S2.svg"):
        svg = (out / f).read_text()
        assert re.search(r">modelled (time|cost)", svg), f


def test_residuals_from_a_full_scale_table(tmp_path):
    (tmp_path / "S1.tsv").write_text(
        "run\tmodelled_s\tyoung_read\tyoung_atomic\treclaimed_bytes\tpublished_s\n"
        "mglru before\t0.47000\t1\t1\t1\t0.470\n"
        "mglru after\t0.19800\t1\t1\t1\t0.180\n"
        "classic before\t0.60000\t1\t1\t1\t-\n")
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "report.py"), str(tmp_path)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    r = (tmp_path / "REPORT.md").read_text()
    assert "| mglru before | 0.47 s | 0.47 s | +0.0% | **fitted** |" in r
    assert "| mglru after | 0.198 s | 0.18 s | +10.0% | **fitted** |" in r
    assert "classic before |" not in r.split("## Fidelity")[1]
    bad = subprocess.run([sys.executable, str(ROOT / "tools" / "report.py"), str(tmp_path / "x")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("report: error:")


def test_tsv_cells_are_numbers(out):
    for f in out.glob("S*.tsv"):
        lines = f.read_text().splitlines()
        labels = 2 if f.stem == "S5" else 1   # S5: arch and folio
        for line in lines[1:]:
            for cell in line.split("\t")[labels:]:
                if cell:
                    float(cell)   # raises on "+190%", "-", "n/a"


def test_report_html_is_the_same_report(out):
    page = (out / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<h2>S3</h2>" in page and '<img src="S1.svg"' in page
    assert re.search(r"<tr><td>mglru before</td><td>[\d.]+ s</td><td>600 s</td><td>[+-][\d.]+%"
                     r"</td><td><strong>fitted</strong></td></tr>", page)
    import html.parser
    html.parser.HTMLParser().feed(page)   # parses
