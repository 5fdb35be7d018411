// SPDX-License-Identifier: GPL-2.0-only
/*
 * S5: map and touch --size of anonymous memory in folios of --folio-size,
 * then munmap it. The measured phase is the munmap.
 */
#include <stdio.h>

#include "hw/cpu.h"
#include "hw/phys.h"
#include "hw/pgtable_mem.h"
#include "mm/mm.h"
#include "workloads/workload.h"

#define MUNMAP_BASE 0x4000000000UL /* 256 GiB: aligned for every size */

static int order_of(u64 folio_size)
{
	int order = 0;

	while ((PAGE_SIZE << order) < folio_size)
		order++;
	return order;
}

static int munmap_run(const struct run_params *p, struct run_result *r,
		      char *err, size_t errlen)
{
	u64 nr_pages = p->size >> PAGE_SHIFT;
	int order = order_of(p->folio_size);
	struct hw_cpu *cpu;
	struct mm_struct *mm;
	struct hw_counters before;

	if (lab_machine_setup(p, nr_pages + nr_pages / 16 + 4096, err, errlen))
		return -1;
	cpu = &hw_machine.cpu[0];
	mm = mm_alloc();
	if (!mm || !mmap_anon(mm, MUNMAP_BASE, p->size, VM_READ | VM_WRITE, order,
			      p->pmd_mapped)) {
		snprintf(err, errlen, "cannot map %llu bytes", (unsigned long long)p->size);
		return -1;
	}
	switch_mm(cpu, mm);
	for (u64 i = 0; i < nr_pages; i++) {
		if (access_user(cpu, mm, MUNMAP_BASE + i * PAGE_SIZE, true)) {
			snprintf(err, errlen, "simulated store to %#llx failed",
				 (unsigned long long)(MUNMAP_BASE + i * PAGE_SIZE));
			return -1;
		}
		if ((i & 0xfffff) == 0xfffff)
			fprintf(stderr, "ptelab: munmap: touched %llu/%llu MiB\r",
				(unsigned long long)(i >> 8), (unsigned long long)(nr_pages >> 8));
	}
	u64 mapped_rss = mm->rss;
	mm_check_invariants(mm);
	hw_events_snapshot(&before);
	r->setup = before;

	if (do_munmap(mm, MUNMAP_BASE, p->size)) {
		snprintf(err, errlen, "munmap failed");
		return -1;
	}
	hw_events_diff(&r->measured, &before, &hw_events);

	mm_check_invariants(mm);
	run_result_add(r, "mapped_pages", (double)mapped_rss);
	run_result_add(r, "rss_after", (double)mm->rss);
	run_result_add(r, "pt_pages_after", (double)hw_pt_live());
	mmput(mm);
	mm_check_all_freed();
	run_result_add(r, "free_pages_after", (double)nr_free_pages());
	lab_machine_teardown();
	return 0;
}

const struct workload workload_munmap = {
	.name = "munmap",
	.help = "S5: map+touch anonymous mTHP memory, then munmap it (measured)",
	.measured = "munmap",
	.default_size = SZ_1G,
	.default_folio_size = SZ_64K,
	.run = munmap_run,
};
