/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Core-mm's "before" kernels (DESIGN.md): each published core-mm change
 * can be turned off (--without NAME, lab/switches.c) to run the code as it
 * was before it. All on by default: core-mm as in 7.3.
 */
#ifndef PTELAB_MM_SWITCHES_H
#define PTELAB_MM_SWITCHES_H

#include "hw/types.h"

/*
 * How MGLRU's page-table scans (walk_pte_range, lru_gen_look_around)
 * reach the young bits of secondary MMUs (S3).
 */
enum lru_gen_spte {
	/* 6.12+: through mmu_notifier clear_young with each young test (per PTE, or per batch with young_batch) */
	LRU_GEN_SPTE_NOTIFY,
	/*
	 * 6.1 .. 6.11: host young bits only; folio_referenced_one then also
	 * calls ptep_clear_flush_young_notify() on every PTE (with
	 * spte_test_clear_young: the seed on that base instead).
	 */
	LRU_GEN_SPTE_HOST,
};

/*
 * Where MGLRU files a folio it adds to the generations (lru_gen_add_folio)
 * and what evict_folios does with one it rejects; the rule changed
 * twice, and S3's kernels predate both changes.
 */
enum lru_gen_add {
	/*
	 * 6.14+ ("mm/mglru: rework workingset protection", Dec 2024):
	 * lru_gen_folio_seq(); an active folio one generation below the
	 * youngest (the youngest with PG_workingset); a rejected folio is
	 * made active only if it would land on min_seq.
	 */
	LRU_GEN_ADD_6_14,
	/*
	 * 6.7 .. 6.13 ("mm/mglru: fix underprotected page cache", a fix of
	 * Dec 2023, also in 6.1.y): active to max_seq, swap-backed out of the
	 * swap cache to max_seq - 1, the rest to min_seq (+1 with more than
	 * MIN_NR_GENS generations, unless reclaiming). evict_folios (from 6.2,
	 * "mm: multi-gen LRU: retry folios written back while isolated")
	 * tries a rejected folio that is not active, referenced, mapped,
	 * locked, dirty or under writeback once more, then makes every
	 * rejected folio active.
	 */
	LRU_GEN_ADD_6_7,
	/* 6.1 .. 6.6 (mainline): as 6.7, but swap-backed to min_seq + 1 and the rest to min_seq */
	LRU_GEN_ADD_6_1,
};

