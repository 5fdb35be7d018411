#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Refit the one fitted cost of profiles/mobile-arm64-soc.prof on S4.

The procedure the profile states, made repeatable: with the lab's event
counts of S4's "before" run (`ptelab run mlock-loop --iterations 500
--without ptep-get-early-exit`), solve for cost.mem_access so that the
modelled total equals S4's published "before" total (data/published.tsv).
Every other cost stays as the profile states it; S4's "after" total is not
used (the lab predicts it).

    tools/fit_s4.py            print the solution and the prediction
    tools/fit_s4.py --write    also write cost.mem_access into the profile
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROFILE = os.path.join(ROOT, "profiles", "mobile-arm64-soc.prof")
FITTED = "mem_access"


def published():
    out = {}
    with open(os.path.join(ROOT, "data", "published.tsv")) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 4 and cols[0] == "S4" and cols[1] == "total":
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
    p = subprocess.run([exe, "run", "mlock-loop", "--iterations", "500", "--profile",
                        "mobile-arm64-soc", "--json", *extra], capture_output=True, text=True,
                       check=True)
    return json.loads(p.stdout)["events"]


def main():
    pub = published()
    c = costs()
    before = events("--without", "ptep-get-early-exit")
    rest = sum(n * c.get(k, 0.0) for k, n in before.items() if k != FITTED)
    if not before.get(FITTED):
        raise SystemExit("fit_s4: the run has no mem_access events to fit")
    x = (pub["before"] - rest) / before[FITTED]
    if x <= 0:
        raise SystemExit(f"fit_s4: no physical solution (mem_access {x:.4g} ns)")
    c[FITTED] = x
    after = events()
    t_after = sum(n * c.get(k, 0.0) for k, n in after.items())
    print(f"cost.{FITTED} = {x:.4g}")
    print(f"before  lab {pub['before'] / 1e9:.2f} s  published {pub['before'] / 1e9:.2f} s  (fitted)")
    print(f"after   lab {t_after / 1e9:.2f} s  published {pub['after'] / 1e9:.2f} s  (prediction)")
    if "--write" in sys.argv:
        text = open(PROFILE).read()
        text = re.sub(rf"(?m)^cost\.{FITTED}\s*=\s*[0-9.eE+-]+", f"cost.{FITTED} = {x:.4g}", text)
        open(PROFILE, "w").write(text)
        print(f"wrote {PROFILE}")


if __name__ == "__main__":
    main()
