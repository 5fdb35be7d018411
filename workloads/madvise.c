// SPDX-License-Identifier: GPL-2.0-only
/*
 * Map and touch --size of anonymous memory in folios of --folio-size, then
 * madvise(MADV_DONTNEED) all of it: the zap of munmap (zap_pte_range with
 * mmu_gather, S5's batching) without unlinking the VMA or freeing page
 * tables. The measured phase is the madvise; the same shape as
 * `ptelab host madvise`.
 */
#include <stdio.h>

#include "hw/invariants.h"
#include "hw/pgtable_mem.h"
#include "mm/mm.h"
#include "workloads/workload.h"

#define MADVISE_BASE 0x4000000000UL /* 256 GiB: aligned for every size */

static int madvise_run(const struct run_params *p, struct run_result *r,
		       char *err, size_t errlen)
{
	struct mm_struct *mm = lab_anon_setup(p, MADVISE_BASE, NULL, err, errlen);
	struct hw_counters before;

	if (!mm)
		return -1;
	u64 mapped = mm_count_present_pages(mm);
	u64 pt_pages = hw_pt_live();

	mm_check_invariants(mm);
	hw_events_snapshot(&before);
	r->setup = before;

	run_phase_begin(r);
	if (do_madvise(mm, MADVISE_BASE, p->size, MADV_DONTNEED)) {
		snprintf(err, errlen, "madvise(MADV_DONTNEED) failed");
		return -1;
	}
	run_phase_end(r);
	hw_events_diff(&r->measured, &before, &hw_events);

	/* MADV_DONTNEED keeps the VMA and its page tables */
	if (hw_pt_live() != pt_pages)
		hw_violation(VIOL_OTHER, "MADV_DONTNEED changed the page-table pages: %llu -> %llu",
			     (unsigned long long)pt_pages, (unsigned long long)hw_pt_live());
	run_anon_zapped(mm, r, mapped, "MADV_DONTNEED");
	return 0;
}

const struct workload workload_madvise = {
	.name = "madvise",
	.help = "map+touch anonymous mTHP memory, then MADV_DONTNEED it (measured)",
	.measured = "madvise(MADV_DONTNEED)",
	.opts = RUN_OPT_SIZE | RUN_OPT_FOLIO_SIZE | RUN_OPT_PMD_MAPPED,
	.default_size = SZ_1G,
	.default_folio_size = SZ_64K,
	.run = madvise_run,
};
