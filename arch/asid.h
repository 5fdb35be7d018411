/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Address-space IDs, allocated as arm64's generation-based allocator
 * (arch/arm64/mm/context.c) allocates them: mm->context.id is a
 * generation and an ASID. When the ASIDs of a generation run out
 * (rollover), the generation moves on, the ASIDs the CPUs are running
 * stay reserved, and every CPU owes a local TLB invalidation
 * (flush_context), which it does at its next context switch
 * (check_and_switch_context), counted as one TLBI and one DSB.
 *
 * One difference: the lab hands a new mm its ASID when the mm is created
 * (the kernel does at its first switch), so ASIDs number the mms in the
 * order they are created, whoever runs them.
 */
#ifndef PTELAB_ARCH_ASID_H
#define PTELAB_ARCH_ASID_H

#include "include/mm_types.h"

/* A new mm's context: an ASID of the current generation. */
void asid_new_context(struct mm_struct *mm);
/* Before CPU cpu runs mm: its ASID is of this generation; the CPU's owed flush. */
void check_and_switch_context(struct mm_struct *mm, int cpu);
/* The current generation (counts rollovers, for tests). */
u64 asid_generation(void);
/* Machine reset: generation one, numbering from 1 again. */
void asid_reset(void);

#endif
