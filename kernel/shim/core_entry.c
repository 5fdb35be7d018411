// SPDX-License-Identifier: GPL-2.0-only
/*
 * The end of a tree's core-mm unit (kernel/build_core.c appends it after
 * the extracted text): the table ptelab's mm/ calls the tree's roots
 * through (mm/core.h), adapting the kernel's signatures to the twin's.
 * The only symbol the unit exports; the tree's functions stay local.
 */
#include "mm/core.h"

static unsigned long ptelab_entry_zap_pte_range(struct mmu_gather *tlb,
						struct vm_area_struct *vma, pmd_t *pmd,
						unsigned long addr, unsigned long end)
{
	/* unmap_vmas with no details: every folio, COWed ones too */
	return zap_pte_range(tlb, vma, pmd, addr, end, NULL);
}


__attribute__((visibility("default"))) const struct mm_core_ops ptelab_core_ops = {
	.kernel = PTELAB_KRELEASE,
	.zap_pte_range = ptelab_entry_zap_pte_range,
};