struct mm_switches {
	bool zap_batch;   /* zap_pte_range: folio_pte_batch + mmu_gather nr_pages (S5) */
	/*
	 * Set by a variant (S2's clear-ptes), effective with zap_batch off:
	 * zap_pte_range as in R. Roberts' contpte series v3 (Dec 2023, "mm:
	 * Batch-clear PTE ranges during zap_pte_range()"), the kernel S2's
	 * clear_ptes figure was measured on: one clear_ptes() per folio run,
	 * rss, rmap and the gather still per page.
	 */
	bool zap_clear_ptes_v3;
	bool fork_batch;  /* copy_pte_range: folio_pte_batch + wrprotect_ptes per folio */
	bool young_batch; /* rmap/MGLRU: one young test over a folio's PTEs (S1) */
	bool mprotect_batch; /* change_pte_range: a folio's run per modify_prot_start/commit_ptes (6.17) */
	bool mremap_batch;   /* move_ptes: a folio's run per get_and_clear_ptes/set_ptes (6.17) */
	/*
	 * try_to_unmap_one: reclaim unmaps a folio's run with one
	 * get_and_clear_ptes, one flush, one rmap and one reference drop
	 * (folio_unmap_pte_batch: lazyfree anonymous folios from 6.15, B.
	 * Song's "mm: support batched unmap for lazyfree large folios during
	 * reclamation"; file folios from 7.1, B. Wang's "mm: rmap: support
	 * batched unmapping for file large folios"). Off: one PTE at a time,
	 * each cleared and flushed alone (ptep_clear_flush), as 6.12 does.
	 */
	bool unmap_batch;
	/*
	 * do_wp_page reuses a large anonymous folio only this mm maps (6.15,
	 * MM ids: __wp_can_reuse_large_anon_folio), as every 7.x kernel
	 * does; a core older than 6.15 never does it. The mixed folios it
	 * makes (one page exclusive and writable, the rest shared) are what
	 * the 2025-26 permission-upgrading batch bugs needed.
	 */
	bool wp_reuse_large;
	/*
	 * 6.10, "mm/rmap: do not add fully unmapped large folio to deferred
	 * split list": only a partly mapped anon folio is queued. Off: every
	 * PTE-level unmap of a large anon folio queues it, as 6.9 (and the
	 * kernel S5 was measured on) did, even when a batch unmapped it all.
	 */
	bool deferred_split_partial;
	/*
	 * 6.10, large folios freed in folio batches (folios_put_refs,
	 * free_unref_folios): one lruvec lock, one memcg uncharge and one pcp
	 * lock per batch. Off: 6.9's release_pages frees each large folio on
	 * its own (__folio_put_large: __page_cache_release under its own
	 * lruvec lock, mem_cgroup_uncharge, free_the_page).
	 */
	bool folio_batch_free;
	/*
	 * S3's seed (v1, Feb 2023) on its base (lru_gen_spte HOST): MGLRU's
	 * walk and look-around ask secondary MMUs about MIN_LRU_BATCH entries
	 * at once (mmu_notifier_test_clear_young), and folio_referenced_one
	 * relies on look-around alone. No effect with lru_gen_spte NOTIFY.
	 */
	bool spte_test_clear_young;
	enum lru_gen_spte lru_gen_spte; /* set by a variant, not --without */
	enum lru_gen_add lru_gen_add;   /* likewise */
	/*
	 * MGLRU as in 7.2+: root reclaim's try_to_shrink_lruvec fixes a
	 * pass's nr_to_scan (the LRU's size >> priority) up front, hands
	 * evict_folios min(nr_to_scan, MIN_LRU_BATCH) folios to look at, ages
	 * when out of cold folios even at DEF_PRIORITY and then evicts one
	 * batch and stops; a PTE table the aging walk finds locked is carried
	 * over to the next generation's Bloom filter. Off (set by the 6.x
	 * variants): get_nr_to_scan each batch, scan_folios looks at up to
	 * MAX_LRU_BATCH, no aging at DEF_PRIORITY, and a locked table is
	 * dropped from the walk.
	 */
	bool lru_gen_7_2;
	/*
	 * MGLRU's aging as in 6.1 .. 6.3 (set by variant v1, the seed's
	 * base, mm-unstable of Feb 2023: 6.3-rc1's MGLRU): of reclaimers
	 * that need aging at once, the walker that finishes last makes the
	 * generation, the others return and those at DEF_PRIORITY - 2 or
	 * below (kswapd too) wait for it (wait_event_killable), and a walk stops at the next PUD once
	 * anyone waits. Off: 6.4+ ("mm: Multi-gen LRU: remove
	 * wait_event_killable()"), where the reclaimer that finds the
	 * iteration over makes the generation at once and a walk stops when
	 * max_seq has moved. Root reclaim is 6.3's either way
	 * (lru_gen_shrink_node, try_to_shrink_lruvec: the published v1
	 * profile has shrink_one and try_to_shrink_lruvec).
	 */
	bool lru_gen_aging_6_1;
	/*
	 * MGLRU root reclaim as from 6.7 ("mm/mglru: try to stop at high
	 * watermarks", 5095a2b23987): kswapd stops evicting once free memory
	 * is MIN_LRU_BATCH above the high watermark, set_initial_priority
	 * no longer halves the inactive share, with 6.11's floor of
	 * DEF_PRIORITY / 2, and (6.12) kswapd_failures is no longer cleared
	 * whatever happened. Off (v1, v2): kswapd stops once a pass has
	 * reclaimed the high watermark's worth.
	 */
	bool lru_gen_stop_at_high_wmark;
	/*
	 * folio_referenced_one asks secondary MMUs about a PTE it ages with
	 * ptep_clear_flush_young_notify, as every merged kernel. Off (set by
	 * a variant): ptep_clear_young_notify, as "mm: rmap: Don't flush TLB
	 * after checking PTE young for page reference" (Barry Song, 2022,
	 * not merged) did; S3's v2 was measured on a base with it.
	 */
	bool referenced_flush;
};

extern struct mm_switches mm_sw;

#endif
