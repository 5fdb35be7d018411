// SPDX-License-Identifier: GPL-2.0-only
/*
 * How the arm64 MMU reads VMSAv8-64 stage-1 descriptors (4 KiB granule).
 * These are architectural bit positions, not Linux's names for them.
 */
#include "hw/mmu.h"

#define D_VALID (1ULL << 0)
#define D_TABLE (1ULL << 1) /* table at levels 0-2, page at level 3 */
#define D_RDONLY (1ULL << 7) /* AP[2] */
#define D_AF (1ULL << 10)
#define D_OA_MASK 0x0000fffffffff000ULL
#define D_DBM (1ULL << 51)
#define D_CONT (1ULL << 52)
#define D_SW_DIRTY (1ULL << 55) /* Linux's PTE_DIRTY, read for sweeps only */

static bool a64_table(u64 d, int level)
{
	return level < 3 && (d & (D_VALID | D_TABLE)) == (D_VALID | D_TABLE);
}

static bool a64_leaf(u64 d, int level)
{
	if (level == 3)
		return (d & (D_VALID | D_TABLE)) == (D_VALID | D_TABLE);
	return level == 2 && (d & (D_VALID | D_TABLE)) == D_VALID;
}

static u64 *a64_table_addr(u64 d)
{
	return (u64 *)(uintptr_t)(d & D_OA_MASK);
}

static u64 a64_pfn(u64 d)
{
	return (d & D_OA_MASK) >> 12;
}

static bool a64_af(u64 d)
{
	return d & D_AF;
}

static bool a64_writable(u64 d)
{
	return !(d & D_RDONLY);
}

static bool a64_dbm(u64 d)
{
	return d & D_DBM;
}

static bool a64_dirty(u64 d)
{
	return ((d & D_DBM) && !(d & D_RDONLY)) || (d & D_SW_DIRTY);
}

static bool a64_cont(u64 d)
{
	return d & D_CONT;
}

static u64 a64_mk_af(u64 d)
{
	return d | D_AF;
}

/* FEAT_HAFDBS: a store through a DBM entry clears AP[2]. */
static u64 a64_mk_dirty(u64 d)
{
	return d & ~D_RDONLY;
}

const struct hw_mmu_fmt hw_fmt_arm64 = {
	.name = "arm64",
	.cont_ptes = 16,
	.desc_table = a64_table,
	.desc_leaf = a64_leaf,
	.table_addr = a64_table_addr,
	.desc_pfn = a64_pfn,
	.desc_af = a64_af,
	.desc_writable = a64_writable,
	.desc_dbm = a64_dbm,
	.desc_dirty = a64_dirty,
	.desc_cont = a64_cont,
	.mk_af = a64_mk_af,
	.mk_dirty = a64_mk_dirty,
	/* everything but OA, AF, AP[2] and the software dirty bit */
	.cont_attr_mask = ~(D_OA_MASK | D_AF | D_RDONLY | D_SW_DIRTY),
	/*
	 * Inside an operation the permissions of a block's entries may
	 * differ for a while (wrprotect_ptes on a whole block writes one
	 * entry at a time; any entry's may be the cached one, D8.7.1):
	 * memory type, shareability and nG must not. AttrIndx, NS, SH, nG.
	 */
	.cont_walk_mask = D_VALID | D_TABLE | D_CONT | (7ULL << 2) | (1ULL << 5) | (3ULL << 8) |
			  (1ULL << 11),
	.leaf3_mask = D_VALID | D_TABLE,
	.leaf3_val = D_VALID | D_TABLE,
	.cont_bit = D_CONT,
	.oa_mask = D_OA_MASK,
	.af_bit = D_AF,
	.dirty_bits = D_SW_DIRTY,
	.dirty_pair_mask = D_DBM | D_RDONLY,
	.dirty_pair_val = D_DBM,
};
