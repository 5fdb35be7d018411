// SPDX-License-Identifier: GPL-2.0-only
/*
 * S1: in a memory cgroup, mmap --size (default 10G) of a clean file in
 * large folios (--folio-size, default 64K), read every page, then
 * reclaim --reclaim (default 8G) through memory.reclaim. The measured
 * phase is the reclaim. --lru mglru|classic picks the LRU.
 * --variant rehot: between the first and the second half of the
 * reclaim, the first 1/8 of the file is read again; the workload then
 * counts how many of those hot folios were evicted before cold ones.
 */
#include <stdio.h>
#include <string.h>

#include "hw/cpu.h"
#include "hw/invariants.h"
#include "mm/filemap.h"
#include "mm/reclaim.h"
#include "workloads/workload.h"

#define RF_BASE 0x4000000000UL

/* Pages of the file in its page cache, counted slot by slot. */
static u64 cached_pages(const struct address_space *file)
{
	u64 n = 0;

	for (u64 i = 0; i < file->nr_pages; i++)
		n += file->cache[i] != 0;
	return n;
}

/*
 * memory.reclaim, in bytes, cross-checked: what it reports must be what
 * left the file's page cache, counted independently of mm/ before and after.
 */
static u64 reclaim_checked(struct address_space *file, u64 bytes, struct reclaim_stat *rs)
{
	u64 cached = cached_pages(file);
	u64 reclaimed = memory_reclaim(bytes, rs) << PAGE_SHIFT;
	u64 left = cached_pages(file);

	if ((cached - left) << PAGE_SHIFT != reclaimed || left != (u64)file->nrpages)
		hw_violation(VIOL_OTHER, "memory.reclaim reported %llu bytes but the page cache went "
			     "from %llu to %llu pages (nrpages %ld)", (unsigned long long)reclaimed,
			     (unsigned long long)cached, (unsigned long long)left, file->nrpages);
	return reclaimed;
}

static int reclaim_file_run(const struct run_params *p, struct run_result *r,
			    char *err, size_t errlen)
{
	u64 nr_pages = p->size >> PAGE_SHIFT;
	u64 want = p->reclaim ? p->reclaim : ALIGN_DOWN(p->size / 10 * 8, PAGE_SIZE);
	bool rehot = p->variant && !strcmp(p->variant, "rehot");
	struct reclaim_stat rs = { 0 };
	struct hw_counters before;
	int order = lab_folio_order(p->folio_size);

	if (want > p->size || want % PAGE_SIZE) {
		snprintf(err, errlen, "--reclaim must be a multiple of 4K no larger than --size");
		return -1;
	}
	if (lab_machine_setup(p, nr_pages + nr_pages / 16 + 8192, err, errlen))
		return -1;
	struct hw_cpu *cpu = &hw_machine.cpu[0];
	struct address_space *file = address_space_create(p->size, (unsigned int)order);
	struct mm_struct *mm = mm_alloc();
	if (!mmap_file(mm, RF_BASE, p->size, file, 0, VM_READ)) {
		snprintf(err, errlen, "cannot map a %llu-byte file", (unsigned long long)p->size);
		return -1;
	}
	switch_mm(cpu, mm);
	for (u64 i = 0; i < nr_pages; i++) {
		if (access_user(cpu, mm, RF_BASE + i * PAGE_SIZE, false)) {
			snprintf(err, errlen, "read of the mapped file failed");
			return -1;
		}
		if ((i & 0x3ffff) == 0x3ffff)
			lab_progress("reclaim-file: read %llu/%llu MiB", (unsigned long long)(i >> 8),
				     (unsigned long long)(nr_pages >> 8));
	}
	lab_progress_done();
	mm_check_invariants(mm);
	hw_events_snapshot(&before);
	r->setup = before;
	run_phase_begin(r);

	u64 reclaimed = 0, hot_evicted = 0, hot = nr_pages / 8;
	if (rehot) {
		reclaimed += reclaim_checked(file, want / 2, &rs);
		/* read the first eighth again: these folios are hot now */
		for (u64 i = 0; i < hot; i++)
			access_user(cpu, mm, RF_BASE + i * PAGE_SIZE, false);
		for (u64 i = 0; i < hot; i += 1UL << order)
			hot_evicted += filemap_get_folio(file, i) ? 0 : 1UL << order;
		u64 evicted_before = hot_evicted;
		reclaimed += reclaim_checked(file, want - reclaimed, &rs);
		hot_evicted = 0;
		for (u64 i = 0; i < hot; i += 1UL << order)
			hot_evicted += filemap_get_folio(file, i) ? 0 : 1UL << order;
		hot_evicted -= evicted_before;
	} else {
		reclaimed = reclaim_checked(file, want, &rs);
	}
	run_phase_end(r);
	hw_events_diff(&r->measured, &before, &hw_events);
	u64 cold_left = 0;
	for (u64 i = hot; i < nr_pages; i += 1UL << order)
		cold_left += filemap_get_folio(file, i) ? 1UL << order : 0;
	mm_check_invariants(mm);

	run_result_add(r, "requested_bytes", (double)want);
	run_result_add(r, "reclaimed_bytes", (double)reclaimed);
	run_result_add(r, "aging_passes", (double)rs.nr_aging);
	run_result_add(r, "activated_pages", (double)rs.nr_activated);
	run_result_add(r, "look_around_young_ptes", (double)rs.nr_look_around_young);
	run_result_add(r, "bloom_skipped_tables", (double)rs.nr_bloom_skipped);
	if (rehot) {
		run_result_add(r, "hot_evicted_after_rehot", (double)hot_evicted);
		run_result_add(r, "cold_pages_left", (double)cold_left);
	}
	mmput(mm);
	address_space_destroy(file);
	mm_check_all_freed();
	lab_machine_teardown();
	return 0;
}

const struct workload workload_reclaim_file = {
	.name = "reclaim-file",
	.help = "S1: read a clean file of large folios, reclaim 80% via memory.reclaim (measured)",
	.measured = "memory.reclaim",
	.opts = RUN_OPT_SIZE | RUN_OPT_FOLIO_SIZE | RUN_OPT_VARIANT | RUN_OPT_LRU | RUN_OPT_RECLAIM,
	.default_size = 10UL << 30,
	.default_folio_size = SZ_64K,
	.variants = "plain|rehot",
	.run = reclaim_file_run,
};
