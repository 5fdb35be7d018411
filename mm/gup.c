// SPDX-License-Identifier: GPL-2.0-only
/* Mirrors 7.3: mm/gup.c (populate_vma_page_range, follow_page_pte). */
/*
 * get_user_pages as mlock's population uses it: one page at a time,
 * each under the PTE lock, reading the entry with ptep_get() (on a
 * contiguous block, a gather over 16 entries: what S4 makes cheaper).
 */
#include "mm/mm.h"

#define FOLL_WRITE 0x1
#define FOLL_TOUCH 0x2

/* 0: the page is there as asked; 1: a fault is needed. */
static int follow_page_pte(struct vm_area_struct *vma, unsigned long address,
			   pmd_t *pmdp, unsigned int flags)
{
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
	pte_unmap_unlock(ptep, ptl);
	return ret;
}

long populate_vma_page_range(struct vm_area_struct *vma, unsigned long start,
			     unsigned long end)
{
	unsigned int flags = FOLL_TOUCH;
	long nr = 0;

	/* private writable mappings are populated for writing (COW broken) */
	if ((vma->vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE)
		flags |= FOLL_WRITE;
	for (unsigned long addr = start; addr < end; addr += PAGE_SIZE, nr++) {
		pmd_t *pmdp = pmd_walk(vma->vm_mm, addr);

		if (pmdp && !pmd_none(*pmdp) && !pmd_table(*pmdp))
			continue; /* PMD-mapped: follow_pmd_mask, no PTE */
		if (!pmdp || pmd_none(*pmdp) || follow_page_pte(vma, addr, pmdp, flags)) {
			if (handle_mm_fault(vma, addr, (flags & FOLL_WRITE) ? FAULT_FLAG_WRITE : 0) &
			    VM_FAULT_ERROR)
				return -1;
		}
	}
	return nr;
}
