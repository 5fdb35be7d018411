/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reclaim: memcg memory.reclaim, the classic active/inactive LRU and the
 * multi-gen LRU (MGLRU), with kernel names and shapes.
 */
#ifndef PTELAB_MM_RECLAIM_H
#define PTELAB_MM_RECLAIM_H

#include "mm/switches.h"
#include "mm/lru.h"
#include "mm/mm.h"

#define SWAP_CLUSTER_MAX 32
#define MIN_LRU_BATCH 64     /* look-around window, in PTEs; an eviction batch, in pages */
#define MAX_LRU_BATCH (MIN_LRU_BATCH * 64) /* folios one eviction batch looks at */
#define MIN_NR_GENS 2
#define DEF_PRIORITY 12      /* a reclaim's first pass looks at 1/4096 of the LRU */
#define MAX_RECLAIM_RETRIES 16
#define BLOOM_FILTER_SHIFT 15

/* What one reclaim pass did (struct scan_control's share). */
struct reclaim_stat {
	u64 nr_scanned, nr_reclaimed, nr_activated, nr_kept, nr_promoted;
	u64 nr_aging, nr_look_around_young, nr_bloom_skipped;
	u64 nr_walk_ptes;      /* PTEs the aging walks looked at */
	u64 nr_walks_stopped;  /* aging walks that stopped before the end of the mm */
};

/*
 * mm/vmscan.c's scan_control, the part node reclaim (kswapd's
 * balance_pgdat, an allocation's do_try_to_free_pages) uses: what it
 * wants, the priority of this pass (one pass may look at the LRU's size
 * >> priority), and what it got. kswapd's lasts one balance_pgdat.
 */
struct scan_control {
	u64 nr_to_reclaim;
	u64 nr_reclaimed;
	u64 nr_scanned;         /* this priority's pass */
	int priority;
	/* classic: an active list left alone (inactive not low); deactivate regardless */
	bool skipped_deactivate, force_deactivate;
	struct reclaim_stat *stat;
};

/*
 * include/linux/swap.h: set on current while it reclaims; the lab's
 * reclaim_stat rides along so look-around can count what it found.
 * mm_walk (set_mm_walk): the walk lru_gen_look_around() promotes young
 * folios in place with. The kernel gives one to kswapd (pgdat->mm_walk)
 * and to proactive reclaim (memory.reclaim); the lab's direct reclaim
 * has one too, where the kernel's has none and marks a young folio
 * referenced, activating it on a second access (lru_gen_set_refs): not
 * modelled.
 */
struct lru_gen_mm_walk;
struct reclaim_state {
	struct reclaim_stat *stat;
	struct lru_gen_mm_walk *mm_walk;
	/* a tree's look-around's young tests so far + 1, 0 outside it (kernel/shim/core.h) */
	int look_around_tests;
};

extern bool lru_gen_enabled;

/* include/linux/mmzone.h: what an aging walk counts (walk->mm_stats) */
enum {
	MM_LEAF_TOTAL,    /* PTEs the walk looked at */
	MM_LEAF_YOUNG,    /* ... that were young */
	MM_NONLEAF_FOUND, /* PTE tables the Bloom filter let it walk */
	MM_NONLEAF_ADDED, /* ... that went into the next generation's filter */
	NR_MM_STATS
};

/*
 * include/linux/mmzone.h's struct lru_gen_mm_walk: what one aging walk
 * carries, with the kernel's field names, so a tree's walk_pte_range
 * (kernel/core_roots.c) runs on the twin's walk. The lab keeps no per-walk
 * page deltas (nr_pages): its lrugen counts pages by the list they sit
 * on, which sort_folio moves them between (mm/mglru.c).
 */
struct lru_gen_mm_walk {
	struct lruvec *lruvec;
	unsigned long seq; /* the max_seq this walk ages for: its Bloom filters are seq's and seq + 1's */
	unsigned long mm_stats[NR_MM_STATS];
	int batched; /* folios promoted since the walk last took the lru_lock (reset_batch_size) */
	int swappiness;
	bool can_swap; /* 6.x's get_pfn_folio(): anon folios too */
	bool force_scan;
	struct reclaim_stat *rs; /* the lab's: where the walk's counts go */
};

struct page_vma_mapped_walk;
bool lru_gen_look_around(struct page_vma_mapped_walk *pvmw, unsigned int nr);

/* shrink_folio_list's verdict for one folio */
enum folio_references {
	FOLIOREF_RECLAIM,
	FOLIOREF_RECLAIM_CLEAN,
	FOLIOREF_KEEP,
	FOLIOREF_ACTIVATE,
};
enum folio_references folio_check_references(struct folio *folio,
					     struct reclaim_stat *rs);
/* Unmap and free a folio judged reclaimable; false if it must stay. */
bool reclaim_clean_folio(struct folio *folio);
/* ... any folio: a shmem one goes to swap if dirty (pageout) */
bool reclaim_folio(struct folio *folio);
/* MADV_PAGEOUT's isolated folios (by pfn, in isolation order): the folios reclaimed */
unsigned long reclaim_pages(const u32 *pfns, int nr);

/* classic LRU: cgroup reclaim (memory.reclaim), until nr_to_reclaim */
u64 shrink_lruvec_classic(u64 nr_to_reclaim, struct reclaim_stat *rs);
/* ... root reclaim: one pass at sc->priority; returns the pages it freed */
u64 shrink_lruvec_classic_root(struct scan_control *sc);
/* kswapd_age_node's classic side: a batch off the anon active list if its inactive list is low */
void age_active_anon(struct reclaim_stat *rs);

/* MGLRU */
void lru_gen_init(void);
void lru_gen_exit(void);
void lru_gen_add_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming);
u64 lru_gen_folio_seq(const struct lruvec *lruvec, const struct folio *folio, bool reclaiming);
void lru_gen_del_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming);
/* true if the folio moved to seq's generation (it was in another) */
bool folio_update_gen(struct folio *folio, u64 seq);
/*
 * seq: the max_seq the caller saw; false if another walker has (or had)
 * this one. priority: the caller's (6.1 waits for the other walker at
 * DEF_PRIORITY - 2 and below).
 */
bool try_to_inc_max_seq(struct lruvec *lruvec, u64 seq, int priority, struct reclaim_stat *rs);
/* an mm leaves mm_list: the walk in progress must not stand on it */
void lru_gen_del_mm(struct mm_struct *mm);
/* Whether an aging walk is on mm now (the lab's walkers hold no reference). */
bool lru_gen_walk_on(const struct mm_struct *mm);
/* cgroup reclaim (memory.reclaim): one pass over the LRU at most, until nr_to_reclaim */
u64 lru_gen_shrink_lruvec(struct lruvec *lruvec, u64 nr_to_reclaim, struct reclaim_stat *rs);
/* root reclaim (kswapd, an allocation) at sc->priority; returns the pages it freed */
u64 lru_gen_shrink_node(struct scan_control *sc);
/* pmd: an entry of a page table from hw_pt_alloc (hashed by table id and index) */
bool test_bloom_filter(struct lruvec *lruvec, u64 seq, const void *pmd);
void update_bloom_filter(struct lruvec *lruvec, u64 seq, const void *pmd);

/* memcg memory.reclaim: reclaim exactly (at least) bytes, in batches */
u64 memory_reclaim(u64 bytes, struct reclaim_stat *rs);
/* the same, giving up after retries batches that freed nothing */
u64 memory_reclaim_retries(u64 bytes, struct reclaim_stat *rs, int retries);
/* lazyfree pages reclaim discarded since the program began (PGLAZYFREED) */
u64 vm_lazyfreed_pages(void);

#endif
