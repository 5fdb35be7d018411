// SPDX-License-Identifier: GPL-2.0-only
/*
 * Map and write --size of anonymous memory in folios of --folio-size,
 * then mprotect(PROT_READ) all of it and mprotect(PROT_READ | PROT_WRITE)
 * back: change_pte_range twice, a folio's run per modify_prot_start/
 * commit_ptes with mprotect-batch (6.17), one PTE at a time without.
 * The way back makes every page writable again without a fault: they are
 * anonymous and this mm's alone (commit_anon_folio_batch). The measured
 * phase is the two calls.
 */
#include <stdio.h>

#include "hw/invariants.h"
#include "mm/mm.h"
#include "workloads/workload.h"

#define MPROTECT_BASE 0x4000000000UL /* 256 GiB: aligned for every size */

/* Writable present entries over [base, base + size). */
static u64 writable_pages(struct mm_struct *mm, u64 base, u64 size)
{
	u64 n = 0;

	for (u64 va = base; va < base + size; va += PAGE_SIZE) {
		pte_t *p = pte_lookup(mm, va);

		/* a raw read: the check counts no event */
		n += p && pte_present(*p) && pte_write(*p);
	}
	return n;
}

static int mprotect_run(const struct run_params *p, struct run_result *r, char *err, size_t errlen)
{
	struct mm_struct *mm = lab_anon_setup(p, MPROTECT_BASE, NULL, err, errlen);
	struct hw_counters before;

	if (!mm)
		return -1;
	u64 pages = p->size >> PAGE_SHIFT, writable = writable_pages(mm, MPROTECT_BASE, p->size);

	mm_check_invariants(mm);
	hw_events_snapshot(&before);
	r->setup = before;

	run_phase_begin(r);
	if (do_mprotect(mm, MPROTECT_BASE, p->size, VM_READ) ||
	    do_mprotect(mm, MPROTECT_BASE, p->size, VM_READ | VM_WRITE)) {
		snprintf(err, errlen, "mprotect failed");
		return -1;
	}
	run_phase_end(r);
	hw_events_diff(&r->measured, &before, &hw_events);

	u64 after = writable_pages(mm, MPROTECT_BASE, p->size);

	/* every page was written (the setup's faults made them writable): all are again */
	if (writable != pages || after != pages)
		hw_violation(VIOL_OTHER, "mprotect: %llu of %llu pages writable before, %llu after",
			     (unsigned long long)writable, (unsigned long long)pages,
			     (unsigned long long)after);
	run_result_add(r, "pages", (double)pages);
	run_result_add(r, "writable_after", (double)after);
	mm_check_invariants(mm);
	mmput(mm);
	mm_check_all_freed();
	lab_machine_teardown();
	return 0;
}

const struct workload workload_mprotect = {
	.name = "mprotect",
	.help = "map+write anonymous mTHP memory, then mprotect it read-only and back (measured)",
	.measured = "mprotect(PROT_READ), mprotect(PROT_READ | PROT_WRITE)",
	.opts = RUN_OPT_SIZE | RUN_OPT_FOLIO_SIZE,
	.default_size = SZ_1G,
	.default_folio_size = SZ_64K,
	.run = mprotect_run,
};
