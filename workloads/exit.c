// SPDX-License-Identifier: GPL-2.0-only
/*
 * S2: the cost of exit_group's teardown (exit_mmap) over a population of
 * short-lived processes shaped like a kernel build's compiler jobs.
 *
 * Each of --iterations processes (default 1000) maps:
 *   - a heap of 2..(2 + size/1M) MiB (uniform; --size, default 24M, bounds
 *     it), in 64 KiB mTHP folios, 85% of it written, 15% only read;
 *   - 4..12 small anonymous regions of 4..60 KiB (order-0 folios);
 *   - a 128 KiB stack region, order-0;
 * and in one process out of three trims its heap by a length that is not
 * a multiple of 64 KiB before exiting (free() giving memory back), which
 * leaves a partly mapped folio whose block the teardown covers partly.
 * The measured phase is exit_mmap of every process.
 *
 * --variant picks a kernel, a set of switches the lab sets before the run
 * (lab/variants.c); this code is the same for all of them:
 *   7.3          every switch on: the batched zap of 6.9/6.10, clear_full_ptes
 * and S2's rows, the kernels of Dec 2023 (6.7's per-PTE zap, rmap and
 * release_pages):
 *   baseline     no contpte at all
 *   no-opt       contpte; clearing a block entry unfolds it first
 *   simple-full  contpte; at exit, clear entries without unfolding
 *   robust-full  contpte; at exit, clear each entry alone, stash its
 *                young/dirty in the block's top valid entry, gather again
 *   clear-ptes   contpte series v3: core-mm clears a folio's run in one
 *                clear_ptes() call, which unfolds only blocks the run
 *                covers partly; rmap and the gather still per page
 */
#include <stdio.h>
#include <string.h>

#include "hw/random.h"
#include "hw/cpu.h"
#include "mm/mm.h"
#include "workloads/workload.h"

#define EXIT_BASE 0x10000000UL

static u64 rng; /* seeded from --seed at the start of every run */

static u64 rnd(u64 n)
{
	return xorshift_rnd(&rng, n);
}

static int touch(struct hw_cpu *cpu, struct mm_struct *mm, unsigned long start,
		 unsigned long len, unsigned int write_pct)
{
	for (unsigned long a = start; a < start + len; a += PAGE_SIZE)
		if (access_user(cpu, mm, a, rnd(100) < write_pct))
			return -1;
	return 0;
}

static int exit_run(const struct run_params *p, struct run_result *r,
		    char *err, size_t errlen)
{
	u64 procs = p->iterations ? p->iterations : 1000;
	u64 max_heap = 2 * SZ_2M / 2 + p->size;
	struct hw_counters before, total = { 0 };
	u64 pages = 0, partial = 0;

	if (strcmp(p->arch, "arm64")) {
		snprintf(err, errlen, "the exit workload models arm64 contpte; use --arch arm64");
		return -1;
	}
	if (lab_machine_setup(p, (max_heap + SZ_2M) / PAGE_SIZE * 2 + 8192, err, errlen))
		return -1;
	rng = p->seed * 0x9E3779B97F4A7C15ULL + 1;
	struct hw_cpu *cpu = &hw_machine.cpu[0];

	for (u64 n = 0; n < procs; n++) {
		struct mm_struct *mm = mm_alloc();
		unsigned long heap = SZ_2M + ALIGN_DOWN(rnd(p->size + 1), SZ_64K);
		unsigned long addr = EXIT_BASE;

		if (!mmap_anon(mm, addr, heap, VM_READ | VM_WRITE, 4, false))
			goto nomem;
		switch_mm(cpu, mm);
		if (touch(cpu, mm, addr, heap, 85))
			goto nomem;
		if (n % 3 == 2) {
			/* trim the heap by a length that is not a multiple of 64K */
			unsigned long cut = (1 + rnd(200)) * PAGE_SIZE;

			do_munmap(mm, addr + heap - cut, cut);
			partial++;
		}
		addr += heap + SZ_2M;
		for (u64 k = 4 + rnd(9); k > 0; k--) {
			unsigned long len = (1 + rnd(15)) * PAGE_SIZE;

			if (!mmap_anon(mm, addr, len, VM_READ | VM_WRITE, 0, false) ||
			    touch(cpu, mm, addr, len, 90))
				goto nomem;
			addr += len + SZ_64K;
		}
		if (!mmap_anon(mm, 0x7fff00000000UL, 32 * PAGE_SIZE, VM_READ | VM_WRITE, 0, false) ||
		    touch(cpu, mm, 0x7fff00000000UL + 16 * PAGE_SIZE, 16 * PAGE_SIZE, 100))
			goto nomem;
		/* rss against the page tables (read without counting events) */
		mm_check_rss(mm);
		pages += (u64)mm->rss;

		hw_events_snapshot(&before);
		run_phase_begin(r);
		mmput(mm); /* exit_mmap: the measured teardown */
		run_phase_end(r);
		hw_events_diff(&before, &before, &hw_events);
		for (int e = 0; e < NR_HW_EVENTS; e++)
			total.v[e] += before.v[e];
		if (n % 100 == 99)
			lab_progress("exit: %llu/%llu processes", (unsigned long long)(n + 1),
				     (unsigned long long)procs);
	}
	lab_progress_done();
	r->measured = total;
	hw_events_diff(&r->setup, &total, &hw_events);
	mm_check_all_freed();
	run_result_add(r, "processes", (double)procs);
	run_result_add(r, "pages_torn_down", (double)pages);
	run_result_add(r, "trimmed_heaps", (double)partial);
	lab_machine_teardown();
	return 0;
nomem:
	snprintf(err, errlen, "process setup failed (out of simulated memory?)");
	return -1;
}

const struct workload workload_exit = {
	.name = "exit",
	.help = "S2: exit_mmap of a kernel-build-like population of processes (measured)",
	.measured = "exit_mmap of every process",
	.opts = RUN_OPT_SIZE | RUN_OPT_ITERATIONS | RUN_OPT_VARIANT,
	.default_size = 24UL << 20,
	.default_folio_size = SZ_64K,
	.variants = "7.3|baseline|no-opt|simple-full|robust-full|clear-ptes",
	.default_iterations = 1000,
	.iterations_are = "processes",
	.arm64_only = true,
	.run = exit_run,
};
