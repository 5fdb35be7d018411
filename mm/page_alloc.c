// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/page_alloc.c (the buddy allocator, much simplified: no
 * zones, no pcp lists).
 */
/*
 * A buddy allocator over the simulated frames: naturally aligned blocks
 * of order 0..MAX_PAGE_ORDER, split on allocation and merged on free.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/host.h"
#include "hw/phys.h"
#include "include/page.h"
#include "include/sched.h"
#include "mm/mmzone.h"
#include "sim/frames.h"
#include "hw/perf.h"

struct page *mem_map;
u64 max_pfn;

static u32 free_head[MAX_PAGE_ORDER + 1];
static u64 free_pages;
/*
 * Frames [lazy_next, lazy_end) are free MAX_PAGE_ORDER blocks nobody has
 * taken yet: the tail of that order's free list, lowest first, exactly
 * where fill_free_lists would have linked them, but with their struct
 * pages never written. A fresh machine's mem_map is then first touched
 * as frames are used, not all at setup (at 10 GiB that first touch was
 * 40 % of S1's host time), and a restart clears only what was used.
 */
static u64 lazy_next, lazy_end;

static void list_add(unsigned int order, u64 pfn)
{
	struct page *p = &mem_map[pfn];

	p->lru_prev = NULL_PFN;
	p->lru_next = free_head[order];
	if (free_head[order] != NULL_PFN)
		mem_map[free_head[order]].lru_prev = (u32)pfn;
	free_head[order] = (u32)pfn;
	p->flags = 1U << PG_buddy;
	p->order = (u8)order;
}

static void list_del(unsigned int order, u64 pfn)
{
	struct page *p = &mem_map[pfn];

	if (p->lru_prev != NULL_PFN)
		mem_map[p->lru_prev].lru_next = p->lru_next;
	else
		free_head[order] = p->lru_next;
	if (p->lru_next != NULL_PFN)
		mem_map[p->lru_next].lru_prev = p->lru_prev;
	p->flags = 0;
}

/* Every frame free, in the order a fresh machine hands them out. */
/*
 * All frames free again. The frame states hw/phys.c keeps are reset for
 * [0, used_low) and [used_high, max_pfn) only: a restart passes what the
 * last run handed out (the lazy blocks between were never written, so
 * still as the last full reset left them).
 */
static void fill_free_lists(u64 used_low, u64 used_high)
{
	u64 pfn = max_pfn;

	for (int o = 0; o <= MAX_PAGE_ORDER; o++)
		free_head[o] = NULL_PFN;
	free_pages = max_pfn;
	/*
	 * Hand out low frames first: the blocks above the last whole
	 * MAX_PAGE_ORDER block are linked high to low; the whole blocks
	 * below are the lazy tail of the top order's list.
	 */
	lazy_end = ALIGN_DOWN(max_pfn, 1UL << MAX_PAGE_ORDER);
	lazy_next = 0;
	while (pfn > lazy_end) {
		unsigned int o = MAX_PAGE_ORDER;

		while (o && (pfn & ((1UL << o) - 1)))
			o--;
		pfn -= 1UL << o;
		list_add(o, pfn);
	}
	if (used_low)
		hw_frames_set_free(0, used_low, true);
	if (used_high < max_pfn)
		hw_frames_set_free(used_high, max_pfn - used_high, true);
}

static bool free_list_empty(unsigned int o)
{
	return free_head[o] == NULL_PFN && (o != MAX_PAGE_ORDER || lazy_next == lazy_end);
}

/* The head of order o's list: linked blocks first, then the lazy ones. */
static u64 free_list_take(unsigned int o)
{
	u64 pfn = free_head[o];

	if (pfn != NULL_PFN) {
		list_del(o, pfn);
		return pfn;
	}
	pfn = lazy_next;
	lazy_next += 1UL << MAX_PAGE_ORDER;
	return pfn;
}

bool page_alloc_untouched(u64 pfn, u64 *end)
{
	if (pfn < lazy_next || pfn >= lazy_end)
		return false;
	*end = lazy_end;
	return true;
}

int page_alloc_init(u64 nr_frames)
{
	page_alloc_exit();
	/* list links are u32 pfns; the page cache keeps (pfn + 1) << 1 in a u32 */
	if (nr_frames > (1UL << 31) - 2)
		return -1;
	mem_map = host_calloc(nr_frames, sizeof(*mem_map), "struct pages (mem_map)");
	max_pfn = nr_frames;
	fill_free_lists(max_pfn, max_pfn);
	return 0;
}

