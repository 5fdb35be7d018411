#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: max-guest-memory at the published size, host time and memory.

Runs `ptelab run max-guest-memory` with its defaults (64 vCPUs, 250 GiB
guest, 256 GB host: about 65.5 M guest pages) for the x86 rows of S3 and
prints, per run, the host wall time, the child's peak RSS, and run2's
modelled seconds beside the published ones, then whether each run kept to
the targets (at most 120 s of host time and 12 GiB of host memory).
Host time is what `ptelab run` measured around the child (JSON host_ns),
peak memory the child's ru_maxrss (JSON peak_rss_kb).

    tools/bench_s3.py                 before, after (MGLRU) and classic
    tools/bench_s3.py before after    a subset of: before after v2-before v2-after classic
"""
import json
import os
import subprocess
import sys

import figures

RUNS = {
    "before": (["--lru", "mglru", "--without", "spte-test-clear-young"], ("mglru", "before")),
    "after": (["--lru", "mglru"], ("mglru", "after")),
    "v2-before": (["--lru", "mglru", "--variant", "v2", "--without", "spte-test-clear-young"],
                  ("v2", "before")),
    "v2-after": (["--lru", "mglru", "--variant", "v2"], ("v2", "after")),
    "classic": (["--lru", "classic", "--without", "spte-test-clear-young"], ("classic", "before")),
}
TARGET_S = 120
TARGET_KB = 12 << 20


def main():
    names = sys.argv[1:] or ["before", "after", "classic"]
    bad = [n for n in names if n not in RUNS]
    if bad:
        raise SystemExit(f"bench_s3: unknown run {bad[0]!r}; runs: {' '.join(RUNS)}")
    pub = {tuple(k.split(":")[1:]): v for k, (v, _, _) in figures.published_rows().items()
           if k.startswith("S3:")}
    exe = os.environ.get("PTELAB_BIN", os.path.join(figures.ROOT, "ptelab"))
    print(f"{'run':10} {'host s':>8} {'peak GiB':>9} {'run2 s':>8} {'swap-ins':>10} "
          f"{'invariants':>10} {'target':>7} | {'pub run2 s':>10}")
    failed = 0
    for n in names:
        args, key = RUNS[n]
        print(f"bench_s3: {n}...", file=sys.stderr)
        p = subprocess.run([exe, "run", "max-guest-memory", "--arch", "x86", *args, "--json"],
                           capture_output=True, text=True)
        if p.returncode not in (0, 1) or not p.stdout.strip():
            print(f"{n:10} failed: {p.stderr.strip().splitlines()[-1:]}")
            failed += 1
            continue
        d = json.loads(p.stdout)
        host_s = d["host_ns"] / 1e9
        kb = d["peak_rss_kb"]
        ok = host_s <= TARGET_S and kb <= TARGET_KB
        failed += not ok
        inv = "ok" if d["invariants"]["ok"] else "VIOLATED"
        pv = f"{pub[key]:.0f}" if key in pub else "-"
        print(f"{n:10} {host_s:8.1f} {kb / (1 << 20):9.2f} {d['results']['run2_s']:8.1f} "
              f"{d['results']['swap_ins']:10.0f} {inv:>10} {'ok' if ok else 'MISSED':>7} | {pv:>10}")
    print(f"targets: host time <= {TARGET_S} s and peak memory <= {TARGET_KB >> 20} GiB per run "
          f"on this machine ({os.cpu_count()} CPUs)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
