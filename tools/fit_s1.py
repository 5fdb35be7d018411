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
import sys

import fitlib

PROFILE = "arm64-server-32c"
FITTED = ["pte_read", "pte_atomic"]


def costs():
    return fitlib.costs(PROFILE)


def main():
    pub = {col: v * 1e9 for row, col, v in fitlib.published("S1") if row == "mglru"}
    c = costs()
    run = ["reclaim-file", "--size", "10G", "--lru", "mglru", "--profile", PROFILE]
    ev = {"before": fitlib.events(*run, "--without", "young-batch"), "after": fitlib.events(*run)}
    # sum_k x_k e_vk = published_v - fixed_v
    a = [[ev[v].get(k, 0) for k in FITTED] for v in ("before", "after")]
    b = [pub[v] - fitlib.modelled(ev[v], c, FITTED) for v in ("before", "after")]
    fit = dict(zip(FITTED, fitlib.solve(a, b, "fit_s1")))
    if any(x <= 0 for x in fit.values()):
        raise SystemExit(f"fit_s1: no physical solution (a cost <= 0): {fit}")
    c.update(fit)
    for k in FITTED:
        print(f"cost.{k} = {fit[k]:.4g}")
    for v in ("before", "after"):
        print(f"{v:7} lab {fitlib.modelled(ev[v], c) / 1e9:.3f} s  "
              f"published {pub[v] / 1e9:.3f} s  (fitted)")
    if "--write" in sys.argv:
        fitlib.write_costs(PROFILE, fit)


if __name__ == "__main__":
    main()
