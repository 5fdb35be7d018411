# SPDX-License-Identifier: GPL-2.0-only
"""The reference backend is a twin of linux-7.3 (arch/arm64/pgtable.c): with
every switch on, ref and the kernel's own dispatchers and contpte.c produce
the same events, setup included, on every workload and hardware policy."""
import json

import pytest

from conftest import ROOT

WORKLOADS = [
    ("munmap", ["--size", "16M"]),
    ("exit", ["--size", "16M", "--iterations", "5"]),
    ("mlock-loop", ["--size", "16M", "--iterations", "5"]),
    ("young-scan", ["--size", "16M"]),
    ("reclaim-file", ["--size", "64M"]),
    ("fuzz", ["--iterations", "4"]),
]
POLICIES = [None, "random", "adversarial"]

needs_73 = pytest.mark.skipif(not (ROOT / "build" / "kernels" / "linux-7.3").is_dir(),
                              reason="linux-7.3 not fetched (ptelab kernels fetch 7.3)")


def runs(ptelab, *args):
    p = ptelab("run", *args, "--arch", "arm64", "--json")
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


def differing(rows, key):
    return {k: [r[key][k] for r in rows] for k in rows[0][key]
            if len({r[key][k] for r in rows}) > 1}


@needs_73
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p or "default")
@pytest.mark.parametrize("workload,args", WORKLOADS, ids=[w for w, _ in WORKLOADS])
def test_ref_events_equal_linux_7_3(ptelab, workload, args, policy):
    extra = ["--hw-policy", policy] if policy else []
    rows = runs(ptelab, workload, "--impl", "ref,linux-7.3,ref", *args, *extra)
    assert [r["impl"] for r in rows] == ["ref", "linux-7.3", "ref"]
    for r in rows:
        assert r["invariants"]["ok"], r["invariants"]
    assert differing(rows, "events") == {}
    assert differing(rows, "setup_events") == {}
    assert rows[0]["events"]["contpte_get"] > 0 or workload == "reclaim-file"


# the core-mm switches run the same on both; contpte off is the kernel's
# #else block on both (raw operations, the generic young loops)
SWITCHES = ["contpte", "zap-batch", "fork-batch", "young-batch"]


@needs_73
@pytest.mark.parametrize("switch", SWITCHES)
@pytest.mark.parametrize("workload,args", WORKLOADS, ids=[w for w, _ in WORKLOADS])
def test_ref_equals_linux_7_3_without(ptelab, workload, args, switch):
    rows = runs(ptelab, workload, "--impl", "ref,linux-7.3", "--without", switch, *args)
    for r in rows:
        assert r["invariants"]["ok"], r["invariants"]
    assert differing(rows, "events") == {}
    assert differing(rows, "setup_events") == {}


@needs_73
def test_exit_baseline_is_the_kernel_without_contpte(ptelab):
    rows = runs(ptelab, "exit", "--impl", "ref,linux-7.3", "--variant", "baseline",
                "--size", "16M", "--iterations", "5")
    assert differing(rows, "events") == {} and rows[0]["events"]["contpte_get"] == 0


@needs_73
def test_cheaper_gather_is_a_named_variant(ptelab):
    """--without ptep-get-reread drops 7.3's second load of the first dirty
    entry and nothing else: its young test falls on the first load instead,
    and every other event is the kernel's."""
    args = ["--size", "16M", "--iterations", "2"]
    k, = runs(ptelab, "mlock-loop", "--impl", "linux-7.3", *args)
    r, = runs(ptelab, "mlock-loop", "--impl", "ref", "--without", "ptep-get-reread", *args)
    saved = k["events"]["contpte_get_read"] - r["events"]["contpte_get_read"]
    assert saved == k["events"]["contpte_get"] == r["events"]["contpte_get"]
    assert k["events"]["pte_read"] - r["events"]["pte_read"] == saved
    # each saved load was of a line just read: a cache hit
    assert k["events"]["cache_hit"] - r["events"]["cache_hit"] == saved
    # the young test of that entry is then a second test of one load
    assert r["events"]["contpte_test"] - k["events"]["contpte_test"] == saved
    rest = {e for e in k["events"]
            if e not in ("pte_read", "contpte_get_read", "cache_hit", "contpte_test")}
    assert {e: k["events"][e] for e in rest} == {e: r["events"][e] for e in rest}
    p = ptelab("run", "mlock-loop", "--impl", "linux-7.3", "--without", "ptep-get-reread")
    assert p.returncode == 2 and "only the reference backend" in p.stderr
