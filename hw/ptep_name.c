// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>

#include "hw/cpu.h"
#include "hw/pgtable_mem.h"
#include "hw/ptep_name.h"

#define FMT (hw_machine.fmt)

/* Depth-first search for the level-3 table holding ptep below table. */
static bool find(const u64 *table, int level, u64 base, const u64 *want, u64 *va)
{
	if (level == 3) {
		if (table != want)
			return false;
		*va = base;
		return true;
	}
	for (int i = 0; i < PTRS_PER_PTE; i++) {
		u64 d = __atomic_load_n(&table[i], __ATOMIC_RELAXED);

		if (FMT->desc_table(d, level) &&
		    find(FMT->table_addr(d), level + 1, base + ((u64)i << (39 - 9 * level)), want, va))
			return true;
	}
	return false;
}

bool hw_ptep_va(const u64 *ptep, u64 *va)
{
	const u64 *table = hw_pt_table(ptep);
	u64 idx = (u64)(ptep - table);

	if (!FMT || hw_pt_meta(ptep)->level != 3)
		return false;
	for (int a = 0; a < hw_machine.nr_agents; a++) {
		const u64 *root = hw_machine.cpu[a].ttbr;

		if (root && find(root, 0, 0, table, va)) {
			*va += idx << PAGE_SHIFT;
			return true;
		}
	}
	for (int asid = 1; asid < HW_NR_ASIDS; asid++) {
		const u64 *root = hw_machine.asid_root[asid];

		if (root && find(root, 0, 0, table, va)) {
			*va += idx << PAGE_SHIFT;
			return true;
		}
	}
	return false;
}

const char *hw_ptep_name(const u64 *ptep)
{
	static char bufs[4][96];
	static int next;
	char *b = bufs[next++ & 3];
	u64 d = __atomic_load_n(ptep, __ATOMIC_RELAXED), va;

	if (hw_ptep_va(ptep, &va))
		snprintf(b, sizeof(bufs[0]), "va %#llx pfn %#llx pte %#llx", (unsigned long long)va,
			 (unsigned long long)(d ? FMT->desc_pfn(d) : 0), (unsigned long long)d);
	else
		snprintf(b, sizeof(bufs[0]), "table #%u entry %u pte %#llx", hw_pt_meta(ptep)->id,
			 (unsigned int)(ptep - hw_pt_table(ptep)), (unsigned long long)d);
	return b;
}
