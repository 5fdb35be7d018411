# SPDX-License-Identifier: GPL-2.0-only
"""Every published figure of data/published.tsv as the lab computes it.

A Figure names the profile that models it, the `ptelab run` arguments of
the runs it needs (as `ptelab reproduce` configures them at the published
scale) and how its value follows from those runs' modelled times. Most
figures are linear in the costs (modelled time = sum of event count x
cost), so one run per configuration serves every trial of a fit; S3's are
not (vCPUs and kswapd queue on mmu_lock in sim/), and are re-run under
each trial's costs ("simulated").

tests/python/test_fit.py checks these values against `ptelab reproduce`'s
own tables, so the two cannot drift apart.
"""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# kinds of figure: how its error is measured
TIME = "time"        # seconds (or ns): relative error
PERCENT = "percent"  # a percentage increase: error on 1 + p/100
SHARE = "share"      # a share of a profile, in %: error in points / 100


class Figure:
    def __init__(self, exp, row, col, profile, runs, value, kind=TIME, simulated=False,
                 pair=None):
        self.exp, self.row, self.col = exp, row, col
        self.profile = profile
        self.runs = runs            # {name: [ptelab run args]}
        self.value = value          # f(outs) -> figure, outs[name] = {"ns": .., "json": ..}
        self.kind = kind
        self.simulated = simulated
        self.pair = pair            # for "after": the key of its "before" figure
        self.published = None
        self.source = ""

    @property
    def key(self):
        return f"{self.exp}:{self.row}:{self.col}"


def scaled(full, size):
    return int(full * size / (1 << 30))


# S5's kernel: mm-unstable of Feb 2024, before two 6.10 changes (as reproduce runs it)
S5_ERA = ["--without", "deferred-split-partial", "--without", "folio-batch-free"]


def _s5(size):
    out = []
    for fs in ("4K", "16K", "64K", "2048K"):
        base = ["munmap", "--arch", "x86", "--size", str(size), "--folio-size", fs] + S5_ERA
        for col, extra in (("before", ["--without", "zap-batch"]), ("after", [])):
            out.append(Figure("S5", fs, col, "xeon-silver-4210r", {"t": base + extra},
                              lambda o: o["t"]["ns"] / 1e9,
                              pair=f"S5:{fs}:before" if col == "after" else None))
    return out


def _s4(size):
    """S4 v3's test (touched) on the debug kernel, v7's three scenarios on the
    production one; totals, and contpte_ptep_get's share of each profile."""
    iters = ["--iterations", str(scaled(500, size))]

    def share(o):
        return 100 * o["t"]["json"].get("perf", {}).get("contpte_ptep_get", {}).get("self", 0.0)

    out = []
    for row, variant, prof in (("total", "touched", "mobile-arm64-soc-debug"),
                               ("v7-young-dirty", "young-dirty", "mobile-arm64-soc"),
                               ("v7-one-young", "one-young", "mobile-arm64-soc"),
                               ("v7-cold", "cold", "mobile-arm64-soc")):
        base = ["mlock-loop", "--variant", variant] + iters
        prow = "profile" if row == "total" else f"{row}-profile"
        for col, extra in (("before", ["--without", "ptep-get-early-exit"]), ("after", [])):
            out.append(Figure("S4", row, col, prof, {"t": base + extra},
                              lambda o: o["t"]["ns"] / 1e9,
                              pair=f"S4:{row}:before" if col == "after" else None))
            # perf's overhead is self time; contpte_ptep_get calls nothing it does not inline.
            # Re-run under a fit's trial costs (a share is not linear in them).
            out.append(Figure("S4", f"{prow}-{col}", "contpte_ptep_get", prof, {"t": base + extra},
                              share, kind=SHARE, simulated=True))
    return out


def _s2(size):
    def run(v):
        return ["exit", "--variant", v, "--iterations", str(scaled(1000, size)),
                "--without", "ptep-get-early-exit"]
    out = []
    for v in ("no-opt", "simple-full", "robust-full", "clear-ptes"):
        out.append(Figure("S2", v, "one-node", "altra-1node",
                          {"base": run("baseline"), "v": run(v)},
                          lambda o: (o["v"]["ns"] / o["base"]["ns"] - 1) * 100, kind=PERCENT))
    return out


