# SPDX-License-Identifier: GPL-2.0-only
"""The ptelab command line: bad input, the JSON contract, the S5 claims."""
import json
import re

import pytest

from conftest import ROOT

BAD = [
    (["run", "nosuch"], "unknown workload"),
    (["run"], "needs a workload"),
    (["run", "munmap", "--size", "12Q"], "malformed size"),
    (["run", "munmap", "--size", "-5"], "malformed size"),
    (["run", "munmap", "--folio-size", "48K"], "power of two"),
    (["run", "munmap", "--folio-size", "4M"], "power of two"),
    (["run", "munmap", "--size", "5000"], "multiple of 4K"),
    (["run", "munmap", "--profile", "nosuch"], "unknown profile"),
    (["run", "munmap", "--profile", "../x"], "bad profile name"),
    (["run", "munmap", "--arch", "riscv"], "unknown arch"),
    (["run", "munmap", "--impl", "linux-9.9"], "not fetched"),
    (["run", "munmap", "--impl", "bogus"], "unknown impl"),
    (["run", "munmap", "--impl", "tree:/nonexistent"], "does not exist"),
    (["run", "munmap", "--impl", "tree:/tmp"], "not a kernel tree"),
    (["run", "munmap", "--arch", "x86", "--impl", "tree:tests"], "not a kernel tree"),
    (["kernels", "fetch", "x;y"], "bad kernel version"),
    (["kernels"], "usage"),
    (["run", "munmap", "--without", "nosuch"], "unknown switch"),
    (["run", "munmap", "--arch", "x86", "--profile", "arm64-generic"], "is for arm64"),
    (["run", "munmap", "--pmd-mapped"], "needs --folio-size 2M"),
    (["run", "munmap", "--cpus", "0"], "--cpus"),
    (["run", "munmap", "--size"], "needs a value"),
    (["run", "munmap", "--bogus", "1"], "unknown option"),
    (["reproduce", "S99"], "unknown experiment"),
    (["reproduce", "--jobs", "0"], "--jobs takes"),
    (["reproduce", "--jobs", "2x"], "--jobs takes"),
    (["frobnicate"], "unknown command"),
]


@pytest.mark.parametrize("args,needle", BAD)
def test_bad_input_one_clear_line(ptelab, args, needle):
    p = ptelab(*args)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("ptelab: error: ")
    assert needle in lines[0]
    assert p.stdout == ""


def test_list(ptelab):
    p = ptelab("list")
    assert p.returncode == 0
    for word in ("munmap", "xeon-silver-4210r", "arm64-generic", "zap-batch", "ref"):
        assert word in p.stdout


def _munmap(ptelab, *extra):
    return ptelab("run", "munmap", "--arch", "arm64", "--size", "32M",
                  "--folio-size", "64K", "--json", *extra, check_json=True)


def test_json_contract(ptelab):
    j = _munmap(ptelab)
    for key in ("workload", "arch", "impl", "profile", "params", "events",
                "modelled_ns", "host_ns", "invariants"):
        assert key in j
    assert j["workload"] == "munmap" and j["arch"] == "arm64" and j["impl"] == "ref"
    assert j["invariants"] == {"ok": True, "counts": {}, "known": {}, "violations": []}
    for name in ("pte_read", "pte_write", "pte_atomic", "tlbi_page", "tlbi_range",
                 "tlbi_asid", "dsb", "tlb_hit", "tlb_miss", "ptw", "fold", "unfold",
                 "folio_ref_atomic", "mapcount_atomic", "rmap_call", "lock_acquire",
                 "lock_contended", "fault", "notifier_call"):
        assert name in j["events"]
    assert j["modelled_ns"] > 0


@pytest.mark.parametrize("args", [["munmap", "--size", "128M"], ["exit", "--size", "4M"],
                                  ["young-scan", "--size", "16M"], ["fuzz", "--iterations", "1"]])
