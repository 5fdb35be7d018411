// SPDX-License-Identifier: GPL-2.0-only
#include "hw/cpu.h"
#include "hw/interleave.h"
#include "hw/pgtable_mem.h"

struct hw_interleave hw_interleave;

void __hw_interleave_point(const u64 *ptep)
{
	struct hw_interleave *il = &hw_interleave;
	const u64 *base = il->ctx_ptep;
	unsigned int n = hw_machine.fmt->cont_ptes ? hw_machine.fmt->cont_ptes : 16;
	int agents[HW_MAX_CPUS + 1], nr = 0;

	if (il->depth || !base || hw_random() % il->chance)
		return;
	/* an entry of the table the operation works in, else the operation's own */
	if (!ptep || hw_pt_table(ptep) != hw_pt_table(base))
		ptep = base;
	for (int a = 0; a < hw_machine.nr_agents; a++)
		/* a torn-down mm (exit) runs nowhere any more */
		if (a != hw_machine.cur_cpu && hw_machine.cpu[a].ttbr == il->ctx_pgd &&
		    !hw_machine.asid_retired[hw_machine.cpu[a].asid])
			agents[nr++] = a;
	if (!nr)
		return;
	il->depth++;
	u64 r = hw_random();
	struct hw_cpu *cpu = &hw_machine.cpu[agents[r % (u64)nr]];
	/* the entry at hand half the time, else any of its block */
	const u64 *target = (r >> 8) & 1 ? ptep :
			    (const u64 *)ALIGN_DOWN((uintptr_t)ptep, n * sizeof(u64)) + (r >> 9) % n;
	u64 va = il->ctx_va + (u64)((target - base) * (long)PAGE_SIZE);
	bool write = (r >> 16) & 1;

	if ((r >> 17) & 3) /* its TLB entry gone (capacity), so the walker looks */
		hw_tlb_inval(&cpu->tlb, cpu->asid, va, va + PAGE_SIZE);
	if (hw_access(cpu, va, write) == HW_OK && write && il->on_store)
		il->on_store(cpu, va);
	il->acted++;
	il->depth--;
}
