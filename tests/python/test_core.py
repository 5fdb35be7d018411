# SPDX-License-Identifier: GPL-2.0-only
"""A kernel backend runs its tree's own core-mm code (kernel/extract.c,
kernel/core_roots.c): the tree's zap_pte_range and mm/mmu_gather.c,
folio_referenced_one, try_to_unmap_one, mlock_pte_range, copy_pte_range
(fork), change_pte_range
(mprotect), move_ptes (mremap), MGLRU's walk_pte_range and
lru_gen_look_around, madvise's madvise_free_pte_range and
madvise_cold_or_pageout_pte_range, and their helpers, extracted by
name, compiled against kernel/shim/core.h, called by ptelab's mm/.

The twin (--core ref, ptelab's 7.3) and the tree's extracted code must give
identical event vectors, modelled time and invariants where the tree's code is
7.3's (6.12's folio_referenced_one does not batch: there it must differ, as
6.12 does); a one-line patch to the tree's zap_present_ptes or
folio_referenced_one must move the counts; a tree whose core does not extract
or compile is one error line naming the file and the symbol."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import _binary

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "build" / "kernels"
TREES = [v for v in ("6.12", "7.2", "7.3") if (KERNELS / f"linux-{v}").is_dir()]
needs_73 = pytest.mark.skipif(not (KERNELS / "linux-7.3").is_dir(),
                              reason="needs the fetched 7.3 tree (ptelab kernels fetch 7.3)")

# workload, its options: every path that zaps (munmap, MADV_DONTNEED, fork's
# teardown, mlock-loop's, exit's full-mm teardown)
CASES = [(w, ["--folio-size", fs]) for w in ("munmap", "madvise", "fork", "mprotect")
         for fs in ("4K", "64K", "2M")]
# MADV_FREE's and MADV_COLD's walkers (MADV_PAGEOUT's runs in check's sequences)
CASES += [("madvise", ["--folio-size", fs, "--variant", v])
          for fs in ("4K", "64K", "2M") for v in ("free", "cold")]
CASES += [("exit", ["--iterations", "2"]),
          # check's random sequences: every root, partial folios, file mappings, forks
          ("fuzz", ["--iterations", "4"])]
# and every path through mlock_pte_range: mlock and munlock of every S4 variant
CASES += [("mlock-loop", ["--folio-size", fs, "--iterations", "2", "--variant", v])
          for fs in ("4K", "64K") for v in ("touched", "young-dirty", "one-young", "cold")]
# every path through folio_referenced_one and MGLRU's walk_pte_range: rmap
# young tests, reclaim on both LRUs, S3's guest (secondary MMUs, kswapd and
# direct reclaim walking at once) on its 64M-scale machine
RMAP_CASES = [(w, ["--folio-size", fs, *more]) for fs in ("4K", "64K", "2M")
              for w, more in (("young-scan", []), ("reclaim-file", ["--lru", "mglru"]),
                              ("reclaim-file", ["--lru", "classic"]),
                              ("reclaim-file", ["--lru", "classic", "--variant", "rehot"]))]
RMAP_CASES += [("max-guest-memory", ["--folio-size", fs, "--arch", arch, "--variant", "7.3",
                                     "--size", "250M", "--host-memory", "250M"])
               for fs, arch in (("4K", "arm64"), ("64K", "arm64"))]


def ptelab(*args, timeout=600):
    return subprocess.run([_binary(), *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


def run_json(*args):
    p = ptelab("run", *args, "--json", "--no-perf")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1])


@pytest.mark.skipif(not TREES, reason="needs a fetched kernel tree")
@pytest.mark.parametrize("version", TREES)
def test_tree_core_equals_twin(version):
    impl = f"linux-{version}"
    # 6.12's folio_referenced_one walks every PTE (its own test below), and its
    # walk_pte_range promotes each young entry's folio at once (7.3's twin
    # waits for the next folio), which moves S3's concurrent agents
    # (and 7.2's look-around counts the folio it was called for as one young
    # entry, not nr: S3's Bloom filter feedback moves, test below)
    # Check's sequences reclaim too: 7.3's only (7.2's look-around feeds the
    # Bloom filter its own way, below; 6.12's whole MGLRU is not the twin's
    # with per-PTE young tests); test_check_power runs them on 6.12 and 7.2
    # for false positives
    cases = [c for c in CASES if version == "7.3" or c[0] != "fuzz"] + \
        [c for c in RMAP_CASES if version == "7.3" or c[0] != "max-guest-memory"]
    for w, opts in cases:
        size = [] if w == "fuzz" or "--size" in opts else ["--size", "16M"]
        tree = run_json(w, "--impl", impl, *size, *opts, "--core", "tree")
        # 6.12's change_pte_range, move_ptes, young tests, aging walk and reclaim
        # unmap handle one PTE at a time: the twin's shape without mprotect-batch,
        # mremap-batch, young-batch and unmap-batch (the switches are the twin's;
        # the tree side runs its own)
        twin = run_json(w, "--impl", impl, *size, *opts, "--core", "ref",
                        *(["--without", "mprotect-batch", "--without", "mremap-batch",
                           "--without", "young-batch", "--without", "unmap-batch"]
                          if version == "6.12" else []))
        assert tree["backend"]["core"] == "tree" and twin["backend"]["core"] == "ref"
        what = f"{w} {' '.join(opts)} on {impl}"
        # check's counts of each PTE op's calls too: the same calls, not only the same events
        assert tree["results"] == twin["results"], what
        diff = {k: (v, twin["events"][k]) for k, v in tree["events"].items()
                if v != twin["events"][k]}
        assert not diff, f"{what}: tree vs twin events {diff}"
        assert tree["modelled_ns"] == twin["modelled_ns"], what
        assert tree["invariants"] == twin["invariants"], what
        assert tree["invariants"]["ok"], what


def _copy(tmp_path, name="linux"):
    d = tmp_path / name
    shutil.copytree(KERNELS / "linux-7.3", d)
    return d


def _patch(tree, old, new, path="mm/memory.c"):
    """Replace the one occurrence of old in the tree's file."""
    src = tree / path
    text = src.read_text()
    assert text.count(old) == 1, old
    src.write_text(text.replace(old, new))


