/* SPDX-License-Identifier: GPL-2.0-only */
/* The experiments: each a small driver over mm/, run on a fresh machine. */
#ifndef PTELAB_WORKLOADS_WORKLOAD_H
#define PTELAB_WORKLOADS_WORKLOAD_H

#include "hw/events.h"
#include "hw/perf.h"
#include "lab/lab.h"


#define RUN_MAX_EXTRA 40
#define RUN_MAX_PROFILE 32

/* One row of a sim workload's profile ("perf report --children" of an agent class). */
struct run_profile_row {
	char name[48];
	double share; /* inclusive CPU time / the class's CPU time */
	u64 calls;
};

struct run_result {
	struct hw_counters setup;    /* events before the measured phase */
	struct hw_counters measured; /* events of the measured phase */
	u64 host_ns;
	u64 host_phase_ns;  /* host time of the measured phase alone (run_phase_begin/end) */
	u64 host_phase_t0;
	long peak_rss_kb;
	/* a loop fast-forwarded (lab/fast_forward.h): its period, the iterations skipped */
	u64 ff_period, ff_skipped;
	/* workload-specific figures for the JSON "results" object */
	int nr_extra;
	const char *extra_name[RUN_MAX_EXTRA];
	double extra_val[RUN_MAX_EXTRA];
	/* text for the report: fuzz's minimised trace, one operation per line */
	char text[6144];
	/*
	 * Workloads timed on the discrete-event engine (sim/): modelled_ns is
	 * theirs (a phase's makespan), not the measured events times costs.
	 */
	bool sim_timed;
	double sim_modelled_ns;
	/* and the profile of one agent class (kswapd_profile in the JSON) */
	char profile_of[16];
	int nr_profile;
	struct run_profile_row profile[RUN_MAX_PROFILE];
	/*
	 * The same class along the call paths through one function, as a
	 * perf report -G call graph shows that branch (JSON
	 * <class>_<function>_branch): callers' and callees' shares of the
	 * class's CPU time on those paths only.
	 */
	char branch_of[32];
	int nr_branch;
	struct run_profile_row branch[RUN_MAX_PROFILE];
	/*
	 * The modelled perf profile (hw/perf.h; JSON "perf", run --report):
	 * the measured phase's call-chain tree, or for a sim workload every
	 * agent's frames flat under the root (perf_flat).
	 */
	int nr_perf;
	bool perf_flat;
	struct perf_node_out perf[PERF_MAX_NODES];
};

/*
 * The workload options a workload reads (machine options -- arch, impl,
 * profile, cpus, seed, hw-policy, TLB, hafdbs -- apply to every one).
 * Giving one it does not read is an error, not a silent no-op.
 */
enum run_opt {
	RUN_OPT_SIZE = 1 << 0,
	RUN_OPT_FOLIO_SIZE = 1 << 1,
	RUN_OPT_PMD_MAPPED = 1 << 2,
	RUN_OPT_ITERATIONS = 1 << 3,
	RUN_OPT_VARIANT = 1 << 4,
	RUN_OPT_LRU = 1 << 5,
	RUN_OPT_RECLAIM = 1 << 6,
	RUN_OPT_VCPUS = 1 << 7,
	RUN_OPT_HOST_MEMORY = 1 << 8,
	RUN_OPT_INTERLEAVE = 1 << 9,
	RUN_OPT_FIRST_SEQUENCE = 1 << 10,
	RUN_OPT_MINIMISE = 1 << 11,
};

struct workload {
	const char *name;
	const char *help;
	const char *measured; /* what the measured phase is */
	unsigned int opts;      /* RUN_OPT_* it reads */
	u64 default_size;
	u64 default_folio_size;
	u64 default_iterations; /* with RUN_OPT_ITERATIONS */
	const char *iterations_are; /* what one iteration is ("processes", ...) */
	/*
	 * "a|b|c", first is the default; NULL: none. A variant in the lab's
	 * table (lab/variants.c) is a set of switches the lab sets before
	 * the run; any other is the workload's to read from run_params.
	 */
	const char *variants;
	int min_cpus;           /* CPUs it drives (0: 1) */
	u64 max_size;           /* largest --size (0: 64G) */
	int default_vcpus;      /* with RUN_OPT_VCPUS */
	u64 default_host_memory; /* with RUN_OPT_HOST_MEMORY */
	/* its default profile per arch (NULL: the lab's) */
	const char *profile_x86, *profile_arm64;
	bool arm64_only;        /* models contiguous PTEs only */
	/* returns 0, or -1 with a one-line reason in err */
	int (*run)(const struct run_params *p, struct run_result *r, char *err,
		   size_t errlen);
};

extern const struct workload *const workloads[];
const struct workload *workload_by_name(const char *name);

void run_result_add(struct run_result *r, const char *name, double v);
/*
 * The measured phase's host time (JSON host_phase_ns), beside the whole
 * run's: a workload marks where its measured events start and end (a
 * phase in several pieces adds them up).
 */
void run_phase_begin(struct run_result *r);
void run_phase_end(struct run_result *r);
/* coverage (check): "calls.<op>" and "calls_cont.<op>" of every PTE operation */
void run_result_add_pte_op_calls(struct run_result *r);
/*
 * After a measured phase that zapped all of an anonymous mapping (what
 * is its name in messages): invariants, nothing left mapped, results
 * mapped_pages, rss_after, pt_pages_after, free_pages_after; the mm and
 * the machine go (workloads/anon_zapped.c).
 */
struct mm_struct;
void run_anon_zapped(struct mm_struct *mm, struct run_result *r, u64 mapped, const char *what);



#endif
