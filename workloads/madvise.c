// SPDX-License-Identifier: GPL-2.0-only
/*
 * Map and touch --size of anonymous memory in folios of --folio-size, then
 * madvise() all of it; the measured phase is the madvise.
 *   dontneed (default): MADV_DONTNEED, the zap of munmap (zap_pte_range
 *     with mmu_gather, S5's batching) without unlinking the VMA or freeing
 *     page tables; the same shape as `ptelab host madvise`.
 *   free: MADV_FREE (madvise_free_pte_range): every folio made lazyfree,
 *     its PTEs old and clean, whole contiguous blocks at once.
 *   cold: MADV_COLD (madvise_cold_or_pageout_pte_range): every folio's
 *     PTEs made old and the folio deactivated.
 * MADV_PAGEOUT is not a variant: on anonymous memory it is swap-out,
 * which the lab does not model (check's sequences run its walker on file
 * mappings).
 */
#include <stdio.h>
#include <string.h>

#include "hw/invariants.h"
#include "hw/mmu.h"
#include "hw/pgtable_mem.h"
#include "mm/mm.h"
#include "workloads/workload.h"

#define MADVISE_BASE 0x4000000000UL /* 256 GiB: aligned for every size */

/*
 * What MADV_FREE or MADV_COLD left, read raw (no events: the lab's
 * bookkeeping): PTEs still young or dirty (a contiguous block's dirty
 * bit gathered as the hardware reads it), pages of lazyfree folios.
 */
static void madvise_left(struct mm_struct *mm, unsigned long start, unsigned long end,
			 struct run_result *r)
{
	u64 young = 0, dirty = 0, lazyfree = 0, present = 0;

	for (unsigned long a = start; a < end; a += PAGE_SIZE) {
		pte_t *p = pte_lookup(mm, a);

		if (!p)
			continue;
		pte_t pte = __pte(__atomic_load_n(&p->pte, __ATOMIC_RELAXED));

		if (!pte_present(pte))
			continue;
		struct folio *folio = pfn_folio(pte_pfn(pte));

		present++;
		young += pte_young(pte);
		dirty += pte_dirty(pte) || hw_cont_gather_dirty(&p->pte);
		lazyfree += folio_test_anon(folio) && !folio_test_swapbacked(folio);
	}
	run_result_add(r, "mapped_after", (double)present);
	run_result_add(r, "young_ptes_after", (double)young);
	run_result_add(r, "dirty_ptes_after", (double)dirty);
	run_result_add(r, "lazyfree_pages", (double)lazyfree);
}

static int madvise_run(const struct run_params *p, struct run_result *r,
		       char *err, size_t errlen)
{
	struct mm_struct *mm = lab_anon_setup(p, MADVISE_BASE, NULL, err, errlen);
	struct hw_counters before;
	const char *variant = p->variant ? p->variant : "dontneed";
	int advice = !strcmp(variant, "free") ? MADV_FREE
		   : !strcmp(variant, "cold") ? MADV_COLD : MADV_DONTNEED;
	const char *what = advice == MADV_FREE ? "MADV_FREE"
			 : advice == MADV_COLD ? "MADV_COLD" : "MADV_DONTNEED";

	if (!mm)
		return -1;
	u64 mapped = mm_count_present_pages(mm);
	u64 pt_pages = hw_pt_live();

	mm_check_invariants(mm);
	hw_events_snapshot(&before);
	r->setup = before;

	run_phase_begin(r);
	if (do_madvise(mm, MADVISE_BASE, p->size, advice)) {
		snprintf(err, errlen, "madvise(%s) failed", what);
		return -1;
	}
	run_phase_end(r);
	hw_events_diff(&r->measured, &before, &hw_events);

	/* madvise keeps the VMA and its page tables */
	if (hw_pt_live() != pt_pages)
		hw_violation(VIOL_OTHER, "%s changed the page-table pages: %llu -> %llu", what,
			     (unsigned long long)pt_pages, (unsigned long long)hw_pt_live());
	if (advice == MADV_DONTNEED) {
		run_anon_zapped(mm, r, mapped, what);
		return 0;
	}
	mm_check_invariants(mm);
	run_result_add(r, "mapped_pages", (double)mapped);
	madvise_left(mm, MADVISE_BASE, MADVISE_BASE + p->size, r);
	mmput(mm);
	mm_check_all_freed();
	run_result_add(r, "free_pages_after", (double)nr_free_pages());
	lab_machine_teardown();
	return 0;
}

const struct workload workload_madvise = {
	.name = "madvise",
	.help = "map+touch anonymous mTHP memory, then MADV_DONTNEED (or FREE, COLD) it (measured)",
	.measured = "madvise(the --variant advice)",
	.opts = RUN_OPT_SIZE | RUN_OPT_FOLIO_SIZE | RUN_OPT_PMD_MAPPED | RUN_OPT_VARIANT,
	.variants = "dontneed|free|cold",
	.default_size = SZ_1G,
	.default_folio_size = SZ_64K,
	.run = madvise_run,
};
