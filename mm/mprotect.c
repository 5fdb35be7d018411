// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/mprotect.c (mprotect_fixup, change_pte_range with
 * modify_prot_start/commit_ptes).
 */
/*
 * mprotect: new vm_flags on whole VMAs (split at the edges), then
 * change_pte_range rewrites each present PTE with the new protection:
 * ptep_modify_prot_start (a get-and-clear: on a contiguous block it
 * unfolds) and ptep_modify_prot_commit (a set: the last entry of a block
 * refolds it), then one TLB flush for the range.
 */
#include "mm/mm.h"
#include "mm/mmu_notifier.h"
#include "hw/perf.h"

static void change_pte_range(struct vm_area_struct *vma, pmd_t *pmdp,
			     unsigned long addr, unsigned long end)
{
	PERF_FUNC();
	struct mm_struct *mm = vma->vm_mm;
	spinlock_t *ptl;
	pte_t *start = pte_offset_map_lock(mm, pmdp, addr, &ptl), *ptep = start;
	pgprot_t prot = vma->vm_page_prot;

	for (; addr != end; ptep++, addr += PAGE_SIZE) {
		pte_t old = ptep_get(ptep), pte;

		if (!pte_present(old))
			continue;
		old = ptep_get_and_clear_full(mm, addr, ptep, 0); /* modify_prot_start */
		pte = pfn_pte(pte_pfn(old), prot);
		if (pte_young(old))
			pte = pte_mkyoung(pte);
		if (pte_dirty(old))
			pte = pte_mkdirty(pte);
		/* an exclusive anon page may stay writable where the VMA allows it */
		if ((vma->vm_flags & VM_WRITE) && PageAnonExclusive(pfn_to_page(pte_pfn(old))))
			pte = pte_mkwrite(pte);
		set_pte_at(mm, addr, ptep, pte); /* modify_prot_commit */
	}
	pte_unmap_unlock(start, ptl);
}

int do_mprotect(struct mm_struct *mm, unsigned long start, unsigned long len,
		unsigned long vm_flags)
{
	PERF_FUNC();
	unsigned long end = start + len;
	struct vm_area_struct *vma = vma_split_range(mm, start, end);

	if (!vma || (start | len) & ~PAGE_MASK)
		return -1;
	for (struct vm_area_struct *v = vma; v && v->vm_start < end; v = v->vm_next) {
		v->vm_flags = (v->vm_flags & ~(VM_READ | VM_WRITE | VM_EXEC)) | vm_flags;
		v->vm_page_prot = arch->vm_get_page_prot(v->vm_flags);
		/* change_pmd_range (7.3): invalidate from the first table changed */
		struct mmu_notifier_range range = { 0 };

		for (unsigned long addr = v->vm_start, next; addr < v->vm_end; addr = next) {
			pmd_t *pmdp = pmd_walk(mm, addr);

			next = min((addr + SZ_2M) & ~(SZ_2M - 1), v->vm_end);
			if (pmdp && pmd_table(*pmdp)) {
				if (!range.start) {
					mmu_notifier_range_init(&range, MMU_NOTIFY_PROTECTION_VMA, 0, mm,
								addr, v->vm_end);
					mmu_notifier_invalidate_range_start(&range);
				}
				change_pte_range(v, pmdp, addr, next);
			}
		}
		if (range.start)
			mmu_notifier_invalidate_range_end(&range);
		flush_tlb_range(v, v->vm_start, v->vm_end);
	}
	return 0;
}
