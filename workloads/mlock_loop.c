// SPDX-License-Identifier: GPL-2.0-only
/*
 * S4: a buffer of 4096 x 16 pages in 64 KiB contpte blocks is written
 * once, then --iterations times (default 500): mlock, write then read
 * every page, munlock. The measured phase is the loop.
 * --variant cold: young and dirty are cleared in every entry first and
 * the loop does not touch the pages, so no gather can stop early.
 */
#include <stdio.h>
#include <string.h>

#include "hw/cpu.h"
#include "mm/mm.h"
#include "workloads/workload.h"

#define ML_BASE 0x4000000000UL

static int mlock_loop_run(const struct run_params *p, struct run_result *r,
			  char *err, size_t errlen)
{
	u64 nr_pages = p->size >> PAGE_SHIFT;
	u64 iterations = p->iterations ? p->iterations : 500;
	bool cold = p->variant && !strcmp(p->variant, "cold");
	struct hw_counters before;
	struct vm_area_struct *vma;
	struct mm_struct *mm = lab_anon_setup(p, ML_BASE, &vma, err, errlen);

	if (!mm)
		return -1;
	struct hw_cpu *cpu = &hw_machine.cpu[0];
	if (cold) {
		/* MADV_FREE-like: every entry old and clean, TLBs flushed */
		for (u64 a = ML_BASE; a < ML_BASE + p->size; a += SZ_2M) {
			pte_t *ptep = pte_offset_map(pmd_walk(mm, a), a);

			clear_young_dirty_ptes(vma, a, ptep, (unsigned int)min(512UL, (ML_BASE + p->size - a) >> PAGE_SHIFT),
					       CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
		}
		flush_tlb_mm(mm);
	}
	hw_events_snapshot(&before);
	r->setup = before;
	run_phase_begin(r);
	for (u64 it = 0; it < iterations; it++) {
		if (do_mlock(mm, ML_BASE, p->size, true)) {
			snprintf(err, errlen, "mlock failed");
			return -1;
		}
		for (u64 i = 0; !cold && i < nr_pages; i++) {
			access_user(cpu, mm, ML_BASE + i * PAGE_SIZE, true);
			access_user(cpu, mm, ML_BASE + i * PAGE_SIZE, false);
		}
		do_mlock(mm, ML_BASE, p->size, false);
		if (it % 50 == 49)
			lab_progress("mlock-loop: %llu/%llu iterations", (unsigned long long)(it + 1),
				     (unsigned long long)iterations);
	}
	run_phase_end(r);
	lab_progress_done();
	hw_events_diff(&r->measured, &before, &hw_events);
	mm_check_invariants(mm);
	run_result_add(r, "iterations", (double)iterations);
	run_result_add(r, "pte_read_per_iteration", (double)r->measured.v[EV_pte_read] / (double)iterations);
	mmput(mm);
	mm_check_all_freed();
	lab_machine_teardown();
	return 0;
}

const struct workload workload_mlock_loop = {
	.name = "mlock-loop",
	.help = "S4: mlock / write+read every page / munlock, --iterations times (default 500)",
	.measured = "the mlock/touch/munlock loop",
	.opts = RUN_OPT_SIZE | RUN_OPT_FOLIO_SIZE | RUN_OPT_ITERATIONS | RUN_OPT_VARIANT,
	.default_size = 4096UL * 16 * PAGE_SIZE,
	.default_folio_size = SZ_64K,
	.variants = "touched|cold",
	.default_iterations = 500,
	.iterations_are = "mlock/touch/munlock rounds",
	.run = mlock_loop_run,
};