def _patched_and_twin(tmp_path, path, old, new, workload, *opts):
    """A copy of 7.3 with old made new in its file path, run beside ptelab's twin
    of its core-mm code (the same tree's arch code, --core ref): (patched, twin)."""
    tree = _copy(tmp_path)
    _patch(tree, old, new, path)
    args = [workload, "--impl", f"tree:{tree}", *opts]
    return run_json(*args), run_json(*args, "--core", "ref")


@needs_73
def test_patch_to_zap_present_ptes_moves_counts(tmp_path):
    # the tree's zap never batches a large folio: one PTE at a time
    patched, twin = _patched_and_twin(
        tmp_path, "mm/memory.c", "if (unlikely(folio_test_large(folio) && max_nr != 1)) {",
        "if (0 && unlikely(folio_test_large(folio) && max_nr != 1)) {",
        "munmap", "--size", "64M", "--folio-size", "64K")
    e, t = patched["events"], twin["events"]
    # each PTE of a contiguous block cleared alone: the block unfolds, its
    # entries are flushed one by one, each page unmapped from the rmap alone
    assert (t["dsb"], t["tlbi_page"], t["unfold"], t["rmap_call"]) == (2, 0, 0, 1024)
    assert (e["dsb"], e["tlbi_page"], e["unfold"], e["rmap_call"]) == (2052, 16384, 1024, 16384)
    assert patched["modelled_ns"] > 4 * twin["modelled_ns"]
    assert patched["invariants"]["ok"] and twin["invariants"]["ok"]


@needs_73
def test_core_that_does_not_compile_is_one_line(tmp_path):
    tree = _copy(tmp_path)
    _patch(tree, "\tpage = vm_normal_page(vma, addr, ptent);\n",
           "\tpage = vm_normal_page(vma, addr, ptent);\n\tptelab_no_such_helper(page);\n")
    p = ptelab("run", "munmap", "--impl", f"tree:{tree}", "--size", "16M")
    assert p.returncode == 2
    err = p.stderr.strip().splitlines()[-1]
    assert err.startswith("ptelab: error: the core-mm code of kernel 7.3")
    # the tree's file and line, the symbol, the tree's function it is in
    assert " mm/memory.c:" in err and "ptelab_no_such_helper" in err
    assert "(in zap_present_ptes)" in err and "--core ref" in err
    assert p.stdout == ""
    # the log is kept, and the unit beside it, its lines the tree's files' (named as in
    # the tree: trees with the same core-mm text share one object)
    log = Path(err.split("(compiler log: ")[1].rstrip(")"))
    unit = log.with_suffix(".unit.c")
    assert log.is_file() and "ptelab_no_such_helper" in log.read_text()
    assert unit.is_file() and '#line 1' in unit.read_text() and '"mm/memory.c"\n' in unit.read_text()
    # the tree's arch code alone still runs
    q = ptelab("run", "munmap", "--impl", f"tree:{tree}", "--size", "16M", "--core", "ref")
    assert q.returncode == 0, q.stderr


@needs_73
def test_root_missing_from_the_tree_is_one_line(tmp_path):
    tree = _copy(tmp_path)
    _patch(tree, "static unsigned long zap_pte_range(struct mmu_gather *tlb,",
           "static unsigned long zap_pte_range_renamed(struct mmu_gather *tlb,")
    p = ptelab("run", "munmap", "--impl", f"tree:{tree}", "--size", "16M")
    assert p.returncode == 2
    err = p.stderr.strip().splitlines()[-1]
    assert "zap_pte_range is not defined in" in err and "mm/memory.c" in err
    assert "--core ref" in err


