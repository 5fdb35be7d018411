// SPDX-License-Identifier: GPL-2.0-only
/* Mirrors 7.3: mm/swap.c (folio batches, folios_put_refs). */
/*
 * Folio release and LRU membership. Releases go through a folio batch
 * (PAGEVEC_SIZE folios) so the lruvec lock is taken once per batch, as
 * folios_put_refs() does; LRU additions are batched the same way.
 */
#include "hw/invariants.h"
#include "mm/lru.h"
#include "mm/mm.h"
#include "hw/perf.h"

#define PAGEVEC_SIZE 31

struct folio_batch {
	unsigned int nr;
	struct folio *folios[PAGEVEC_SIZE];
	int refs[PAGEVEC_SIZE];
};

static void folios_put_refs(struct folio_batch *fbatch)
{
	PERF_FUNC();
	bool locked = false;

	for (unsigned int i = 0; i < fbatch->nr; i++) {
		struct folio *folio = fbatch->folios[i];

		if (!folio_ref_sub_and_test(folio, fbatch->refs[i]))
			continue;
		if (folio_test_lru(folio)) {
			if (!locked) {
				hw_count(EV_lock_acquire, 1);
				locked = true;
			}
			lru_del_folio(folio);
		}
		/* folio_undo_large_rmappable: off the split queue before freeing */
		if (folio_test_deferred_split(folio)) {
			hw_count(EV_lock_acquire, 1);
			hw_count(EV_deferred_split, 1);
			folio_clear_deferred_split(folio);
		}
		if (folio_mapped(folio))
			hw_violation(VIOL_MAPCOUNT, "pfn %#llx freed while mapped %d times",
				     (unsigned long long)folio_pfn(folio),
				     folio_mapcount(folio));
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

void free_pages_and_swap_cache(struct encoded_page **pages, int nr)
{
	PERF_FUNC();
	struct folio_batch fbatch = { .nr = 0 };

	for (int i = 0; i < nr; i++) {
		uintptr_t v = (uintptr_t)pages[i];
		struct page *page = (struct page *)(v & ~(uintptr_t)3);
		int refs = 1;

		if (v & ENCODED_PAGE_BIT_NR_PAGES_NEXT)
			refs = (int)((uintptr_t)pages[++i] >> 2);
		fbatch.folios[fbatch.nr] = page_folio(page);
		fbatch.refs[fbatch.nr++] = refs;
		if (fbatch.nr == PAGEVEC_SIZE)
			folios_put_refs(&fbatch);
	}
	folios_put_refs(&fbatch);
}
