/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mm/madvise.c's walk private of MADV_COLD and MADV_PAGEOUT (7.3 and 6.x
 * alike), which a tree's madvise_cold_or_pageout_pte_range reads: the
 * twin's is the kernel's, word for word (kernel/shim/core_entry.c checks).
 */
#ifndef PTELAB_MM_MADVISE_H
#define PTELAB_MM_MADVISE_H

#include <stdbool.h>

struct mmu_gather;

struct madvise_walk_private {
	struct mmu_gather *tlb;
	bool pageout;
};

/* its name where a tree's unit renames the kernel's own */
typedef struct madvise_walk_private lab_madvise_walk_private;

#endif