# x86: no contpte, the lab's own x86 PTE API; a tree brings its core-mm only
X86_CASES = [(w, ["--folio-size", fs, *more]) for w, fs, more in (
    ("munmap", "4K", []), ("munmap", "64K", []), ("fork", "2M", []), ("mprotect", "64K", []),
    ("madvise", "64K", ["--variant", "free"]), ("young-scan", "64K", []),
    ("reclaim-file", "64K", ["--lru", "mglru"]), ("reclaim-file", "64K", ["--lru", "classic"]))]
X86_CASES += [("fuzz", ["--iterations", "2"])]


@needs_73
def test_tree_core_on_x86_equals_twin():
    """7.3's extracted core-mm over the lab's x86 PTE API gives what the twin
    (the reference backend on x86) gives: events, modelled time, invariants."""
    for w, opts in X86_CASES:
        size = [] if w == "fuzz" else ["--size", "16M"]
        tree = run_json(w, "--arch", "x86", "--impl", "linux-7.3", *size, *opts)
        twin = run_json(w, "--arch", "x86", "--impl", "ref", *size, *opts)
        what = f"{w} {' '.join(opts)} on x86"
        assert tree["backend"]["core"] == "tree", what
        assert tree["events"] == twin["events"], what
        assert tree["modelled_ns"] == twin["modelled_ns"], what
        assert tree["invariants"] == twin["invariants"] and tree["invariants"]["ok"], what


def test_arch_only_kernel_backend_on_x86_is_one_line():
    if not (KERNELS / "linux-7.3").is_dir():
        pytest.skip("needs the fetched 7.3 tree")
    p = ptelab("run", "munmap", "--arch", "x86", "--impl", "linux-7.3", "--core", "ref")
    assert p.returncode == 2 and p.stderr.count("\n") == 1
    assert "only its tree's arm64 contpte code" in p.stderr


def test_bad_core_value_is_one_line():
    for cmd in (["run", "munmap"], ["check"]):
        p = ptelab(*cmd, "--core", "twin")
        assert p.returncode == 2
        assert p.stderr.count("\n") == 1 and "unknown --core 'twin'" in p.stderr


@needs_73
def test_backend_says_whose_core_ran():
    j = run_json("munmap", "--impl", "linux-7.3", "--size", "16M", "--core", "ref")
    assert j["backend"]["core"] == "ref"
    j = run_json("munmap", "--impl", "linux-7.3", "--size", "16M")
    assert j["backend"]["core"] == "tree"
    j = run_json("munmap", "--size", "16M")
    assert j["backend"]["core"] == "ref"  # the reference is the twin


@needs_73
def test_perf_profile_names_the_trees_functions():
    j = run_json_perf("munmap", "--impl", "linux-7.3", "--size", "16M", "--folio-size", "4K")
    perf = j["perf"]
    # the tree's out-of-line functions are frames: its zap_pte_range (one
    # per table), its mmu_gather's; its inline helpers (do_zap_pte_range,
    # zap_present_ptes, zap_present_folio_ptes: static inline in 7.3) are
    # not, as perf shows inlined code in its caller
    assert perf["zap_pte_range"]["calls"] == 8
    assert perf["tlb_next_batch"]["calls"] > 0
    for fn in ("do_zap_pte_range", "zap_present_ptes", "zap_present_folio_ptes"):
        assert fn not in perf, fn
    assert abs(perf["zap_pte_range"]["children"] - perf["unmap_vmas"]["children"]) < 1e-9
    # the same modelled time as the twin, whose frames are its own
    twin = run_json_perf("munmap", "--impl", "linux-7.3", "--size", "16M", "--folio-size", "4K",
                         "--core", "ref")
    assert twin["modelled_ns"] == j["modelled_ns"]
    assert "do_zap_pte_range" not in twin["perf"]


