// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/rmap.c (folio_referenced, folio_referenced_one,
 * invalid_folio_referenced_vma); the 6.12 shape behind young-batch.
 */
/*
 * Was the folio used since the last look? Every VMA that maps it is
 * visited (rmap_walk); in each, page_vma_mapped_walk() finds its entries
 * and their young bits are tested and cleared, on the primary MMU and,
 * through mmu_notifier, on secondary MMUs. With young-batch (7.3) a
 * run of entries mapping the folio is one folio_pte_batch() and one
 * clear_flush_young_ptes_notify(); without it (6.12) every entry is its
 * own walk step and its own ptep_clear_flush_young_notify(). With the
 * multi-gen LRU the test goes through lru_gen_look_around(), which also
 * ages the neighbours.
 */
#include "hw/invariants.h"
#include "mm/core.h"
#include "mm/mmu_notifier.h"
#include "mm/reclaim.h"
#include "mm/rmap.h"
#include "sim/frames.h"
#include "hw/perf.h"

static bool __folio_referenced_one(struct folio *folio, struct vm_area_struct *vma,
				   unsigned long address, void *arg);

/* one PTE's young test, secondary MMUs asked too; flushing them unless a base did not (S3 v2) */
static bool referenced_young_notify(struct vm_area_struct *vma, unsigned long address, pte_t *ptep)
{
	return mm_sw.referenced_flush ? ptep_clear_flush_young_notify(vma, address, ptep)
				      : ptep_clear_young_notify(vma, address, ptep);
}

/*
 * The tree's folio_referenced_one, unless a switch or an S3 variant asks
 * for one the tree does not have (--without young-batch, 6.1..6.11's
 * host-only young bits with or without the seed's batched secondary-MMU
 * test, a young test without flush): those are the twin's.
 */
static bool tree_folio_referenced_one(void)
{
	return mm_core && mm_core->folio_referenced_one && mm_sw.young_batch &&
	       mm_sw.referenced_flush && mm_sw.lru_gen_spte == LRU_GEN_SPTE_NOTIFY;
}

static bool folio_referenced_one(struct folio *folio, struct vm_area_struct *vma,
				 unsigned long address, void *arg)
{
	PERF_FUNC();
	int frame = SIM_FRAME("folio_referenced_one");
	bool ret;

	sim_frame_enter(frame);
	/* the tree's own, when the backend runs its core-mm code (mm/core.h) */
	if (tree_folio_referenced_one())
		ret = mm_core->folio_referenced_one(folio, vma, address, arg);
	else
		ret = __folio_referenced_one(folio, vma, address, arg);
	sim_frame_exit(frame);
	return ret;
}

static bool __folio_referenced_one(struct folio *folio, struct vm_area_struct *vma,
				   unsigned long address, void *arg)
{
	struct folio_referenced_arg *pra = arg;
	DEFINE_FOLIO_VMA_WALK(pvmw, folio, vma, address, 0);
	int ptes = 0, referenced = 0;
	unsigned int nr;

	while (page_vma_mapped_walk(&pvmw)) {
		address = pvmw.address;
		nr = 1;

		if (vma->vm_flags & VM_LOCKED) {
			ptes++;
			pra->mapcount--;
			/* Only mlock fully mapped pages */
			if (pvmw.pte && ptes != (int)pvmw.nr_pages)
				continue;
			if (pvmw.flags & PVMW_PGTABLE_CROSSED)
				continue;
			/*
			 * mlock_vma_folio() would restore a missed mlock here; the
			 * lab's mlock moves every folio when it locks, so reclaim
			 * only reports the VMA as locked and activates the folio.
			 */
			page_vma_mapped_walk_done(&pvmw);
			pra->vm_flags |= VM_LOCKED;
			return false; /* To break the loop */
		}

		/*
		 * Skip the non-shared swapbacked folio mapped solely by
		 * the exiting or OOM-reaped process. This avoids redundant
		 * swap-out followed by an immediate unmap.
		 */
		if (!vma->vm_mm->mm_users && folio_test_anon(folio) &&
		    folio_test_swapbacked(folio) && !folio_maybe_mapped_shared(folio)) {
			pra->referenced = -1;
			page_vma_mapped_walk_done(&pvmw);
			return false;
		}

		if (pvmw.pte && folio_test_large(folio) && mm_sw.young_batch) {
			const unsigned long end_addr = pmd_addr_end(address, vma->vm_end);
			const unsigned int max_nr = (unsigned int)((end_addr - address) >> PAGE_SHIFT);
			pte_t pteval = ptep_get(pvmw.pte);

			nr = folio_pte_batch(folio, pvmw.pte, pteval, max_nr);
		}

		if (lru_gen_enabled && pvmw.pte && mm_sw.lru_gen_spte == LRU_GEN_SPTE_HOST &&
		    !mm_sw.spte_test_clear_young) {
			/*
			 * 6.1 .. 6.11: look around when the host's entry is young,
			 * and ask the secondary MMUs about this page anyway (the
			 * notifier's clear_flush_young: KVM's write lock, and a
			 * flush if it was young there).
			 */
			if (pte_young(ptep_get(pvmw.pte))) {
				lru_gen_look_around(&pvmw, nr);
				referenced++;
			}
			if (referenced_young_notify(vma, address, pvmw.pte))
				referenced++;
		} else if (lru_gen_enabled && pvmw.pte) {
			if (lru_gen_look_around(&pvmw, nr))
				referenced++;
		} else if (pvmw.pte) {
			if (mm_sw.young_batch ? clear_flush_young_ptes_notify(vma, address, pvmw.pte, nr)
					      : referenced_young_notify(vma, address, pvmw.pte))
				referenced++;
		} else {
			/* the lab has no pmdp_clear_flush_young: no caller ages PMD-mapped folios */
			hw_violation(VIOL_OTHER, "folio_referenced_one: unexpected PMD-mapped folio %#llx",
				     (unsigned long long)folio_pfn(folio));
		}

		ptes += (int)nr;
		pra->mapcount -= (int)nr;
		/*
		 * If we are sure that we batched the entire folio,
		 * we can just optimize and stop right here.
		 */
		if (ptes == (int)pvmw.nr_pages) {
			page_vma_mapped_walk_done(&pvmw);
			break;
		}
		/* Skip the batched PTEs */
		pvmw.pte += nr - 1;
		pvmw.address += (nr - 1) * PAGE_SIZE;
	}

	/* (folio_test_clear_young: no page_idle tracking in the lab's config) */
	if (referenced) {
		pra->referenced++;
		pra->vm_flags |= vma->vm_flags & ~VM_LOCKED;
	}
	if (!pra->mapcount)
		return false; /* To break the loop */
	return true;
}

int folio_referenced(struct folio *folio, int is_locked, struct mem_cgroup *memcg,
		     unsigned long *vm_flags)
{
	PERF_FUNC();
	struct folio_referenced_arg pra = {
		.mapcount = folio_mapcount(folio),
		.memcg = memcg,
	};
	struct rmap_walk_control rwc = {
		.rmap_one = folio_referenced_one,
		.arg = (void *)&pra,
	};
	int frame = SIM_FRAME("folio_referenced");

	(void)is_locked; /* the lab's folios have no lock to take */
	*vm_flags = 0;
	if (!pra.mapcount)
		return 0;
	if (!folio->page.mapping)
		return 0;
	sim_frame_enter(frame);
	rmap_walk(folio, &rwc);
	sim_frame_exit(frame);
	*vm_flags = pra.vm_flags;
	return pra.referenced;
}
