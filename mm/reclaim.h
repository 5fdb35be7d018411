/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reclaim: memcg memory.reclaim, the classic active/inactive LRU and the
 * multi-gen LRU (MGLRU), with kernel names and shapes.
 */
#ifndef PTELAB_MM_RECLAIM_H
#define PTELAB_MM_RECLAIM_H

#include "mm/switches.h"
#include "mm/mm.h"

#define SWAP_CLUSTER_MAX 32
#define MIN_LRU_BATCH 64     /* look-around window, in PTEs */
#define MAX_NR_GENS 4
#define MIN_NR_GENS 2
#define BLOOM_FILTER_SHIFT 15

/* What one reclaim pass did, and how (struct scan_control's share). */
struct reclaim_stat {
	bool look_around;     /* MGLRU: rmap young tests go through look-around */
	u64 nr_scanned, nr_reclaimed, nr_activated, nr_kept, nr_promoted;
	u64 nr_aging, nr_look_around_young, nr_bloom_skipped;
};

/* MGLRU state of the (one) lruvec. */
struct lru_gen_folio {
	u64 max_seq;
	u64 min_seq;          /* file type only: the workloads reclaim file */
	u32 head[MAX_NR_GENS], tail[MAX_NR_GENS];
	long nr_pages[MAX_NR_GENS];
	/* the Bloom filter of PMD tables worth walking next aging */
	u64 *filter[2];
	u64 filter_seq[2];
};

extern struct lru_gen_folio lrugen;
extern bool lru_gen_enabled;

int folio_referenced(struct folio *folio, struct reclaim_stat *rs);
bool try_to_unmap(struct folio *folio);
bool lru_gen_look_around(struct vm_area_struct *vma, unsigned long addr,
			 pte_t *ptep, u64 *pmdp, unsigned int nr,
			 struct reclaim_stat *rs);

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

/* classic LRU */
u64 shrink_lruvec_classic(u64 nr_to_reclaim, struct reclaim_stat *rs);

/* MGLRU */
void lru_gen_init(void);
void lru_gen_exit(void);
void lru_gen_add_folio(struct folio *folio, bool reclaiming);
void lru_gen_del_folio(struct folio *folio);
void folio_update_gen(struct folio *folio, u64 seq);
bool try_to_inc_max_seq(struct reclaim_stat *rs);
u64 lru_gen_shrink_lruvec(u64 nr_to_reclaim, struct reclaim_stat *rs);
/* pmd: an entry of a page table from hw_pt_alloc (hashed by table id and index) */
bool test_bloom_filter(u64 seq, const void *pmd);
void update_bloom_filter(u64 seq, const void *pmd);

/* memcg memory.reclaim: reclaim exactly (at least) bytes, in batches */
u64 memory_reclaim(u64 bytes, struct reclaim_stat *rs);

#endif
