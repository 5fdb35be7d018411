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
import sys

import fitlib

PROFILE = "mobile-arm64-soc"
FITTED = "mem_access"


def published():
    return {col: v * 1e9 for row, col, v in fitlib.published("S4") if row == "total"}


def costs():
    return fitlib.costs(PROFILE)


def events(*extra):
    return fitlib.events("mlock-loop", "--iterations", "500", "--profile", PROFILE, *extra)


def main():
    pub = published()
    c = costs()
    before = events("--without", "ptep-get-early-exit")
    rest = fitlib.modelled(before, c, (FITTED,))
    if not before.get(FITTED):
        raise SystemExit("fit_s4: the run has no mem_access events to fit")
    x = (pub["before"] - rest) / before[FITTED]
    if x <= 0:
        raise SystemExit(f"fit_s4: no physical solution (mem_access {x:.4g} ns)")
    c[FITTED] = x
    after = events()
    t_after = fitlib.modelled(after, c)
    print(f"cost.{FITTED} = {x:.4g}")
    print(f"before  lab {pub['before'] / 1e9:.2f} s  published {pub['before'] / 1e9:.2f} s  (fitted)")
    print(f"after   lab {t_after / 1e9:.2f} s  published {pub['after'] / 1e9:.2f} s  (prediction)")
    if "--write" in sys.argv:
        fitlib.write_costs(PROFILE, {FITTED: x})


if __name__ == "__main__":
    main()
