# SPDX-License-Identifier: GPL-2.0-only
"""Which published figures each experiment's profile was fitted on.

Read from the profiles themselves: `ptelab fit` writes the figures it
solved a profile's costs from into its `fit.on` line (EXP:ROW:COLUMN keys
of data/published.tsv); the report's residual table and the plots' marks
use them. A lab value at one of these meets its published figure by
construction; every other one is a prediction.
"""
import glob
import os
import re

ROOT = os.environ.get("PTELAB_HOME") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load():
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "profiles", "*.prof"))):
        if os.path.basename(path).startswith("fit-scratch-"):
            continue
        m = re.search(r"(?m)^\s*fit\.on\s*=\s*([^#\n]*)", open(path).read())
        for key in (m.group(1).split() if m else ()):
            parts = key.split(":")
            if len(parts) == 3 and parts[0] != "host":
                out.setdefault(parts[0], set()).add((parts[1], parts[2]))
    return out


FITTED = _load()


def fitted(exp, row, col):
    return (row, col) in FITTED.get(exp, ())
