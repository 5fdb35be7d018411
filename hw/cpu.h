/* SPDX-License-Identifier: GPL-2.0-only */
/* The simulated machine: CPUs, their TLBs, and machine-wide features. */
#ifndef PTELAB_HW_CPU_H
#define PTELAB_HW_CPU_H

#include "hw/mmu.h"
#include "hw/tlb.h"

#define HW_MAX_CPUS 64
#define HW_NR_ASIDS 65536

struct hw_cpu {
	int id;
	struct hw_tlb tlb;
	u64 *ttbr;   /* current page-table root */
	u16 asid;    /* current address-space id */
	bool ha, hd; /* hardware access flag / dirty management */
};

struct hw_config {
	int nr_cpus;
	u32 tlb_entries, tlb_ways;
	bool ha, hd;
	bool tlbi_range;   /* FEAT_TLBIRANGE */
	bool bbml2;        /* overlapping equal translations tolerated */
	enum hw_cont_policy policy;
	u64 seed;
	u64 nr_frames;
};

struct hw_machine {
	int nr_cpus;
	int cur_cpu; /* the CPU software is running on (x86 local flushes) */
	struct hw_cpu cpu[HW_MAX_CPUS];
	const struct hw_mmu_fmt *fmt;
	struct hw_config cfg;
	u64 rng;
	u64 *asid_root[HW_NR_ASIDS]; /* for sweeps: which tables an asid uses */
	/*
	 * An mm being torn down (exit) is never run again, and its ASID is
	 * not run on a CPU again before that CPU's full flush (an ASID
	 * rollover: hw_tlb.asids_reused), so its leftover entries are harmless.
	 */
	bool asid_retired[HW_NR_ASIDS];
};

extern struct hw_machine hw_machine;

int hw_machine_init(const struct hw_mmu_fmt *fmt, const struct hw_config *cfg);
void hw_machine_exit(void);
void hw_cpu_switch_mm(struct hw_cpu *cpu, u64 *pgd, u16 asid);
u64 hw_random(void);

/* TLB maintenance (arm64 names; x86 uses the local/IPI forms). */
void hw_tlbi_va(int asid, u64 va, bool broadcast, int cpu);
void hw_tlbi_range(int asid, u64 start, u64 end, bool broadcast, int cpu);
void hw_tlbi_asid(int asid, bool broadcast, int cpu);
void hw_dsb(void);

#endif