def _s1(size):
    base = ["reclaim-file", "--size", str(10 * size), "--lru", "mglru"]
    return [Figure("S1", "mglru", "before", "arm64-server-32c",
                   {"t": base + ["--without", "young-batch"]}, lambda o: o["t"]["ns"] / 1e9),
            Figure("S1", "mglru", "after", "arm64-server-32c", {"t": base},
                   lambda o: o["t"]["ns"] / 1e9, pair="S1:mglru:before")]


S3_SCALE = 64


def _s3(size):
    mib2 = 2 << 20
    guest = scaled(250 << 30, size) // S3_SCALE // mib2 * mib2
    host = scaled(256000000000, size) // S3_SCALE // mib2 * mib2
    full = S3_SCALE * (1 << 30) / size

    def run(variant, before, lru="mglru"):
        return (["max-guest-memory", "--arch", "x86", "--variant", variant, "--lru", lru,
                 "--size", str(guest), "--host-memory", str(host)] +
                (["--without", "spte-test-clear-young"] if before else []))

    def run2(o):
        return o["t"]["json"]["results"]["run2_s"] * full

    # the published kswapd profiles expand the branch through folio_referenced (perf
    # report -G): rmap_walk_file and _raw_write_lock are compared on it, not whole
    def share(fn):
        def f(o):
            for name, v in o["t"]["json"].get("kswapd_folio_referenced_branch", {}).items():
                if name == fn:
                    return 100 * (v["children"] if isinstance(v, dict) else v)
            return 0.0
        return f

    out = []
    for row, variant in (("mglru", "v1"), ("v2", "v2")):
        for col in ("before", "after"):
            out.append(Figure("S3", row, col, "x86-kvm-host",
                              {"t": run(variant, col == "before")}, run2, simulated=True,
                              pair=f"S3:{row}:before" if col == "after" else None))
    # v1's base with MGLRU off: the classic LRU, no change to compare with
    out.append(Figure("S3", "classic", "before", "x86-kvm-host",
                      {"t": run("v1", True, "classic")}, run2, simulated=True))
    # every published kswapd share: v1's and v2's profiles, before and after
    for key in published_rows():
        exp, row, fn = key.split(":")
        if exp != "S3" or not row.startswith("kswapd-"):
            continue
        variant = "v2" if row.startswith("kswapd-v2-") else "v1"
        out.append(Figure("S3", row, fn, "x86-kvm-host",
                          {"t": run(variant, row.endswith("-before"))}, share(fn), kind=SHARE,
                          simulated=True))
    return out


def published_rows():
    rows = {}
    with open(os.path.join(ROOT, "data", "published.tsv")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            c = line.rstrip("\n").split("\t")
            if len(c) >= 4:
                rows[f"{c[0]}:{c[1]}:{c[2]}"] = (float(c[3]), c[4] if len(c) > 4 else "",
                                                 c[5] if len(c) > 5 else "")
    return rows


def all_figures(size=1 << 30):
    """Every published figure the lab models (at the published scale by default)."""
    pub = published_rows()
    out = []
    for f in _s5(size) + _s4(size) + _s2(size) + _s1(size) + _s3(size):
        if f.key in pub:
            f.published, _, f.source = pub[f.key]
            out.append(f)
    return out


def host_figures(records, profile):
    """Figures from `ptelab host WORKLOAD --json` records: the host's measured
    phase (best of N, in s) against the lab's run of the same shape."""
    out = []
    for r in records:
        p = r["params"]
        fs = p["folio_size"] >> 10
        args = [r["workload"], "--arch", r["arch"], "--size", str(p["size"]),
                "--folio-size", f"{fs}K"]
        if p.get("pmd_mapped"):
            args.append("--pmd-mapped")
        f = Figure("host", f"{r['workload']}-{fs}K", "best", profile, {"t": args},
                   lambda o: o["t"]["ns"] / 1e9)
        f.published = r["host_phase_ns"] / 1e9
        f.source = f"ptelab host on Linux {r.get('kernel', '?')} ({r['arch']}), best of " \
                   f"{p.get('repeat', '?')}"
        # the kernel's mTHP counters are system-wide: another process's
        # faults may add a few; fewer than asked for means fallbacks
        got, want = r["results"].get("folios", -1), r["results"]["folios_expected"]
        f.host_ok = got == -1 or got >= 0.99 * want
        out.append(f)
    return out
