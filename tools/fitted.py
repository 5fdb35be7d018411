# SPDX-License-Identifier: GPL-2.0-only
"""Which published figures each experiment's profile was fitted on.

The profiles' fitted_on lines say it in words (report.py prints them); this
is the same statement as (row, column) pairs of data/published.tsv, for the
report's residual table and the plots' marks. A lab value at one of these
meets its published figure by construction; every other one is a prediction.
"""
FITTED = {
    "S1": {("mglru", "before"), ("mglru", "after")},
    "S2": {("no-opt", "one-node"), ("simple-full", "one-node"), ("robust-full", "one-node")},
    "S3": {("mglru", "before")},
    "S4": {("total", "before")},
    "S5": {("4K", "before"), ("4K", "after"), ("2048K", "before"), ("2048K", "after")},
}


def fitted(exp, row, col):
    return (row, col) in FITTED.get(exp, ())
