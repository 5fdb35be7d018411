/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Address-space IDs, as arm64's ASID allocator (arch/arm64/mm/context.c)
 * hands them out: in order; on rollover every CPU's TLB is invalidated
 * (flush_context: a local TLBI ALL and DSB on each), counted.
 */
#ifndef PTELAB_ARCH_ASID_H
#define PTELAB_ARCH_ASID_H

#include "hw/types.h"

u16 asid_alloc(void);
/* Machine reset: numbering from 1 again. */
void asid_reset(void);

#endif
