# SPDX-License-Identifier: GPL-2.0-only
"""The lab's fork and madvise workloads (the shapes `ptelab host` times):
exact counts that follow from the kernel's code, at a small size."""
import pytest

SIZE = "16M"
PAGES = 16 << 20 >> 12


def run(ptelab, *args):
    d = ptelab("run", *args, "--size", SIZE, "--json", check_json=True)
    assert d["invariants"]["ok"], d["invariants"]["violations"]
    return d


@pytest.mark.parametrize("arch", ["arm64", "x86"])
@pytest.mark.parametrize("folio_kb", [4, 16, 64])
def test_fork_shares_every_page_once_per_folio_run(ptelab, arch, folio_kb):
    folios = PAGES // (folio_kb // 4)
    on = run(ptelab, "fork", "--arch", arch, "--folio-size", f"{folio_kb}K")
    off = run(ptelab, "fork", "--arch", arch, "--folio-size", f"{folio_kb}K",
              "--without", "fork-batch")
    for d in (on, off):
        assert d["measured"] == "fork"
        assert d["results"]["mapped_pages"] == d["results"]["child_rss"] == PAGES
    # copy_present_ptes: one folio_ref_add and one rmap call per folio run
    # with fork-batch; one per PTE without (and always for small folios)
    assert on["events"]["folio_ref_atomic"] == folios
    assert on["events"]["rmap_call"] == folios
    assert off["events"]["folio_ref_atomic"] == PAGES
    assert off["events"]["rmap_call"] == PAGES
    # __folio_try_dup_anon_rmap: every page's _mapcount, plus a large
    # folio's _large_mapcount once per call
    large = folio_kb > 4
    assert on["events"]["mapcount_atomic"] == PAGES + (folios if large else 0)
    assert off["events"]["mapcount_atomic"] == PAGES + (PAGES if large else 0)
    # the child's page tables are new; nothing is freed by the fork
    assert on["events"]["pt_alloc"] == off["events"]["pt_alloc"] > 0
    assert on["events"]["folio_free"] == 0
    # batching is cheaper for large folios, the same for small ones
    if large:
        assert on["modelled_ns"] < off["modelled_ns"]
    else:
        assert on["modelled_ns"] == off["modelled_ns"]


def test_fork_child_page_tables_and_all_freed_after(ptelab):
    d = run(ptelab, "fork", "--folio-size", "64K")
    m = run(ptelab, "madvise", "--folio-size", "64K")
    # the parent's tables plus the child's copy of them
    assert d["results"]["pt_pages_after"] == 2 * m["results"]["pt_pages_after"]
    # after both exit, the machine has every frame back
    assert d["results"]["free_pages_after"] == m["results"]["free_pages_after"]


@pytest.mark.parametrize("folio_kb", [4, 64, 2048])
def test_madvise_dontneed_frees_every_folio_and_keeps_tables(ptelab, folio_kb):
    folios = PAGES // (folio_kb // 4)
    d = run(ptelab, "madvise", "--folio-size", f"{folio_kb}K")
    munmap = run(ptelab, "munmap", "--folio-size", f"{folio_kb}K")
    ev = d["events"]
    assert d["results"]["mapped_pages"] == PAGES and d["results"]["rss_after"] == 0
    assert ev["folio_free"] == folios
    assert ev["free_tail_page"] == PAGES - folios
    # the same zap as munmap, but MADV_DONTNEED frees no page table
    assert ev["pt_free"] == 0 and munmap["events"]["pt_free"] > 0
    for e in ("pte_atomic", "folio_ref_atomic", "mapcount_atomic", "rmap_call", "folio_free"):
        assert ev[e] == munmap["events"][e], e


def test_madvise_pmd_mapped_clears_one_entry_per_pmd(ptelab):
    d = run(ptelab, "madvise", "--folio-size", "2M", "--pmd-mapped")
    assert d["results"]["rss_after"] == 0
    assert d["events"]["folio_free"] == PAGES // 512
    # zap_huge_pmd: one pmdp_huge_get_and_clear_full per PMD, no PTE
    assert d["events"]["pte_atomic"] == PAGES // 512


def test_fork_rejects_pmd_mapped_in_one_line(ptelab):
    p = ptelab("run", "fork", "--pmd-mapped")
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert "--pmd-mapped does not apply to workload fork" in p.stderr
