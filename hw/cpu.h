/* SPDX-License-Identifier: GPL-2.0-only */
/* The simulated machine: CPUs, their TLBs, and machine-wide features. */
#ifndef PTELAB_HW_CPU_H
#define PTELAB_HW_CPU_H

#include "hw/mmu.h"
#include "hw/tlb.h"

#define HW_MAX_CPUS 64
#define HW_NR_ASIDS 65536

/* What one agent's table walker manages in hardware (FEAT_HAFDBS, SMMU HTTU). */
#define HW_WALK_HA 0x1 /* sets the access flag */
#define HW_WALK_HD 0x2 /* sets dirty (clears AP[2] of a DBM entry); needs HA */
/*
 * Its TLB ignores the contiguous hint: it caches a contiguous block's
 * pages as 4 KiB entries (the architecture allows either), so a TLBI of
 * one page leaves the block's other pages cached. Many SMMUs do this.
 */
#define HW_WALK_NOHINT 0x4

/*
 * An agent that walks the page tables: a CPU, or the SMMU translating a
 * device's accesses through the same tables (SVA). Each has its own TLB
 * and its own walker capabilities.
 */
struct hw_cpu {
	int id;
	struct hw_tlb tlb;
	u64 *ttbr;   /* current page-table root */
	u16 asid;    /* current address-space id */
	bool ha, hd; /* hardware access flag / dirty management */
	bool nohint; /* its TLB ignores the contiguous hint (HW_WALK_NOHINT) */
	bool smmu;   /* the SMMU, not a CPU: software never runs on it */
};

/*
 * How a TLB treats a cached translation that does not allow the access:
 * rewalk (forgiving: a store through a read-only entry walks again) or
 * sticky (as real cores may: the cached entry faults until invalidated).
 */
enum hw_tlb_mode {
	HW_TLB_REWALK,
	HW_TLB_STICKY,
};

struct hw_config {
	int nr_cpus;
	u32 tlb_entries, tlb_ways;
	u8 cpu_walk[HW_MAX_CPUS]; /* HW_WALK_* per CPU */
	bool smmu;         /* an SMMU agent after the CPUs */
	u8 smmu_walk;      /* its HW_WALK_* (HTTU) */
	bool tlbi_range;   /* FEAT_TLBIRANGE */
	/*
	 * FEAT_BBM level 2/3: changing the block size (fold, unfold) without
	 * break-before-make raises no TLB conflict abort; overlapping entries
	 * that translate the same coexist and a lookup uses one of them.
	 */
	bool bbml2;
	enum hw_tlb_mode tlb_mode;
	enum hw_cont_policy policy;
	u64 seed;
	u64 nr_frames;
};

struct hw_machine {
	int nr_cpus;
	int nr_agents; /* CPUs, then the SMMU if there is one */
	int smmu;      /* the SMMU's index, -1: none */
	/* some agent's walker checks AF / AP[2] per descriptor (no HA / no HD) */
	bool walker_no_ha, walker_no_hd;
	int cur_cpu; /* the CPU software is running on (x86 local flushes) */
	struct hw_cpu cpu[HW_MAX_CPUS + 1];
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
/* "cpu3" or "smmu", for messages */
const char *hw_agent_name(const struct hw_cpu *cpu);

/* TLB maintenance (arm64 names; x86 uses the local/IPI forms). */
void hw_tlbi_va(int asid, u64 va, bool broadcast, int cpu);
void hw_tlbi_range(int asid, u64 start, u64 end, bool broadcast, int cpu);
void hw_tlbi_asid(int asid, bool broadcast, int cpu);
void hw_dsb(void);

#endif
