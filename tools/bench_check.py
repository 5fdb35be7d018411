#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Benchmark: how fast `ptelab check` simulates, in one run on this machine.

Prints, for the reference backend:
  fuzz lifecycle   `run fuzz` (the mix check uses: PTE ops, faults, zaps,
                   fork, mprotect, madvise, mlock, mremap), operations/s
  fuzz pte-only    the same without the process-lifecycle operations
  PTE API calls    calls of the public PTE operations per second in the
                   lifecycle run (what core-mm asked of the arch layer)
  check            `check --json` on every core: its ops_per_s_per_core
  explore          `check --explore --sequences 8`: runs/s per core
and the target (>= 1 M operations/s per core) against the check figure.
Host time is what each run measured (JSON host_ns / check's cpu_seconds);
figures are ratios within this one run, so a noisy machine shows in all.

    tools/bench_check.py [--ptelab PATH]
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = 1_000_000


def run(ptelab, *args):
    p = subprocess.run([ptelab, *args], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"bench_check: {' '.join(args)} failed: {p.stderr.strip()[-300:]}")
    return p.stdout


def fuzz(ptelab, variant, seqs):
    j = json.loads(run(ptelab, "run", "fuzz", "--variant", variant, "--iterations", str(seqs),
                       "--json").splitlines()[0])
    r = j["results"]
    secs = j["host_ns"] / 1e9
    calls = sum(v for k, v in r.items() if k.startswith("calls."))
    return r["operations"] / secs, calls / secs


def summary(out):
    return json.loads(out.strip().splitlines()[-1])["summary"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptelab", default=os.path.join(ROOT, "ptelab"))
    a = ap.parse_args()
    life, calls = fuzz(a.ptelab, "lifecycle", 100)
    pte_only, _ = fuzz(a.ptelab, "pte-only", 400)
    chk = summary(run(a.ptelab, "check", "--sequences", "8", "--json"))
    exp = summary(run(a.ptelab, "check", "--explore", "--sequences", "8", "--json"))
    rows = [
        ("fuzz lifecycle (one process)", life, "operations/s"),
        ("fuzz pte-only (one process)", pte_only, "operations/s"),
        ("PTE API calls in fuzz lifecycle", calls, "calls/s"),
        ("check, every core", chk["ops_per_s_per_core"], "operations/s per core"),
        ("check --explore, every core", exp["ops_per_s_per_core"], "runs/s per core"),
    ]
    for name, v, unit in rows:
        print(f"{name:34} {v:14,.0f} {unit}")
    per_core = chk["ops_per_s_per_core"]
    print(f"{'target (check)':34} {TARGET:14,.0f} operations/s per core: "
          f"{'met' if per_core >= TARGET else f'not met ({per_core / TARGET:.2f} of it)'}")
    hours = 1e7 * 2000 / (per_core * (os.cpu_count() or 1)) / 3600
    print(f"a 10^7-sequence campaign here: {hours:.1f} h on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
