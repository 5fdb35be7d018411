/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Naming a page-table entry for a developer: the virtual address it maps
 * (found by walking the address spaces the machine knows), its frame and
 * its value, never a host pointer that changes from run to run.
 */
#ifndef PTELAB_HW_PTEP_NAME_H
#define PTELAB_HW_PTEP_NAME_H

#include "hw/types.h"

/* The virtual address a level-3 entry maps, if a known root reaches it. */
bool hw_ptep_va(const u64 *ptep, u64 *va);
/*
 * "va 0x4003b000 pfn 0x1a3 pte 0x...", or "table #7 entry 59 pte 0x..."
 * when no root reaches the table; four calls may share one format.
 */
const char *hw_ptep_name(const u64 *ptep);

#endif
