// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/madvise.c (madvise_free_pte_range,
 * madvise_cold_or_pageout_pte_range, madvise_free_single_vma,
 * madvise_cold, madvise_pageout; do_madvise's loop over the VMAs).
 */
/*
 * madvise: MADV_DONTNEED zaps the range (the munmap path without
 * removing VMAs); MADV_FREE, MADV_COLD and MADV_PAGEOUT walk folio
 * batches: FREE and COLD clear young (and FREE dirty) with
 * clear_young_dirty_ptes() (whole contiguous blocks, no unfold), flushed
 * once through the mmu_gather; FREE makes exclusive folios lazyfree,
 * COLD deactivates them, PAGEOUT isolates them and reclaims them at once.
 */
#include <errno.h>

#include "hw/phys.h"
#include "mm/core.h"
#include "mm/huge_memory.h"
#include "mm/lru.h"
#include "mm/madvise.h"
#include "mm/mmu_gather.h"
#include "mm/reclaim.h"
#include "mm/mm.h"
#include "mm/mmu_notifier.h"
#include "mm/pagewalk.h"
#include "hw/perf.h"

/* madvise_folio_pte_batch (7.3): the folio's run, young/dirty of the whole batch */
static int madvise_folio_pte_batch(unsigned long addr, unsigned long end, struct folio *folio,
				   pte_t *ptep, pte_t *ptentp)
{
	return (int)folio_pte_batch_flags(folio, NULL, ptep, ptentp,
					  (unsigned int)((end - addr) >> PAGE_SHIFT),
					  FPB_MERGE_YOUNG_DIRTY);
}

/*
 * A large folio only partly in the range: split_folio under the folio
 * lock and a reference, the PTL dropped; the table mapped and locked
 * again after. The lab's split fails (mm/huge_memory.h), so the caller
 * skips the batch. NULL if the table is gone.
 */
static pte_t *madvise_try_split(struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
				struct folio *folio, pte_t *start_pte, spinlock_t **ptl, int *nr)
{
	int err;

	folio_get(folio);
	arch_leave_lazy_mmu_mode();
	pte_unmap_unlock(start_pte, *ptl);
	err = split_folio(folio);
	folio_unlock(folio);
	folios_put_refs_one(folio, 1); /* folio_put */
	start_pte = pte_offset_map_lock(mm, pmd, addr, ptl);
	if (!start_pte)
		return NULL;
	arch_enter_lazy_mmu_mode();
	if (!err)
		*nr = 0;
	return start_pte;
}

/* madvise_cold_or_pageout_pte_range (7.3), walk_page_range()'s pmd_entry */
static int madvise_cold_or_pageout_pte_range(pmd_t *pmd, unsigned long addr, unsigned long end,
					     struct mm_walk *walk)
{
	struct madvise_walk_private *private = walk->private;
	struct mmu_gather *tlb = private->tlb;
	bool pageout = private->pageout;
	struct mm_struct *mm = tlb->mm;
	struct vm_area_struct *vma = walk->vma;
	u32 folio_list[PTRS_PER_PTE];
	int nr_isolated = 0;
	pte_t *start_pte, *pte, ptent;
	spinlock_t *ptl;
	int nr;