def run_json_perf(*args):
    p = ptelab("run", *args, "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.splitlines()[-1])


@needs_73
def test_crash_in_the_trees_core_is_a_located_finding(tmp_path):
    tree = _copy(tmp_path)
    _patch(tree, "\tpage = vm_normal_page(vma, addr, ptent);\n",
           "\tpage = vm_normal_page(vma, addr, ptent);\n"
           "\tif (addr & 0x10000)\n\t\t*(volatile int *)0 = 1;\n")
    p = ptelab("run", "munmap", "--impl", f"tree:{tree}", "--size", "16M", "--json")
    assert p.returncode == 1, p.stderr
    f = json.loads(p.stdout.splitlines()[-1])["finding"]
    # the tree's own function and line, not the unit's renamed one, not a lab bug
    assert f["function"] == "zap_present_ptes" and f["file"] == "mm/memory.c", f
    assert f["line"] > 0 and f["kind"] == "crash" and f["signal"] == "SIGSEGV", f
    assert f["in_kernel_code"], f


@pytest.mark.skipif(not {"6.12", "7.3"} <= set(TREES), reason="needs the fetched 6.12 and 7.3")
def test_612_and_73_core_side_by_side():
    """6.12's folio_referenced_one tests and clears young one PTE at a time (one
    walk step each), 7.3's a folio's batch at once: both trees' own code, in one run."""
    p = ptelab("run", "young-scan", "--size", "16M", "--folio-size", "64K",
               "--impl", "linux-6.12,linux-7.3", "--json", "--no-perf")
    assert p.returncode == 0, p.stderr
    a, b = (json.loads(l) for l in p.stdout.splitlines())
    assert (a["impl"], b["impl"]) == ("linux-6.12", "linux-7.3")
    assert a["backend"]["core"] == b["backend"]["core"] == "tree"
    # 16 PTEs per 64K folio
    assert a["events"]["pvmw_step"] == 16 * b["events"]["pvmw_step"] > 0
    assert a["events"]["rmap_call"] == b["events"]["rmap_call"]
    # 6.12's arch under ptelab's (7.3) twin batches as 7.3 does: the difference is 6.12's core
    twin = run_json("young-scan", "--size", "16M", "--folio-size", "64K", "--impl", "linux-6.12",
                    "--core", "ref")
    assert twin["events"]["pvmw_step"] == b["events"]["pvmw_step"]


@needs_73
def test_patch_to_mmu_gather_moves_counts(tmp_path):
    # the tree's gather never takes a batch page beyond its 8-slot bundle:
    # a full gather must flush every 7 pages (one slot kept for a pair)
    patched, twin = _patched_and_twin(
        tmp_path, "mm/mmu_gather.c", "if (tlb->batch_count == MAX_GATHER_BATCH_COUNT)",
        "if (tlb->batch_count == 0)", "munmap", "--size", "64M", "--folio-size", "4K")
    e, t = patched["events"], twin["events"]
    # 16384 pages: 2340 forced flushes of 7, the last 4 at tlb_finish_mmu
    assert (t["gather_flush"], t["dsb"], t["tlbi_page"]) == (2, 4, 0)
    assert (e["gather_flush"], e["dsb"], e["tlbi_page"]) == (2341, 4682, 16380)
    assert patched["modelled_ns"] > twin["modelled_ns"]
    assert patched["invariants"]["ok"] and twin["invariants"]["ok"]


@needs_73
def test_patch_to_folio_referenced_one_moves_counts(tmp_path):
    old = "\t\t\tnr = folio_pte_batch(folio, pvmw.pte, pteval, max_nr);\n"
    patched, twin = _patched_and_twin(tmp_path, "mm/rmap.c", old, "\t\t\tnr = 1;\n", "reclaim-file",
                                      "--size", "16M", "--folio-size", "64K", "--lru", "classic")
    # one young test and clear per PTE, not one per 16-PTE folio
    assert patched["events"]["young_atomic"] == 16 * twin["events"]["young_atomic"] > 0
    assert patched["events"]["pvmw_step"] > 8 * twin["events"]["pvmw_step"]
    assert patched["invariants"]["ok"] and twin["invariants"]["ok"]


@needs_73
def test_patch_to_walk_pte_range_moves_counts(tmp_path):
    """MGLRU's aging walk without the tree's folio batch: each entry of a 64K
    block is tested alone, and the first test clears the young bit of the whole
    contiguous block, so the walk counts one young entry in 16, judges every
    table not worth walking again, and the next aging skips them (the Bloom
    filter): the tree's own code decides."""
    old = ("\t\tif (folio_test_large(folio)) {\n"
           "\t\t\tconst unsigned int max_nr = (end - addr) >> PAGE_SHIFT;\n\n"
           "\t\t\tnr = folio_pte_batch_flags(folio, NULL, cur_pte, &ptent,")
    new = old.replace("if (folio_test_large", "if (0 && folio_test_large")
    patched, twin = _patched_and_twin(tmp_path, "mm/vmscan.c", old, new, "reclaim-file",
                                      "--size", "64M", "--folio-size", "64K", "--lru", "mglru")
    t, p = twin["events"], patched["events"]
    tr, pr = twin["results"], patched["results"]
    assert tr["bloom_skipped_tables"] == 0 and pr["bloom_skipped_tables"] == 32
    assert p["contpte_get"] < t["contpte_get"] and p["young_read"] > t["young_read"]
    assert pr["aging_passes"] == tr["aging_passes"] > 0
    assert pr["reclaimed_bytes"] == tr["reclaimed_bytes"]
    assert patched["invariants"]["ok"] and twin["invariants"]["ok"]


@needs_73
def test_patch_to_folio_unmap_pte_batch_moves_counts(tmp_path):
    """Reclaim's unmap of a 64K file folio one PTE at a time (as 6.12 does): each
    clear of an entry of a contiguous block unfolds it and is flushed alone."""
    old = "\tif (flags & TTU_HWPOISON)\n\t\treturn 1;\n\tif (!folio_test_large(folio))\n\t\treturn 1;\n"
    patched, twin = _patched_and_twin(tmp_path, "mm/rmap.c", old, "\treturn 1;\n", "reclaim-file",
                                      "--size", "16M", "--folio-size", "64K")
    t, p = twin["events"], patched["events"]
    assert t.get("unfold", 0) == 0 and p["unfold"] > 0
    assert p["tlbi_page"] > t["tlbi_page"] and p["rmap_call"] > 4 * t["rmap_call"]
    assert patched["results"]["reclaimed_bytes"] == twin["results"]["reclaimed_bytes"]
    assert patched["invariants"]["ok"] and twin["invariants"]["ok"]


@needs_73
def test_patch_to_madvise_folio_pte_batch_moves_counts(tmp_path):
    """MADV_FREE whose batch stops at one entry: every 64K folio looks only
    partly in the range, the lab cannot split it, so the tree's walker leaves
    each as it is (no entry made old or clean, no folio lazyfree), after
    trying to split it once per entry."""
    old = ("\treturn folio_pte_batch_flags(folio, NULL, ptep, ptentp, max_nr,\n"
           "\t\t\t\t     FPB_MERGE_YOUNG_DIRTY);\n")
    patched, twin = _patched_and_twin(tmp_path, "mm/madvise.c", old, "\treturn 1;\n", "madvise",
                                      "--size", "16M", "--folio-size", "64K", "--variant", "free")
    t, p = twin["results"], patched["results"]
    assert t["lazyfree_pages"] == t["mapped_pages"] == 4096 and p["lazyfree_pages"] == 0
    assert t["young_ptes_after"] == t["dirty_ptes_after"] == 0
    assert p["young_ptes_after"] == p["dirty_ptes_after"] == 4096
    te, pe = twin["events"], patched["events"]
    # no entry written, no flush; each entry tries the split: folio ref and PTL round trip
    assert te["pte_write"] == 4096 and pe["pte_write"] == 0
    assert te["tlbi_asid"] == 1 and pe["tlbi_asid"] == 0
    assert te["folio_ref_atomic"] == 0 and pe["folio_ref_atomic"] == 2 * 4096
    assert pe["lock_acquire"] == te["lock_acquire"] + 4096
    assert patched["invariants"]["ok"] and twin["invariants"]["ok"]


def test_reclaim_unmap_per_pte_without_unmap_batch():
    """--without unmap-batch: reclaim's try_to_unmap_one clears and flushes each
    entry of a 64K file folio alone (6.12's shape), unfolding its contiguous
    block; what is reclaimed does not change."""
    args = ["reclaim-file", "--size", "16M", "--folio-size", "64K", "--lru", "classic"]
    batched, per_pte = run_json(*args), run_json(*args, "--without", "unmap-batch")
    b, p = batched["events"], per_pte["events"]
    assert b["unfold"] == 0 < p["unfold"]
    assert p["tlbi_page"] > b["tlbi_page"] and p["rmap_call"] > 4 * b["rmap_call"]
    assert per_pte["results"]["reclaimed_bytes"] == batched["results"]["reclaimed_bytes"] > 0
    assert per_pte["modelled_ns"] > 2 * batched["modelled_ns"]
    assert batched["invariants"]["ok"] and per_pte["invariants"]["ok"]


@needs_73
def test_patch_to_change_pte_range_moves_counts(tmp_path):
    """mprotect without the tree's folio batch (6.12's shape): each entry of a
    64K block is cleared and set alone, so the block unfolds at its first entry
    and refolds at its last, each entry flushed alone; the pages still end
    writable (exclusive anonymous pages, page by page)."""
    old = "\t\t\tnr_ptes = mprotect_folio_pte_batch(folio, pte, oldpte, max_nr_ptes, flags);\n"
    patched, twin = _patched_and_twin(tmp_path, "mm/mprotect.c", old, "\t\t\tnr_ptes = 1;\n",
                                      "mprotect", "--size", "16M", "--folio-size", "64K")
    t, p = twin["events"], patched["events"]
    assert t.get("unfold", 0) == t.get("fold", 0) == 0
    assert p["unfold"] == p["fold"] == 2 * 256  # two calls, 256 blocks
    assert patched["modelled_ns"] > 5 * twin["modelled_ns"]
    assert patched["results"]["writable_after"] == twin["results"]["writable_after"] == 4096
    assert patched["invariants"]["ok"] and twin["invariants"]["ok"]


@pytest.mark.skipif("7.2" not in TREES, reason="needs the fetched 7.2 tree")
def test_72_look_around_counts_its_folio_once(tmp_path):
    """7.2's lru_gen_look_around starts its young count at 1, 7.3's at nr (the
    folio rmap found, batched): S3's guest at the 64M scale sees the Bloom
    filter feedback change (fewer tables walked, fewer secondary-MMU young
    tests). With that one line as 7.3 has it, 7.2's core equals the twin."""
    args = ["max-guest-memory", "--arch", "arm64", "--variant", "7.3", "--folio-size", "64K",
            "--size", "250M", "--host-memory", "250M"]
    tree = KERNELS / "linux-7.2"
    twin = run_json(*args, "--impl", f"tree:{tree}", "--core", "ref")
    as_is = run_json(*args, "--impl", f"tree:{tree}")
    assert as_is["results"]["aging_walk_ptes"] < twin["results"]["aging_walk_ptes"]
    assert as_is["results"]["notifier_calls"] < twin["results"]["notifier_calls"]
    fixed = tmp_path / "linux"
    shutil.copytree(tree, fixed)
    src = fixed / "mm" / "vmscan.c"
    text = src.read_text()
    head = text.index("bool lru_gen_look_around(struct page_vma_mapped_walk *pvmw, unsigned int nr)")
    at = text.index("\tint young = 1;\n", head)
    src.write_text(text[:at] + "\tint young = nr;\n" + text[at + len("\tint young = 1;\n"):])
    fixed_run = run_json(*args, "--impl", f"tree:{fixed}")
    assert fixed_run["events"] == twin["events"] and fixed_run["results"] == twin["results"]


@pytest.mark.skipif("6.12" not in TREES, reason="needs the fetched 6.12 tree")
def test_a_zap_that_stops_early_is_called_again():
    """6.12's zap_pte_range returns where it stopped when the gather is full, for
    zap_pmd_range to call it again (7.3's retries itself): unmap_vmas does as
    zap_pmd_range does. 512M of 64K folios fill the gather (about 5000 folios)."""
    args = ["munmap", "--impl", "linux-6.12", "--size", "512M", "--folio-size", "64K"]
    tree, twin = run_json(*args), run_json(*args, "--core", "ref")
    assert tree["invariants"]["ok"], tree["invariants"]
    assert tree["results"]["rss_after"] == 0 and tree["events"]["gather_flush"] > 1
    assert tree["events"] == twin["events"] and tree["modelled_ns"] == twin["modelled_ns"]


@needs_73
def test_patch_to_mlock_pte_range_moves_counts(tmp_path):
    """folio_mlock_step() of one PTE: every entry is read as its own step, and a
    large folio seen one page at a time is never mlocked (allow_mlock_munlock
    wants the whole folio): the tree's own code decides."""
    old = "\treturn folio_pte_batch(folio, pte, ptent, count);\n}"
    patched, twin = _patched_and_twin(tmp_path, "mm/mlock.c", old, "\treturn 1;\n}", "mlock-loop",
                                      "--size", "16M", "--iterations", "2")
    assert twin["events"]["lru_move"] > 0 and patched["events"]["lru_move"] == 0
    assert patched["events"]["contpte_get"] == 4 * twin["events"]["contpte_get"]


@needs_73
def test_patch_to_copy_present_ptes_moves_counts(tmp_path):
    """fork without the tree's batch: each PTE of a 64K block copied alone, so
    the parent's block unfolds to write-protect one entry and refolds."""
    patched, twin = _patched_and_twin(
        tmp_path, "mm/memory.c",
        "\tif (unlikely(!*prealloc && folio_test_large(folio) && max_nr != 1)) {",
        "\tif (0 && unlikely(!*prealloc && folio_test_large(folio) && max_nr != 1)) {",
        "fork", "--size", "16M", "--folio-size", "64K")
    t, p = twin["events"], patched["events"]
    assert (t["unfold"], t["rmap_call"]) == (0, 256)
    assert (p["unfold"], p["fold"], p["rmap_call"]) == (256, 256, 4096)
    assert patched["invariants"]["ok"]


def _check_rows(tree, sequences=1):
    p = ptelab("check", "--impl", f"tree:{tree}", "--sequences", str(sequences), "--json",
               timeout=900)
    assert p.returncode == 1, p.stderr[-2000:]
    return [json.loads(l)["row"] for l in p.stdout.splitlines() if l.startswith('{"row"')]


# The 2025-26 batches that upgraded permissions, each re-created in a copy of
# 7.3: a batch taking its first entry's write bit for a folio of exclusive,
# writable pages and shared, read-only ones (7.x reuses a large folio page by
# page after fork). check's fork sequences make such folios and then free,
# mprotect or mremap them.
UPGRADES = {
    # try_to_unmap_one's lazyfree restore of a redirtied folio
    "lazyfree-restore": ("mm/rmap.c", "FPB_RESPECT_WRITE | FPB_RESPECT_SOFT_DIRTY);",
                         "FPB_RESPECT_SOFT_DIRTY);", 1),
    # mprotect's commit without its per-page exclusivity sub-batches
    "mprotect-exclusive": ("mm/mprotect.c",
                           "\t\tif (expected_anon_exclusive != PageAnonExclusive(first_page + idx))\n"
                           "\t\t\tbreak;\n", "", 1),
    # mremap's move_ptes batch ignoring the write bit
    "mremap-write": ("mm/mremap.c", "max_nr, FPB_RESPECT_WRITE);", "max_nr, 0);", 2),
}


@needs_73
@pytest.mark.parametrize("name", sorted(UPGRADES))
def test_check_names_a_batch_that_upgrades_permissions(tmp_path, name):
    path, old, new, sequences = UPGRADES[name]
    tree = _copy(tmp_path)
    _patch(tree, old, new, path)
    rows = _check_rows(tree, sequences)
    hit = [r for r in rows if r["counts"].get("permission")]
    assert hit, rows[:2]
    assert "is not exclusive (PageAnonExclusive clear)" in hit[0]["first"], hit[0]


@needs_73
def test_check_names_a_batch_past_a_folios_end(tmp_path):
    """folio_pte_batch_flags without its clamp to the folio's last page (the
    2025-26 bug class): a batch runs into the next folio, physically adjacent
    and mapped alike, and fork shares its pages writable, zap unmaps them from
    the wrong folio. check --impl on the tree's own core-mm code names it."""
    tree = _copy(tmp_path)
    old = ("\tmax_nr = min_t(unsigned long, max_nr,\n"
           "\t\t       folio_pfn(folio) + folio_nr_pages(folio) - pte_pfn(pte));\n")
    _patch(tree, old, "", "mm/internal.h")
    kinds = set()
    for r in _check_rows(tree):
        kinds |= set(r["counts"]) | ({r["kind"]} if r["finding"] else set())
    assert kinds & {"permission", "mapcount", "refcount", "crash"}, kinds


@needs_73
def test_check_names_a_batch_past_its_range(tmp_path):
    """do_zap_pte_range's batch bound 16 entries past the range it was given:
    the zap runs off the range (and, at a table's end, off the table)."""
    tree = _copy(tmp_path)
    _patch(tree, "\tint max_nr = (end - addr) / PAGE_SIZE;\n\tint nr = 0;\n",
           "\tint max_nr = (end - addr) / PAGE_SIZE + 16;\n\tint nr = 0;\n")
    rows = _check_rows(tree)
    assert any(r["violations"] or r["finding"] for r in rows)


@needs_73
def test_check_names_a_lazyfree_discard_of_redirtied_data(tmp_path):
    """ttu_anon_lazyfree_folio without its redirtied test: reclaim discards a
    MADV_FREE'd folio written after the madvise. check's sequences (MADV_FREE,
    a store, memory.reclaim) reach the tree's lazyfree unmap and name the
    lost data."""
    tree = _copy(tmp_path)
    _patch(tree, "\tif (folio_test_dirty(folio) && !(vma->vm_flags & VM_DROPPABLE)) {",
           "\tif (0 && folio_test_dirty(folio) && !(vma->vm_flags & VM_DROPPABLE)) {", "mm/rmap.c")
    rows = _check_rows(tree)
    assert any(r["kind"] == "lost_dirty" and "lazyfree" in r["first"] for r in rows), rows


@needs_73
def test_explore_names_mprotect_ignoring_exclusivity(tmp_path):
    """check --explore's scenario 49 (mprotect of a folio reused after fork)
    names the exclusivity re-creation at once; the unmodified tree passes it."""
    path, old, new, _ = UPGRADES["mprotect-exclusive"]
    tree = _copy(tmp_path)
    _patch(tree, old, new, path)
    args = ["run", "explore", "--first-sequence", "49", "--iterations", "1", "--json"]
    bad = json.loads(ptelab(*args, "--impl", f"tree:{tree}").stdout.splitlines()[-1])
    good = json.loads(ptelab(*args, "--impl", "linux-7.3").stdout.splitlines()[-1])
    assert bad["invariants"]["counts"].get("permission"), bad["invariants"]
    assert good["invariants"]["ok"], good["invariants"]


@needs_73
def test_git_bisect_run_finds_the_bad_commit(tmp_path):
    """git bisect run over five commits of a 7.3 copy: one that does not
    compile (skipped: check --bisect exits 125) and one that re-creates the
    lazyfree restore's permission upgrade (bad, 1); bisect names that one."""
    tree = _copy(tmp_path)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}

    def git(*args):
        p = subprocess.run(["git", *args], cwd=tree, capture_output=True, text=True, env=env)
        assert p.returncode == 0, p.stderr
        return p.stdout

    def commit(msg):
        git("add", "-A")
        git("commit", "-q", "-m", msg)

    git("init", "-q")
    commit("base")
    good = git("rev-parse", "HEAD").strip()
    _patch(tree, "static int mremap_folio_pte_batch(", "/* c1 */\nstatic int mremap_folio_pte_batch(",
           "mm/mremap.c")
    commit("c1: a comment")
    broken = "\tpage = vm_normal_page(vma, addr, ptent);\n"
    _patch(tree, broken, broken + "\tptelab_no_such_helper(page);\n")
    commit("c2: does not compile")
    _patch(tree, broken + "\tptelab_no_such_helper(page);\n", broken)
    commit("c3: compiles again")
    path, old, new, _ = UPGRADES["lazyfree-restore"]
    _patch(tree, old, new, path)
    commit("c4: the bad one")
    _patch(tree, "/* c1 */\n", "/* c5 */\n", "mm/mremap.c")
    commit("c5: a comment")
    git("bisect", "start", "HEAD", good)
    p = subprocess.run(["git", "bisect", "run", str(_binary()), "check", "--impl", f"tree:{tree}",
                        "--sequences", "1", "--bisect"], cwd=tree, capture_output=True, text=True,
                       env=env, timeout=1800)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "is the first bad commit" in p.stdout and "c4: the bad one" in p.stdout, p.stdout[-2000:]


