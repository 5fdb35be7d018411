// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/swap.c (folio batches, folios_put_refs); 6.9 release_pages'
 * large-folio path (folio_batch_free off).
 */
/*
 * Folio release and LRU membership. Releases go through a folio batch
 * (PAGEVEC_SIZE folios) so the lruvec lock is taken once per batch, as
 * folios_put_refs() does; LRU additions are batched the same way.
 */
#include "hw/invariants.h"
#include "hw/phys.h"
#include "include/pagevec.h"
#include "mm/lru.h"
#include "mm/mm.h"
#include "mm/switches.h"
#include "hw/perf.h"

#define PAGE_ALLOC_COSTLY_ORDER 3

/*
 * Orders the per-CPU free lists take (mm/page_alloc.c): up to the costly
 * order, and the PMD order with THP. The others go to the buddy lists
 * directly, each under the zone lock (free_one_page).
 */
static bool pcp_allowed_order(unsigned int order)
{
	return order <= PAGE_ALLOC_COSTLY_ORDER || order == PMD_ORDER;
}

struct folio_batch {
	unsigned int nr;
	struct folio *folios[PAGEVEC_SIZE];
	int refs[PAGEVEC_SIZE];
};

/* folio_undo_large_rmappable: off the split queue before freeing */
static void folio_undo_large_rmappable(struct folio *folio)
{
	if (folio_test_deferred_split(folio)) {
		hw_count(EV_lock_acquire, 1);
		hw_count(EV_deferred_split, 1);
		folio_clear_deferred_split(folio);
	}
}

static void free_check_mapped(struct folio *folio)
{
	if (folio_mapped(folio))
		hw_violation(VIOL_MAPCOUNT, "pfn %#llx freed while mapped %d times",
			     (unsigned long long)folio_pfn(folio), folio_mapcount(folio));
}

/*
 * 6.9's __folio_put_large (folio_batch_free off), as release_pages called
 * it for every large folio: __page_cache_release under a lruvec lock of
 * its own, then destroy_large_folio: off the split queue,
 * mem_cgroup_uncharge of this folio alone, and free_the_page, which takes
 * the pcp lock (free_unref_page) or the zone lock (__free_pages_ok) for
 * this one folio.
 */
static void __folio_put_large(struct folio *folio)
{
	PERF_FUNC();
	if (folio_test_lru(folio)) {
		lruvec_lock_irq(&root_lruvec);
		lru_del_folio(folio);
		lruvec_unlock_irq(&root_lruvec);
	}
	folio_undo_large_rmappable(folio);
	hw_count(EV_memcg_uncharge, 1);
	hw_count(EV_lock_acquire, 1);
	free_check_mapped(folio);
	free_folio(folio);
}

/*
 * The folios whose last reference this drops leave the LRU under one
 * acquisition of the lruvec lock, which is dropped before they are
 * freed (free_unref_folios), as 7.3's folios_put_refs does.
 */
static void folios_put_refs(struct folio_batch *fbatch)
{
	PERF_FUNC();
	unsigned int nr_free = 0;
	bool locked = false;

	for (unsigned int i = 0; i < fbatch->nr; i++) {
		struct folio *folio = fbatch->folios[i];

		if (!folio_ref_sub_and_test(folio, fbatch->refs[i]))
			continue;
		if (!mm_sw.folio_batch_free && folio_test_large(folio)) {
			if (locked) /* release_pages drops the batch's lruvec lock first */
				lruvec_unlock_irq(&root_lruvec);
			locked = false;
			__folio_put_large(folio);
			continue;
		}
		if (folio_test_lru(folio)) {
			if (!locked) {
				lruvec_lock_irq(&root_lruvec);
				locked = true;
			}
			lru_del_folio(folio);
		}
		fbatch->folios[nr_free++] = folio;
	}
	if (locked)
		lruvec_unlock_irq(&root_lruvec);
	for (unsigned int i = 0; i < nr_free; i++) {
		struct folio *folio = fbatch->folios[i];

		folio_undo_large_rmappable(folio);
		free_check_mapped(folio);
		/*
		 * free_unref_folios: pcp orders share the batch's pcp lock
		 * (folio_free's cost); the others take the zone lock each.
		 */
		if (!pcp_allowed_order(folio_order(folio)))
			hw_count(EV_lock_acquire, 1);
		free_folio(folio);
	}
	fbatch->nr = 0;
}

void folios_put_refs_one(struct folio *folio, int refs)
{
	struct folio_batch fbatch = { .nr = 1 };

	fbatch.folios[0] = folio;
	fbatch.refs[0] = refs;
	folios_put_refs(&fbatch);
}

/* folios_put: one reference of each, as one batch (one lruvec lock for those that die) */
void folios_put(struct folio **folios, unsigned int nr)
{
	struct folio_batch fbatch = { .nr = 0 };

	for (unsigned int i = 0; i < nr; i++) {
		fbatch.folios[fbatch.nr] = folios[i];
		fbatch.refs[fbatch.nr++] = 1;
		if (fbatch.nr == PAGEVEC_SIZE)
			folios_put_refs(&fbatch);
	}
	if (fbatch.nr)
		folios_put_refs(&fbatch);
}

/*
 * The lab's bookkeeping, no kernel work: an anonymous page the zap left
 * mapped nowhere holds data nobody can read again (munmap, MADV_DONTNEED
 * discard it), so its frame's "written" mark is dropped, once the TLBs
 * are flushed and no stale entry can store to it (the gather frees its
 * pages only after its flush). Reclaim may then free its folio (a
 * lazyfree one still mapped elsewhere) without that being a lost write.
 * File pages keep theirs: the page cache still holds them.
 */
static void discard_unmapped_anon(struct encoded_page **pages, int nr)
{
	for (int i = 0; i < nr; i++) {
		struct page *page = encoded_page_ptr(pages[i]);
		unsigned long n = 1;

		if (encoded_page_flags(pages[i]) & ENCODED_PAGE_BIT_NR_PAGES_NEXT)
			n = encoded_nr_pages(pages[++i]);
		if (!folio_test_anon(page_folio(page)))
			continue;
		for (unsigned long j = 0; j < n; j++)
			if (page[j]._mapcount < 0)
				hw_frame_clean(page_to_pfn(page + j), 1);
	}
}

/* mm/swap_state.c: an mmu_gather's pages, freed after its TLB flush */
void free_pages_and_swap_cache(struct encoded_page **pages, int nr)
{
	PERF_FUNC();
	struct folio_batch fbatch = { .nr = 0 };

	discard_unmapped_anon(pages, nr);

	for (int i = 0; i < nr; i++) {
		struct page *page = encoded_page_ptr(pages[i]);
		int refs = 1;

		if (encoded_page_flags(pages[i]) & ENCODED_PAGE_BIT_NR_PAGES_NEXT)
			refs = (int)encoded_nr_pages(pages[++i]);
		fbatch.folios[fbatch.nr] = page_folio(page);
		fbatch.refs[fbatch.nr++] = refs;
		if (fbatch.nr == PAGEVEC_SIZE)
			folios_put_refs(&fbatch);
	}
	folios_put_refs(&fbatch);
}
