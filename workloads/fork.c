// SPDX-License-Identifier: GPL-2.0-only
/*
 * Map and touch --size of anonymous memory in folios of --folio-size, then
 * fork: dup_mm's copy_pte_range shares every page with the child
 * read-only (folio_pte_batch, folio_try_dup_anon_rmap_ptes, wrprotect_ptes
 * and set_ptes per folio run with fork-batch; per PTE without). The
 * measured phase is the parent's fork (the copy); the child then exits
 * outside it. The same shape as `ptelab host fork`.
 */
#include <stdio.h>

#include "hw/invariants.h"
#include "hw/pgtable_mem.h"
#include "mm/mm.h"
#include "workloads/workload.h"

#define FORK_BASE 0x4000000000UL /* 256 GiB: aligned for every size */

static int fork_run(const struct run_params *p, struct run_result *r,
		    char *err, size_t errlen)
{
	struct mm_struct *mm = lab_anon_setup(p, FORK_BASE, NULL, err, errlen);
	struct hw_counters before;
	struct mm_struct *child;

	if (!mm)
		return -1;
	u64 mapped = mm_count_present_pages(mm);

	mm_check_invariants(mm);
	hw_events_snapshot(&before);
	r->setup = before;

	run_phase_begin(r);
	child = dup_mm(mm);
	run_phase_end(r);
	hw_events_diff(&r->measured, &before, &hw_events);
	if (!child) {
		snprintf(err, errlen, "fork failed (dup_mm)");
		return -1;
	}

	mm_check_invariants(mm);
	mm_check_invariants(child);
	if (mm_count_present_pages(child) != mapped)
		hw_violation(VIOL_OTHER, "the child maps %llu pages, the parent %llu",
			     (unsigned long long)mm_count_present_pages(child),
			     (unsigned long long)mapped);
	run_result_add(r, "mapped_pages", (double)mapped);
	run_result_add(r, "child_rss", (double)child->rss);
	run_result_add(r, "pt_pages_after", (double)hw_pt_live());
	mmput(child);
	mmput(mm);
	mm_check_all_freed();
	run_result_add(r, "free_pages_after", (double)nr_free_pages());
	lab_machine_teardown();
	return 0;
}

const struct workload workload_fork = {
	.name = "fork",
	.help = "map+touch anonymous mTHP memory, then fork (the copy measured)",
	.measured = "fork",
	.opts = RUN_OPT_SIZE | RUN_OPT_FOLIO_SIZE,
	.default_size = SZ_1G,
	.default_folio_size = SZ_64K,
	.run = fork_run,
};