def test_bisect_stops_on_bad_input():
    """check --bisect: bad input is no revision's fault; git bisect run stops (255)."""
    p = ptelab("check", "--bisect", "--impl", "nosuch", "--sequences", "1")
    assert p.returncode == 255
    assert p.stderr.count("\n") == 1 and "unknown impl 'nosuch'" in p.stderr


@needs_73
def test_git_revisions_of_an_mm_patch_compare(tmp_path):
    """Two git: revisions, the second one's zap_present_ptes unbatched: side by
    side, each runs its own core-mm code."""
    repo = _copy(tmp_path, "repo")
    git = ["git", "-C", str(repo), "-c", "user.email=lab@example.org", "-c", "user.name=lab"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "base"], check=True)
    _patch(repo, "if (unlikely(folio_test_large(folio) && max_nr != 1)) {",
           "if (0 && unlikely(folio_test_large(folio) && max_nr != 1)) {")
    subprocess.run(git + ["commit", "-qam", "zap: no batch"], check=True)
    p = ptelab("run", "munmap", "--size", "64M", "--folio-size", "64K", "--json", "--no-perf",
               "--impl", f"git:{repo}@HEAD~1,git:{repo}@HEAD")
    assert p.returncode == 0, p.stderr
    base, patched = (json.loads(l) for l in p.stdout.splitlines())
    assert base["backend"]["core"] == patched["backend"]["core"] == "tree"
    assert (base["events"]["dsb"], patched["events"]["dsb"]) == (2, 2052)
    assert (base["events"]["unfold"], patched["events"]["unfold"]) == (0, 1024)