	/*
	 * A PMD-mapped folio: without CONFIG_TRANSPARENT_HUGEPAGE's branch
	 * (the lab ages no PMD through madvise), pte_offset_map_lock finds
	 * no table and the walk leaves it.
	 */
	start_pte = pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
	if (!start_pte)
		goto out;
	arch_enter_lazy_mmu_mode();
	for (; addr < end; pte += nr, addr += (unsigned long)nr * PAGE_SIZE) {
		struct folio *folio;

		nr = 1;
		ptent = ptep_get(pte);
		if (!pte_present(ptent))
			continue;
		folio = pfn_folio(pte_pfn(ptent));
		/*
		 * A large folio only partly in the range is split; one that
		 * cannot be split is left in place, the batch skipped.
		 */
		if (folio_test_large(folio)) {
			nr = madvise_folio_pte_batch(addr, end, folio, pte, &ptent);
			if (nr < folio_nr_pages(folio)) {
				if (folio_maybe_mapped_shared(folio) || !folio_trylock(folio))
					continue;
				start_pte = pte = madvise_try_split(mm, pmd, addr, folio, start_pte,
								    &ptl, &nr);
				if (!start_pte)
					break;
				continue;
			}
		}
		/* not another mapping's, not off the LRU: fully mapped here, exclusive */
		if (!folio_test_lru(folio) || folio_mapcount(folio) != folio_nr_pages(folio))
			continue;
		if (!pageout && pte_young(ptent)) {
			clear_young_dirty_ptes(vma, addr, pte, (unsigned int)nr, CYDP_CLEAR_YOUNG);
			tlb_remove_tlb_entries(tlb, addr, (unsigned int)nr);
		}
		/* (folio_test_clear_young: no page_idle tracking in the lab's config) */
		folio_clear_referenced(folio);
		if (folio_test_active(folio))
			folio_set_workingset(folio);
		if (pageout) {
			if (folio_isolate_lru(folio)) {
				if (folio_test_unevictable(folio))
					folio_putback_lru(folio);
				else
					folio_list[nr_isolated++] = (u32)folio_pfn(folio);
			}
		} else {
			folio_deactivate(folio);
		}
	}
out:
	if (start_pte) {
		arch_leave_lazy_mmu_mode();
		pte_unmap_unlock(start_pte, ptl);
	}
	if (pageout)
		reclaim_pages(folio_list, nr_isolated);
	return 0;
}

/* madvise_free_pte_range (7.3), walk_page_range()'s pmd_entry */
static int madvise_free_pte_range(pmd_t *pmd, unsigned long addr, unsigned long end,
				  struct mm_walk *walk)
{
	struct mmu_gather *tlb = walk->private;
	struct mm_struct *mm = tlb->mm;
	struct vm_area_struct *vma = walk->vma;
	pte_t *start_pte, *pte, ptent;
	spinlock_t *ptl;
	int nr;

	/* a PMD-mapped folio: the lab leaves it (madvise_free_huge_pmd, kernel/shim/core.h) */
	if (pmd_leaf(*pmd))
		return 0;
	start_pte = pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
	if (!start_pte)
		return 0;
	arch_enter_lazy_mmu_mode();
	for (; addr != end; pte += nr, addr += (unsigned long)nr * PAGE_SIZE) {
		struct folio *folio;

		nr = 1;
		ptent = ptep_get(pte);
		if (!pte_present(ptent))
			continue;
		folio = pfn_folio(pte_pfn(ptent));
		if (folio_test_large(folio)) {
			nr = madvise_folio_pte_batch(addr, end, folio, pte, &ptent);
			if (nr < folio_nr_pages(folio)) {
				if (folio_maybe_mapped_shared(folio) || !folio_trylock(folio))
					continue;
				start_pte = pte = madvise_try_split(mm, pmd, addr, folio, start_pte,
								    &ptl, &nr);
				if (!start_pte)
					break;
				continue;
			}
		}
		/* a dirty folio: only if exclusive (fully mapped here, mapped once per page) */
		if (folio_test_dirty(folio)) {
			if (!folio_trylock(folio))
				continue;
			if (folio_mapcount(folio) != folio_nr_pages(folio)) {
				folio_unlock(folio);
				continue;
			}
			folio_clear_dirty(folio);
			folio_unlock(folio);
		}
		if (pte_young(ptent) || pte_dirty(ptent)) {
			clear_young_dirty_ptes(vma, addr, pte, (unsigned int)nr,
					       CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
			tlb_remove_tlb_entries(tlb, addr, (unsigned int)nr);
		}
		folio_mark_lazyfree(folio);
	}
	if (start_pte) {
		arch_leave_lazy_mmu_mode();
		pte_unmap_unlock(start_pte, ptl);
	}
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
		pte_t *p = pte_lookup(mm, a);

		if (!p)
			continue;
		pte_t pte = __pte(__atomic_load_n(&p->pte, __ATOMIC_RELAXED));

		if (!pte_present(pte) || hw_cont_gather_dirty(&p->pte))
			continue;
		struct folio *folio = pfn_folio(pte_pfn(pte));

		if (!folio_test_swapbacked(folio) && !folio_test_dirty(folio))
			hw_frame_clean(pte_pfn(pte), 1);
	}
}

