# SPDX-License-Identifier: GPL-2.0-only
"""tools/bench_loop.c, the yardstick tools/bench.py divides S1's times by."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_bench_loop_does_the_work_it_claims(tmp_path):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    exe = tmp_path / "bench_loop"
    subprocess.run([cc, "-O2", "-o", str(exe), str(ROOT / "tools" / "bench_loop.c")], check=True)
    out = subprocess.run([str(exe), "4096"], capture_output=True, text=True, check=True).stdout
    secs, young = out.split()
    assert float(secs) > 0
    # 5 runs; each PTE found young once and valid once when cleared
    assert int(young) == 5 * 2 * 4096
    bad = subprocess.run([str(exe)], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr


def test_bench_reads_published_figures_from_the_data_file():
    """bench.py's published column comes from data/published.tsv, row by row."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench", ROOT / "tools" / "bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rows = [l.rstrip("\n").split("\t") for l in (ROOT / "data" / "published.tsv").read_text().splitlines()
            if l.strip() and not l.startswith("#")]
    s1 = [r for r in rows if r[:3] == ["S1", "mglru", "after"]]
    assert len(s1) == 1
    value, unit, source = bench.published_figure("S1", "mglru", "after")
    assert value == float(s1[0][3]) and unit == s1[0][4] and source == s1[0][5]
    assert bench.published_figure("S1", "no-such-row", "after") is None


def test_bench_reproduce_cpu_counts_the_runs_workers(tmp_path):
    """'reproduce CPU' is the user + system time of the run and the workers it
    waits for: a stand-in whose forked child spins ~0.4 s of CPU is counted."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench", ROOT / "tools" / "bench.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    fake = tmp_path / "ptelab"
    fake.write_text("#!/bin/sh\n"
                    "python3 -c 'import time\nt = time.process_time()\n"
                    "while time.process_time() - t < 0.4: pass' &\nwait\n")
    fake.chmod(0o755)
    secs, cpu, _ = bench.reproduce_seconds(str(fake))
    assert cpu >= 0.35 and secs >= cpu * 0.5