def test_host_phase_ns_is_part_of_host_ns(ptelab, args):
    """JSON host_phase_ns: the host time of the measured phase alone, beside
    the whole run's (fuzz's measured phase is the whole run)."""
    j = ptelab("run", *args, "--json", check_json=True)
    assert 0 < j["host_phase_ns"] <= j["host_ns"], (j["host_phase_ns"], j["host_ns"])


def test_zap_batch_saves_16x(ptelab):
    after = _munmap(ptelab)
    before = _munmap(ptelab, "--without", "zap-batch")
    ea, eb = after["events"], before["events"]
    assert eb["rmap_call"] == 16 * ea["rmap_call"]
    assert eb["folio_ref_atomic"] == 16 * ea["folio_ref_atomic"]
    assert before["results"] == after["results"]  # same final state
    assert before["invariants"]["ok"] and after["invariants"]["ok"]
    assert before["modelled_ns"] > after["modelled_ns"]
    assert before["params"]["without"] == ["zap-batch"]


# the smallest asm/pgtable.h with a dispatcher block: contpte on, and off
PGTABLE_H = """#ifdef CONFIG_ARM64_CONTPTE
#define ptep_get __ptep_get
#else /* CONFIG_ARM64_CONTPTE */
#define ptep_get __ptep_get
#endif /* CONFIG_ARM64_CONTPTE */
"""


def _fake_tree(tmp_path, source=None, pgtable_h=PGTABLE_H):
    (tmp_path / "Makefile").write_text("VERSION = 7\nPATCHLEVEL = 9\nSUBLEVEL = 1\n")
    if source is not None:
        d = tmp_path / "arch" / "arm64" / "mm"
        d.mkdir(parents=True)
        (d / "contpte.c").write_text(source)
    if pgtable_h is not None:
        d = tmp_path / "arch" / "arm64" / "include" / "asm"
        d.mkdir(parents=True)
        (d / "pgtable.h").write_text(pgtable_h)
    return f"tree:{tmp_path}"


def _one_error(p):
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert lines[-1].startswith("ptelab: error: ")
    # at most a progress line before it
    assert len(lines) <= 2
    return lines[-1]


def test_tree_without_contpte(ptelab, tmp_path):
    line = _one_error(ptelab("run", "munmap", "--size", "4M", "--impl", _fake_tree(tmp_path)))
    assert "7.9.1" in line and "no arch/arm64/mm/contpte.c" in line


def test_tree_without_pgtable_h(ptelab, tmp_path):
    impl = _fake_tree(tmp_path, "int x;\n", pgtable_h=None)
    line = _one_error(ptelab("run", "munmap", "--size", "4M", "--impl", impl))
    assert "7.9.1" in line and "no arch/arm64/include/asm/pgtable.h" in line


@pytest.mark.parametrize("text,marker", [
    ("static int nothing;\n", "#ifdef CONFIG_ARM64_CONTPTE"),
    ("#ifdef CONFIG_ARM64_CONTPTE\n#if X\n#else\n#endif\n", "#else /* CONFIG_ARM64_CONTPTE */"),
    ("#ifdef CONFIG_ARM64_CONTPTE\n#else /* CONFIG_ARM64_CONTPTE */\n", "#endif /* CONFIG_ARM64_CONTPTE */"),
])
def test_tree_without_dispatcher_markers(ptelab, tmp_path, text, marker):
    impl = _fake_tree(tmp_path, "int x;\n", pgtable_h=text)
    line = _one_error(ptelab("run", "munmap", "--size", "4M", "--impl", impl))
    assert "pgtable.h of kernel 7.9.1" in line and f"no '{marker}' marker" in line


def test_tree_that_does_not_compile(ptelab, tmp_path):
    impl = _fake_tree(tmp_path, "#include <linux/mm.h>\nint broken( {\n")
    line = _one_error(ptelab("run", "munmap", "--size", "4M", "--impl", impl))
    assert "does not compile against the shim" in line
    assert "7.9.1" in line and "error" in line.split("shim:")[1]


def _runs(ptelab, *args):
    p = ptelab(*args)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


