# SPDX-License-Identifier: GPL-2.0-only
"""S3 (max-guest-memory) at small scale: exact counts where memory is
ample, the seed's mechanism and the invariants under memory pressure,
determinism, and the bad-input lines."""
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PTELAB = str(ROOT / "ptelab")


def run(*args):
    return subprocess.run([PTELAB, "run", "max-guest-memory", *args], capture_output=True,
                          text=True, timeout=600)


def run_json(*args):
    p = run(*args, "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_ample_memory_exact_counts():
    # 4096 guest pages on a host that holds them all, v2's base (6.4: the
    # CR0.WP reset keeps the EPT root): run1 faults each page once (EPT
    # violation, page installed), run2 finds every entry and only stores:
    # 1024 stores per vCPU at the profile's mem_access (2 ns)
    j = run_json("--arch", "x86", "--size", "16M", "--host-memory", "64M", "--vcpus", "4",
                 "--variant", "v2")
    r = j["results"]
    assert j["invariants"]["ok"], j["invariants"]
    assert r["run1_secondary_faults"] == 4096 and r["run1_swap_ins"] == 0
    for k in ("secondary_faults", "swap_ins", "swap_outs", "mmu_lock_write", "mmu_lock_read",
              "notifier_calls", "remote_tlb_flushes", "kswapd_reclaimed", "direct_reclaimed"):
        assert r[k] == 0, k
    assert r["reset_s"] == 0
    assert j["modelled_ns"] == pytest.approx(1024 * 2)
    assert j["modelled_ns"] == pytest.approx(r["run2_s"] * 1e9)


def test_6_2_reset_zaps_the_root_exact_counts():
    # v1's base (6.2): every vCPU's CR0.WP toggle unloads the root and the
    # last put zaps it (one read lock, 4096 leaves), so run2 faults every
    # page once more. Per page of a vCPU, x86-kvm-host costs: the walk that
    # misses and the replay (2 mem_access, 2 ns each), the exit
    # (secondary_fault 1000), GUP's PTE load (pte_read 2) and the page's
    # get/put (2 folio_ref_atomic, 12 each), the leaf's read (spte_read 5)
    # and cmpxchg (spte_atomic 12), read_lock (mmu_lock_read 20): 1067 ns;
    # and once per vCPU the new root's flush at entry (tlbi_local 100); and
    # the cache model's misses (cache_miss 30 each): one per 4 KiB page of
    # the vCPU's PTEs (2) and of its pages' struct pages (16), the streamer
    # fetching the rest of each page. The four vCPUs' faults take turns on
    # the lock word: an acquire or release after another vCPU's fetches its
    # line (mmu_lock_bounce 150), a quarter of them on each vCPU's clock.
    j = run_json("--arch", "x86", "--size", "16M", "--host-memory", "64M", "--vcpus", "4",
                 "--variant", "v1")
    r, e = j["results"], j["events"]
    assert j["invariants"]["ok"], j["invariants"]
    assert r["secondary_faults"] == 4096 and r["mmu_lock_read"] == 4096
    assert e["tlbi_local"] == 4 and e["spte_atomic"] == 4096 and e["secondary_fault"] == 4096
    for k in ("swap_ins", "mmu_lock_write", "remote_tlb_flushes", "fault_retries"):
        assert r[k] == 0, k
    assert r["reset_s"] > 0
    bounces = e["mmu_lock_bounce"]
    assert 0 < bounces <= 2 * 4096
    extra = j["modelled_ns"] - (1024 * 1067 + 100 + (2 + 16) * 30)
    assert extra == pytest.approx(150 * round(extra / 150))
    assert bounces / 4 <= extra / 150 <= bounces / 4 + 4


PRESSURE = ("--arch", "x86", "--size", "32M", "--host-memory", "32M", "--vcpus", "8")


@pytest.fixture(scope="module")
def before_after():
    return (run_json(*PRESSURE, "--without", "spte-test-clear-young"), run_json(*PRESSURE))


def test_pressure_swaps_and_holds_invariants(before_after):
    for j in before_after:
        r = j["results"]
        assert j["invariants"]["ok"], j["invariants"]
        # the guest is larger than what the host manages: run2 swaps in and out
        assert r["swap_ins"] > 0 and r["swap_outs"] > 0 and r["secondary_faults"] > 0
        assert r["kswapd_reclaimed"] + r["direct_reclaimed"] > 0


def test_seed_replaces_per_page_aging_under_the_write_lock(before_after):
    before, after = (j["results"] for j in before_after)
    # before: folio_referenced_one asks KVM per page (clear_flush_young, write lock)
    assert before["age_calls"] > 0 and before["test_clear_young_fast"] == 0
    assert before["mmu_lock_write"] >= before["age_calls"]
    # after: look-around asks 64 pages at a time, locklessly
    assert after["age_calls"] == 0 and after["test_clear_young_fast"] > 0
    assert after["mmu_lock_write"] < before["mmu_lock_write"]
    assert before_after[1]["modelled_ns"] < before_after[0]["modelled_ns"]
    bp = before_after[0]["kswapd_profile"]
    ap = before_after[1]["kswapd_profile"]
    assert bp["kvm_mmu_notifier_clear_flush_young"] > 0 and "kvm_mmu_notifier_clear_flush_young" not in ap
    assert ap["__mmu_notifier_test_clear_young"] > 0 and "__mmu_notifier_test_clear_young" not in bp
    for p in (bp, ap):
        # inclusive shares: a caller's covers its callees'
        assert p["kswapd"] == pytest.approx(1.0)
        assert p["folio_referenced"] >= p["folio_referenced_one"] - 1e-12


def test_kswapd_branch_through_folio_referenced(before_after):
    # the published profiles expand kswapd's call paths through
    # folio_referenced: on that branch rmap_walk_file is folio_referenced's
    # rmap walk only, while the whole profile also counts try_to_unmap's
    for j in before_after:
        br, whole = j["kswapd_folio_referenced_branch"], j["kswapd_profile"]
        assert br["folio_referenced"] == pytest.approx(whole["folio_referenced"])
        assert br["shrink_folio_list"] == pytest.approx(whole["shrink_folio_list"])
        assert br["folio_referenced"] >= br["rmap_walk_file"] - 1e-12
        assert "try_to_unmap" not in br and "shmem_writeout" not in br
        if whole.get("try_to_unmap", 0) > 0.001:
            assert whole["rmap_walk_file"] > br["rmap_walk_file"] + 0.0009
        for fn, v in br.items():
            assert v <= whole[fn] + 1e-12, fn
    # before: the write lock on the branch is clear_flush_young's alone
    b = before_after[0]
    assert b["kswapd_folio_referenced_branch"]["_raw_write_lock"] <= \
        b["kswapd_folio_referenced_branch"]["kvm_mmu_notifier_clear_flush_young"] + 1e-12


def test_deterministic_for_a_seed(before_after):
    again = run_json(*PRESSURE)
    assert again["results"] == before_after[1]["results"]
    assert again["modelled_ns"] == before_after[1]["modelled_ns"]


@pytest.mark.parametrize("lru", ["classic", "mglru"])
@pytest.mark.parametrize("variant", ["v2", "6.12", "6.15", "7.3"])
def test_variants_and_lrus_run_clean(variant, lru):
    j = run_json(*PRESSURE, "--variant", variant, "--lru", lru)
    assert j["invariants"]["ok"], j["invariants"]
    assert j["results"]["swap_ins"] > 0


def test_6_15_ages_without_the_lock():
    old = run_json(*PRESSURE, "--variant", "6.12")["results"]
    new = run_json(*PRESSURE, "--variant", "6.15")["results"]
    # 6.12: every clear_young takes the write lock; 6.15 ages locklessly and
    # the write lock is left to invalidations (start and end of each unmap)
    assert old["age_calls"] > 0 and new["age_calls"] > 0
    assert old["mmu_lock_write"] >= old["age_calls"]
    assert new["mmu_lock_write"] < old["mmu_lock_write"]
    assert new["mmu_lock_write"] <= 2 * (new["swap_outs"] + new["kswapd_reclaimed"] + new["direct_reclaimed"])


def test_arm64_7x_takes_the_lock_once_per_batch():
    # S1 x S3: 64K shmem folios on arm64, no lockless aging there; 6.12
    # asks per PTE under the write lock, 7.x once per contiguous batch
    args = ("--arch", "arm64", "--size", "32M", "--host-memory", "32M", "--vcpus", "4",
            "--folio-size", "64K", "--lru", "mglru")
    old = run_json(*args, "--variant", "6.12")
    new = run_json(*args, "--variant", "7.3")
    for j in (old, new):
        assert j["invariants"]["ok"], j["invariants"]
    assert new["results"]["age_calls"] < old["results"]["age_calls"]


@pytest.mark.parametrize("args,needle", [
    (("--variant", "7.3", "--without", "spte-test-clear-young"), "applies to variants v1 and v2"),
    (("--arch", "x86", "--profile", "xeon-silver-4210r"), "has no swap device"),
    (("--vcpus", "0"), "--vcpus takes a number"),
    (("--size", "16M", "--host-memory", "8M"), "--host-memory must be"),
    (("--size", "4K", "--vcpus", "4"), "less than a page"),
])
def test_bad_input_one_line(args, needle):
    p = run(*args)
    assert p.returncode != 0 and p.stdout == ""
    line, = p.stderr.strip().splitlines()
    assert needle in line


def test_free_reclaim_passes_do_not_livelock(tmp_path):
    # A profile where a reclaim pass outside the LRU costs nothing
    # (shrink_slab 0): kswapd retrying passes that find the generation
    # being made by a direct reclaimer waiting for the lru_lock at the
    # same clock must let it run (cond_resched), not spin forever.
    (tmp_path / "profiles").mkdir()
    src = (ROOT / "profiles" / "x86-kvm-host.prof").read_text()
    assert "\ncost.shrink_slab = " in src
    prof = "".join("cost.shrink_slab = 0\n" if l.startswith("cost.shrink_slab =") else l
                   for l in src.splitlines(keepends=True))
    (tmp_path / "profiles" / "x86-kvm-host.prof").write_text(prof)
    p = subprocess.run([PTELAB, "run", "max-guest-memory", "--arch", "x86", "--size", "128M",
                        "--host-memory", "96M", "--vcpus", "4", "--variant", "v2", "--json",
                        "--timeout", "60"], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PTELAB_HOME": str(tmp_path)})
    assert p.returncode == 0, p.stderr
    j = json.loads(p.stdout)
    assert j["invariants"]["ok"], j["invariants"]
    assert j["events"]["shrink_slab"] > 0 and j["results"]["kswapd_reclaimed"] > 0
