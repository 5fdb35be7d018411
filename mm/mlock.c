// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/mlock.c (do_mlock, mlock_vma_pages_range, mlock_pte_range,
 * folio_mlock_step).
 */
/*
 * mlock/munlock: VM_LOCKED on the VMAs, then mlock_pte_range() over the
 * page tables moving each folio to or from the unevictable list (the
 * step over a large folio found by reading each PTE, as
 * folio_mlock_step() does), then population through GUP for mlock.
 */
#include "mm/core.h"
#include "mm/lru.h"
#include "mm/mm.h"
#include "mm/pagewalk.h"
#include "mm/rmap.h"
#include "hw/perf.h"

#define MLOCK_FOLIO_BATCH 15

/*
 * Folios move in batches under one lruvec lock; each batch holds a ref.
 * The place in the current batch (kept modulo the batch: a loop's state
 * repeats when its work does, lab/fast_forward.c).
 */
static unsigned int mlock_batch;

void mlock_reset(void)
{
	mlock_batch = 0;
}

static void mlock_lru_move(struct folio *folio, bool lock)
{
	bool lru;

	folio_get(folio);
	if (mlock_batch == 0)
		hw_count(EV_lock_acquire, 1);
	mlock_batch = (mlock_batch + 1) % MLOCK_FOLIO_BATCH;
	/* __mlock_folio: one off the LRU (isolated, or still in an lru_add batch) only gets its flags */
	lru = folio_test_lru(folio);
	if (lru)
		lru_del_folio(folio);
	if (lock) {
		folio_set_mlocked(folio);
		folio_set_unevictable(folio);
	} else {
		folio_clear_mlocked(folio);
		folio_clear_unevictable(folio);
	}
	if (lru)
		folio_add_lru_locked(folio);
	folios_put_refs_one(folio, 1);
}

/*
 * mlock_folio()/munlock_folio() as the lab has them: the folio onto or
 * off the unevictable list in the batch, unless it is already so (the
 * kernel batches it anyway and counts mlock_count).
 */
void mlock_folio(struct folio *folio)
{
	if (!folio_test_mlocked(folio))
		mlock_lru_move(folio, true);
}

void munlock_folio(struct folio *folio)
{
	if (folio_test_mlocked(folio))
		mlock_lru_move(folio, false);
}

/* mm/mlock.c (6.12 on): a large folio's run of PTEs in one step */
static unsigned int folio_mlock_step(struct folio *folio, pte_t *ptep,
				     unsigned long addr, unsigned long end)
{
	unsigned int count = (unsigned int)((end - addr) >> PAGE_SHIFT);
	pte_t ptent = ptep_get(ptep);

	if (!folio_test_large(folio))
		return 1;
	return folio_pte_batch(folio, ptep, ptent, count);
}

/*
 * mlock only a large folio the range maps whole; munlock any (a VMA split
 * later may leave a locked folio partly outside it).
 */
static bool allow_mlock_munlock(struct folio *folio, struct vm_area_struct *vma,
				unsigned long start, unsigned long end, unsigned int step)
{
	if (!(vma->vm_flags & VM_LOCKED))
		return true;
	if (!folio_test_large(folio))
		return true;
	if (!folio_within_range(folio, vma, start, end))
		return false;
	return step == folio_nr_pages(folio);
}

/* mlock_walk_ops.pmd_entry (7.3): a PMD-mapped folio whole, else the PTEs' folios */
static int mlock_pte_range(pmd_t *pmdp, unsigned long addr, unsigned long end,
			   struct mm_walk *walk)
{
	PERF_FUNC();
	struct vm_area_struct *vma = walk->vma;
	pte_t *start_pte, *ptep;
	bool lock = vma->vm_flags & VM_LOCKED;
	unsigned long start = addr;
	spinlock_t *ptl;

	/* the tree's own, when the backend runs its core-mm code (mm/core.h) */
	if (mm_core && mm_core->mlock_pte_range)
		return mm_core->mlock_pte_range(pmdp, addr, end, walk);
	if (!pmd_table(*pmdp)) {
		/* pmd_trans_huge_lock(): the PMD's lock, then the folio whole */
		struct folio *folio = pfn_folio(pmd_pfn(*pmdp));

		hw_count(EV_lock_acquire, 1);
		if (lock)
			mlock_folio(folio);
		else
			munlock_folio(folio);
		return 0;
	}
	start_pte = ptep = pte_offset_map_lock(vma->vm_mm, pmdp, addr, &ptl);
	if (!ptep) {
		walk->action = ACTION_AGAIN;
		return 0;
	}
	for (; addr != end; ptep++, addr += PAGE_SIZE) {
		pte_t ptent = ptep_get(ptep);
		unsigned int step;

		if (!pte_present(ptent))
			continue;
		struct folio *folio = pfn_folio(pte_pfn(ptent));
		step = folio_mlock_step(folio, ptep, addr, end);
		if (allow_mlock_munlock(folio, vma, start, end, step)) {
			if (lock)
				mlock_folio(folio);
			else
				munlock_folio(folio);
		}
		ptep += step - 1;
		addr += (unsigned long)(step - 1) << PAGE_SHIFT;
	}
	pte_unmap_unlock(start_pte, ptl);
	return 0;
}

static const struct mm_walk_ops mlock_walk_ops = {
	.pmd_entry = mlock_pte_range,
};

/* mlock_vma_pages_range (7.3): the folios of the range onto or off the unevictable list */
static void mlock_vma_pages_range(struct vm_area_struct *vma, unsigned long start,
				  unsigned long end)
{
	PERF_FUNC();
	walk_page_range(vma->vm_mm, start, end, &mlock_walk_ops, NULL);
}

int do_mlock(struct mm_struct *mm, unsigned long start, unsigned long len, bool lock)
{
	PERF_FUNC();
	unsigned long end = start + len;
	struct vm_area_struct *vma = vma_split_range(mm, start, end);

	if (!vma || (start | len) & ~PAGE_MASK)
		return -1;
	for (struct vm_area_struct *v = vma; v && v->vm_start < end; v = v->vm_next) {
		if (lock)
			v->vm_flags |= VM_LOCKED;
		else
			v->vm_flags &= ~VM_LOCKED;
		mlock_vma_pages_range(v, v->vm_start, v->vm_end);
	}
	if (lock)
		for (struct vm_area_struct *v = vma; v && v->vm_start < end; v = v->vm_next)
			if (populate_vma_page_range(v, v->vm_start, v->vm_end) < 0)
				return -1;
	return 0;
}