def test_young_scan_batching_and_early_exit(ptelab):
    after, = _runs(ptelab, "run", "young-scan", "--size", "16M", "--json")
    before, = _runs(ptelab, "run", "young-scan", "--size", "16M", "--json",
                    "--without", "young-batch")
    no_exit, = _runs(ptelab, "run", "young-scan", "--size", "16M", "--json",
                     "--without", "young-batch", "--without", "ptep-get-early-exit")
    per_block = lambda j: j["results"]["pte_read_per_block"]
    assert per_block(before) > 10 * per_block(after)
    assert per_block(no_exit) > per_block(before)  # S4 saves loads per ptep_get
    assert before["results"]["referenced"] == after["results"]["referenced"]
    for j in (after, before, no_exit):
        assert j["invariants"]["ok"]


def _fetched(*names):
    return all((ROOT / "build" / "kernels" / n).is_dir() for n in names)


@pytest.mark.skipif(not _fetched("linux-6.12", "linux-7.3"),
                    reason="kernel sources not fetched (ptelab kernels fetch 6.12 7.3)")
def test_kernel_backends_side_by_side(ptelab):
    runs = _runs(ptelab, "run", "young-scan", "--size", "16M", "--json",
                 "--impl", "linux-6.12,linux-7.3,ref")
    old, new, ref = runs
    assert [r["impl"] for r in runs] == ["linux-6.12", "linux-7.3", "ref"]
    assert old["results"]["pte_read_per_block"] > 10 * new["results"]["pte_read_per_block"]
    assert old["results"]["referenced"] == new["results"]["referenced"] == ref["results"]["referenced"]
    m73, mref = (_runs(ptelab, "run", "munmap", "--size", "32M", "--json", "--impl", i)[0]
                 for i in ("linux-7.3", "ref"))
    assert m73["results"] == mref["results"] and m73["invariants"]["ok"]
    # the folds of a tree's gather are inferred from its loads: the same as the
    # reference's exact count, for the loop that stops early (7.3) and the one
    # that does not (6.12), on young-and-dirty blocks and on young, clean ones
    # and the bit tests beyond one per entry loaded are counted as the tree's code runs
    def folds(*args):
        j, = _runs(ptelab, "run", *args, "--json")
        e = j["events"]
        return e["contpte_merge"], e["contpte_get_read"], e["contpte_test"]
    for variant in ("young-dirty", "one-young"):
        loop = ("mlock-loop", "--variant", variant, "--size", "16M", "--iterations", "2")
        assert folds(*loop, "--impl", "linux-7.3") == folds(*loop)
        assert (folds(*loop, "--impl", "linux-6.12") ==
                folds(*loop, "--without", "ptep-get-early-exit"))
    scan = ("reclaim-file", "--size", "64M", "--lru", "mglru")
    f73, fref = folds(*scan, "--impl", "linux-7.3"), folds(*scan)
    assert f73 == fref and fref[0] < fref[1] / 8  # 16 loads, one fold, per young clean block


