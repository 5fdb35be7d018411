/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The 7.x TLBF_* flags and ptelab's flag-based range flush under every
 * version's __flush_tlb_range (6.12's last_level maps to
 * TLBF_NOWALKCACHE, _nosync to TLBF_NOSYNC). Shared with the shim.
 */
#ifndef PTELAB_ARM64_TLBFLAGS_H
#define PTELAB_ARM64_TLBFLAGS_H

#include "include/mm_types.h"

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

#endif
