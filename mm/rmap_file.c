// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/rmap.c (rmap_walk_file, folio_referenced, try_to_unmap,
 * try_to_unmap_one).
 */
/*
 * The reverse map of page-cache folios: from a folio to every VMA of
 * its file that maps it (i_mmap), the run of PTEs mapping it there
 * (page_vma_mapped_walk), and what reclaim does with them:
 * folio_referenced() and try_to_unmap().
 */
#include "mm/filemap.h"
#include "mm/mm.h"
#include "mm/reclaim.h"

/* Where the folio would be mapped in vma, clipped to the VMA and PMD. */
static bool folio_vma_range(struct folio *folio, struct vm_area_struct *vma,
			    unsigned long *start, unsigned int *nr, long *first_page)
{
	u64 index = folio->page.index, n = (u64)folio_nr_pages(folio);
	u64 vstart = vma->vm_pgoff, vend = vma->vm_pgoff + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT);
	u64 lo = max(index, vstart), hi = min(index + n, vend);

	if (lo >= hi)
		return false;
	*start = vma->vm_start + ((lo - vstart) << PAGE_SHIFT);
	*nr = (unsigned int)(hi - lo);
	*first_page = (long)(lo - index);
	return true;
}

/*
 * page_vma_mapped_walk, reduced to what reclaim needs: the next PTE from
 * (*addr, *ptep) on that maps a page of the folio, under the PTL the
 * caller holds. Returns false when the folio's range is done.
 */
static bool pvmw_next(struct folio *folio, pte_t *ptep, unsigned long addr,
		      unsigned int left, unsigned int *skip)
{
	u64 pfn0 = folio_pfn(folio), n = (u64)folio_nr_pages(folio);

	for (*skip = 0; *skip < left; (*skip)++) {
		pte_t pte = ptep_get(ptep + *skip);

		if (pte_present(pte) && pte_pfn(pte) - pfn0 < n)
			return true;
	}
	(void)addr;
	return false;
}

/*
 * rmap_walk_file: for every VMA of the folio's file that maps part of it,
 * call rmap_one with the run of PTEs that could map it, under their PTL.
 */
typedef void (*rmap_one_t)(struct folio *folio, struct vm_area_struct *vma,
			   unsigned long start, pte_t *ptep, u64 *pmdp,
			   unsigned int nr, void *arg);

static void rmap_walk_file(struct folio *folio, rmap_one_t rmap_one, void *arg)
{
	struct address_space *mapping = folio->page.mapping;

	for (int i = 0; mapping && i < mapping->nr_mmap; i++) {
		struct vm_area_struct *vma = mapping->i_mmap[i];
		unsigned long start;
		unsigned int nr;
		long first;

		if (!folio_vma_range(folio, vma, &start, &nr, &first))
			continue;
		u64 *pmdp = pmd_walk(vma->vm_mm, start);
		if (!pmdp || !pmd_table(*pmdp))
			continue;
		spinlock_t *ptl;
		pte_t *ptep = pte_offset_map_lock(vma->vm_mm, pmdp, start, &ptl);
		hw_count(EV_rmap_call, 1);
		rmap_one(folio, vma, start, ptep, pmdp, nr, arg);
		pte_unmap_unlock(ptep, ptl);
	}
}

struct referenced_arg {
	struct reclaim_stat *rs;
	int referenced;
};

/* folio_referenced_one: per PTE, or one batch per run (S1) */
static void folio_referenced_one_file(struct folio *folio, struct vm_area_struct *vma,
				      unsigned long start, pte_t *ptep, u64 *pmdp,
				      unsigned int nr, void *arg)
{
	struct referenced_arg *ra = arg;
	unsigned int skip;

	for (unsigned int done = 0; done < nr;) {
		if (!pvmw_next(folio, ptep + done, start + done * PAGE_SIZE, nr - done, &skip))
			break;
		done += skip;
		unsigned long a = start + done * PAGE_SIZE;
		unsigned int batch = 1;

		if (mm_sw.young_batch && folio_test_large(folio))
			batch = folio_pte_batch(folio, ptep + done, ptep_get(ptep + done), nr - done);
		if (ra->rs && ra->rs->look_around) {
			if (lru_gen_look_around(vma, a, ptep + done, pmdp, batch, ra->rs))
				ra->referenced++;
		} else if (batch > 1 ? clear_flush_young_ptes(vma, a, ptep + done, batch)
				     : ptep_clear_flush_young(vma, a, ptep + done)) {
			ra->referenced++;
		}
		done += batch;
	}
}

int folio_referenced(struct folio *folio, struct reclaim_stat *rs)
{
	struct referenced_arg ra = { .rs = rs };

	if (!folio->page.mapping || !folio_mapped(folio))
		return 0;
	rmap_walk_file(folio, folio_referenced_one_file, &ra);
	return ra.referenced;
}

/* try_to_unmap_one: clear each run of the folio's PTEs, flush, drop refs. */
static void try_to_unmap_one(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long start, pte_t *ptep, u64 *pmdp,
			     unsigned int nr, void *arg)
{
	unsigned int skip;

	(void)pmdp;
	(void)arg;
	for (unsigned int done = 0; done < nr;) {
		if (!pvmw_next(folio, ptep + done, start + done * PAGE_SIZE, nr - done, &skip))
			break;
		done += skip;
		unsigned long a = start + done * PAGE_SIZE;
		pte_t first_pte = ptep_get(ptep + done);
		unsigned int batch = folio_test_large(folio)
			/* folio_unmap_pte_batch() (7.3) */
			? folio_pte_batch_flags(folio, vma, ptep + done, &first_pte, nr - done,
						FPB_RESPECT_WRITE | FPB_RESPECT_SOFT_DIRTY)
			: 1;
		struct page *page = pfn_to_page(pte_pfn(first_pte));
		pte_t old = get_and_clear_full_ptes(vma->vm_mm, a, ptep + done, batch, 0);

		if (pte_dirty(old))
			folio_set_dirty(folio);
		flush_tlb_range(vma, a, a + batch * PAGE_SIZE);
		folio_remove_rmap_ptes(folio, page, (int)batch, vma);
		vma->vm_mm->rss -= batch;
		folios_put_refs_one(folio, (int)batch);
		done += batch;
	}
}

/* Unmap a clean file folio from every VMA; true when no mapping is left. */
bool try_to_unmap(struct folio *folio)
{
	rmap_walk_file(folio, try_to_unmap_one, NULL);
	return !folio_mapped(folio);
}
