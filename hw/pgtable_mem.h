/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Page-table memory. Every table is a real 4 KiB-aligned array of 512
 * 64-bit descriptors, so kernel pointer arithmetic on ptep works unchanged.
 * Each table sits in an 8 KiB-aligned slot whose second half holds the
 * lab's shadow state for the table's entries, found from any ptep in O(1).
 */
#ifndef PTELAB_HW_PGTABLE_MEM_H
#define PTELAB_HW_PGTABLE_MEM_H

#include "hw/types.h"

/* Shadow bits per descriptor: information the software must not lose. */
#define SHADOW_YOUNG 0x1 /* access flag set and not yet reported */
#define SHADOW_DIRTY 0x2 /* dirty state set and not yet reported */

struct pt_meta {
	u8 shadow[PTRS_PER_PTE];
	int level;     /* 0 = PGD .. 3 = PTE */
	int nr_valid;  /* maintained by software users that care */
	int ptl_held;  /* split PTE lock, for lock accounting */
	u32 id;        /* allocation order on this machine: a stable name for hashing */
};

#define PT_SLOT_SIZE (2 * PAGE_SIZE)

u64 *hw_pt_alloc(int level);
void hw_pt_free(u64 *table);
u64 hw_pt_live(void);
/* Machine reset: every table free again (including leaked ones), ids from 0. */
void hw_pt_reset(void);

static inline u64 *hw_pt_table(const u64 *p)
{
	return (u64 *)((uintptr_t)p & ~(uintptr_t)(PAGE_SIZE - 1));
}

static inline struct pt_meta *hw_pt_meta(const u64 *p)
{
	return (struct pt_meta *)((uintptr_t)hw_pt_table(p) + PAGE_SIZE);
}

static inline u8 *hw_pt_shadow(const u64 *p)
{
	return &hw_pt_meta(p)->shadow[((uintptr_t)p & (PAGE_SIZE - 1)) / 8];
}

#endif
