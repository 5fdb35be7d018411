/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct page and struct folio. One struct page per simulated frame, kept
 * at 56 bytes (the kernel's is 64). Folio-wide fields live in the head page;
 * every page records the folio order so page_folio() is one mask.
 */
#ifndef PTELAB_INCLUDE_PAGE_H
#define PTELAB_INCLUDE_PAGE_H

#include "hw/cache.h"
#include "hw/events.h"
#include "hw/types.h"

enum pageflags {
	PG_locked,
	PG_referenced,
	PG_uptodate,
	PG_dirty,
	PG_lru,
	PG_active,
	PG_workingset,
	PG_anon,
	PG_buddy,
	PG_head,
	PG_reclaim,
	PG_unevictable,
	PG_mlocked,
	PG_swapbacked,
	PG_writeback,
	PG_anon_exclusive, /* per page: only this mapping may write it */
	PG_deferred_split, /* head: queued for deferred split */
	PG_readahead,      /* brought in by swap read-ahead, not yet asked for (the kernel aliases PG_reclaim) */
	NR_PAGEFLAGS
};

#define NULL_PFN 0xffffffffU

struct address_space;

struct page {
	u32 flags;                     /* PG_* bits */
	u8 order;
	u8 gen;                        /* MGLRU generation (+1; 0 = none) */
	u8 private_;                   /* MGLRU: the list it sits on (+1) */
	union {
		struct {
			u32 lru_next, lru_prev; /* LRU or buddy list links, by pfn */
		};
		/*
		 * The first tail page of a large folio: the folio's own
		 * mapcounts, as the kernel keeps them in struct folio's second
		 * page (folio_tail1()). A tail page is on no list.
		 */
		struct {
			int _large_mapcount;  /* -1 based sum over the pages */
			int _nr_pages_mapped; /* pages with _mapcount >= 0 */
		};
	};
	union {
		struct {
			struct address_space *mapping; /* page cache owner; NULL for anon */
			unsigned long index;           /* offset in file or anon virtual page */
		};
		/*
		 * The first tail page of a large folio: which mms map it
		 * (CONFIG_MM_ID, 7.x struct folio): two mm ids of 31 bits and
		 * the "maybe mapped shared" bit, each id's mappings, -1 based.
		 */
		struct {
			unsigned long _mm_ids;
			int _mm_id_mapcount[2];
		};
	};
	int _refcount;
	int _mapcount;                 /* -1 based, as in the kernel */
};

/* the host memory a simulated page costs: issue 14's budget is 64 bytes in all */
_Static_assert(sizeof(struct page) <= 40, "struct page must stay compact");
_Static_assert(NR_PAGEFLAGS <= 32, "page flags are a u32");

struct folio {
	union {
		struct page page;
		/*
		 * The kernel's folio->lru, the folio's place on a list: the
		 * lab's links are the head page's (lru_next, lru_prev), so
		 * &folio->lru is the head page (kernel/shim/core.h's lists).
		 */
		struct page lru;
	};
};

/* A large folio's second page, where its mapcounts are (never for order 0). */
static inline struct page *folio_tail1(const struct folio *folio)
{
	return (struct page *)&folio->page + 1;
}

extern struct page *mem_map;
extern u64 max_pfn;

static inline u64 page_to_pfn(const struct page *page)
{
	return (u64)(page - mem_map);
}

static inline struct page *pfn_to_page(u64 pfn)
{
	return &mem_map[pfn];
}

static inline struct folio *page_folio(struct page *page)
{
	u64 pfn = page_to_pfn(page);

	return (struct folio *)&mem_map[pfn & ~((1UL << page->order) - 1)];
}

static inline struct folio *pfn_folio(u64 pfn)
{
	return page_folio(pfn_to_page(pfn));
}

static inline u64 folio_pfn(const struct folio *folio)
{
	return page_to_pfn(&folio->page);
}

static inline unsigned int folio_order(const struct folio *folio)
{
	return folio->page.order;
}

static inline long folio_nr_pages(const struct folio *folio)
{
	return 1L << folio->page.order;
}

static inline bool folio_test_large(const struct folio *folio)
{
	return folio->page.order > 0;
}

static inline struct page *folio_page(struct folio *folio, long n)
{
	return &folio->page + n;
}

#define FOLIO_FLAG_FUNCS(name, bit)                                            \
	static inline bool folio_test_##name(const struct folio *f)           \
	{                                                                      \
		return f->page.flags & (1UL << (bit));                         \
	}                                                                      \
	static inline void folio_set_##name(struct folio *f)                  \
	{                                                                      \
		f->page.flags |= 1U << (bit);                                 \
	}                                                                      \
	static inline void folio_clear_##name(struct folio *f)                \
	{                                                                      \
		f->page.flags &= ~(1U << (bit));                              \
	}

FOLIO_FLAG_FUNCS(referenced, PG_referenced)
FOLIO_FLAG_FUNCS(dirty, PG_dirty)
FOLIO_FLAG_FUNCS(lru, PG_lru)
FOLIO_FLAG_FUNCS(active, PG_active)
FOLIO_FLAG_FUNCS(workingset, PG_workingset)
FOLIO_FLAG_FUNCS(anon, PG_anon)
FOLIO_FLAG_FUNCS(reclaim, PG_reclaim)
FOLIO_FLAG_FUNCS(unevictable, PG_unevictable)
FOLIO_FLAG_FUNCS(mlocked, PG_mlocked)
FOLIO_FLAG_FUNCS(swapbacked, PG_swapbacked)
FOLIO_FLAG_FUNCS(writeback, PG_writeback)
FOLIO_FLAG_FUNCS(locked, PG_locked)
FOLIO_FLAG_FUNCS(readahead, PG_readahead)
FOLIO_FLAG_FUNCS(deferred_split, PG_deferred_split)

/* folio_trylock/folio_unlock: PG_locked, uncounted as the lab's other folio locks are */
static inline bool folio_trylock(struct folio *folio)
{
	if (folio_test_locked(folio))
		return false;
	folio_set_locked(folio);
	return true;
}

static inline void folio_unlock(struct folio *folio)
{
	folio_clear_locked(folio);
}

static inline bool PageAnonExclusive(const struct page *page)
{
	return page->flags & (1UL << PG_anon_exclusive);
}

static inline void SetPageAnonExclusive(struct page *page)
{
	page->flags |= 1U << PG_anon_exclusive;
}

static inline void ClearPageAnonExclusive(struct page *page)
{
	page->flags &= ~(1U << PG_anon_exclusive);
}

/* Reference counting: every refcount RMW is a counted atomic. */
static inline int folio_ref_count(const struct folio *folio)
{
	return folio->page._refcount;
}

static inline void folio_ref_add(struct folio *folio, int nr)
{
	hw_count(EV_folio_ref_atomic, 1);
	hw_cache_page(folio_pfn(folio));
	folio->page._refcount += nr;
}

static inline void folio_get(struct folio *folio)
{
	folio_ref_add(folio, 1);
}

static inline bool folio_ref_sub_and_test(struct folio *folio, int nr)
{
	hw_count(EV_folio_ref_atomic, 1);
	hw_cache_page(folio_pfn(folio));
	folio->page._refcount -= nr;
	return folio->page._refcount == 0;
}

/* Mapcounts: page->_mapcount and the folio's total, -1 based. */
static inline int folio_mapcount(const struct folio *folio)
{
	if (!folio_test_large(folio))
		return folio->page._mapcount + 1;
	return folio_tail1(folio)->_large_mapcount + 1;
}

static inline bool folio_mapped(const struct folio *folio)
{
	return folio_mapcount(folio) > 0;
}

/*
 * include/linux/mm_types.h (CONFIG_MM_ID, 7.x): a large folio remembers up
 * to two mms that map it (mm/rmap.c keeps them); 0 is no mm.
 */
typedef unsigned int mm_id_t;
#define MM_ID_DUMMY 0
#define MM_ID_MIN 1
#define MM_ID_BITS 31
#define MM_ID_MASK ((1UL << MM_ID_BITS) - 1)
#define FOLIO_MM_IDS_SHARED_BITNUM 63
#define FOLIO_MM_IDS_SHARED_BIT (1UL << FOLIO_MM_IDS_SHARED_BITNUM)

static inline mm_id_t folio_mm_id(const struct folio *folio, int idx)
{
	return (mm_id_t)(folio_tail1(folio)->_mm_ids >> (idx * MM_ID_BITS)) & MM_ID_MASK;
}

/*
 * include/linux/mm.h (7.x; 6.x folio_likely_mapped_shared): whether the
 * folio may be mapped by more than one process: for a large folio, the
 * kernel's answer from its mm ids (it may still say shared after a third
 * mm mapped it and left, until one slot owns every mapping again).
 */
static inline bool folio_maybe_mapped_shared(const struct folio *folio)
{
	int mapcount = folio_mapcount(folio);

	if (!folio_test_large(folio))
		return mapcount > 1;
	/* a single mapping is exclusive, whatever the bit says */
	if (mapcount <= 1)
		return false;
	return folio_tail1(folio)->_mm_ids & FOLIO_MM_IDS_SHARED_BIT;
}

/* Page allocator (buddy): naturally aligned folios of order 0..9. */
#define MAX_PAGE_ORDER 10
#define PMD_ORDER 9

int page_alloc_init(u64 nr_frames);
void page_alloc_exit(void);
/*
 * With every frame free: the allocator as page_alloc_init left it, so
 * what runs next allocates the same frames whatever ran before. false
 * (nothing changed) if a frame is still allocated.
 */
bool page_alloc_restart(void);
struct folio *folio_alloc(unsigned int order);
void free_folio(struct folio *folio); /* to the buddy allocator */
u64 nr_free_pages(void);
/* pfn lies in free frames never handed out (struct pages all zero) up to *end */
bool page_alloc_untouched(u64 pfn, u64 *end);

#endif
