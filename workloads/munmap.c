// SPDX-License-Identifier: GPL-2.0-only
/*
 * S5: map and touch --size of anonymous memory in folios of --folio-size,
 * then munmap it. The measured phase is the munmap.
 */
#include <stdio.h>

#include "hw/cpu.h"
#include "hw/invariants.h"
#include "hw/phys.h"
#include "hw/pgtable_mem.h"
#include "mm/mm.h"
#include "workloads/workload.h"

#define MUNMAP_BASE 0x4000000000UL /* 256 GiB: aligned for every size */

static int munmap_run(const struct run_params *p, struct run_result *r,
		      char *err, size_t errlen)
{
	struct mm_struct *mm = lab_anon_setup(p, MUNMAP_BASE, NULL, err, errlen);
	struct hw_counters before;

	if (!mm)
		return -1;
	/* counted from the page tables; lab_anon_setup and the rss check judge it */
	u64 mapped = mm_count_present_pages(mm);
	mm_check_invariants(mm);
	hw_events_snapshot(&before);
	r->setup = before;

	run_phase_begin(r);
	if (do_munmap(mm, MUNMAP_BASE, p->size)) {
		snprintf(err, errlen, "munmap failed");
		return -1;
	}
	run_phase_end(r);
	hw_events_diff(&r->measured, &before, &hw_events);
	run_anon_zapped(mm, r, mapped, "munmap");
	return 0;
}

const struct workload workload_munmap = {
	.name = "munmap",
	.help = "S5: map+touch anonymous mTHP memory, then munmap it (measured)",
	.measured = "munmap",
	.opts = RUN_OPT_SIZE | RUN_OPT_FOLIO_SIZE | RUN_OPT_PMD_MAPPED,
	.default_size = SZ_1G,
	.default_folio_size = SZ_64K,
	.run = munmap_run,
};
