/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Page-table memory. Every table is a real 4 KiB-aligned array of 512
 * 64-bit descriptors, so kernel pointer arithmetic on ptep works unchanged.
 * Tables are carved from 2 MiB-aligned host chunks whose first pages hold
 * the lab's shadow state of every table in the chunk (struct pt_meta),
 * found from any ptep in O(1): about 9 host bytes per page a PTE table
 * maps, where a separate slot per table cost 32.
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

#define PT_CHUNK_SIZE (2UL << 20)
/*
 * log2 of the distance between tables in a chunk: PAGE_SHIFT, or one
 * more when each table is followed by a poisoned guard page (a kernel
 * backend run under --sanitize: code running past the end of a table is
 * reported). Fixed by the first allocation.
 */
extern unsigned int hw_pt_stride_shift;

u64 *hw_pt_alloc(int level);
void hw_pt_free(u64 *table);
u64 hw_pt_live(void);
/* Machine reset: every table free again (including leaked ones), ids from 0. */
void hw_pt_reset(void);

static inline u64 *hw_pt_table(const u64 *p)
{
	return (u64 *)((uintptr_t)p & ~(uintptr_t)(PAGE_SIZE - 1));
}

/* The chunk's header is an array of metas, one per table position. */
static inline struct pt_meta *hw_pt_meta(const u64 *p)
{
	uintptr_t chunk = (uintptr_t)p & ~(uintptr_t)(PT_CHUNK_SIZE - 1);

	return (struct pt_meta *)chunk + (((uintptr_t)p - chunk) >> hw_pt_stride_shift);
}

static inline u8 *hw_pt_shadow(const u64 *p)
{
	return &hw_pt_meta(p)->shadow[((uintptr_t)p & (PAGE_SIZE - 1)) / 8];
}

#endif
