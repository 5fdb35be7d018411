// SPDX-License-Identifier: GPL-2.0-only
/*
 * The core-mm roots a kernel backend runs from its tree, and the boundary
 * where ptelab's frame takes over (kernel/core_roots.h).
 */
#include <stddef.h>

#include "kernel/core_roots.h"

/* kernel types the unit needs from headers that hold much else */
static const char *const mm_h_only[] = { "struct zap_details", "ZAP_FLAG_DROP_MARKER",
					 "ZAP_FLAG_UNMAP", NULL };

const struct core_file core_files[] = {
	{ "include/linux/mm.h", mm_h_only },
	{ "mm/internal.h", NULL },
	{ "mm/util.c", NULL },
	{ "mm/memory.c", NULL },
	{ "mm/rmap.c", NULL },
	{ "mm/mlock.c", NULL },
	{ "mm/vmscan.c", NULL },
	{ "mm/mprotect.c", NULL },
	{ "mm/mremap.c", NULL },
	{ "mm/madvise.c", NULL },
	{ "mm/mmu_gather.c", NULL },
};

const unsigned int nr_core_files = sizeof(core_files) / sizeof(core_files[0]);

static const char *const zap_roots[] = { "zap_pte_range", NULL };

static const struct core_boundary zap_boundary[] = {
	{ "vm_normal_page", "every present user PTE in the lab maps a struct page: no zero "
			    "page, PFN maps or device memory (kernel/shim/core.h)" },
	{ "print_bad_pte", "diagnostic printing; the lab reports the bad mapping as a violation" },
	{ "swap_pte_batch", "the lab writes no swap PTEs (anonymous memory is not swapped, "
			    "shmem's swap entries live in the page cache)" },
	{ "add_mm_counter", "the lab keeps one rss total (mm->rss), not per-type counters" },
	{ "mm_counter", "its folio tests are ptelab's" },
	{ "vma_is_anonymous", "ptelab's VMA says anonymous by having no file mapping" },
	{ NULL, NULL },
};

static const char *const rmap_roots[] = { "folio_referenced_one", NULL };

static const struct core_boundary rmap_boundary[] = {
	{ "folio_remove_rmap_ptes", "ptelab's rmap: it counts the mapcount atomics and keeps the "
				    "lab's LRU and deferred split (mm/rmap.c)" },
	{ "folio_remove_rmap_pte", "the same" },
	{ "munlock_vma_folio", "ptelab's mlock (mm/mlock.c)" },
	{ "clear_flush_young_ptes_notify", "ptelab's notifier calls, with S3's secondary-MMU eras "
					   "(mm/mmu_notifier.h)" },
	{ "ptep_clear_flush_young_notify", "the same" },
	{ "pmdp_clear_flush_young_notify", "the lab ages no PMD-mapped folio through rmap" },
	{ "test_and_clear_young_ptes_notify", "ptelab's notifier calls (mm/mmu_notifier.h)" },
	{ "pmdp_test_and_clear_young_notify", "the lab ages no PMD-mapped folio through rmap" },
	{ "mlock_vma_folio", "the lab's mlock moves every folio of the range when it locks: "
			     "no mlock is ever missed for reclaim to restore (kernel/shim/core.h)" },
	{ NULL, NULL },
};

static const char *const unmap_roots[] = { "try_to_unmap_one", NULL };

static const struct core_boundary unmap_boundary[] = {
	{ "ttu_anon_swapbacked_folio", "reclaim in the lab swaps out no anonymous folio (7.3's "
				       "lazyfree half is the tree's): reaching it is a finding "
				       "(kernel/shim/core.h)" },
	{ "should_defer_flush", "no deferred reclaim TLB flush in the lab (TTU_BATCH_FLUSH): "
				"each run is flushed at once" },
	{ "set_tlb_ubc_flush_pending", "the same" },
	{ "folio_remove_rmap_ptes", "ptelab's rmap (mm/rmap.c)" },
	{ "mlock_vma_folio", "the lab's mlock moves every folio of the range when it locks" },
	{ "split_huge_pmd_locked", "the lab's page cache maps no PMD (no TTU_SPLIT_HUGE_PMD)" },
	{ "mlock_drain_local", "the lab's mlock batch is drained where it is filled (mm/mlock.c)" },
	{ NULL, NULL },
};