def test_mlock_loop_early_exit(ptelab):
    def run(*extra):
        j, = _runs(ptelab, "run", "mlock-loop", "--size", "16M", "--iterations", "2",
                   "--json", *extra)
        assert j["invariants"]["ok"]
        e = j["events"]
        run.tests = e["contpte_test"] / e["contpte_get"]
        return (e["contpte_get_read"] / e["contpte_get"], e["contpte_merge"] / e["contpte_get"],
                j["modelled_ns"])

    after, m_after, t_after = run()
    cheaper, m_cheaper, t_cheaper = run("--without", "ptep-get-reread")
    before, m_before, t_before = run("--without", "ptep-get-early-exit")
    # 7.3 loads the first (young and dirty) entry twice; the cheaper form once
    assert after == 2.0 and cheaper == 1.0 and before == 16.0
    assert t_cheaper < t_after < t_before
    # the old loop folds both bits of all 16 entries, the new one each bit once
    assert m_before == 32.0 and m_after == m_cheaper == 2.0
    # v7's scenarios: nothing touched in the loop, so far less time per round
    yd_after, ym_after, yt_after = run("--variant", "young-dirty")
    yd_before, ym_before, yt_before = run("--variant", "young-dirty", "--without",
                                          "ptep-get-early-exit")
    assert (yd_after, ym_after, yd_before, ym_before) == (2.0, 2.0, 16.0, 32.0)
    assert yt_after < yt_before <= t_before  # touching costs what the profile says (may be 0)
    # one young entry (page 8 of each block, from 0), none dirty: the gather still reads
    # the whole block looking for a dirty one, and folds one bit
    one_after, om_after, ot_after = run("--variant", "one-young")
    tests_after = run.tests
    one_before, om_before, ot_before = run("--variant", "one-young", "--without",
                                           "ptep-get-early-exit")
    assert one_after == one_before == 16.0 and om_after == om_before == 1.0
    # but it tests only what it still needs: after the young entry 8, each entry's dirty
    # bit alone (the old loop tests both bits of all 16: one more per entry than a load)
    assert (tests_after, run.tests) == (9.0, 16.0)
    assert ot_after < ot_before
    # nothing young or dirty (MADV_FREE, MADV_COLD): the whole block, no fold
    cold_after, cm_after, t_cold_after = run("--variant", "cold")
    cold_before, cm_before, t_cold_before = run("--variant", "cold", "--without",
                                                "ptep-get-early-exit")
    assert cold_after == cold_before == 16.0 and t_cold_after == t_cold_before
    assert run.tests == 16.0
    assert cm_after == cm_before == 0.0


def test_unknown_variant(ptelab):
    p = ptelab("run", "mlock-loop", "--variant", "warm")
    assert p.returncode == 2 and "no variant 'warm'" in p.stderr


def test_exit_variants(ptelab):
    runs = {}
    for v in ("baseline", "no-opt", "simple-full", "robust-full", "clear-ptes"):
        j, = _runs(ptelab, "run", "exit", "--variant", v, "--iterations", "12",
                   "--size", "4M", "--profile", "altra-1node", "--json")
        assert j["invariants"]["ok"], j["invariants"]
        runs[v] = j
    ev = lambda v, k: runs[v]["events"][k]
    t = lambda v: runs[v]["modelled_ns"]
    assert ev("baseline", "contpte_get") == 0           # no contiguous blocks
    assert ev("no-opt", "unfold") > 0 and ev("no-opt", "tlbi_page") > 0
    assert ev("simple-full", "unfold") == 0 and ev("simple-full", "tlbi_page") == 0
    # robust keeps the block contiguous too, and gathers twice per entry cleared
    assert ev("robust-full", "unfold") == 0 and ev("robust-full", "tlbi_page") == 0
    assert ev("robust-full", "contpte_get") > 1.5 * ev("simple-full", "contpte_get")
    assert ev("clear-ptes", "unfold") == 0
    assert t("no-opt") > 2 * t("baseline")
    assert t("clear-ptes") < t("robust-full") < t("no-opt")
    # the same pages go in every variant
    assert len({r["results"]["pages_torn_down"] for r in runs.values()}) == 1


def test_exit_full_designs_leave_a_block_across_the_ptl_drop(ptelab):
    # heaps beyond what the mmu_gather holds (~10000 pages): the per-PTE zap
    # breaks out mid-block to flush, dropping the PTL; simple and robust
    # leave that block partly cleared and still contiguous for any rmap
    # walker meanwhile, which the lab reports; clear-ptes and no-opt do not
    for v, ok in (("simple-full", False), ("robust-full", False), ("clear-ptes", True),
                  ("no-opt", True)):
        p = ptelab("run", "exit", "--variant", v, "--size", "96M", "--iterations", "4", "--json")
        j = json.loads(p.stdout)
        assert j["invariants"]["ok"] is ok, (v, j["invariants"])
        if not ok:
            assert p.returncode == 1 and set(j["invariants"]["counts"]) == {"bad_cont_block"}
            assert "lazy-MMU section" in j["invariants"]["violations"][0]


