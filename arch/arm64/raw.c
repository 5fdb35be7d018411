// SPDX-License-Identifier: GPL-2.0-only
/* Raw arm64 PTE operations on simulated page-table memory. */
#include "arch/arm64/raw.h"
#include "arch/arm64/tlbflush.h"
#include "hw/events.h"
#include "hw/interleave.h"

static inline u64 *pv(pte_t *ptep)
{
	return &ptep->pte;
}

void __set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		pte_t pte, unsigned int nr)
{
	(void)mm;
	(void)addr;
	for (;;) {
		__set_pte(ptep, pte);
		if (--nr == 0)
			break;
		ptep++;
		pte = pte_advance_pfn(pte, 1);
	}
}

void __pte_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	(void)mm;
	(void)addr;
	__set_pte(ptep, __pte(0));
}

void __clear_full_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		       unsigned int nr, int full)
{
	(void)full;
	for (;;) {
		__ptep_get_and_clear(mm, addr, ptep);
		if (--nr == 0)
			break;
		ptep++;
		addr += PAGE_SIZE;
	}
}

/* Clears nr entries, returning the first with everyone's young/dirty. */
pte_t __get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				pte_t *ptep, unsigned int nr, int full)
{
	pte_t pte, tmp;

	(void)full;
	pte = __ptep_get_and_clear(mm, addr, ptep);
	while (--nr) {
		ptep++;
		addr += PAGE_SIZE;
		tmp = __ptep_get_and_clear(mm, addr, ptep);
		if (pte_dirty(tmp))
			pte = pte_mkdirty(pte);
		if (pte_young(tmp))
			pte = pte_mkyoung(pte);
	}
	return pte;
}

int __ptep_clear_flush_young(struct vm_area_struct *vma, unsigned long addr,
			     pte_t *ptep)
{
	int young = __ptep_test_and_clear_young(vma, addr, ptep);

	/* Like arm64: flush without waiting; a lost young bit is tolerable. */
	if (young)
		__flush_tlb_range_nosync(vma, addr, addr + PAGE_SIZE, PAGE_SIZE, true, 3);
	return young;
}

/* Write-protect starting from a value the caller already read (no reload). */
void ___ptep_set_wrprotect(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			   pte_t pte)
{
	pte_t old_pte;

	(void)mm;
	(void)addr;
	do {
		old_pte = pte;
		pte = pte_wrprotect(pte);
		pte = __pte(pte_cmpxchg(ptep, pte_val(old_pte), pte_val(pte)));
	} while (pte_val(pte) != pte_val(old_pte));
}

void __ptep_set_wrprotect(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	___ptep_set_wrprotect(mm, addr, ptep, __ptep_get(ptep));
}

void __wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		      unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++, addr += PAGE_SIZE, ptep++)
		__ptep_set_wrprotect(mm, addr, ptep);
}

void __clear_young_dirty_pte(struct vm_area_struct *vma, unsigned long addr,
			     pte_t *ptep, pte_t pte, cydp_t flags)
{
	pte_t old_pte;

	(void)vma;
	(void)addr;
	do {
		old_pte = pte;
		if (flags & CYDP_CLEAR_YOUNG)
			pte = pte_mkold(pte);
		if (flags & CYDP_CLEAR_DIRTY)
			pte = pte_mkclean(pte);
		pte = __pte(pte_cmpxchg(ptep, pte_val(old_pte), pte_val(pte)));
	} while (pte_val(pte) != pte_val(old_pte));
}

void __clear_young_dirty_ptes(struct vm_area_struct *vma, unsigned long addr,
			      pte_t *ptep, unsigned int nr, cydp_t flags)
{
	for (unsigned int i = 0; i < nr; i++, addr += PAGE_SIZE, ptep++) {
		pte_t pte = __ptep_get(ptep);

		/* both cleared: the caller discards the state, a store will do */
		if (flags == (CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY))
			__set_pte(ptep, pte_mkclean(pte_mkold(pte)));
		else
			__clear_young_dirty_pte(vma, addr, ptep, pte, flags);
	}
}

/*
 * Only make the entry more permissive (young, dirty, writable): done with a
 * cmpxchg because the hardware may set AF/dirty concurrently; the
 * inverted sense of PTE_RDONLY is handled by flipping it around the OR.
 */
int __ptep_set_access_flags(struct vm_area_struct *vma, unsigned long addr,
			    pte_t *ptep, pte_t entry, int dirty)
{
	pteval_t old_pteval, pteval;
	pte_t pte = __ptep_get(ptep);

	if (pte_same(pte, entry))
		return 0;
	pte_val(entry) &= PTE_RDONLY | PTE_AF | PTE_WRITE | PTE_DIRTY;
	pte_val(entry) ^= PTE_RDONLY;
	pteval = pte_val(pte);
	do {
		old_pteval = pteval;
		pteval ^= PTE_RDONLY;
		pteval |= pte_val(entry);
		pteval ^= PTE_RDONLY;
		pteval = pte_cmpxchg(ptep, old_pteval, pteval);
	} while (pteval != old_pteval);
	/* A stale read-only TLB entry would fault again: invalidate it. */
	if (dirty)
		__flush_tlb_range(vma, addr, addr + PAGE_SIZE, PAGE_SIZE, true, 3);
	return 1;
}
