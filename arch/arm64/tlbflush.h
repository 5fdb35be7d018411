/* SPDX-License-Identifier: GPL-2.0-only */
/* arm64 TLB maintenance: broadcast TLBI by VA, by range, by ASID; DSB. */
#ifndef PTELAB_ARM64_TLBFLUSH_H
#define PTELAB_ARM64_TLBFLUSH_H

#include "mm/mm_types.h"

/* Above this many pages without FEAT_TLBIRANGE, flush the whole ASID. */
#define MAX_TLBI_OPS PTRS_PER_PTE
#define __TLBI_RANGE_PAGES(num, scale) ((unsigned long)((num) + 1) << (5 * (scale) + 1))
#define MAX_TLBI_RANGE_PAGES __TLBI_RANGE_PAGES(31, 3)

#define ASID(mm) ((mm)->context.asid)

/*
 * The 7.x TLBF_* flags; ptelab's core flush takes them for every version
 * (6.12's last_level maps to TLBF_NOWALKCACHE, _nosync to TLBF_NOSYNC).
 */
typedef unsigned int tlbf_t;
#define TLBF_NONE 0U
#define TLBF_NOWALKCACHE (1U << 0)
#define TLBF_NOSYNC (1U << 1)
#define TLBF_NONOTIFY (1U << 2)
#define TLBF_NOBROADCAST (1U << 3)

void arm64_flush_tlb_range_flags(struct vm_area_struct *vma, unsigned long start,
				 unsigned long end, unsigned long stride,
				 int tlb_level, tlbf_t flags);
void flush_tlb_mm(struct mm_struct *mm);
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