static const char *const mprotect_roots[] = { "change_pte_range", NULL };

static const struct core_boundary mprotect_boundary[] = {
	{ "change_softleaf_pte", "the lab writes no swap, migration or marker entries: the shim's "
				 "reports one as a violation" },
	{ "vma_is_single_threaded_private", "NUMA hinting (MM_CP_PROT_NUMA) is not in the lab" },
	{ "folio_can_map_prot_numa", "the same" },
	{ "modify_prot_start_ptes", "arm64's (arch/arm64/mm/mmu.c) on a CPU without erratum "
				    "2645198: get_and_clear_ptes() (arch/pgtable.h)" },
	{ "modify_prot_commit_ptes", "arm64's: set_ptes()" },
	{ NULL, NULL },
};

static const char *const mremap_roots[] = { "move_ptes", NULL };

static const struct core_boundary mremap_boundary[] = {
	{ "take_rmap_locks", "need_rmap_locks is false in the lab: one mremap at a time, and no "
			     "rmap walk runs during it" },
	{ "drop_rmap_locks", "the same" },
	{ "vma_has_uffd_without_event_remap", "no userfaultfd in the lab" },
	{ NULL, NULL },
};

static const char *const mlock_roots[] = { "mlock_pte_range", NULL };

static const struct core_boundary mlock_boundary[] = {
	{ "mlock_folio", "ptelab's mlock batch: the folio onto the unevictable list unless it "
			 "is already there (mm/mlock.c)" },
	{ "munlock_folio", "the same, off it" },
	{ NULL, NULL },
};

static const char *const fork_roots[] = { "copy_pte_range", NULL };

static const struct core_boundary fork_boundary[] = {
	{ "copy_nonpresent_pte", "the lab writes no swap, migration or device entries: the shim's "
				 "reports one as a violation" },
	{ "copy_present_page", "only a pinned anonymous page is copied at fork; the lab pins none "
			       "(folio_try_dup_anon_rmap_ptes never fails)" },
	{ "folio_prealloc", "the same: no page is preallocated for a copy" },
	{ "folio_try_dup_anon_rmap_ptes", "ptelab's rmap (mm/rmap.c folio_dup_anon_rmap_ptes)" },
	{ "folio_try_dup_anon_rmap_pte", "the same" },
	{ "folio_dup_file_rmap_ptes", "ptelab's rmap (folio_add_file_rmap_ptes)" },
	{ "folio_dup_file_rmap_pte", "the same" },
	{ NULL, NULL },
};

static const char *const mglru_roots[] = { "walk_pte_range", "lru_gen_look_around", NULL };

static const struct core_boundary mglru_boundary[] = {
	{ "folio_update_gen", "ptelab's generations (page.gen) and promotion rule (mm/mglru.c); "
			      "the shim passes the walk's max_seq" },
	{ "update_batch_size", "ptelab's lrugen counts pages by the list they sit on (sort_folio "
			       "moves them), so the walk keeps only its batched count" },
	{ "lru_gen_set_refs", "look-around without a walk (the kernel's direct reclaim): the lab's "
			      "reclaimers always carry one (mm/reclaim.h struct reclaim_state)" },
	{ "folio_activate", "the same" },
	{ "get_mm_state", "the lab's Bloom filters live in the lruvec (mm/mglru.c)" },
	{ "update_bloom_filter", "ptelab's, keyed by the PTE table's id, not its address, so every "
				 "run makes the same decisions (mm/mglru.c)" },
	{ "get_next_vma", "ptelab's walk_mm visits VMAs one by one: a table two VMAs share is "
			  "walked once for each" },
	{ "test_and_clear_young_ptes_notify", "ptelab's notifier calls (mm/mmu_notifier.h)" },
	{ "ptep_clear_young_notify", "the same (6.x, one PTE)" },
	{ NULL, NULL },
};

