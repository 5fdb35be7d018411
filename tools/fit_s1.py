#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Refit the two fitted costs of profiles/arm64-server-32c.prof on S1.

The procedure the profile states, made repeatable: with the lab's event
counts of S1's two MGLRU runs at full scale (`ptelab run reclaim-file
--size 10G --lru mglru`, with and without young-batch, on the reference
backend), solve the two linear equations "modelled time = published time"
for cost.pte_read and cost.pte_atomic. Every other cost stays as the
profile states it; nothing else (the classic-LRU rows, the kernel-backend
rows) is used.

    tools/fit_s1.py            print the solution and the residuals
    tools/fit_s1.py --write    also write both costs into the profile
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROFILE = os.path.join(ROOT, "profiles", "arm64-server-32c.prof")
FITTED = ("pte_read", "pte_atomic")


def published():
    out = {}
    with open(os.path.join(ROOT, "data", "published.tsv")) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 4 and cols[0] == "S1" and cols[1] == "mglru":
                out[cols[2]] = float(cols[3]) * 1e9  # s -> ns
    return out


def costs():
    c = {}
    with open(PROFILE) as f:
        for line in f:
            m = re.match(r"\s*cost\.(\w+)\s*=\s*([0-9.eE+-]+)", line)
            if m:
                c[m.group(1)] = float(m.group(2))
    return c


def events(*extra):
    exe = os.environ.get("PTELAB_BIN", os.path.join(ROOT, "ptelab"))
    p = subprocess.run([exe, "run", "reclaim-file", "--size", "10G", "--lru", "mglru",
                        "--profile", "arm64-server-32c", "--json", *extra],
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)["events"]


def main():
    pub = published()
    c = costs()
    runs = {"before": events("--without", "young-batch"), "after": events()}
    # a_k * pte_read + b_k * pte_atomic = published_k - rest_k
    rows = []
    for k in ("before", "after"):
        ev = runs[k]
        rest = sum(n * c.get(e, 0.0) for e, n in ev.items() if e not in FITTED)
        rows.append((ev.get(FITTED[0], 0), ev.get(FITTED[1], 0), pub[k] - rest))
    (a1, b1, r1), (a2, b2, r2) = rows
    det = a1 * b2 - a2 * b1
    if det == 0:
        raise SystemExit("fit_s1: the two runs do not separate pte_read from pte_atomic")
    x = (r1 * b2 - r2 * b1) / det
    y = (a1 * r2 - a2 * r1) / det
    if x <= 0 or y <= 0:
        raise SystemExit(f"fit_s1: no physical solution (pte_read {x:.4g}, pte_atomic {y:.4g} ns)")
    c[FITTED[0]], c[FITTED[1]] = x, y
    print(f"cost.{FITTED[0]} = {x:.4g}")
    print(f"cost.{FITTED[1]} = {y:.4g}")
    for k in ("before", "after"):
        t = sum(n * c.get(e, 0.0) for e, n in runs[k].items())
        print(f"{k:7} lab {t / 1e9:.3f} s  published {pub[k] / 1e9:.3f} s  (fitted)")
    if "--write" in sys.argv:
        text = open(PROFILE).read()
        for name, v in ((FITTED[0], x), (FITTED[1], y)):
            text = re.sub(rf"(?m)^cost\.{name}\s*=\s*[0-9.eE+-]+", f"cost.{name} = {v:.4g}", text)
        open(PROFILE, "w").write(text)
        print(f"wrote {PROFILE}")


if __name__ == "__main__":
    main()
