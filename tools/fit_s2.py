#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Refit the three fitted costs of profiles/altra-1node.prof on S2.

The procedure the profile states, made repeatable: with the lab's event
counts of `ptelab run exit --variant V --without ptep-get-early-exit`
(the 2023 kernels had no early exit), 300 processes, solve

    T_v = (1 + published_v) * T_baseline   for v in simple-full, robust-full, no-opt

for cost.pte_read, cost.folio_free and cost.dsb (every other cost stays as
the profile states it). T is linear in the costs, so this is a 3x3 linear
system. clear-ptes and the two-node column are not used: they stay
predictions. Published figures come from data/published.tsv only.

    tools/fit_s2.py            print the solution and the residuals
    tools/fit_s2.py --write    also write the three costs into the profile
"""
import sys

import fitlib

PROFILE = "altra-1node"
FITTED = ["pte_read", "folio_free", "dsb"]
VARIANTS = ["simple-full", "robust-full", "no-opt"]


def published():
    return {row: v / 100 for row, col, v in fitlib.published("S2") if col == "one-node"}


def costs():
    return fitlib.costs(PROFILE)


def events(variant, iterations):
    return fitlib.events("exit", "--variant", variant, "--iterations", str(iterations),
                         "--without", "ptep-get-early-exit", "--profile", PROFILE)


def main():
    write = "--write" in sys.argv
    pub = published()
    c = costs()
    ev = {v: events(v, 300) for v in ["baseline"] + VARIANTS}

    def fixed(v):
        return fitlib.modelled(ev[v], c, FITTED)

    # fixed_v + sum_k x_k e_vk = (1 + p_v) (fixed_b + sum_k x_k e_bk)
    a, b = [], []
    for v in VARIANTS:
        g = 1 + pub[v]
        a.append([ev[v].get(k, 0) - g * ev["baseline"].get(k, 0) for k in FITTED])
        b.append(g * fixed("baseline") - fixed(v))
    x = fitlib.solve(a, b, "fit_s2")
    fit = dict(zip(FITTED, x))
    if any(val <= 0 for val in x):
        raise SystemExit(f"fit_s2: no physical solution (a cost <= 0): {fit}")
    c.update(fit)

    def total(v):
        return fitlib.modelled(ev[v], c)

    for k in FITTED:
        print(f"cost.{k} = {fit[k]:.4g}")
    for v in VARIANTS + ["clear-ptes"]:
        if v not in ev:
            ev[v] = events(v, 300)
        lab = (total(v) / total("baseline") - 1) * 100
        kind = "fitted" if v in VARIANTS else "prediction"
        print(f"{v:12s} lab {lab:+7.2f}%  published {pub[v] * 100:+5.0f}%  ({kind})")
    if write:
        fitlib.write_costs(PROFILE, fit)


if __name__ == "__main__":
    main()
