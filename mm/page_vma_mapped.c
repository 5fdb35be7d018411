// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/page_vma_mapped.c (page_vma_mapped_walk, map_pte,
 * check_pte, check_pmd, step_forward), mm/internal.h (vma_address_end).
 */
/*
 * page_vma_mapped_walk: each call finds the next entry of one VMA that
 * maps a page of the folio (pvmw->pfn, nr_pages) and returns with its
 * PTL held, or false when the folio's range in the VMA is done (PTL
 * dropped). A PMD-mapped folio is found once with pvmw->pte NULL. The
 * lab has no migration or device-private entries and no hugetlb.
 */
#include "mm/rmap.h"
#include "hw/perf.h"

#define PUD_SIZE (1UL << 30)

static inline bool not_found(struct page_vma_mapped_walk *pvmw)
{
	page_vma_mapped_walk_done(pvmw);
	return false;
}

/*
 * Map the PTE table and, unless the entry is none, take its lock: as
 * the kernel, the first entry is read locklessly before locking.
 */
static bool map_pte(struct page_vma_mapped_walk *pvmw, spinlock_t **ptlp)
{
	pte_t ptent;

	if (pvmw->flags & PVMW_SYNC) {
		/* Use the stricter lookup */
		pvmw->pte = pte_offset_map_lock(pvmw->vma->vm_mm, pvmw->pmd,
						pvmw->address, &pvmw->ptl);
		*ptlp = pvmw->ptl;
		return !!pvmw->pte;
	}
	pvmw->pte = pte_offset_map(pvmw->pmd, pvmw->address);
	if (!pvmw->pte)
		return false;
	ptent = ptep_get_lockless(pvmw->pte);
	if (pte_none(ptent) || !pte_present(ptent))
		return false;
	/* spin_lock(*ptlp): the lab's PTL is taken by looking the table up again */
	pvmw->pte = pte_offset_map_lock(pvmw->vma->vm_mm, pvmw->pmd, pvmw->address, ptlp);
	pvmw->ptl = *ptlp;
	return true;
}

static bool check_pte(struct page_vma_mapped_walk *pvmw, unsigned long pte_nr)
{
	pte_t ptent = ptep_get(pvmw->pte);
	unsigned long pfn;

	if (!pte_present(ptent))
		return false;
	pfn = pte_pfn(ptent);
	if ((pfn + pte_nr - 1) < pvmw->pfn)
		return false;
	if (pfn > (pvmw->pfn + pvmw->nr_pages - 1))
		return false;
	return true;
}

/* Returns true if the two ranges overlap.  Careful to not overflow. */
static bool check_pmd(unsigned long pfn, struct page_vma_mapped_walk *pvmw)
{
	if ((pfn + (PMD_SIZE >> PAGE_SHIFT) - 1) < pvmw->pfn)
		return false;
	if (pfn > pvmw->pfn + pvmw->nr_pages - 1)
		return false;
	return true;
}

static void step_forward(struct page_vma_mapped_walk *pvmw, unsigned long size)
{
	pvmw->address = (pvmw->address + size) & ~(size - 1);
	if (!pvmw->address)
		pvmw->address = ~0UL;
}

bool page_vma_mapped_walk(struct page_vma_mapped_walk *pvmw)
{
	PERF_FUNC();
	struct mm_struct *mm = pvmw->vma->vm_mm;
	spinlock_t *ptl = NULL;
	unsigned long end;
	pte_t pteval;
	pmd_t pmde;

	/* The only possible pmd mapping has been handled on last iteration */
	if (pvmw->pmd && !pvmw->pte)
		return not_found(pvmw);

	end = vma_address_end(pvmw);
	if (pvmw->pte)
		goto next_pte;
restart:
	do {
		pvmw->pmd = pmd_walk(mm, pvmw->address);
		if (!pvmw->pmd) {
			step_forward(pvmw, PUD_SIZE);
			continue;
		}
		pmde = pmdp_get_lockless(pvmw->pmd);
		if (pmd_leaf(pmde)) {
			/* pmd_lock(): counted as the PTL is */
			hw_count(EV_lock_acquire, 1);
			if (!check_pmd(pmd_pfn(pmde), pvmw))
				goto next_pmd;
			return true;
		} else if (!pmd_table(pmde)) {
			goto next_pmd;
		}
		bool mapped = map_pte(pvmw, &ptl);

		if (pvmw->pte)
			hw_count(EV_pvmw_step, 1); /* the first slot, read by map_pte */
		if (!mapped) {
			if (!pvmw->pte)
				goto restart;
			goto next_pte;
		}
this_pte:
		if (check_pte(pvmw, 1))
			return true;
next_pte:
		do {
			pvmw->address += PAGE_SIZE;
			if (pvmw->address >= end)
				return not_found(pvmw);
			/* Did we cross page table boundary? */
			if ((pvmw->address & (PMD_SIZE - PAGE_SIZE)) == 0) {
				if (pvmw->ptl) {
					pte_unmap_unlock(pvmw->pte, pvmw->ptl);
					pvmw->ptl = NULL;
				}
				pvmw->pte = NULL;
				pvmw->flags |= PVMW_PGTABLE_CROSSED;
				goto restart;
			}
			pvmw->pte++;
			hw_count(EV_pvmw_step, 1); /* each slot stepped to */
			if (!pvmw->ptl)
				pteval = ptep_get_lockless(pvmw->pte);
			else
				pteval = ptep_get(pvmw->pte);
		} while (pte_none(pteval));

		if (!pvmw->ptl) {
			pte_t *ptep = pte_offset_map_lock(mm, pvmw->pmd, pvmw->address, &ptl);

			(void)ptep;
			pvmw->ptl = ptl;
		}
		goto this_pte;
next_pmd:
		pvmw->pmd = NULL;
		step_forward(pvmw, PMD_SIZE);
	} while (pvmw->address < end);

	return false;
}
