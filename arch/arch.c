// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "arch/arch.h"
#include "hw/mmu.h"
#include "include/mm_types.h"

const struct arch_ops *arch = &arch_arm64_ops;
static struct arch_ops run_arch;

void arch_select(const struct arch_ops *a, const struct pte_api *pte)
{
	run_arch = *a;
	if (pte)
		run_arch.pte = *pte;
	arch = &run_arch;
}

const struct arch_ops *arch_by_name(const char *name)
{
	if (!strcmp(name, "arm64"))
		return &arch_arm64_ops;
	if (!strcmp(name, "x86"))
		return &arch_x86_ops;
	return NULL;
}

void arch_mark_fold_without_bbm(struct mm_struct *mm, unsigned long addr, u64 pfn, unsigned int nr)
{
	u64 blk = (u64)arch->fmt->cont_ptes * PAGE_SIZE, end = addr + (u64)nr * PAGE_SIZE;

	for (u64 a = ALIGN(addr, blk); a + blk <= end; a += blk)
		if (((pfn + ((a - addr) >> PAGE_SHIFT)) & (arch->fmt->cont_ptes - 1)) == 0)
			hw_mark_known_fold(mm->context.asid, a, blk);
}
