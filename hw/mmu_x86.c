// SPDX-License-Identifier: GPL-2.0-only
/* How an x86-64 MMU reads 4-level page-table entries. */
#include "hw/mmu.h"

#define X_P (1ULL << 0)
#define X_RW (1ULL << 1)
#define X_A (1ULL << 5)
#define X_D (1ULL << 6)
#define X_PS (1ULL << 7)
#define X_ADDR 0x000ffffffffff000ULL

static bool x86_table(u64 d, int level)
{
	return level < 3 && (d & X_P) && !(d & X_PS);
}

static bool x86_leaf(u64 d, int level)
{
	if (level == 3)
		return d & X_P;
	return level == 2 && (d & X_P) && (d & X_PS);
}

static u64 *x86_table_addr(u64 d)
{
	return (u64 *)(uintptr_t)(d & X_ADDR);
}

static u64 x86_pfn(u64 d)
{
	return (d & X_ADDR) >> 12;
}

static bool x86_a(u64 d)
{
	return d & X_A;
}

/* x86 always manages D in hardware: RW and D means no update needed. */
static bool x86_writable(u64 d)
{
	return (d & X_RW) && (d & X_D);
}

static bool x86_dbm(u64 d)
{
	return d & X_RW;
}

static bool x86_dirty(u64 d)
{
	return d & X_D;
}

static bool x86_cont(u64 d)
{
	(void)d;
	return false;
}

static u64 x86_mk_a(u64 d)
{
	return d | X_A;
}

static u64 x86_mk_d(u64 d)
{
	return d | X_D;
}

const struct hw_mmu_fmt hw_fmt_x86 = {
	.name = "x86",
	.cont_ptes = 0,
	.desc_table = x86_table,
	.desc_leaf = x86_leaf,
	.table_addr = x86_table_addr,
	.desc_pfn = x86_pfn,
	.desc_af = x86_a,
	.desc_writable = x86_writable,
	.desc_dbm = x86_dbm,
	.desc_dirty = x86_dirty,
	.desc_cont = x86_cont,
	.mk_af = x86_mk_a,
	.mk_dirty = x86_mk_d,
	.cont_attr_mask = 0,
	.leaf3_mask = X_P,
	.leaf3_val = X_P,
	.cont_bit = 0,
	.oa_mask = X_ADDR,
	.af_bit = X_A,
	.dirty_bits = X_D,
	.dirty_pair_mask = 0,
	.dirty_pair_val = 1, /* never: no pair */
	.nonleaf_af = true,
};
