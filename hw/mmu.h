/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The MMU walker. Every simulated load or store goes through hw_access():
 * TLB lookup, on a miss a 4-level walk, hardware access-flag and dirty
 * updates (arm64 FEAT_HAFDBS, x86 A/D), and a TLB fill.
 */
#ifndef PTELAB_HW_MMU_H
#define PTELAB_HW_MMU_H

#include "hw/types.h"

/* What the hardware needs to understand of one architecture's descriptors. */
struct hw_mmu_fmt {
	const char *name;
	unsigned int cont_ptes;  /* entries per contiguous block, 0: none */
	bool (*desc_table)(u64 d, int level);
	bool (*desc_leaf)(u64 d, int level);
	u64 *(*table_addr)(u64 d);
	u64 (*desc_pfn)(u64 d);
	bool (*desc_af)(u64 d);
	bool (*desc_writable)(u64 d); /* store needs no descriptor update */
	bool (*desc_dbm)(u64 d);      /* store allowed after a dirty update */
	bool (*desc_dirty)(u64 d);    /* as software would read it */
	bool (*desc_cont)(u64 d);
	u64 (*mk_af)(u64 d);
	u64 (*mk_dirty)(u64 d);
	/* attributes that must agree across a contiguous block */
	u64 cont_attr_mask;
	/* those that must agree even while software rewrites the block */
	u64 cont_walk_mask;
	/*
	 * The same predicates as bit masks, for the checkers' loops over
	 * every entry of a range (desc_leaf at level 3, desc_cont,
	 * desc_pfn, desc_af, desc_dirty): they must agree with the functions.
	 * Dirty is any of dirty_bits, or the bits of dirty_pair_mask equal to
	 * dirty_pair_val (arm64's DBM set and AP[2] clear).
	 */
	u64 leaf3_mask, leaf3_val, cont_bit, oa_mask, af_bit;
	u64 dirty_bits, dirty_pair_mask, dirty_pair_val;
	/*
	 * The walker also sets af_bit in the table entries it goes through
	 * (x86's A in every paging-structure entry; arm64 only with
	 * FEAT_HAFT, not modelled).
	 */
	bool nonleaf_af;
};

static inline bool hw_fmt_leaf3(const struct hw_mmu_fmt *f, u64 d)
{
	return (d & f->leaf3_mask) == f->leaf3_val;
}

static inline bool hw_fmt_cont(const struct hw_mmu_fmt *f, u64 d)
{
	return d & f->cont_bit;
}

static inline u64 hw_fmt_pfn(const struct hw_mmu_fmt *f, u64 d)
{
	return (d & f->oa_mask) >> 12;
}

static inline bool hw_fmt_af(const struct hw_mmu_fmt *f, u64 d)
{
	return d & f->af_bit;
}

static inline bool hw_fmt_dirty(const struct hw_mmu_fmt *f, u64 d)
{
	return (d & f->dirty_bits) || (d & f->dirty_pair_mask) == f->dirty_pair_val;
}

extern const struct hw_mmu_fmt hw_fmt_arm64;
extern const struct hw_mmu_fmt hw_fmt_x86;

enum hw_fault {
	HW_OK = 0,
	HW_FAULT_TRANSLATION,
	HW_FAULT_ACCESS,     /* AF clear and hardware AF disabled */
	HW_FAULT_PERMISSION, /* store to read-only, no hardware dirty */
};

/* Which entry of a contiguous block hardware updates (DESIGN.md). */
enum hw_cont_policy {
	HW_POLICY_ACCESSED,
	HW_POLICY_FIRST,
	HW_POLICY_RANDOM,
	HW_POLICY_ADVERSARIAL, /* always an entry other than the accessed one */
};

struct hw_cpu;

enum hw_fault hw_access(struct hw_cpu *cpu, u64 va, bool write);

/* Software walk (no events): the level-3 or level-2 leaf slot for va. */
u64 *hw_walk_slot(u64 *pgd, u64 va, int *level);

/*
 * ptep's contiguous block is whole: 16 valid entries with the contiguous
 * bit, consecutive aligned frames, equal attributes (cont_attr_mask).
 */
bool hw_cont_block_consistent(const u64 *ptep);

/* Any entry of ptep's contiguous block has the property (block-wide). */
bool hw_cont_gather_dirty(const u64 *ptep);
bool hw_cont_gather_young(const u64 *ptep);
/*
 * The same for a loop that reads many entries without writing: each
 * block is gathered once (a loop over a range stays linear).
 */
struct hw_gather_cache {
	const u64 *blk;
	bool young, dirty;
	bool have_young, have_dirty; /* each gathered only when first asked */
};
bool hw_cont_gathered(struct hw_gather_cache *c, const u64 *ptep, bool dirty);

/* Sweep every TLB against the page tables: stale entries are violations. */
void hw_check_tlbs(void);
/*
 * [va, va + len) is about to be folded into a contiguous entry with no
 * invalidation of what TLBs hold for its pages (KNOWN_MPROTECT_FOLD_NO_BBM):
 * the single-page entries of asid there are marked, and a conflict with
 * one of them is that known finding.
 */
void hw_mark_known_fold(u16 asid, u64 va, u64 len);

#endif
