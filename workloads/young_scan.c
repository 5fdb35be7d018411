// SPDX-License-Identifier: GPL-2.0-only
/*
 * A young-bit microbenchmark over contpte-mapped memory: map and write
 * --size in --folio-size folios, then (measured) test-and-clear the young
 * bits of every folio's PTEs the way rmap does, --passes times, the
 * memory being touched again between passes. Shows the S4 early exit
 * (pte_read per ptep_get) and the S1 batching (pte_read per block).
 */
#include <stdio.h>
#include <string.h>

#include "hw/cpu.h"
#include "mm/mm.h"
#include "mm/rmap.h"
#include "workloads/workload.h"

#define YS_BASE 0x4000000000UL

static int young_scan_run(const struct run_params *p, struct run_result *r,
			  char *err, size_t errlen)
{
	u64 nr_pages = p->size >> PAGE_SHIFT;
	u64 folio_pages = p->folio_size >> PAGE_SHIFT;
	struct hw_counters before, after;
	u64 referenced = 0;
	struct vm_area_struct *vma;
	struct mm_struct *mm = lab_anon_setup(p, YS_BASE, &vma, err, errlen);

	if (!mm)
		return -1;
	struct hw_cpu *cpu = &hw_machine.cpu[0];
	r->setup = hw_events;
	memset(&r->measured, 0, sizeof(r->measured));

	for (int pass = 0; pass < 2; pass++) {
		hw_events_snapshot(&before);
		run_phase_begin(r);
		for (u64 f = 0; f < nr_pages; f += folio_pages) {
			unsigned long addr = YS_BASE + f * PAGE_SIZE;
			pte_t *ptep = pte_offset_map(pmd_walk(mm, addr), addr);
			struct folio *folio = pfn_folio(pte_pfn(ptep_get_lockless(ptep)));
			unsigned long vm_flags;

			/* what shrink_folio_list asks of every folio it isolates */
			referenced += (u64)folio_referenced(folio, 0, NULL, &vm_flags);
		}
		run_phase_end(r);
		hw_events_snapshot(&after);
		hw_events_diff(&before, &before, &after);
		for (int e = 0; e < NR_HW_EVENTS; e++)
			r->measured.v[e] += before.v[e];
		/* touch everything again (reads) between the passes */
		for (u64 i = 0; pass == 0 && i < nr_pages; i++)
			access_user(cpu, mm, YS_BASE + i * PAGE_SIZE, false);
	}
	mm_check_invariants(mm);
	/*
	 * Per pass and per 64 KiB block of the region (a contpte block on
	 * arm64; a region smaller than one, or a partial last block, counts
	 * as one), and per folio scanned: defined for any size.
	 */
	u64 blocks = (p->size + SZ_64K - 1) / SZ_64K;
	u64 folios = folio_pages ? (nr_pages + folio_pages - 1) / folio_pages : 0;
	double reads = (double)r->measured.v[EV_pte_read];
	run_result_add(r, "referenced", (double)referenced);
	run_result_add(r, "pte_read_per_block", blocks ? reads / (double)(2 * blocks) : 0);
	run_result_add(r, "pte_read_per_folio", folios ? reads / (double)(2 * folios) : 0);
	mmput(mm);
	mm_check_all_freed();
	lab_machine_teardown();
	return 0;
}

const struct workload workload_young_scan = {
	.name = "young-scan",
	.help = "rmap-style young test-and-clear over every folio's PTEs (S1/S4 microbenchmark)",
	.measured = "two young-scan passes",
	.opts = RUN_OPT_SIZE | RUN_OPT_FOLIO_SIZE,
	.default_size = 64UL << 20,
	.default_folio_size = SZ_64K,
	.run = young_scan_run,
};