static const char *const madvise_roots[] = { "madvise_cold_or_pageout_pte_range",
					    "madvise_free_pte_range", NULL };

static const struct core_boundary madvise_boundary[] = {
	{ "can_do_file_pageout", "the lab's process may write every file it maps (no credentials "
				 "or file modes in the lab): MADV_PAGEOUT takes file folios too" },
	{ "split_folio", "the lab splits no large folio: it fails as the kernel's does with "
			 "extra references (-EAGAIN), and the walker skips the batch "
			 "(mm/huge_memory.h)" },
	{ "folio_deactivate", "ptelab's LRU moves the folio at once, no per-CPU batch (mm/lru.c)" },
	{ "folio_isolate_lru", "ptelab's LRU (mm/lru.c)" },
	{ "folio_putback_lru", "the same: folio_add_lru's batch" },
	{ "folio_mark_lazyfree", "ptelab's LRU, which also records that the folio's data may now "
				 "be dropped (mm/lru.c)" },
	{ "reclaim_pages", "ptelab's reclaim of the isolated folios, in isolation order "
			   "(mm/vmscan.c); the tree's list is the shim's (kernel/shim/core.h)" },
	{ "madvise_free_huge_pmd", "the lab's madvise leaves a PMD-mapped folio as it is, as the "
				   "twin does (no THP lazyfree)" },
	{ "folio_free_swap", "no anonymous folio is in a swap cache in the lab" },
	{ "vm_normal_folio", "the lab's, over vm_normal_page() (kernel/shim/core.h)" },
	{ "vm_normal_folio_pmd", "in the THP branch, which CONFIG_TRANSPARENT_HUGEPAGE (off in "
				 "the lab's unit) leaves out" },
	{ "pageout", "the walker's local flag, not vmscan.c's pageout() (the extractor reads "
		     "names, not scopes)" },
	{ NULL, NULL },
};

static const char *const gather_roots[] = { "tlb_gather_mmu", "tlb_gather_mmu_fullmm",
					    "tlb_finish_mmu", "tlb_flush_mmu", "tlb_flush_rmaps",
					    "__tlb_remove_folio_pages", NULL };

static const struct core_boundary gather_boundary[] = {
	{ "tlb_table_flush", "page-table pages are the lab's (hw/pgtable_mem.c): its table batch "
			     "frees them after the flush, as CONFIG_MMU_GATHER_TABLE_FREE's does "
			     "(mm/mmu_gather.c)" },
	{ "tlb_table_init", "the same" },
	{ "tlb_remove_table_sync_one", "no software walker runs beside a gather in the lab" },
	{ "tlb_gather_mmu_vma", "hugetlb's (try_to_unmap_one's hugetlb branch): the lab has no "
				"hugetlb VMAs (kernel/shim/core.h)" },
	{ NULL, NULL },
};

const struct core_root_set core_root_sets[] = {
	{ "zap", zap_roots, zap_boundary },
	{ "gather", gather_roots, gather_boundary },
	{ "rmap", rmap_roots, rmap_boundary },
	{ "unmap", unmap_roots, unmap_boundary },
	{ "mlock", mlock_roots, mlock_boundary },
	{ "fork", fork_roots, fork_boundary },
	{ "mglru", mglru_roots, mglru_boundary },
	{ "mprotect", mprotect_roots, mprotect_boundary },
	{ "mremap", mremap_roots, mremap_boundary },
	{ "madvise", madvise_roots, madvise_boundary },
};

const unsigned int nr_core_root_sets = sizeof(core_root_sets) / sizeof(core_root_sets[0]);
