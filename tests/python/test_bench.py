# SPDX-License-Identifier: GPL-2.0-only
"""tools/bench.py: its published column, its CPU accounting, its planted bug, its verdicts."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench", ROOT / "tools" / "bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_bench_reads_published_figures_from_the_data_file():
    """bench.py's published column comes from data/published.tsv, row by row."""
    bench = _bench()
    rows = [l.rstrip("\n").split("\t") for l in (ROOT / "data" / "published.tsv").read_text().splitlines()
            if l.strip() and not l.startswith("#")]
    s1 = [r for r in rows if r[:3] == ["S1", "mglru", "after"]]
    assert len(s1) == 1
    value, unit, source = bench.published_figure("S1", "mglru", "after")
    assert value == float(s1[0][3]) and unit == s1[0][4] and source == s1[0][5]
    assert bench.published_figure("S1", "no-such-row", "after") is None
    assert bench.published_seconds("S1", "mglru", "after") == float(s1[0][3])
    # every row the table shows beside a measured phase is in the data file
    for _, row, _ in bench.S4_ROWS:
        assert bench.published_seconds("S4", row, "after")
    for folio in bench.S5_FOLIOS:
        assert bench.published_seconds("S5", folio, "after")


def test_bench_reproduce_cpu_counts_the_runs_workers(tmp_path):
    """'reproduce CPU' is the user + system time of the run and the workers it
    waits for: a stand-in whose forked child spins ~0.4 s of CPU is counted."""
    bench = _bench()
    fake = tmp_path / "ptelab"
    fake.write_text("#!/bin/sh\n"
                    "python3 -c 'import time\nt = time.process_time()\n"
                    "while time.process_time() - t < 0.4: pass' &\nwait\n")
    fake.chmod(0o755)
    secs, cpu, _ = bench.reproduce_seconds(str(fake))
    assert cpu >= 0.35 and secs >= cpu * 0.5


def test_the_planted_bug_drops_a_dirty_merge(tmp_path):
    """The patch-verdict figure's bug: one line of contpte_ptep_get, in a copy."""
    bench = _bench()
    tree = tmp_path / "t"
    (tree / "arch" / "arm64" / "mm").mkdir(parents=True)
    src = ("void other(void) { orig_pte = pte_mkdirty(orig_pte); }\n"
           "pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte)\n{\n"
           "\tif (pte_dirty(pte)) {\n\t\torig_pte = pte_mkdirty(orig_pte);\n"
           "\t\torig_pte = pte_mkdirty(orig_pte);\n\t}\n}\n")
    (tree / "arch" / "arm64" / "mm" / "contpte.c").write_text(src)
    copy = bench.plant_lost_dirty(str(tree), str(tmp_path / "copy"))
    got = (Path(copy) / "arch" / "arm64" / "mm" / "contpte.c").read_text()
    assert (tree / "arch" / "arm64" / "mm" / "contpte.c").read_text() == src
    assert got.count("pte_mkdirty") == 2 and got.count("(void)orig_pte;") == 1
    assert got.startswith("void other(void) { orig_pte = pte_mkdirty(orig_pte); }")


def test_table_verdicts(capsys):
    bench = _bench()
    t = bench.Table()
    t.add("fast", 1.0, "s", "<=", 2.0, 1.5)
    t.add("slow", 3.0, "s", "<=", 2.0)
    t.add("speed", 5e6, "/s", ">=", 10e6)
    t.add("not measured", None, "s", "<=", 1)
    t.add("information", 7.0, "s")
    assert t.print() == 2
    out = capsys.readouterr().out
    assert "MISSED" in out and "not run" in out and "2 of 3 targets missed" in out