def test_exit_needs_arm64(ptelab):
    p = ptelab("run", "exit", "--arch", "x86")
    assert p.returncode == 2 and "use --arch arm64" in p.stderr


def test_reclaim_file_batched_vs_per_pte(ptelab):
    out = {}
    for lru in ("mglru", "classic"):
        for extra in ((), ("--without", "young-batch")):
            j, = _runs(ptelab, "run", "reclaim-file", "--size", "64M", "--lru", lru,
                       "--profile", "arm64-server-32c", "--json", *extra)
            assert j["invariants"]["ok"]
            r = j["results"]
            assert r["reclaimed_bytes"] >= r["requested_bytes"]
            assert r["reclaimed_bytes"] < r["requested_bytes"] + 64 * 1024
            out[(lru, bool(extra))] = j
    for lru in ("mglru", "classic"):
        after, before = out[(lru, False)]["events"], out[(lru, True)]["events"]
        assert before["young_atomic"] > 3 * after["young_atomic"]
        assert before["young_read"] > 3 * after["young_read"]
        assert out[(lru, True)]["modelled_ns"] > out[(lru, False)]["modelled_ns"]


def test_reclaim_bad_input(ptelab):
    p = ptelab("run", "reclaim-file", "--size", "64M", "--reclaim", "128M")
    assert p.returncode == 2 and "--reclaim" in p.stderr
    p = ptelab("run", "reclaim-file", "--lru", "lfu")
    assert p.returncode == 2 and "--lru" in p.stderr


