// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>

#include "hw/cpu.h"
#include "hw/events.h"
#include "hw/interleave.h"
#include "hw/invariants.h"
#include "hw/phys.h"

struct hw_machine hw_machine;

int hw_machine_init(const struct hw_mmu_fmt *fmt, const struct hw_config *cfg)
{
	hw_machine_exit();
	if (cfg->nr_cpus < 1 || cfg->nr_cpus > HW_MAX_CPUS)
		return -1;
	hw_phys_init(cfg->nr_frames);
	hw_tlb_gran_init(cfg->nr_frames);
	hw_machine.fmt = fmt;
	hw_machine.cfg = *cfg;
	hw_machine.nr_cpus = cfg->nr_cpus;
	hw_machine.nr_agents = cfg->nr_cpus + (cfg->smmu ? 1 : 0);
	hw_machine.smmu = cfg->smmu ? cfg->nr_cpus : -1;
	hw_machine.rng = cfg->seed ? cfg->seed : 0x9E3779B97F4A7C15ULL;
	for (int i = 0; i < hw_machine.nr_agents; i++) {
		struct hw_cpu *cpu = &hw_machine.cpu[i];
		u8 walk = i == hw_machine.smmu ? cfg->smmu_walk : cfg->cpu_walk[i];

		cpu->id = i;
		cpu->smmu = i == hw_machine.smmu;
		cpu->ha = walk & HW_WALK_HA;
		cpu->hd = (walk & HW_WALK_HD) && cpu->ha; /* HD needs HA */
		cpu->nohint = walk & HW_WALK_NOHINT;
		hw_machine.walker_no_ha |= !cpu->ha;
		hw_machine.walker_no_hd |= !cpu->hd;
		hw_tlb_init(&cpu->tlb, cfg->tlb_entries, cfg->tlb_ways);
	}
	return 0;
}

void hw_machine_exit(void)
{
	for (int i = 0; i < hw_machine.nr_agents; i++)
		hw_tlb_exit(&hw_machine.cpu[i].tlb);
	hw_tlb_gran_exit();
	hw_phys_exit();
	memset(&hw_machine, 0, sizeof(hw_machine));
}

void hw_cpu_switch_mm(struct hw_cpu *cpu, u64 *pgd, u16 asid)
{
	/* ASID 0 walks nothing (the reserved TTBR0) */
	if (cpu->tlb.asids_reused && asid && asid != cpu->asid)
		hw_violation(VIOL_STALE_TLB, "cpu%d runs asid %u without invalidating its TLB "
			     "after the ASIDs were reused", cpu->id, asid);
	cpu->ttbr = pgd;
	cpu->asid = asid;
	hw_machine.asid_root[asid] = pgd;
}

const char *hw_agent_name(const struct hw_cpu *cpu)
{
	static char names[4][16];
	static int next;
	char *n = names[next++ & 3];

	if (cpu->smmu)
		return "smmu";
	snprintf(n, 16, "cpu%d", cpu->id);
	return n;
}

/* xorshift64*: reproducible from the seed, cheap enough for every access. */
u64 hw_random(void)
{
	u64 x = hw_machine.rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	hw_machine.rng = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* A broadcast TLBI reaches the SMMU too (DVM, the SMMU's BTM). */
#define for_each_target_cpu(c, broadcast, cpu)                       \
	for (int c = (broadcast) ? 0 : (cpu);                         \
	     c < ((broadcast) ? hw_machine.nr_agents : (cpu) + 1); c++)

void hw_tlbi_va(int asid, u64 va, bool broadcast, int cpu)
{
	hw_interleave_point(NULL, IL_TLBI); /* just before the invalidation */
	hw_count(broadcast ? EV_tlbi_page : EV_tlbi_local, 1);
	for_each_target_cpu(c, broadcast, cpu)
		hw_tlb_inval(&hw_machine.cpu[c].tlb, asid, ALIGN_DOWN(va, PAGE_SIZE),
			     ALIGN_DOWN(va, PAGE_SIZE) + PAGE_SIZE);
}

void hw_tlbi_range(int asid, u64 start, u64 end, bool broadcast, int cpu)
{
	hw_interleave_point(NULL, IL_TLBI); /* just before the invalidation */
	hw_count(EV_tlbi_range, 1);
	for_each_target_cpu(c, broadcast, cpu)
		hw_tlb_inval(&hw_machine.cpu[c].tlb, asid, start, end);
}

void hw_tlbi_asid(int asid, bool broadcast, int cpu)
{
	hw_interleave_point(NULL, IL_TLBI); /* just before the invalidation */
	hw_count(EV_tlbi_asid, 1);
	for_each_target_cpu(c, broadcast, cpu)
		hw_tlb_inval_all(&hw_machine.cpu[c].tlb, asid);
}

void hw_dsb(void)
{
	hw_interleave_point(NULL, IL_DSB);
	hw_count(EV_dsb, 1);
}
