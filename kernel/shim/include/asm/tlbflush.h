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
#include "arch/arm64/tlbflags.h"

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