@needs_73
def test_an_error_in_a_renamed_name_is_placed_in_the_tree(tmp_path):
    """gcc places an error in a token the unit renamed at the unit's #define;
    the message gives the tree's own place (the macro-expansion note) and names."""
    tree = _copy(tmp_path)
    _patch(tree, "static unsigned long zap_pte_range(struct mmu_gather *tlb,",
           "static unsigned longg zap_pte_range(struct mmu_gather *tlb,")
    p = ptelab("run", "munmap", "--impl", f"tree:{tree}", "--size", "4M")
    assert p.returncode == 2
    err = p.stderr.strip().splitlines()[-1]
    assert "shim: mm/memory.c:" in err and "before ‘zap_pte_range’" in err, err
    assert "__ptelab_tree_" not in err


@needs_73
def test_check_first_stops_at_the_first_failing_configuration(tmp_path):
    """--first: a verdict as soon as one configuration fails: no new work, no
    minimising, the configurations not run say so; the same verdict and exit."""
    path, old, new, _ = UPGRADES["mprotect-exclusive"]
    tree = _copy(tmp_path)
    _patch(tree, old, new, path)
    p = ptelab("check", "--impl", f"tree:{tree}", "--sequences", "2", "--first", "--jobs", "1",
               "--json", timeout=900)
    assert p.returncode == 1, p.stderr[-2000:]
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    rows = [l["row"] for l in lines if "row" in l]
    summary = next(l["summary"] for l in lines if "summary" in l)
    failed = [r for r in rows if r["violations"]]
    assert failed and all(r["trace"] is None for r in failed)  # not minimised
    assert summary["verdict"] == "violated" and summary["configurations_not_run"] > 0
    assert sum(not r["ran"] for r in rows) > len(rows) // 2
    # without it, every configuration runs, and the first failing ones are minimised
    full = _check_rows(tree, 2)
    assert all(r["ran"] for r in full) and any(r["trace"] for r in full)
