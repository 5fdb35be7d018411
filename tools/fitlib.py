# SPDX-License-Identifier: GPL-2.0-only
"""What every profile fit in tools/fit_*.py needs: the published figures
(data/published.tsv only), a profile's costs, the lab's event counts of
one run, modelled time under given costs, a small linear solver, and
writing fitted costs back into the profile."""
import json
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def profile_path(name):
    return os.path.join(ROOT, "profiles", f"{name}.prof")


def published(experiment):
    """[(row, column, value)] of one experiment, values as written."""
    out = []
    with open(os.path.join(ROOT, "data", "published.tsv")) as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 4 and cols[0] == experiment:
                out.append((cols[1], cols[2], float(cols[3])))
    return out


def costs(profile):
    c = {}
    with open(profile_path(profile)) as f:
        for line in f:
            m = re.match(r"\s*cost\.(\w+)\s*=\s*([0-9.eE+-]+)", line)
            if m:
                c[m.group(1)] = float(m.group(2))
    return c


def events(*args):
    """The events object of `ptelab run ARGS --json` (one run)."""
    exe = os.environ.get("PTELAB_BIN", os.path.join(ROOT, "ptelab"))
    p = subprocess.run([exe, "run", *args, "--json"], capture_output=True, text=True,
                       check=True)
    return json.loads(p.stdout)["events"]


def modelled(ev, c, skip=()):
    """Sum of count x cost over the events, leaving out those in skip."""
    return sum(n * c.get(k, 0.0) for k, n in ev.items() if k not in skip)


def solve(a, b, who):
    """Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[piv] = m[piv], m[col]
        if abs(m[col][col]) < 1e-12:
            raise SystemExit(f"{who}: the system is singular; the events do not separate the costs")
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def write_costs(profile, fit):
    path = profile_path(profile)
    text = open(path).read()
    for k, v in fit.items():
        text = re.sub(rf"(?m)^cost\.{k}\s*=\s*[0-9.eE+-]+", f"cost.{k} = {v:.4g}", text)
    open(path, "w").write(text)
    print(f"wrote {path}")
