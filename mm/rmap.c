// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/rmap.c (folio_add_new_anon_rmap, __folio_add_rmap,
 * folio_remove_rmap_ptes, folio_referenced_one), mm/huge_memory.c
 * (deferred_split_folio).
 */
/*
 * Reverse-mapping accounting for anonymous folios: mapcounts per page
 * and per folio. Every RMW of a mapcount is a counted atomic, every
 * add/remove call an rmap_call: batching saves calls, not page atomics.
 */
#include "mm/switches.h"
#include "mm/mm.h"
#include "mm/rmap.h"
#include "hw/perf.h"

void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long address)
{
	PERF_FUNC();
	long nr = folio_nr_pages(folio);

	hw_count(EV_rmap_call, 1);
	folio_set_anon(folio);
	folio_set_swapbacked(folio);
	/* __folio_set_anon: the mapping names the VMA's anon_vma */
	folio->page.mapping = (struct address_space *)((unsigned long)vma->anon_vma | FOLIO_MAPPING_ANON);
	folio->page.index = vma->vm_pgoff + ((address - vma->vm_start) >> PAGE_SHIFT);
	/* A new folio is exclusive to us: plain stores, no atomics. */
	for (long i = 0; i < nr; i++) {
		folio_page(folio, i)->_mapcount = 0;
		SetPageAnonExclusive(folio_page(folio, i));
	}
	if (folio_test_large(folio)) {
		folio_tail1(folio)->_nr_pages_mapped = (int)nr;
		folio_tail1(folio)->_large_mapcount = (int)nr - 1;
	}
}

/*
 * One more mapping of nr pages, as 7.3's __folio_add_rmap at
 * PGTABLE_LEVEL_PTE: the folio's large mapcount once, each page's
 * mapcount, then _nr_pages_mapped once for the pages that became mapped.
 */
static void __folio_add_rmap(struct folio *folio, struct page *page, int nr,
			     bool share_anon)
{
	int first = 0;

	hw_count(EV_rmap_call, 1);
	if (folio_test_large(folio)) {
		hw_count(EV_mapcount_atomic, 1);
		hw_cache_page(folio_pfn(folio) + 1);
		folio_tail1(folio)->_large_mapcount += nr;
	}
	for (int i = 0; i < nr; i++, page++) {
		hw_count(EV_mapcount_atomic, 1);
		hw_cache_page(page_to_pfn(page));
		first += page->_mapcount++ == -1;
		/* fork: the pages stop being exclusive to the parent */
		if (share_anon)
			ClearPageAnonExclusive(page);
	}
	if (first && folio_test_large(folio)) {
		hw_count(EV_mapcount_atomic, 1);
		hw_cache_page(folio_pfn(folio) + 1);
		folio_tail1(folio)->_nr_pages_mapped += first;
	}
}

/* fork: the child maps the same pages; one call per batch. */
void folio_dup_anon_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *src_vma)
{
	PERF_FUNC();
	(void)src_vma;
	__folio_add_rmap(folio, page, nr, true);
}

void folio_add_file_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma)
{
	PERF_FUNC();
	(void)vma;
	__folio_add_rmap(folio, page, nr, false);
}

void folio_remove_rmap_ptes(struct folio *folio, struct page *page, int nr,
			    struct vm_area_struct *vma)
{
	PERF_FUNC();
	(void)vma;
	hw_count(EV_rmap_call, 1);
	if (!folio_test_large(folio)) {
		hw_count(EV_mapcount_atomic, 1);
		hw_cache_page(page_to_pfn(page));
		page->_mapcount--;
		return;
	}
	/*
	 * 7.3's __folio_remove_rmap: the large mapcount once, each page's
	 * mapcount, then one atomic_sub_return on _nr_pages_mapped for the
	 * pages that became unmapped: a batch of nr pays nr + 2 atomics.
	 */
	int last = 0;

	hw_count(EV_mapcount_atomic, 1);
	hw_cache_page(folio_pfn(folio) + 1);
	folio_tail1(folio)->_large_mapcount -= nr;
	for (int i = 0; i < nr; i++, page++) {
		hw_count(EV_mapcount_atomic, 1);
		hw_cache_page(page_to_pfn(page));
		last += --page->_mapcount == -1;
	}
	if (last) {
		hw_count(EV_mapcount_atomic, 1);
		hw_cache_page(folio_pfn(folio) + 1);
		folio_tail1(folio)->_nr_pages_mapped -= last;
	}
	/*
	 * An anonymous large folio left partly mapped may be worth splitting:
	 * it is queued (under the split-queue lock) once. Zapping a folio one
	 * PTE at a time leaves it partly mapped after the first. Before 6.10
	 * (deferred_split_partial off) any unmap that left pages unmapped
	 * queued it, fully unmapped or not: a batched zap paid the queue too.
	 */
	if (folio_test_anon(folio) && !folio_test_deferred_split(folio) &&
	    (mm_sw.deferred_split_partial ? folio_mapped(folio) : last > 0))
		deferred_split_folio(folio);
}

void deferred_split_folio(struct folio *folio)
{
	PERF_FUNC();
	/* an order-1 folio has no third page to keep _deferred_list in */
	if (folio_order(folio) <= 1)
		return;
	hw_count(EV_lock_acquire, 1);
	hw_count(EV_deferred_split, 1);
	folio_set_deferred_split(folio);
}

/*
 * The young test rmap does for one mapping of a folio (the heart of
 * folio_referenced_one): with young-batch, one folio_pte_batch() and one
 * clear_flush_young_ptes() over the run (7.x); without, the 6.x shape of
 * page_vma_mapped_walk: read each PTE, clear-flush its young bit.
 * Returns how many young references were found.
 */
/* page_vma_mapped_walk() yields only entries that map this folio */
static bool maps_folio(struct folio *folio, pte_t pte)
{
	return pte_present(pte) && pte_pfn(pte) >= folio_pfn(folio) &&
	       pte_pfn(pte) < folio_pfn(folio) + folio_nr_pages(folio);
}

int folio_referenced_one(struct folio *folio, struct vm_area_struct *vma,
			 unsigned long address, pte_t *ptep, unsigned int max_nr)
{
	int referenced = 0;

	hw_count(EV_rmap_call, 1);
	if (mm_sw.young_batch) {
		for (unsigned int done = 0; done < max_nr;) {
			pte_t ptent = ptep_get(ptep + done);
			unsigned int nr = 1;

			if (!maps_folio(folio, ptent))
				break;
			if (folio_test_large(folio))
				nr = folio_pte_batch(folio, ptep + done, ptent, max_nr - done);
			if (clear_flush_young_ptes(vma, address + done * PAGE_SIZE, ptep + done, nr))
				referenced++;
			done += nr;
		}
		return referenced;
	}
	for (unsigned int i = 0; i < max_nr; i++) {
		if (!maps_folio(folio, ptep_get(ptep + i)))
			break;
		if (ptep_clear_flush_young(vma, address + i * PAGE_SIZE, ptep + i))
			referenced++;
	}
	return referenced;
}
