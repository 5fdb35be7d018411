// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: include/linux/mm_inline.h (lruvec_add_folio, lruvec_del_folio),
 * mm/swap.c (folio_add_lru).
 */
#include "mm/lru.h"
#include "mm/mm.h"
#include "mm/reclaim.h"
#include "include/sched.h"

struct lruvec root_lruvec;

#define PAGEVEC_SIZE 31

void lruvec_init(struct lruvec *lruvec)
{
	for (int l = 0; l < NR_LRU_LISTS; l++) {
		lruvec->head[l] = lruvec->tail[l] = NULL_PFN;
		lruvec->nr_pages[l] = 0;
	}
	lruvec->add_batch = 0;
}

enum lru_list folio_lru_list(const struct folio *folio)
{
	if (folio_test_unevictable(folio))
		return LRU_UNEVICTABLE;
	return (folio_test_swapbacked(folio) ? LRU_INACTIVE_ANON : LRU_INACTIVE_FILE) +
	       (folio_test_active(folio) ? 1 : 0);
}

static void link(struct lruvec *lruvec, struct folio *folio, bool tail)
{
	enum lru_list lru = folio_lru_list(folio);
	u32 pfn = (u32)folio_pfn(folio);
	struct page *p = &folio->page;

	lru_touch_lines(pfn, tail ? lruvec->tail[lru] : lruvec->head[lru], NULL_PFN);
	if (tail) {
		p->lru_next = NULL_PFN;
		p->lru_prev = lruvec->tail[lru];
		if (lruvec->tail[lru] != NULL_PFN)
			mem_map[lruvec->tail[lru]].lru_next = pfn;
		else
			lruvec->head[lru] = pfn;
		lruvec->tail[lru] = pfn;
	} else {
		p->lru_prev = NULL_PFN;
		p->lru_next = lruvec->head[lru];
		if (lruvec->head[lru] != NULL_PFN)
			mem_map[lruvec->head[lru]].lru_prev = pfn;
		else
			lruvec->tail[lru] = pfn;
		lruvec->head[lru] = pfn;
	}
	lruvec->nr_pages[lru] += folio_nr_pages(folio);
	folio_set_lru(folio);
	hw_count(EV_lru_move, 1);
}

void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio)
{
	link(lruvec, folio, false);
}

void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio)
{
	link(lruvec, folio, true);
}

void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);
	struct page *p = &folio->page;

	lru_touch_lines((u32)folio_pfn(folio), p->lru_prev, p->lru_next);
	if (p->lru_prev != NULL_PFN)
		mem_map[p->lru_prev].lru_next = p->lru_next;
	else
		lruvec->head[lru] = p->lru_next;
	if (p->lru_next != NULL_PFN)
		mem_map[p->lru_next].lru_prev = p->lru_prev;
	else
		lruvec->tail[lru] = p->lru_prev;
	p->lru_next = p->lru_prev = NULL_PFN;
	lruvec->nr_pages[lru] -= folio_nr_pages(folio);
	folio_clear_lru(folio);
	hw_count(EV_lru_move, 1);
}

struct folio *lru_first(struct lruvec *lruvec, enum lru_list lru)
{
	return lruvec->head[lru] == NULL_PFN ? NULL : (struct folio *)&mem_map[lruvec->head[lru]];
}

struct folio *lru_last(struct lruvec *lruvec, enum lru_list lru)
{
	return lruvec->tail[lru] == NULL_PFN ? NULL : (struct folio *)&mem_map[lruvec->tail[lru]];
}

struct folio *lru_prev(struct folio *folio)
{
	u32 prev = folio->page.lru_prev;

	return prev == NULL_PFN ? NULL : (struct folio *)&mem_map[prev];
}

/*
 * The kernel queues new folios in a per-CPU batch and takes the lruvec
 * lock once per PAGEVEC_SIZE of them; the lab links at once and counts
 * the lock the same way.
 */
void folio_add_lru(struct folio *folio)
{
	/* see the comment in lru_gen_folio_seq(): a folio faulted in is hot */
	if (lru_gen_enabled && !folio_test_unevictable(folio) && lru_gen_in_fault() &&
	    !(current->flags & PF_MEMALLOC))
		folio_set_active(folio);
	if (root_lruvec.add_batch++ % PAGEVEC_SIZE == 0)
		hw_count(EV_lock_acquire, 1);
	folio_add_lru_locked(folio);
}

/* A folio faulted into a VM_LOCKED VMA goes straight to unevictable. */
void folio_add_lru_vma(struct folio *folio, struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_LOCKED) {
		folio_set_mlocked(folio);
		folio_set_unevictable(folio);
	}
	folio_add_lru(folio);
}

/* Evictable folios sit on the multi-gen LRU when it is on. */
void lru_del_folio(struct folio *folio)
{
	if (folio->page.gen)
		lru_gen_del_folio(folio_lruvec(folio), folio, false);
	else
		lruvec_del_folio(&root_lruvec, folio);
}

/* Add with the lruvec lock already held by the caller's batch. */
void folio_add_lru_locked(struct folio *folio)
{
	if (lru_gen_enabled && !folio_test_unevictable(folio))
		lru_gen_add_folio(folio_lruvec(folio), folio, false);
	else
		lruvec_add_folio(&root_lruvec, folio);
}
