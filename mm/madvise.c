// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/madvise.c (do_madvise, madvise_free_pte_range,
 * madvise_cold_or_pageout_pte_range).
 */
/*
 * madvise: MADV_DONTNEED zaps the range (the munmap path without
 * removing VMAs); MADV_FREE and MADV_COLD walk folio batches and clear
 * young/dirty with clear_young_dirty_ptes() (whole contiguous blocks, no
 * unfold), then flush the range.
 */
#include "hw/phys.h"
#include "mm/lru.h"
#include "mm/mm.h"
#include "mm/mmu_notifier.h"
#include "mm/pagewalk.h"
#include "hw/perf.h"

/*
 * madvise_free_pte_range / madvise_cold_or_pageout_pte_range (7.3), as
 * walk_page_range()'s pmd_entry; the advice comes in walk->private.
 */
static int madvise_free_or_cold(pmd_t *pmdp, unsigned long addr, unsigned long end,
				struct mm_walk *walk)
{
	struct vm_area_struct *vma = walk->vma;
	struct mm_struct *mm = vma->vm_mm;
	int advice = *(const int *)walk->private;
	pte_t *start, *ptep;
	int nr;

	if (!pmd_table(*pmdp))
		return 0;
	spinlock_t *ptl;
	start = ptep = pte_offset_map_lock(mm, pmdp, addr, &ptl);

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
		/*
		 * MADV_FREE. A large folio only partly in the range is split
		 * by 7.3 (unless shared); the lab leaves it alone.
		 */
		if (nr != folio_nr_pages(folio))
			continue;
		/* a dirty folio: only if exclusive (mapped once per page) */
		if (folio_test_dirty(folio)) {
			if (folio_mapcount(folio) != folio_nr_pages(folio))
				continue;
			folio_clear_dirty(folio);
		}
		if (pte_young(ptent) || pte_dirty(ptent))
			clear_young_dirty_ptes(vma, addr, ptep, (unsigned int)nr,
					       CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
		/* folio_mark_lazyfree: the data may now be dropped instead of swapped */
		if (folio_test_anon(folio) && folio_test_swapbacked(folio) &&
		    !folio_test_unevictable(folio)) {
			if (folio_test_lru(folio)) {
				lru_del_folio(folio);
				folio_clear_active(folio);
				folio_clear_referenced(folio);
				folio_clear_swapbacked(folio);
				folio_add_lru_locked(folio);
			} else {
				folio_clear_swapbacked(folio);
			}
		}
		hw_frame_clean(folio_pfn(folio), (u64)nr);
	}
	pte_unmap_unlock(start, ptl);
	return 0;
}

/*
 * A store that raced with MADV_FREE before its flush completed (through
 * a TLB entry still writable) may be dropped with the folio: that is the
 * call's contract. The lab's record of written frames says so here, after
 * the flush; later stores dirty the entry and keep the data. Raw loads,
 * no events: this is the lab's bookkeeping, not kernel work.
 */
static void lazyfree_settle(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	for (unsigned long a = start; a < end; a += PAGE_SIZE) {
		pmd_t *pmd = pmd_walk(mm, a);

		if (!pmd || !pmd_table(*pmd))
			continue;
		pte_t *p = pte_offset_map(pmd, a);
		pte_t pte = __pte(__atomic_load_n(&p->pte, __ATOMIC_RELAXED));

		if (!pte_present(pte) || hw_cont_gather_dirty(&p->pte))
			continue;
		struct folio *folio = pfn_folio(pte_pfn(pte));

		if (!folio_test_swapbacked(folio) && !folio_test_dirty(folio))
			hw_frame_clean(pte_pfn(pte), 1);
	}
}

static const struct mm_walk_ops madvise_walk_ops = {
	.pmd_entry = madvise_free_or_cold,
};

int do_madvise(struct mm_struct *mm, unsigned long start, unsigned long len, int advice)
{
	PERF_FUNC();
	unsigned long end = start + len;
	struct vm_area_struct *vma = find_vma(mm, start);

	if ((start | len) & ~PAGE_MASK || !vma)
		return -1;
	if (advice == MADV_DONTNEED) {
		struct mmu_gather tlb;

		tlb_gather_mmu(&tlb, mm);
		for (struct vm_area_struct *v = vma; v && v->vm_start < end; v = v->vm_next) {
			/* zap_vma_range_batched (7.3): one invalidation per VMA */
			struct mmu_notifier_range range;

			mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, mm, max(start, v->vm_start),
						min(end, v->vm_end));
			mmu_notifier_invalidate_range_start(&range);
			unmap_vmas(&tlb, v, start, end);
			mmu_notifier_invalidate_range_end(&range);
		}
		tlb_finish_mmu(&tlb);
		return 0;
	}
	if (advice != MADV_FREE && advice != MADV_COLD)
		return -1;
	for (struct vm_area_struct *v = vma; v && v->vm_start < end; v = v->vm_next) {
		unsigned long s = max(start, v->vm_start), e = min(end, v->vm_end);
		/* madvise_free_single_vma (7.3) invalidates; MADV_COLD does not */
		struct mmu_notifier_range range;

		mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, mm, s, e);
		if (advice == MADV_FREE)
			mmu_notifier_invalidate_range_start(&range);
		walk_page_range(mm, s, e, &madvise_walk_ops, &advice);
		flush_tlb_range(v, s, e);
		if (advice == MADV_FREE) {
			lazyfree_settle(mm, s, e);
			mmu_notifier_invalidate_range_end(&range);
		}
	}
	return 0;
}
