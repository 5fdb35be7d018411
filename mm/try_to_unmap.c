// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/rmap.c (try_to_unmap, try_to_unmap_one,
 * folio_unmap_pte_batch, ttu_anon_lazyfree_folio), for the clean
 * page-cache folios and the lazyfree (MADV_FREE'd) anonymous ones
 * reclaim frees.
 */
/*
 * Unmap a folio from every VMA before reclaim frees it: secondary MMUs
 * are invalidated first (mmu_notifier), then each run of entries mapping
 * the folio is cleared in one get_and_clear_ptes(), flushed, and its
 * rmap and references dropped in one call each. A lazyfree folio found
 * redirtied is mapped again as it was (set_ptes of the run) and becomes
 * swap-backed: its data must be kept.
 */
#include "mm/core.h"
#include "mm/mmu_notifier.h"
#include "mm/rmap.h"
#include "mm/switches.h"
#include "hw/perf.h"

/* only file (and lazyfree) folios batch in 7.3; --without unmap-batch: none (6.12) */
static unsigned int folio_unmap_pte_batch(struct folio *folio,
					  struct page_vma_mapped_walk *pvmw, pte_t pte)
{
	struct vm_area_struct *vma = pvmw->vma;
	unsigned long end_addr;
	unsigned int max_nr;

	if (!folio_test_large(folio) || !mm_sw.unmap_batch)
		return 1;
	/* We may only batch within a single VMA and a single page table. */
	end_addr = pmd_addr_end(pvmw->address, vma->vm_end);
	max_nr = (unsigned int)((end_addr - pvmw->address) >> PAGE_SHIFT);
	if (folio_test_anon(folio) && folio_test_swapbacked(folio))
		return 1;
	return folio_pte_batch_flags(folio, vma, pvmw->pte, &pte, max_nr,
				     FPB_RESPECT_WRITE | FPB_RESPECT_SOFT_DIRTY);
}

/*
 * ttu_anon_lazyfree_folio (7.3): a lazyfree folio may be discarded only
 * if nobody wrote it since MADV_FREE (through a PTE, whose dirty bit the
 * unmap just moved to the folio, or through a GUP reference) and nobody
 * but reclaim's isolation and its mappings holds it.
 */
static bool ttu_anon_lazyfree_folio(struct vm_area_struct *vma, struct folio *folio,
				    unsigned long nr_pages)
{
	int ref_count = folio_ref_count(folio), map_count = folio_mapcount(folio);

	if (folio_test_dirty(folio)) {
		folio_set_swapbacked(folio);
		return false;
	}
	if (ref_count != 1 + map_count)
		return false;
	vma->vm_mm->rss -= (long)nr_pages;
	return true;
}

static bool try_to_unmap_one(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long address, void *arg)
{
	PERF_FUNC();
	struct mm_struct *mm = vma->vm_mm;
	DEFINE_FOLIO_VMA_WALK(pvmw, folio, vma, address, 0);
	struct mmu_notifier_range range;
	bool ret = true;
	int ptes = 0;

	(void)arg;
	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, mm, address, vma_address_end(&pvmw));
	mmu_notifier_invalidate_range_start(&range);

	while (page_vma_mapped_walk(&pvmw)) {
		unsigned int nr_pages = 1;
		pte_t pteval;

		if (vma->vm_flags & VM_LOCKED) {
			ptes++;
			ret = false;
			if (pvmw.pte && ptes != (int)pvmw.nr_pages)
				continue;
			page_vma_mapped_walk_done(&pvmw);
			break;
		}
		if (!pvmw.pte) {
			/* a PMD-mapped file folio: the lab's page cache maps none */
			ret = false;
			page_vma_mapped_walk_done(&pvmw);
			break;
		}
		address = pvmw.address;
		pteval = ptep_get(pvmw.pte);
		struct page *page = pfn_to_page(pte_pfn(pteval));

		nr_pages = folio_unmap_pte_batch(folio, &pvmw, pteval);
		pteval = get_and_clear_full_ptes(mm, address, pvmw.pte, nr_pages, 0);
		flush_tlb_range(vma, address, address + nr_pages * PAGE_SIZE);
		if (pte_dirty(pteval))
			folio_set_dirty(folio);
		if (folio_test_anon(folio)) {
			/* ttu_anon_folio: only lazyfree anon folios reach reclaim's unmap here */
			if (!ttu_anon_lazyfree_folio(vma, folio, nr_pages)) {
				set_ptes(mm, address, pvmw.pte, pteval, nr_pages);
				ret = false;
				page_vma_mapped_walk_done(&pvmw);
				break;
			}
		} else {
			mm->rss -= nr_pages;
		}
		folio_remove_rmap_ptes(folio, page, (int)nr_pages, vma);
		folios_put_refs_one(folio, (int)nr_pages);
		/*
		 * If we are sure that we batched the entire folio and cleared
		 * all PTEs, we can just optimize and stop right here.
		 */
		if (nr_pages == (unsigned int)folio_nr_pages(folio)) {
			page_vma_mapped_walk_done(&pvmw);
			break;
		}
	}
	mmu_notifier_invalidate_range_end(&range);
	return ret;
}

/* The tree's try_to_unmap_one when the backend runs its core-mm code (mm/core.h). */
static bool tree_try_to_unmap_one(struct folio *folio, struct vm_area_struct *vma,
				  unsigned long address, void *arg)
{
	PERF_FUNC();
	return mm_core->try_to_unmap_one(folio, vma, address, arg);
}

static int folio_not_mapped(struct folio *folio)
{
	return !folio_mapped(folio);
}

/* Unmap a folio from every VMA; true when no mapping is left. */
bool try_to_unmap(struct folio *folio)
{
	PERF_FUNC();
	struct rmap_walk_control rwc = {
		/* the tree's, unless --without unmap-batch asks for 6.12's shape */
		.rmap_one = mm_core && mm_core->try_to_unmap_one && mm_sw.unmap_batch
				? tree_try_to_unmap_one : try_to_unmap_one,
		.done = folio_not_mapped,
	};

	rmap_walk(folio, &rwc);
	return !folio_mapped(folio);
}
