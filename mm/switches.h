/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Core-mm's "before" kernels (DESIGN.md): each published core-mm change
 * can be turned off (--without NAME, lab/switches.c) to run the code as it
 * was before it. All on by default: core-mm as in 7.3.
 */
#ifndef PTELAB_MM_SWITCHES_H
#define PTELAB_MM_SWITCHES_H

#include "hw/types.h"

struct mm_switches {
	bool zap_batch;   /* zap_pte_range: folio_pte_batch + mmu_gather nr_pages (S5) */
	bool fork_batch;  /* copy_pte_range: folio_pte_batch + wrprotect_ptes per folio */
	bool young_batch; /* rmap/MGLRU: one young test over a folio's PTEs (S1) */
};

extern struct mm_switches mm_sw;

#endif
