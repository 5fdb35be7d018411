// SPDX-License-Identifier: GPL-2.0-only
#include <math.h>
#include <string.h>
#include <time.h>

#include "arch/pte_op_calls.h"
#include "hw/invariants.h"
#include "workloads/workload.h"

extern const struct workload workload_munmap;
extern const struct workload workload_madvise;
extern const struct workload workload_fork;
extern const struct workload workload_mprotect;
extern const struct workload workload_young_scan;
extern const struct workload workload_mlock_loop;
extern const struct workload workload_exit;
extern const struct workload workload_reclaim_file;
extern const struct workload workload_fuzz;
extern const struct workload workload_explore;
extern const struct workload workload_max_guest_memory;

const struct workload *const workloads[] = {
	&workload_munmap,
	&workload_madvise,
	&workload_fork,
	&workload_mprotect,
	&workload_young_scan,
	&workload_mlock_loop,
	&workload_exit,
	&workload_reclaim_file,
	&workload_fuzz,
	&workload_explore,
	&workload_max_guest_memory,
	NULL,
};

const struct workload *workload_by_name(const char *name)
{
	for (int i = 0; workloads[i]; i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}

void run_result_add(struct run_result *r, const char *name, double v)
{
	if (!isfinite(v)) {
		hw_violation(VIOL_OTHER, "result %s is not a finite number", name);
		v = 0;
	}
	if (r->nr_extra >= RUN_MAX_EXTRA) {
		hw_violation(VIOL_OTHER, "result %s dropped: more than %d results", name, RUN_MAX_EXTRA);
		return;
	}
	r->extra_name[r->nr_extra] = name;
	r->extra_val[r->nr_extra++] = v;
}

static u64 mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (u64)t.tv_sec * 1000000000ULL + (u64)t.tv_nsec;
}

void run_phase_begin(struct run_result *r)
{
	perf_phase_begin();
	r->host_phase_t0 = mono_ns();
}

void run_phase_end(struct run_result *r)
{
	r->host_phase_ns += mono_ns() - r->host_phase_t0;
	perf_phase_end();
}

void run_result_add_pte_op_calls(struct run_result *r)
{
	for (int o = 0; o < NR_PTE_OPS; o++) {
		run_result_add(r, pte_op_result_keys[o][0], (double)(pte_op_calls[o][0] + pte_op_calls[o][1]));
		run_result_add(r, pte_op_result_keys[o][1], (double)pte_op_calls[o][1]);
	}
}
