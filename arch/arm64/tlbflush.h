/* SPDX-License-Identifier: GPL-2.0-only */
/* arm64 TLB maintenance: broadcast TLBI by VA, by range, by ASID; DSB. */
#ifndef PTELAB_ARM64_TLBFLUSH_H
#define PTELAB_ARM64_TLBFLUSH_H

#include "arch/arm64/tlbflags.h"

/* Above this many pages without FEAT_TLBIRANGE, flush the whole ASID. */
#define MAX_TLBI_OPS PTRS_PER_PTE
#define __TLBI_RANGE_PAGES(num, scale) ((unsigned long)((num) + 1) << (5 * (scale) + 1))
#define MAX_TLBI_RANGE_PAGES __TLBI_RANGE_PAGES(31, 3)

#define ASID(mm) ((mm)->context.asid)

void flush_tlb_page(struct vm_area_struct *vma, unsigned long uaddr);
void __flush_tlb_range_nosync(struct vm_area_struct *vma, unsigned long start,
			      unsigned long end, unsigned long stride,
			      bool last_level, int tlb_level);
void __flush_tlb_range(struct vm_area_struct *vma, unsigned long start,
		       unsigned long end, unsigned long stride, bool last_level,
		       int tlb_level);
void flush_tlb_range(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end);
bool system_supports_tlb_range(void);

#endif