def test_profile_rejects_costed_attribution_counter(ptelab, tmp_path):
    import shutil
    import os
    home = tmp_path / "home"
    (home / "profiles").mkdir(parents=True)
    (home / "profiles" / "bad.prof").write_text("name = bad\narch = arm64\ncost.young_read = 1\n")
    shutil.copytree(ROOT / "data", home / "data")
    env = dict(os.environ, PTELAB_HOME=str(home))
    import subprocess
    from conftest import _binary
    p = subprocess.run([_binary(), "run", "munmap", "--size", "4M", "--profile", "bad"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 2 and "counts loads already" in p.stderr


def test_check_ref_holds(ptelab):
    p = ptelab("check", "--sequences", "2")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "all invariants held" in p.stdout


def test_check_bad_option(ptelab):
    p = ptelab("check", "--sequences", "0")
    assert p.returncode == 2 and "--sequences" in p.stderr


@pytest.mark.skipif(not _fetched("linux-7.3"), reason="kernel source not fetched (ptelab kernels fetch 7.3)")
def test_check_catches_a_patched_kernel_losing_dirty(ptelab, tmp_path):
    import shutil
    tree = tmp_path / "linux"
    shutil.copytree(ROOT / "build" / "kernels" / "linux-7.3", tree)
    src = tree / "arch" / "arm64" / "mm" / "contpte.c"
    text = src.read_text()
    # contpte_convert: forget the dirty state of the entries being repainted
    needle = "\t\tif (pte_dirty(ptent))\n\t\t\tpte = pte_mkdirty(pte);\n"
    assert needle in text
    src.write_text(text.replace(needle, "", 1))
    # is it caught: the first failing configuration is enough (check --first)
    p = ptelab("check", "--first", "--jobs", "1", "--impl", f"tree:{tree}", "--sequences", "32",
               "--json")
    assert p.returncode == 1
    rows = [json.loads(line)["row"] for line in p.stdout.splitlines() if line.startswith('{"row"')]
    assert any(r["counts"].get("lost_dirty") for r in rows)


def test_reproduce_on_every_core_prints_what_one_process_does(ptelab, tmp_path):
    """Experiments run in forked workers, the longest first; stdout comes
    back in the order given, byte for byte what --jobs 1 prints, and each
    worker's --out files are there."""
    args = ["reproduce", "S5", "S4", "S2", "--size", "64M"]
    one = ptelab(*args, "--jobs", "1")
    two = ptelab(*args, "--jobs", "2", "--out", str(tmp_path))
    assert one.returncode == two.returncode == 0, two.stderr[-2000:]
    assert one.stdout == two.stdout
    heads = [l.split(":")[0] for l in two.stdout.splitlines() if l.startswith("== ")]
    assert heads == ["== S2", "== S5", "== S4"]  # reproduce's own order
    for e in ("S5", "S4", "S2"):
        assert (tmp_path / f"{e}.tsv").stat().st_size > 0


def _jsonl_runs(d, exp):
    drop = ("command", "version", "host_ns", "host_phase_ns", "peak_rss_kb")
    return [{k: v for k, v in json.loads(l).items() if k not in drop}
            for l in (d / f"{exp}.jsonl").read_text().splitlines()]


def test_reproduce_runs_of_one_experiment_on_every_core(ptelab, tmp_path):
    """S3's rows run in forked workers (run_many): the same table and the
    same JSON lines, row for row, as one process running them in turn."""
    one, two = tmp_path / "one", tmp_path / "two"
    a = ptelab("reproduce", "S3", "--size", "64M", "--jobs", "1", "--out", str(one))
    b = ptelab("reproduce", "S3", "--size", "64M", "--jobs", "2", "--out", str(two))
    assert a.returncode == b.returncode == 0, b.stderr[-2000:]
    assert a.stdout == b.stdout
    ra, rb = _jsonl_runs(one, "S3"), _jsonl_runs(two, "S3")
    assert len(ra) == 7 and ra == rb


def test_reproduce_two_node_rows_are_the_one_node_events_costed(ptelab, tmp_path):
    """S2's two-node rows differ only in the cost profile: reproduce costs
    the one-node run's events with altra-2node instead of simulating again,
    says so (derived_from, no host time), and gets what a run gets."""
    p = ptelab("reproduce", "S2", "--size", "64M", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr[-2000:]
    rows = _jsonl_runs(tmp_path, "S2")
    for one, two in zip(rows[0::2], rows[1::2]):
        assert two["derived_from"] == one["row"] and "derived_from" not in one
        assert two["profile"] == "altra-2node" and two["events"] == one["events"]
    raw = [json.loads(l) for l in (tmp_path / "S2.jsonl").read_text().splitlines()]
    assert all(r["host_ns"] == 0 for r in raw[1::2]) and all(r["host_ns"] > 0 for r in raw[0::2])
    ran = ptelab("run", "exit", "--variant", "no-opt", "--iterations", "62", "--without",
                 "ptep-get-early-exit", "--profile", "altra-2node", "--json", check_json=True)
    two = next(r for r in rows if r["row"] == "no-opt on altra-2node")
    assert ran["events"] == two["events"] and ran["modelled_ns"] == two["modelled_ns"]


def test_s5_era_switches_exact_counts(ptelab):
    """munmap of 16M in 64K folios: 256 folios, 8 PTE tables, 10 folio
    batches (two mmu_gather flushes: 255 folios, then 1). The two 6.10
    changes S5's kernel lacked, each off alone and together."""
    def events(*extra):
        j, = _runs(ptelab, "run", "munmap", "--arch", "x86", "--folio-size", "64K",
                   "--size", "16M", "--json", "--no-perf", *extra)
        assert j["invariants"]["ok"] and j["results"]["rss_after"] == 0
        return j["events"]
    folios, batches = 256, 10
    base = events()
    assert base["deferred_split"] == 0 and base["memcg_uncharge"] == 0
    # 6.9 rmap: every fully batched unmap still queues the folio; free dequeues it
    ds = events("--without", "deferred-split-partial")
    assert ds["deferred_split"] == 2 * folios
    assert ds["lock_acquire"] == base["lock_acquire"] + 2 * folios
    # 7.3 frees an order-4 folio (not a pcp order) under the zone lock, one
    # each; 6.9's release_pages freed each large folio alone: its own lruvec
    # lock, memcg uncharge and pcp/zone lock, the batches' lruvec locks never taken
    ptl = base["lock_acquire"] - batches - folios
    assert ptl == 16 * 1024 * 1024 // (2 << 20)  # one PTE lock per table zapped
    fb = events("--without", "folio-batch-free")
    assert fb["memcg_uncharge"] == folios
    assert fb["lock_acquire"] == ptl + 2 * folios
    both = events("--without", "deferred-split-partial", "--without", "folio-batch-free")
    assert both["lock_acquire"] == ptl + 4 * folios
    # a pcp order (32K: order 3) shares the batch's lock: no zone lock per folio
    j, = _runs(ptelab, "run", "munmap", "--arch", "x86", "--folio-size", "32K",
               "--size", "16M", "--json", "--no-perf")
    assert j["events"]["lock_acquire"] < 512  # per-folio zone locks would make it over 512
    for e in ("folio_free", "lru_move", "rmap_call", "pte_atomic"):
        assert base[e] == ds[e] == fb[e] == both[e], e
    # the per-PTE zap (before) queues a folio once, the era switch changes nothing there
    b0 = events("--without", "zap-batch")
    b1 = events("--without", "zap-batch", "--without", "deferred-split-partial")
    assert b0["deferred_split"] == b1["deferred_split"] == 2 * folios


def test_pvmw_steps_skip_the_batch(ptelab):
    """page_vma_mapped_walk examines every PTE slot of a 64K folio one by
    one without young-batch; with it, folio_referenced_one skips the
    batch, so the walk's steps fall by far more than 8x for 16-page folios,
    and the modelled time with them. The reclaim itself is the same."""
    def run(*extra):
        j, = _runs(ptelab, "run", "reclaim-file", "--size", "64M", "--lru", "classic",
                   "--json", "--no-perf", *extra)
        assert j["invariants"]["ok"]
        return j
    after, before = run(), run("--without", "young-batch")
    assert before["events"]["pvmw_step"] > 8 * after["events"]["pvmw_step"] > 0
    assert before["results"]["reclaimed_bytes"] == after["results"]["reclaimed_bytes"]


def test_readme_exit_status_table_is_the_one_every_command_uses(ptelab):
    """README.md states the exit statuses once, in one table; what it says of 0
    and 2 holds for a run (check's 4 and the findings' 1 have their own tests:
    test_hardening.py, test_core.py)."""
    text = (ROOT / "README.md").read_text()
    start = text.index("| status | meaning |")
    rows = [l for l in text[start:].splitlines()[2:] if l.startswith("| ")]
    rows = rows[:next(i for i, l in enumerate(text[start:].splitlines()[2:])
                     if not l.startswith("| "))]
    assert [int(r.split("|")[1]) for r in rows] == [0, 1, 2, 3, 4]
    assert text.count("| status | meaning |") == 1
    assert ptelab("run", "munmap", "--size", "4M").returncode == 0
    assert ptelab("run", "munmap", "--size", "4Q").returncode == 2


def _documented_json_keys():
    """The keys README's "Reading the JSON" table names in its first column."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Reading the JSON", 1)[1].split("\n## ", 1)[0]
    keys = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            keys.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return keys


def test_every_json_key_is_documented(ptelab):
    """run --json's objects: a schema version, and no key README does not explain
    (a plain run, one with its perf profile, S3's guest with kswapd's profiles)."""
    docs = _documented_json_keys()
    runs = [ptelab("run", "munmap", "--size", "16M", "--json", check_json=True),
            ptelab("run", "young-scan", "--size", "16M", "--json", "--no-perf", check_json=True),
            ptelab("run", "max-guest-memory", "--size", "250M", "--host-memory", "250M",
                   "--folio-size", "64K", "--json", check_json=True)]
    for r in runs:
        assert r["schema"] == 1
        missing = set(r) - docs
        assert not missing, f"{r['workload']}: keys README does not document: {sorted(missing)}"
    assert {"kswapd_profile", "kswapd_folio_referenced_branch", "perf_tree"} <= set(runs[0]) | set(runs[2])