bool page_alloc_restart(void)
{
	if (!mem_map || free_pages != max_pfn)
		return false;
	/* what was used; the lazy blocks were never written */
	memset(mem_map, 0, lazy_next * sizeof(*mem_map));
	memset(mem_map + lazy_end, 0, (max_pfn - lazy_end) * sizeof(*mem_map));
	fill_free_lists(lazy_next, lazy_end);
	return true;
}

void page_alloc_exit(void)
{
	free(mem_map);
	mem_map = NULL;
	max_pfn = 0;
}

u64 nr_free_pages(void)
{
	return free_pages;
}

static struct folio *rmqueue(unsigned int order)
{
	unsigned int o = order;
	u64 pfn;

	while (o <= MAX_PAGE_ORDER && free_list_empty(o))
		o++;
	if (o > MAX_PAGE_ORDER)
		return NULL;
	pfn = free_list_take(o);
	while (o > order) {
		o--;
		list_add(o, pfn + (1UL << o));
	}
	free_pages -= 1UL << order;
	for (u64 i = 0; i < (1UL << order); i++) {
		struct page *p = &mem_map[pfn + i];

		memset(p, 0, sizeof(*p));
		p->order = (u8)order;
		p->_mapcount = -1;
		p->lru_next = p->lru_prev = NULL_PFN;
	}
	struct folio *folio = (struct folio *)&mem_map[pfn];
	folio->page._refcount = 1;
	if (order) {
		folio->page.flags |= 1UL << PG_head;
		folio_tail1(folio)->_large_mapcount = -1;
		folio_tail1(folio)->_nr_pages_mapped = 0;
		folio_tail1(folio)->_mm_id_mapcount[0] = -1;
		folio_tail1(folio)->_mm_id_mapcount[1] = -1;
	}
	hw_frames_set_free(pfn, 1UL << order, false);
	hw_count(EV_folio_alloc, 1);
	return folio;
}

/*
 * __alloc_pages (7.3) under watermarks: the fast path takes a page while
 * free memory stays above low; below it kswapd is woken and the
 * allocation may still dip to min; below min the task reclaims itself
 * (direct reclaim), a bounded number of times, before it takes what is
 * left or fails. A reclaiming task (PF_MEMALLOC) takes what there is.
 */

struct folio *folio_alloc(unsigned int order)
{
	PERF_FUNC();
	struct pglist_data *pgdat = NODE_DATA(0);
	u64 nr = 1UL << order;
	struct folio *folio;

	if (!pgdat->watermark[WMARK_MIN] || (current->flags & PF_MEMALLOC))
		return rmqueue(order);
	sim_sync(); /* free memory is shared with every agent */
	if (free_pages >= pgdat->watermark[WMARK_LOW] + nr)
		return rmqueue(order);
	wakeup_kswapd(order);
	for (int retries = 0;; retries++) {
		if (free_pages >= pgdat->watermark[WMARK_MIN] + nr)
			return rmqueue(order);
		if (retries == MAX_RECLAIM_RETRIES)
			break;
		int frame = SIM_FRAME("__alloc_pages_direct_reclaim");

		/* the kernel never reclaims (sleeps) under a PTE table's spinlock */
		if (ptlock_held_by_current())
			sim_bug("direct reclaim with a PTE table's lock held: a fault path here "
				"allocates under the lock, which the kernel does not");

		sim_frame_enter(frame);
		try_to_free_pages(order);
		sim_frame_exit(frame);
		sim_sync();
	}
	folio = rmqueue(order); /* the reserves below min, as a last resort */
	if (!folio)
		pgdat->alloc_fail++;
	return folio;
}

void free_folio(struct folio *folio)
{
	PERF_FUNC();
	u64 pfn = folio_pfn(folio);
	unsigned int order = folio_order(folio);

	free_pages += 1UL << order;
	hw_frames_set_free(pfn, 1UL << order, true);
	hw_count(EV_folio_free, 1);
	/*
	 * free_pages_prepare: free_tail_page_prepare and the flags clear on
	 * every tail page, one struct page line each.
	 */
	if (order) {
		hw_count(EV_free_tail_page, (1UL << order) - 1);
		for (u64 i = 1; hw_cache_on && i < 1UL << order; i++)
			hw_cache_page(pfn + i);
	}
	while (order < MAX_PAGE_ORDER) {
		u64 buddy = pfn ^ (1UL << order);
		struct page *b = &mem_map[buddy];

		if (buddy >= max_pfn || !(b->flags & (1UL << PG_buddy)) || b->order != order)
			break;
		list_del(order, buddy);
		pfn &= ~(1UL << order);
		order++;
	}
	list_add(order, pfn);
}
