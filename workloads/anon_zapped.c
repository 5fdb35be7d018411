// SPDX-License-Identifier: GPL-2.0-only
/*
 * The end of a workload whose measured phase zapped all of an anonymous
 * mapping (munmap, madvise(MADV_DONTNEED)): nothing may stay mapped, and
 * once the mm is gone every frame is back. The results are the same
 * four figures for each, so runs compare key by key.
 */
#include "hw/invariants.h"
#include "hw/pgtable_mem.h"
#include "mm/mm.h"
#include "workloads/workload.h"

void run_anon_zapped(struct mm_struct *mm, struct run_result *r, u64 mapped, const char *what)
{
	mm_check_invariants(mm);
	if (mm_count_present_pages(mm))
		hw_violation(VIOL_OTHER, "%llu pages still mapped after %s",
			     (unsigned long long)mm_count_present_pages(mm), what);
	run_result_add(r, "mapped_pages", (double)mapped);
	run_result_add(r, "rss_after", (double)mm->rss);
	run_result_add(r, "pt_pages_after", (double)hw_pt_live());
	mmput(mm);
	mm_check_all_freed();
	run_result_add(r, "free_pages_after", (double)nr_free_pages());
	lab_machine_teardown();
}
