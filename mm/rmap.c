// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reverse-mapping accounting for anonymous folios: mapcounts per page
 * and per folio. Every RMW of a mapcount is a counted atomic, every
 * add/remove call an rmap_call: batching saves calls, not page atomics.
 */
#include "mm/mm.h"

void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long address)
{
	long nr = folio_nr_pages(folio);

	hw_count(EV_rmap_call, 1);
	folio_set_anon(folio);
	folio_set_swapbacked(folio);
	folio->page.mapping = NULL;
	folio->page.index = address >> PAGE_SHIFT;
	(void)vma;
	/* A new folio is exclusive to us: plain stores, no atomics. */
	for (long i = 0; i < nr; i++)
		folio_page(folio, i)->_mapcount = 0;
	if (folio_test_large(folio)) {
		folio->page._nr_pages_mapped = (int)nr;
		folio->page._large_mapcount = (int)nr - 1;
	}
}

void folio_remove_rmap_ptes(struct folio *folio, struct page *page, int nr,
			    struct vm_area_struct *vma)
{
	(void)vma;
	hw_count(EV_rmap_call, 1);
	if (!folio_test_large(folio)) {
		hw_count(EV_mapcount_atomic, 1);
		page->_mapcount--;
		return;
	}
	/* per page: its own mapcount, and the folio's mapped-pages count */
	for (int i = 0; i < nr; i++, page++) {
		hw_count(EV_mapcount_atomic, 1);
		if (--page->_mapcount == -1) {
			hw_count(EV_mapcount_atomic, 1);
			folio->page._nr_pages_mapped--;
		}
	}
	hw_count(EV_mapcount_atomic, 1);
	folio->page._large_mapcount -= nr;
}
