// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/mremap.c (mremap_to, move_vma, copy_vma's part,
 * move_page_tables, move_ptes, mremap_folio_pte_batch).
 */
/*
 * mremap(old, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, new): the pages
 * move to a new address, the frames stay. The PTEs move in folio batches
 * (get_and_clear_ptes, then set_ptes at the new place; 6.17's "mm:
 * optimize mremap() by PTE batching", off: one at a time), so a contiguous
 * block at the old address is cleared whole, and at the new address
 * set_ptes may be asked for a run whose virtual and physical alignment
 * differ (no block can be folded there).
 */
#include "mm/core.h"
#include "mm/mm.h"
#include "mm/mmu_notifier.h"
#include "mm/rmap.h"
#include "mm/switches.h"
#include "hw/perf.h"

/* How many PTEs from ptep map one large folio alike (writable bits respected). */
static unsigned int mremap_folio_pte_batch(struct vm_area_struct *vma, unsigned long addr,
					   pte_t *ptep, pte_t pte, unsigned int max_nr)
{
	struct folio *folio;

	(void)addr;
	if (max_nr == 1)
		return 1;
	/* avoid the folio lookup when the entry says it cannot pay */
	if (pte_batch_hint(ptep, pte) == 1)
		return 1;
	folio = pfn_folio(pte_pfn(pte));
	if (!folio_test_large(folio))
		return 1;
	return folio_pte_batch_flags(folio, vma, ptep, &pte, max_nr, FPB_RESPECT_WRITE);
}

/*
 * The PTEs of [old_addr, old_addr + extent) within one table, to
 * new_addr's. The new table's lock is taken too unless it is the old
 * one's (both ranges in one PTE table).
 */
static int move_ptes(struct vm_area_struct *vma, struct vm_area_struct *new_vma, pmd_t *old_pmd,
		     unsigned long old_addr, pmd_t *new_pmd, unsigned long new_addr,
		     unsigned long extent)
{
	PERF_FUNC();
	struct mm_struct *mm = vma->vm_mm;
	unsigned long old_end = old_addr + extent, len = extent;
	spinlock_t *old_ptl, *new_ptl;
	pte_t *old_ptep, *new_ptep;
	bool force_flush = false;
	unsigned int nr_ptes;

	(void)new_vma;
	old_ptep = pte_offset_map_lock(mm, old_pmd, old_addr, &old_ptl);
	if (!old_ptep)
		return -1;
	new_ptep = pte_offset_map_nolock(mm, new_pmd, new_addr, &new_ptl);
	if (!new_ptep) {
		pte_unmap_unlock(old_ptep, old_ptl);
		return -1;
	}
	if (new_ptl != old_ptl)
		pte_spin_lock(new_ptl);
	arch_enter_lazy_mmu_mode();
	for (; old_addr < old_end; old_ptep += nr_ptes, old_addr += nr_ptes * PAGE_SIZE,
	     new_ptep += nr_ptes, new_addr += nr_ptes * PAGE_SIZE) {
		unsigned int max_nr_ptes = (unsigned int)((old_end - old_addr) >> PAGE_SHIFT);
		pte_t old_pte = ptep_get(old_ptep), pte;

		nr_ptes = 1;
		if (pte_none(old_pte))
			continue;
		/* a present entry moved: flush before the lock goes (stale TLBs) */
		if (pte_present(old_pte)) {
			if (mm_sw.mremap_batch)
				nr_ptes = mremap_folio_pte_batch(vma, old_addr, old_ptep, old_pte,
								 max_nr_ptes);
			force_flush = true;
		}
		pte = get_and_clear_full_ptes(mm, old_addr, old_ptep, nr_ptes, 0);
		set_ptes(mm, new_addr, new_ptep, pte, nr_ptes);
	}
	arch_leave_lazy_mmu_mode();
	if (force_flush)
		flush_tlb_range(vma, old_end - len, old_end);
	if (new_ptl != old_ptl)
		pte_unmap_unlock(new_ptep - 1, new_ptl);
	pte_unmap_unlock(old_ptep - 1, old_ptl);
	return 0;
}

/* move_page_tables: one PMD's extent at a time, new tables allocated as needed. */
static void move_page_tables(struct vm_area_struct *vma, unsigned long old_addr,
			     struct vm_area_struct *new_vma, unsigned long new_addr,
			     unsigned long len)
{
	unsigned long old_end = old_addr + len;
	struct mmu_notifier_range range;

	mmu_notifier_range_init(&range, MMU_NOTIFY_UNMAP, 0, vma->vm_mm, old_addr, old_end);
	mmu_notifier_invalidate_range_start(&range);
	while (old_addr < old_end) {
		/* up to the next PMD boundary of either address */
		unsigned long extent = min(pmd_addr_end(old_addr, old_end) - old_addr,
					   pmd_addr_end(new_addr, new_addr + (old_end - old_addr)) - new_addr);
		pmd_t *old_pmd = pmd_walk(vma->vm_mm, old_addr), *new_pmd;

		if (old_pmd && pmd_table(*old_pmd)) {
			new_pmd = pmd_alloc_walk(vma->vm_mm, new_addr);
			if (!new_pmd || !pte_alloc_map(vma->vm_mm, new_pmd))
				break; /* out of page-table memory: the rest stays */
			/* the tree's, unless --without mremap-batch asks for 6.12's shape */
			if (mm_core && mm_core->move_ptes && mm_sw.mremap_batch)
				mm_core->move_ptes(vma, new_vma, old_pmd, old_addr, new_pmd, new_addr,
						   extent);
			else
				move_ptes(vma, new_vma, old_pmd, old_addr, new_pmd, new_addr, extent);
		}
		old_addr += extent;
		new_addr += extent;
	}
	mmu_notifier_invalidate_range_end(&range);
}

int do_mremap_fixed(struct mm_struct *mm, unsigned long old_addr, unsigned long len,
		    unsigned long new_addr)
{
	struct vm_area_struct *vma, *new_vma, **link;

	if ((old_addr | new_addr | len) & ~PAGE_MASK || !len ||
	    (new_addr < old_addr + len && old_addr < new_addr + len))
		return -1;
	vma = find_vma(mm, old_addr);
	if (!vma || vma->vm_start > old_addr || vma->vm_end < old_addr + len || vma->pmd_mappable)
		return -1; /* one VMA only (vma_to_resize); no PMD-mapped THP here */
	/* MREMAP_FIXED: whatever was at the target goes first */
	do_munmap(mm, new_addr, len);
	vma = vma_split_range(mm, old_addr, old_addr + len);
	if (!vma)
		return -1;
	/* copy_vma: the same pages (pgoff), the same anon_vmas, at new_addr */
	new_vma = vm_area_dup(vma);
	anon_vma_clone(new_vma, vma);
	new_vma->vm_start = new_addr;
	new_vma->vm_end = new_addr + len;
	for (link = &mm->mmap; *link && (*link)->vm_end <= new_addr; link = &(*link)->vm_next)
		;
	new_vma->vm_next = *link;
	*link = new_vma;
	mm->nr_vmas++;
	move_page_tables(vma, old_addr, new_vma, new_addr, len);
	/* the old range is empty now: the VMA and its tables go */
	return do_munmap(mm, old_addr, len);
}
