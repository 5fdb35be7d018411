/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lab layer: what a run needs wired, and nothing left from the last.
 * A run's parameters; a fresh machine with the chosen arch, backend and
 * LRU; one reset of every module's state; progress lines. Switches are in
 * lab/switches.h. Nothing here knows about the command line.
 */
#ifndef PTELAB_LAB_LAB_H
#define PTELAB_LAB_LAB_H

#include "hw/mmu.h"

struct profile;

struct run_params {
	const char *arch;       /* "arm64" or "x86" */
	const char *impl;       /* contpte backend name */
	u64 size;               /* bytes of memory the workload maps */
	u64 folio_size;         /* mTHP size for faults */
	bool pmd_mapped;        /* 2M folios mapped by a PMD entry */
	int nr_cpus;
	u64 seed;
	enum hw_cont_policy policy;
	u32 tlb_entries, tlb_ways;
	bool tlbi_range;
	bool hafdbs;            /* every CPU's walker: HA and HD, or neither */
	/*
	 * Per-agent walkers over that, "cpu1=none,smmu=ha": an agent name
	 * (cpuN, smmu: adds an SMMU doing device accesses) = hafdbs|ha|none.
	 * NULL: every CPU as hafdbs says, no SMMU.
	 */
	const char *walkers;
	bool tlb_sticky;        /* cached translations fault until invalidated */
	bool bbml2;             /* FEAT_BBM level 2/3: no conflict abort on fold/unfold */
	/*
	 * Other agents act inside kernel operations at one raw PTE access,
	 * TLBI or DSB in this many (hw/interleave.h); 0: never. Workloads
	 * that model the agents' effects (fuzz) turn it on.
	 */
	u32 interleave;
	/* workload options; the CLI fills in defaults before a run */
	u64 iterations;         /* 0: the workload's default */
	u64 first_sequence;     /* fuzz: the number of the first sequence run */
	bool minimise;          /* fuzz: shrink the first failing sequence */
	const char *variant;    /* workload-specific; NULL: the default */
	const char *lru;        /* "mglru" or "classic" */
	u64 reclaim;            /* bytes to reclaim (reclaim workloads); 0: 80% */
	int nr_vcpus;           /* guest vCPUs (KVM workloads) */
	u64 host_memory;        /* bytes of host memory (KVM workloads) */
	/* the run's cost profile, for workloads that time themselves on sim/ */
	const struct profile *prof;
};

/* Every module's state back to what a fresh process has (no machine). */
void lab_reset(void);

/* Set up a fresh simulated machine and mm for a run; tear it down. */
int lab_machine_setup(const struct run_params *p, u64 nr_frames, char *err,
		      size_t errlen);
void lab_machine_teardown(void);

/*
 * Parse p->walkers onto cfg (cpu_walk, smmu, smmu_walk); 0, or -1 with
 * err saying what is wrong.
 */
struct hw_config;
int lab_parse_walkers(const struct run_params *p, struct hw_config *cfg, char *err,
		      size_t errlen);

struct mm_struct;
struct vm_area_struct;
int lab_folio_order(u64 folio_size);
struct mm_struct *lab_anon_setup(const struct run_params *p, u64 base,
				 struct vm_area_struct **vma, char *err, size_t errlen);

/*
 * Progress on stderr, "ptelab: " + fmt: rewritten in place ("\r") on a
 * terminal, one line per update in a log; _done ends a terminal line.
 */
void lab_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lab_progress_done(void);

#endif
