/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Stand-in for <asm/tlbflush.h>: the version's own __flush_tlb_range
 * shape, routed to ptelab's flag-based flush on the simulated TLBs.
 */
#ifndef PTELAB_SHIM_ASM_TLBFLUSH_H
#define PTELAB_SHIM_ASM_TLBFLUSH_H

#include "kernel/shim/shim.h"

#ifdef PTELAB_TLBF
/* 7.x: (stride, level, flags) */
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

static inline void __flush_tlb_range(struct vm_area_struct *vma,
				     unsigned long start, unsigned long end,
				     unsigned long stride, int tlb_level,
				     tlbf_t flags)
{
	arm64_flush_tlb_range_flags(vma, start, end, stride, tlb_level, flags);
}
#else
/* 6.x: (stride, last_level, level), plus the _nosync variant */
#include "arch/arm64/tlbflush.h"
#endif

#endif
