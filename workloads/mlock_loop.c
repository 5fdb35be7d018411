// SPDX-License-Identifier: GPL-2.0-only
/*
 * S4: a buffer of 4096 x 16 pages in 64 KiB contpte blocks is written
 * once, then --iterations times (default 500) mlock and munlock it. The
 * measured phase is the loop. The variants are the patch's test programs:
 * - touched (v3's, April 2025): the loop also writes then reads every
 *   page between mlock and munlock;
 * - young-dirty (v7's scenario 1, June 2025): no touching in the loop;
 *   every entry is young and dirty from the first write;
 * - one-young (v7's scenario 2): MADV_FREE then MADV_COLD leave every
 *   entry old and clean, then page 8 (from 0: the test's YOUNG_BIT) of
 *   each block is read, so only that entry is young;
 * - cold (v7's scenario 3): MADV_FREE then MADV_COLD, nothing young or
 *   dirty, so no gather can stop early.
 */
#include <stdio.h>
#include <string.h>

#include "hw/cpu.h"
#include "lab/fast_forward.h"
#include "mm/mm.h"
#include "workloads/workload.h"

#define ML_BASE 0x4000000000UL
#define ML_CONT_PTES 16 /* the test's CONT_PTES: pages per 64 KiB block */
#define ML_YOUNG_PAGE 8 /* its YOUNG_BIT: the page of each block scenario 2 reads */

enum ml_variant { ML_TOUCHED, ML_YOUNG_DIRTY, ML_ONE_YOUNG, ML_COLD };

static enum ml_variant ml_variant(const char *v)
{
	if (v && !strcmp(v, "young-dirty"))
		return ML_YOUNG_DIRTY;
	if (v && !strcmp(v, "one-young"))
		return ML_ONE_YOUNG;
	if (v && !strcmp(v, "cold"))
		return ML_COLD;
	return ML_TOUCHED;
}

static int mlock_loop_run(const struct run_params *p, struct run_result *r,
			  char *err, size_t errlen)
{
	u64 nr_pages = p->size >> PAGE_SHIFT;
	u64 iterations = p->iterations ? p->iterations : 500;
	enum ml_variant v = ml_variant(p->variant);
	struct hw_counters before;
	struct lab_ff ff;
	struct vm_area_struct *vma;
	struct mm_struct *mm = lab_anon_setup(p, ML_BASE, &vma, err, errlen);

	if (!mm)
		return -1;
	struct hw_cpu *cpu = &hw_machine.cpu[0];
	(void)vma;
	/* clear_young_dirty(): MADV_FREE, then MADV_COLD, over the whole buffer */
	if ((v == ML_ONE_YOUNG || v == ML_COLD) &&
	    (do_madvise(mm, ML_BASE, p->size, MADV_FREE) || do_madvise(mm, ML_BASE, p->size, MADV_COLD))) {
		snprintf(err, errlen, "madvise(MADV_FREE/MADV_COLD) failed");
		return -1;
	}
	/* set_one_young(): a read of one page in each block */
	for (u64 a = ML_BASE + ML_YOUNG_PAGE * PAGE_SIZE; v == ML_ONE_YOUNG && a < ML_BASE + p->size;
	     a += ML_CONT_PTES * PAGE_SIZE)
		access_user(cpu, mm, a, false);
	hw_events_snapshot(&before);
	r->setup = before;
	run_phase_begin(r);
	lab_ff_begin(&ff, iterations);
	for (u64 it = 0; it < iterations; it++) {
		if (do_mlock(mm, ML_BASE, p->size, true)) {
			snprintf(err, errlen, "mlock failed");
			return -1;
		}
		for (u64 i = 0; v == ML_TOUCHED && i < nr_pages; i++) {
			access_user(cpu, mm, ML_BASE + i * PAGE_SIZE, true);
			access_user(cpu, mm, ML_BASE + i * PAGE_SIZE, false);
		}
		do_mlock(mm, ML_BASE, p->size, false);
		/* once the state repeats (every 15 iterations at S4's size: mlock's batch), skip periods */
		it += lab_ff_step(&ff, it + 1);
		if (it % 50 == 49)
			lab_progress("mlock-loop: %llu/%llu iterations", (unsigned long long)(it + 1),
				     (unsigned long long)iterations);
	}
	run_phase_end(r);
	lab_ff_end(&ff);
	r->ff_period = ff.period;
	r->ff_skipped = ff.skipped;
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
	.help = "S4: mlock / (touched: write+read every page) / munlock, --iterations times (default 500)",
	.measured = "the mlock/munlock loop",
	.opts = RUN_OPT_SIZE | RUN_OPT_FOLIO_SIZE | RUN_OPT_ITERATIONS | RUN_OPT_VARIANT,
	.default_size = 4096UL * 16 * PAGE_SIZE,
	.default_folio_size = SZ_64K,
	.variants = "touched|young-dirty|one-young|cold",
	.default_iterations = 500,
	.iterations_are = "mlock/munlock rounds",
	.run = mlock_loop_run,
};
