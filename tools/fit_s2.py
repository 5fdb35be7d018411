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
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROFILE = os.path.join(ROOT, "profiles", "altra-1node.prof")
FITTED = ["pte_read", "folio_free", "dsb"]
VARIANTS = ["simple-full", "robust-full", "no-opt"]


def published():
    out = {}
    with open(os.path.join(ROOT, "data", "published.tsv")) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 4 and cols[0] == "S2" and cols[2] == "one-node":
                out[cols[1]] = float(cols[3]) / 100
    return out


def costs():
    c = {}
    with open(PROFILE) as f:
        for line in f:
            m = re.match(r"\s*cost\.(\w+)\s*=\s*([0-9.eE+-]+)", line)
            if m:
                c[m.group(1)] = float(m.group(2))
    return c


def events(variant, iterations):
    exe = os.environ.get("PTELAB_BIN", os.path.join(ROOT, "ptelab"))
    p = subprocess.run([exe, "run", "exit", "--variant", variant, "--iterations",
                        str(iterations), "--without", "ptep-get-early-exit", "--profile",
                        "altra-1node", "--json"], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)["events"]


def solve(a, b):
    """Gaussian elimination with partial pivoting (3x3)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        if abs(m[col][col]) < 1e-12:
            raise SystemExit("fit_s2: the system is singular; the events do not separate the costs")
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def main():
    write = "--write" in sys.argv
    pub = published()
    c = costs()
    ev = {v: events(v, 300) for v in ["baseline"] + VARIANTS}

    def fixed(v):
        return sum(n * c.get(k, 0.0) for k, n in ev[v].items() if k not in FITTED)

    # fixed_v + sum_k x_k e_vk = (1 + p_v) (fixed_b + sum_k x_k e_bk)
    a, b = [], []
    for v in VARIANTS:
        g = 1 + pub[v]
        a.append([ev[v].get(k, 0) - g * ev["baseline"].get(k, 0) for k in FITTED])
        b.append(g * fixed("baseline") - fixed(v))
    x = solve(a, b)
    fit = dict(zip(FITTED, x))
    if any(val <= 0 for val in x):
        raise SystemExit(f"fit_s2: no physical solution (a cost <= 0): {fit}")
    c.update(fit)

    def total(v):
        return sum(n * c.get(k, 0.0) for k, n in ev[v].items())

    for k in FITTED:
        print(f"cost.{k} = {fit[k]:.4g}")
    for v in VARIANTS + ["clear-ptes"]:
        if v not in ev:
            ev[v] = events(v, 300)
        lab = (total(v) / total("baseline") - 1) * 100
        kind = "fitted" if v in VARIANTS else "prediction"
        print(f"{v:12s} lab {lab:+7.2f}%  published {pub[v] * 100:+5.0f}%  ({kind})")
    if write:
        text = open(PROFILE).read()
        for k in FITTED:
            text = re.sub(rf"(?m)^cost\.{k}\s*=\s*[0-9.eE+-]+", f"cost.{k} = {fit[k]:.4g}", text)
        open(PROFILE, "w").write(text)
        print(f"wrote {PROFILE}")


if __name__ == "__main__":
    main()
