// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/gup.c (populate_vma_page_range, follow_page_pte,
 * get_user_pages_remote).
 */
/*
 * get_user_pages as mlock's population and KVM's hva_to_pfn use it: one
 * page at a time, each under the PTE lock, reading the entry with
 * ptep_get() (on a contiguous block, a gather over 16 entries: what S4
 * makes cheaper), faulting it in when it is missing or read-only. Each
 * page's step is a gup_page: the loop's own work and follow_page_mask's
 * descent, which no other event costs (7.3 has no batching across a
 * PTE-mapped folio here: page_mask is set for PMD and PUD leaves only).
 */
#include "mm/mm.h"
#include "hw/perf.h"

/*
 * 0: the page is there as asked (with FOLL_GET, *pagep holds it and a
 * reference); 1: a fault is needed.
 */
static int follow_page_pte(struct vm_area_struct *vma, unsigned long address,
			   pmd_t *pmdp, unsigned int flags, struct page **pagep)
{
	PERF_FUNC();
	spinlock_t *ptl;
	pte_t *ptep = pte_offset_map_lock(vma->vm_mm, pmdp, address, &ptl);
	pte_t pte;
	int ret = 0;

	if (!ptep)
		return 1;
	pte = ptep_get(ptep);
	if (!pte_present(pte) || ((flags & FOLL_WRITE) && !pte_write(pte))) {
		ret = 1;
	} else if (flags & FOLL_TOUCH) {
		struct folio *folio = pfn_folio(pte_pfn(pte));

		/* FOLL_TOUCH: a written page the PTE does not show dirty */
		if ((flags & FOLL_WRITE) && !pte_dirty(pte))
			folio_set_dirty(folio);
		folio_set_referenced(folio);
	}
	if (!ret && (flags & FOLL_GET)) {
		struct page *page = pfn_to_page(pte_pfn(pte));

		folio_get(page_folio(page)); /* try_grab_folio */
		*pagep = page;
	}
	pte_unmap_unlock(ptep, ptl);
	return ret;
}

long populate_vma_page_range(struct vm_area_struct *vma, unsigned long start,
			     unsigned long end)
{
	PERF_FUNC();
	unsigned int flags = FOLL_TOUCH;
	unsigned long addr = start;

	/* private writable mappings are populated for writing (COW broken) */
	if ((vma->vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE)
		flags |= FOLL_WRITE;
	while (addr < end) {
		int tries = 0;

retry:
		hw_count(EV_gup_page, 1); /* __get_user_pages' step, follow_page_mask */
		pmd_t *pmdp = pmd_walk(vma->vm_mm, addr);

		if (pmdp && !pmd_none(*pmdp) && !pmd_table(*pmdp)) {
			/* follow_huge_pmd: page_mask takes the step to the PMD's end */
			addr = min(ALIGN_DOWN(addr, PMD_SIZE) + PMD_SIZE, end);
			continue;
		}
		if (!pmdp || pmd_none(*pmdp) || follow_page_pte(vma, addr, pmdp, flags, NULL)) {
			/* faultin_page, then follow_page_mask again ("goto retry") */
			if (handle_mm_fault(vma, addr, (flags & FOLL_WRITE) ? FAULT_FLAG_WRITE : 0) &
			    VM_FAULT_ERROR)
				return -1;
			if (++tries < 4)
				goto retry;
		}
		addr += PAGE_SIZE;
	}
	return (long)((end - start) >> PAGE_SHIFT);
}

/*
 * The pages of [start, start + nr_pages) in mm, each faulted in as needed
 * and returned with a reference the caller drops (put_page). KVM's
 * hva_to_pfn_slow() calls get_user_pages_unlocked() on current->mm, the
 * VMM's; the lab's tasks carry no mm, so the remote form names it. Stops
 * at the first page it cannot get; returns how many it got, or -1.
 */
long get_user_pages_remote(struct mm_struct *mm, unsigned long start, unsigned long nr_pages,
			   unsigned int gup_flags, struct page **pages, int *locked)
{
	unsigned int flags = gup_flags | FOLL_TOUCH | FOLL_GET;
	long nr = 0;

	(void)locked; /* no mmap_lock in the lab */
	for (unsigned long addr = start; nr < (long)nr_pages; addr += PAGE_SIZE) {
		struct vm_area_struct *vma = find_vma(mm, addr);
		int tries;

		if (!vma || ((flags & FOLL_WRITE) && !(vma->vm_flags & VM_WRITE)))
			break;
		for (tries = 0; tries < 4; tries++) {
			pmd_t *pmdp = pmd_walk(mm, addr);

			hw_count(EV_gup_page, 1); /* __get_user_pages' step, follow_page_mask */

			if (pmdp && pmd_table(*pmdp) &&
			    !follow_page_pte(vma, addr, pmdp, flags, &pages[nr]))
				break;
			if (pmdp && !pmd_none(*pmdp) && !pmd_table(*pmdp)) {
				/* follow_huge_pmd: the subpage of a PMD-mapped folio */
				struct page *page = pfn_to_page(pmd_pfn(*pmdp) +
								((addr & ~PMD_MASK) >> PAGE_SHIFT));

				folio_get(page_folio(page));
				pages[nr] = page;
				break;
			}
			if (handle_mm_fault(vma, addr, (flags & FOLL_WRITE) ? FAULT_FLAG_WRITE : 0) &
			    VM_FAULT_ERROR)
				return nr ? nr : -1;
		}
		if (tries == 4)
			break;
		nr++;
	}
	return nr ? nr : -1;
}

/*
 * get_user_page_fast_only (7.3): the page at addr if its PTE allows the
 * access right now, found by a lockless walk (no PTL, no fault), with a
 * reference; false otherwise. The kernel's walks current->mm; the lab's
 * names the mm.
 */
bool get_user_page_fast_only(struct mm_struct *mm, unsigned long addr, unsigned int gup_flags,
			     struct page **pagep)
{
	pmd_t *pmdp = pmd_walk(mm, addr);
	struct page *page;
	pte_t pte;

	if (!pmdp || pmd_none(*pmdp))
		return false;
	if (!pmd_table(*pmdp)) {
		/*
		 * gup_fast_pmd_leaf: a PMD-mapped folio's subpage (the lab maps
		 * PMD leaves only for anonymous THPs, writable as their VMA)
		 */
		page = pfn_to_page(pmd_pfn(*pmdp) + ((addr & ~PMD_MASK) >> PAGE_SHIFT));
	} else {
		pte = ptep_get(pte_offset_map(pmdp, addr));
		if (!pte_present(pte) || ((gup_flags & FOLL_WRITE) && !pte_write(pte)))
			return false;
		page = pfn_to_page(pte_pfn(pte));
	}
	folio_get(page_folio(page)); /* try_grab_folio_fast */
	*pagep = page;
	return true;
}
