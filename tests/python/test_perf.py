# SPDX-License-Identifier: GPL-2.0-only
"""The modelled perf profile: JSON "perf"/"perf_tree" and run --report.
Each event's cost lands on the innermost function that counted it, so the
tree's self times add up to the modelled time, and a function's self time
is the cost of exactly the events its own code counts."""
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
needs_73 = pytest.mark.skipif(not (ROOT / "build" / "kernels" / "linux-7.3").is_dir(),
                              reason="linux-7.3 not fetched (ptelab kernels fetch 7.3)")


def costs(profile):
    out = {}
    for line in (ROOT / "profiles" / f"{profile}.prof").read_text().splitlines():
        m = re.match(r"cost\.(\w+)\s*=\s*([0-9.eE+-]+)", line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def node(tree, *chain):
    """The node reached from the root by the names in chain."""
    at = 0
    for name in chain:
        kids = [i for i, n in enumerate(tree["nodes"]) if n["parent"] == at and n["name"] == name]
        assert len(kids) == 1, (name, [n["name"] for n in tree["nodes"] if n["parent"] == at])
        at = kids[0]
    return tree["nodes"][at]


@pytest.mark.parametrize("args", [
    ("munmap", "--folio-size", "64K"),
    ("munmap", "--folio-size", "16K", "--arch", "x86"),
    ("munmap", "--folio-size", "64K", "--without", "zap-batch"),
    ("fork", "--folio-size", "64K"),
    ("reclaim-file", "--lru", "mglru"),
    ("reclaim-file", "--lru", "classic"),
    ("exit", "--iterations", "3"),
])
def test_tree_adds_up_to_the_modelled_time(ptelab, args):
    d = ptelab("run", *args, "--size", "16M", "--json", check_json=True)
    tree = d["perf_tree"]
    assert not tree["flat"]
    assert tree["total_ns"] == pytest.approx(d["modelled_ns"], rel=1e-6)
    nodes = tree["nodes"]
    assert sum(n["self"] for n in nodes) == pytest.approx(1.0, rel=1e-6)
    # a node's children share is its self plus its callees', parents first
    for i, n in enumerate(nodes):
        kids = [k for k in nodes if k["parent"] == i]
        assert n["children"] == pytest.approx(n["self"] + sum(k["children"] for k in kids),
                                              rel=1e-4, abs=1e-6)
        assert n["parent"] < i
    # folded to functions: children >= self, both at most the whole
    for name, f in d["perf"].items():
        assert 0 <= f["self"] <= f["children"] <= 1 + 1e-6, name


def test_munmap_self_times_are_their_own_events(ptelab):
    d = ptelab("run", "munmap", "--size", "16M", "--folio-size", "64K", "--json",
               check_json=True)
    c, ev, total = costs(d["profile"]), d["events"], d["modelled_ns"]
    perf = d["perf"]
    # the buddy free of each folio: folio_free and its tail pages, nothing else
    assert perf["free_folio"]["self"] * total == pytest.approx(
        ev["folio_free"] * c["folio_free"] + ev["free_tail_page"] * c["free_tail_page"], rel=1e-6)
    assert perf["free_folio"]["calls"] == ev["folio_free"] == 256
    # one rmap call per folio (zap-batch); the whole unmap under do_munmap
    assert perf["folio_remove_rmap_ptes"]["calls"] == 256
    assert perf["do_munmap"]["children"] == pytest.approx(1.0, rel=1e-6)
    t = d["perf_tree"]
    zap = node(t, "do_munmap", "unmap_vmas", "zap_pte_range")
    assert zap["calls"] == 8  # one per 2M of page table
    node(t, "do_munmap", "unmap_vmas", "zap_pte_range", "zap_present_ptes",
         "folio_remove_rmap_ptes")
    node(t, "do_munmap", "tlb_finish_mmu", "tlb_flush_mmu")


def test_per_pte_zap_calls_rmap_per_page(ptelab):
    d = ptelab("run", "munmap", "--size", "16M", "--folio-size", "64K", "--without",
               "zap-batch", "--json", check_json=True)
    assert d["perf"]["folio_remove_rmap_ptes"]["calls"] == 4096


def test_reclaim_profiles_name_the_rmap_walk(ptelab):
    d = ptelab("run", "reclaim-file", "--size", "16M", "--lru", "classic", "--json",
               check_json=True)
    perf = d["perf"]
    for fn in ("shrink_inactive_list", "folio_referenced", "folio_referenced_one",
               "rmap_walk_file", "page_vma_mapped_walk"):
        assert perf[fn]["children"] > 0, fn
    # folio_referenced calls folio_referenced_one through the rmap walk
    assert perf["folio_referenced"]["children"] >= perf["folio_referenced_one"]["children"]


def test_sim_workload_call_graph_of_every_agent(ptelab):
    d = ptelab("run", "max-guest-memory", "--arch", "x86", "--size", "64M",
               "--host-memory", "48M", "--vcpus", "4", "--json", check_json=True)
    tree = d["perf_tree"]
    assert not tree["flat"] and tree["root"] == "max_guest_memory_test"
    nodes = tree["nodes"]
    assert all(0 <= n["parent"] < i for i, n in enumerate(nodes) if i)
    assert d["perf"]["kswapd"]["children"] > 0

    def path(i):
        p = []
        while i > 0:
            p.append(nodes[i]["name"])
            i = nodes[i]["parent"]
        return p[::-1]

    # folio_referenced is reached only through kswapd's (or direct reclaim's)
    # shrink_folio_list, and its rmap walk is a child of its own node
    paths = [path(i) for i, n in enumerate(nodes) if n["name"] == "rmap_walk_file"]
    assert any(p[-2:] == ["folio_referenced", "rmap_walk_file"] for p in paths), paths
    # shares are printed with 6 significant digits (%.6g): each may be off by
    # half a unit in the sixth digit, the parent's and every child's
    for i, n in enumerate(nodes):
        if i:
            kids = [c["children"] for c in nodes if c["parent"] == i]
            assert sum(kids) <= n["children"] + 5e-7 * (len(kids) + 1), n["name"]


def test_report_prints_functions_and_the_call_graph(ptelab):
    p = ptelab("run", "munmap", "--size", "16M", "--folio-size", "64K", "--report")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "modelled perf profile of munmap" in out and "call graph" in out
    graph = out.split("call graph", 1)[1].splitlines()

    def indent(name):
        ln, = [ln for ln in graph if ln.rstrip().endswith("  " + name)]
        return len(ln.rstrip()) - len(name) - len(ln.rstrip()[:-len(name)].rstrip())

    # callees indented under their callers
    assert indent("do_munmap") < indent("unmap_vmas") < indent("zap_pte_range")


@needs_73
def test_kernel_backend_contpte_ptep_get_is_a_frame(ptelab):
    d = ptelab("run", "mlock-loop", "--iterations", "4", "--impl", "linux-7.3", "--json",
               check_json=True)
    f = d["perf"]["contpte_ptep_get"]
    assert f["calls"] > 0 and f["children"] > 0
    # it is reached through the API's ptep_get
    assert d["perf"]["ptep_get"]["children"] >= f["children"]


def test_no_perf_outside_the_child(tmp_path):
    # check (random sequences) has no measured phase: runs still succeed
    p = subprocess.run([str(ROOT / "ptelab"), "run", "fuzz", "--iterations", "2", "--json"],
                       capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("args", [("munmap", "--folio-size", "64K"),
                                  ("reclaim-file", "--lru", "classic"),
                                  ("mlock-loop", "--iterations", "3")])
def test_the_profile_changes_nothing_it_watches(ptelab, args):
    size = () if args[0] == "mlock-loop" else ("--size", "16M")
    on = ptelab("run", *args, *size, "--json", check_json=True)
    off = ptelab("run", *args, *size, "--no-perf", "--json", check_json=True)
    assert off["perf"] is None and off.get("perf_tree") is None
    assert on["perf"]
    for k in ("events", "setup_events", "modelled_ns", "results", "invariants"):
        assert on[k] == off[k], k


def test_report_and_no_perf_conflict_in_one_line(ptelab):
    p = ptelab("run", "munmap", "--no-perf", "--report")
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert "--no-perf" in p.stderr