/* MADV_DONTNEED: zap_vma_range_batched (7.3), one invalidation per VMA */
static void madvise_dontneed(struct mmu_gather *tlb, struct vm_area_struct *v,
			     unsigned long start, unsigned long end)
{
	struct mmu_notifier_range range;

	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, v->vm_mm, max(start, v->vm_start),
				min(end, v->vm_end));
	mmu_notifier_invalidate_range_start(&range);
	unmap_vmas(tlb, v, start, end);
	mmu_notifier_invalidate_range_end(&range);
}

/* madvise_free_single_vma (7.3): anonymous VMAs only, secondary MMUs invalidated */
static int madvise_free_single_vma(struct mmu_gather *tlb, struct vm_area_struct *v,
				   unsigned long s, unsigned long e)
{
	struct mmu_notifier_range range;
	/* the tree's walker when the run's backend has it (mm/core.h), else the twin's */
	const struct mm_walk_ops ops = {
		.pmd_entry = mm_core && mm_core->madvise_free_pte_range
				? mm_core->madvise_free_pte_range : madvise_free_pte_range,
	};

	if (v->vm_file_mapping) /* vma_is_anonymous */
		return -1;
	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, v->vm_mm, s, e);
	mmu_notifier_invalidate_range_start(&range);
	walk_page_range(v->vm_mm, s, e, &ops, tlb);
	mmu_notifier_invalidate_range_end(&range);
	return 0;
}

/*
 * madvise_cold / madvise_pageout (7.3): not for mlocked VMAs
 * (can_madv_lru_vma); the lab's process may write the files it maps
 * (can_do_file_pageout), so MADV_PAGEOUT takes file folios too.
 */
static int madvise_cold_or_pageout(struct mmu_gather *tlb, struct vm_area_struct *v,
				   unsigned long s, unsigned long e, bool pageout)
{
	struct madvise_walk_private private = { .tlb = tlb, .pageout = pageout };
	const struct mm_walk_ops ops = {
		.pmd_entry = mm_core && mm_core->madvise_cold_or_pageout_pte_range
				? mm_core->madvise_cold_or_pageout_pte_range
				: madvise_cold_or_pageout_pte_range,
	};

	if (v->vm_flags & VM_LOCKED)
		return -1;
	walk_page_range(v->vm_mm, s, e, &ops, &private);
	return 0;
}

/*
 * One mmu_gather for the whole call: the walkers record the entries they
 * made old or clean (tlb_remove_tlb_entries) and tlb_finish_mmu flushes
 * them once, as madvise_do_behavior's caller does.
 */
int do_madvise(struct mm_struct *mm, unsigned long start, unsigned long len, int advice)
{
	PERF_FUNC();
	unsigned long end = start + len;
	struct vm_area_struct *vma = find_vma(mm, start);
	struct mmu_gather tlb;
	int ret = 0;

	if ((start | len) & ~PAGE_MASK || !vma)
		return -1;
	if (advice != MADV_DONTNEED && advice != MADV_FREE && advice != MADV_COLD &&
	    advice != MADV_PAGEOUT)
		return -1;
	if (advice != MADV_DONTNEED)
		lru_add_drain();
	tlb_gather_mmu(&tlb, mm);
	for (struct vm_area_struct *v = vma; v && v->vm_start < end; v = v->vm_next) {
		unsigned long s = max(start, v->vm_start), e = min(end, v->vm_end);

		switch (advice) {
		case MADV_DONTNEED:
			madvise_dontneed(&tlb, v, start, end);
			break;
		case MADV_FREE:
			ret |= madvise_free_single_vma(&tlb, v, s, e);
			break;
		default:
			ret |= madvise_cold_or_pageout(&tlb, v, s, e, advice == MADV_PAGEOUT);
		}
	}
	tlb_finish_mmu(&tlb);
	if (advice == MADV_FREE)
		for (struct vm_area_struct *v = find_vma(mm, start); v && v->vm_start < end; v = v->vm_next)
			lazyfree_settle(mm, max(start, v->vm_start), min(end, v->vm_end));
	return ret ? -1 : 0;
}
