// SPDX-License-Identifier: GPL-2.0-only
/*
 * madvise: MADV_DONTNEED zaps the range (the munmap path without
 * removing VMAs); MADV_FREE and MADV_COLD walk folio batches and clear
 * young/dirty with clear_young_dirty_ptes() (whole contiguous blocks, no
 * unfold), then flush the range.
 */
#include "hw/phys.h"
#include "mm/lru.h"
#include "mm/mm.h"

static void madvise_free_or_cold(struct vm_area_struct *vma, u64 *pmdp,
				 unsigned long addr, unsigned long end, int advice)
{
	struct mm_struct *mm = vma->vm_mm;
	pte_t *start = pte_offset_map_lock(mm, pmdp, addr), *ptep = start;
	int nr;

	for (; addr < end; ptep += nr, addr += (unsigned long)nr * PAGE_SIZE) {
		pte_t ptent = ptep_get(ptep);
		struct folio *folio;

		nr = 1;
		if (!pte_present(ptent))
			continue;
		folio = pfn_folio(pte_pfn(ptent));
		if (folio_test_large(folio))
			/* madvise_folio_pte_batch() (7.3): young/dirty of the whole batch */
			nr = (int)folio_pte_batch_flags(folio, NULL, ptep, &ptent,
							(unsigned int)((end - addr) >> PAGE_SHIFT),
							FPB_MERGE_YOUNG_DIRTY);
		if (advice == MADV_COLD) {
			if (pte_young(ptent))
				clear_young_dirty_ptes(vma, addr, ptep, (unsigned int)nr, CYDP_CLEAR_YOUNG);
			folio_clear_referenced(folio);
			if (folio_test_active(folio) && folio_test_lru(folio)) {
				lru_del_folio(folio);
				folio_clear_active(folio);
				folio_add_lru_locked(folio);
			}
			continue;
		}
		/* MADV_FREE: only a folio wholly mapped here, by us alone */
		if (nr != folio_nr_pages(folio) || folio_mapcount(folio) != nr ||
		    folio_ref_count(folio) != nr)
			continue;
		clear_young_dirty_ptes(vma, addr, ptep, (unsigned int)nr,
				       CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
		folio_clear_dirty(folio);
		/* lazyfree: the data may now be dropped instead of swapped */
		if (folio_test_lru(folio)) {
			lru_del_folio(folio);
			folio_clear_swapbacked(folio);
			folio_add_lru_locked(folio);
		} else {
			folio_clear_swapbacked(folio);
		}
		hw_frame_clean(folio_pfn(folio), (u64)nr);
	}
	pte_unmap_unlock(start);
}

int do_madvise(struct mm_struct *mm, unsigned long start, unsigned long len, int advice)
{
	unsigned long end = start + len;
	struct vm_area_struct *vma = find_vma(mm, start);

	if ((start | len) & ~PAGE_MASK || !vma)
		return -1;
	if (advice == MADV_DONTNEED) {
		struct mmu_gather tlb;

		tlb_gather_mmu(&tlb, mm);
		for (struct vm_area_struct *v = vma; v && v->vm_start < end; v = v->vm_next)
			unmap_vmas(&tlb, v, start, end);
		tlb_finish_mmu(&tlb);
		return 0;
	}
	if (advice != MADV_FREE && advice != MADV_COLD)
		return -1;
	for (struct vm_area_struct *v = vma; v && v->vm_start < end; v = v->vm_next) {
		unsigned long s = max(start, v->vm_start), e = min(end, v->vm_end);

		for (unsigned long addr = s, next; addr < e; addr = next) {
			u64 *pmdp = pmd_walk(mm, addr);

			next = min((addr + SZ_2M) & ~(SZ_2M - 1), e);
			if (pmdp && pmd_table(*pmdp))
				madvise_free_or_cold(v, pmdp, addr, next, advice);
		}
		flush_tlb_range(v, s, e);
	}
	return 0;
}
