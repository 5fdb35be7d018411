/* SPDX-License-Identifier: GPL-2.0-only */
/* LRU lists of one lruvec, linked through the head pages by pfn. */
#ifndef PTELAB_MM_LRU_H
#define PTELAB_MM_LRU_H

#include "include/page.h"
#include "sim/spinlock.h"

enum lru_list {
	LRU_INACTIVE_ANON,
	LRU_ACTIVE_ANON,
	LRU_INACTIVE_FILE,
	LRU_ACTIVE_FILE,
	LRU_UNEVICTABLE,
	NR_LRU_LISTS
};

#define MAX_NR_GENS 4

/* The multi-gen LRU's state of one lruvec (file type only: the workloads reclaim file). */
struct lru_gen_folio {
	u64 max_seq;
	u64 min_seq;
	u32 head[MAX_NR_GENS], tail[MAX_NR_GENS];
	long nr_pages[MAX_NR_GENS];
	/* the Bloom filter of PMD tables worth walking next aging (lru_gen_mm_state's) */
	u64 *filter[2];
	u64 filter_seq[2];
	/*
	 * lru_gen_mm_state: the walk over mm_list in progress. mm_seq is the
	 * last seq whose iteration ended; mm_head the mm last handed to a
	 * walker (NULL: at the list's start, the kernel's &mm_list->fifo).
	 */
	u64 mm_seq;
	struct mm_struct *mm_head; /* 6.1 .. 6.3: the next mm to hand out (NULL: none) */
	int mm_walkers;            /* 6.1 .. 6.3: walkers on an mm (nr_walkers) */
};

struct lruvec {
	u32 head[NR_LRU_LISTS], tail[NR_LRU_LISTS];
	long nr_pages[NR_LRU_LISTS];
	unsigned int add_batch; /* folios added since the lock was last taken */
	/*
	 * The lruvec lock: counted everywhere (lock_acquire); on the
	 * discrete-event engine a FIFO spinlock whose word bounces between
	 * CPUs (lru_lock_bounce), so reclaimers isolating and putting back
	 * and tasks draining their lru_add batches wait for each other.
	 */
	struct sim_spinlock lru_lock;
	struct lru_gen_folio lrugen;
};

/* The lab has one node and one memcg: every folio's lruvec is this one. */
extern struct lruvec root_lruvec;

static inline struct lruvec *folio_lruvec(const struct folio *folio)
{
	(void)folio;
	return &root_lruvec;
}

void lruvec_init(struct lruvec *lruvec);
/* spin_lock_irq(&lruvec->lru_lock) and its unlock (see struct lruvec) */
void lruvec_lock_irq(struct lruvec *lruvec);
void lruvec_unlock_irq(struct lruvec *lruvec);
/* The running task's pending lru_add batch onto the LRU (lru_add_drain). */
void lru_add_drain(void);
/* Every task's pending batch onto the LRU: from outside the engine. */
void lru_add_drain_all(void);
enum lru_list folio_lru_list(const struct folio *folio);
void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio);
void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio);
void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio);
/* MADV_FREE: an anonymous folio to the file LRU, no longer swap-backed */
void folio_mark_lazyfree(struct folio *folio);
/* MADV_COLD: off the active list (under MGLRU: into the generations as cold) */
void folio_deactivate(struct folio *folio);
/* off the LRU for a caller that reclaims it itself; false if it was not on it */
bool folio_isolate_lru(struct folio *folio);
/* an isolated folio back onto the LRU: folio_add_lru's per-CPU batch */
#define folio_putback_lru(folio) folio_add_lru(folio)
struct folio *lru_first(struct lruvec *lruvec, enum lru_list lru);
struct folio *lru_last(struct lruvec *lruvec, enum lru_list lru);
struct folio *lru_prev(struct folio *folio);

/*
 * An LRU list operation's struct page lines (hw/cache.h): the folio's
 * and the neighbours' whose links it rewrites.
 */
static inline void lru_touch_lines(u32 pfn, u32 a, u32 b)
{
	if (!hw_cache_on)
		return;
	hw_cache_page(pfn);
	if (a != NULL_PFN)
		hw_cache_page(a);
	if (b != NULL_PFN)
		hw_cache_page(b);
}

#endif
