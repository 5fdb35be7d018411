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

/*
 * include/linux/rmap.h (7.3, CONFIG_MM_ID): a large folio's mapcount and
 * which mms hold it. Two slots, each an mm id and that mm's mappings; a
 * third mm, or a slot's mm gaining a mapping while the other slot has
 * some, marks the folio "maybe mapped shared" until one slot owns every
 * mapping again. The kernel changes these under one bit spinlock, the
 * lab's one counted mapcount atomic.
 */
static void folio_set_mm_id(struct folio *folio, int idx, mm_id_t id)
{
	struct page *t1 = folio_tail1(folio);

	t1->_mm_ids &= ~(MM_ID_MASK << (idx * MM_ID_BITS));
	t1->_mm_ids |= (unsigned long)id << (idx * MM_ID_BITS);
}

void folio_set_large_mapcount(struct folio *folio, int mapcount, struct vm_area_struct *vma)
{
	struct page *t1 = folio_tail1(folio);

	t1->_large_mapcount = mapcount - 1;
	t1->_mm_ids = 0;
	t1->_mm_id_mapcount[0] = mapcount - 1;
	t1->_mm_id_mapcount[1] = -1;
	folio_set_mm_id(folio, 0, vma->vm_mm->mm_id);
}

static void folio_add_large_mapcount(struct folio *folio, int diff, struct vm_area_struct *vma)
{
	const mm_id_t mm_id = vma->vm_mm->mm_id;
	struct page *t1 = folio_tail1(folio);
	int new_mapcount_val = t1->_large_mapcount += diff;

	if (folio_mm_id(folio, 0) == mm_id) {
		t1->_mm_id_mapcount[0] += diff;
	} else if (folio_mm_id(folio, 1) == mm_id) {
		t1->_mm_id_mapcount[1] += diff;
	} else if (folio_mm_id(folio, 0) == MM_ID_DUMMY) {
		folio_set_mm_id(folio, 0, mm_id);
		t1->_mm_id_mapcount[0] = diff - 1;
		/* we might have other mappings already */
		if (new_mapcount_val != diff - 1)
			t1->_mm_ids |= FOLIO_MM_IDS_SHARED_BIT;
	} else if (folio_mm_id(folio, 1) == MM_ID_DUMMY) {
		folio_set_mm_id(folio, 1, mm_id);
		t1->_mm_id_mapcount[1] = diff - 1;
		/* slot 0 certainly has mappings as well */
		t1->_mm_ids |= FOLIO_MM_IDS_SHARED_BIT;
	}
}

void folio_sub_large_mapcount(struct folio *folio, int diff, struct vm_area_struct *vma)
{
	const mm_id_t mm_id = vma->vm_mm->mm_id;
	struct page *t1 = folio_tail1(folio);
	int new_mapcount_val = t1->_large_mapcount -= diff;

	/* a slot may underflow (mappings added while no slot was free): it is freed */
	for (int i = 0; i < 2; i++) {
		if (folio_mm_id(folio, i) != mm_id)
			continue;
		t1->_mm_id_mapcount[i] -= diff;
		if (t1->_mm_id_mapcount[i] >= 0)
			return;
		t1->_mm_id_mapcount[i] = -1;
		folio_set_mm_id(folio, i, MM_ID_DUMMY);
		break;
	}
	/* one slot owns every mapping (or none is left): mapped exclusively */
	if (t1->_mm_id_mapcount[0] == new_mapcount_val || t1->_mm_id_mapcount[1] == new_mapcount_val)
		t1->_mm_ids &= ~FOLIO_MM_IDS_SHARED_BIT;
}

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
		folio_set_large_mapcount(folio, (int)nr, vma);
	}
}

/*
 * One more mapping of nr pages, as 7.3's __folio_add_rmap at
 * PGTABLE_LEVEL_PTE: the folio's large mapcount once, each page's
 * mapcount, then _nr_pages_mapped once for the pages that became mapped.
 */
static void __folio_add_rmap(struct folio *folio, struct page *page, int nr,
			     struct vm_area_struct *vma, bool share_anon)
{
	int first = 0;

	hw_count(EV_rmap_call, 1);
	if (folio_test_large(folio)) {
		hw_count(EV_mapcount_atomic, 1);
		hw_cache_page(folio_pfn(folio) + 1);
		folio_add_large_mapcount(folio, nr, vma);
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
			      struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	PERF_FUNC();
	(void)src_vma;
	__folio_add_rmap(folio, page, nr, dst_vma, true);
}

void folio_add_file_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma)
{
	PERF_FUNC();
	__folio_add_rmap(folio, page, nr, vma, false);
}

void folio_remove_rmap_ptes(struct folio *folio, struct page *page, int nr,
			    struct vm_area_struct *vma)
{
	PERF_FUNC();
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
	folio_sub_large_mapcount(folio, nr, vma);
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
