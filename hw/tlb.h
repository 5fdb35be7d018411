/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One CPU's TLB: set-associative, finite, with entries of 4 KiB, 64 KiB
 * (a contiguous block) or 2 MiB (a PMD block). A 64 KiB block filling one
 * entry instead of sixteen is where contpte's benefit comes from.
 */
#ifndef PTELAB_HW_TLB_H
#define PTELAB_HW_TLB_H

#include "hw/types.h"

#define TLBE_VALID 0x1
#define TLBE_W 0x2   /* writes need no descriptor update (cached dirty) */
#define TLBE_DBM 0x4 /* writes allowed after a hardware dirty update */
/* outlived a fold that skipped break-before-make (KNOWN_MPROTECT_FOLD_NO_BBM) */
#define TLBE_KNOWN_FOLD 0x8

struct tlb_entry {
	u64 va;    /* base, aligned to 1 << shift */
	u64 pfn;   /* base frame */
	u64 *ptep; /* descriptor the walk read */
	u32 stamp; /* for LRU within the set */
	u16 asid;
	u8 shift;
	u8 flags;
};

struct hw_tlb {
	struct tlb_entry *e;
	u32 nsets, ways;
	u32 nvalid;
	u32 nvalid_size[3]; /* of 4 KiB, 64 KiB, 2 MiB: a lookup skips sizes none has */
	struct tlb_entry *last_hit; /* what the last lookup found, tried first */
	/*
	 * Valid entries per hashed (asid, 2 MiB region): every entry that
	 * can cover a va lies in va's region, so a zero count answers a
	 * probe of any size without visiting a set.
	 */
	u32 *region;
	/* a bit per entry, set while it is valid: sweeps visit valid entries only */
	u64 *valid;
	u32 clock;
	/*
	 * Software gave ASIDs this TLB may hold to other address spaces and
	 * will invalidate it all before the CPU runs another ASID (arm64's
	 * ASID rollover): till then only the current ASID's entries count.
	 */
	bool asids_reused;
};

/* How many entries a TLB asked to hold `entries` in `ways`-way sets really has. */
u32 hw_tlb_entries(u32 entries, u32 ways);
void hw_tlb_init(struct hw_tlb *tlb, u32 entries, u32 ways);
/* The per-64K count of TLB entries, sized for a machine of nr_frames. */
void hw_tlb_gran_init(u64 nr_frames);
void hw_tlb_gran_exit(void);
void hw_tlb_exit(struct hw_tlb *tlb);

static inline bool tlbe_covers(const struct tlb_entry *e, u16 asid, u64 va)
{
	return (e->flags & TLBE_VALID) && e->asid == asid &&
	       (va >> e->shift) == (e->va >> e->shift);
}

/* Entry translating va in asid, or NULL. Tries each page size in turn. */
struct tlb_entry *hw_tlb_lookup(struct hw_tlb *tlb, u16 asid, u64 va);
/* The same, without touching the replacement order (checks, not hardware). */
struct tlb_entry *hw_tlb_peek(struct hw_tlb *tlb, u16 asid, u64 va);
/* Insert; returns the entry. Conflicts are checked by the caller. */
struct tlb_entry *hw_tlb_fill(struct hw_tlb *tlb, u16 asid, u64 va, u8 shift,
			      u64 pfn, u8 flags, u64 *ptep);
void hw_tlb_drop(struct hw_tlb *tlb, struct tlb_entry *e);

/* Invalidate entries of asid overlapping [start, end); asid < 0: any. */
void hw_tlb_inval(struct hw_tlb *tlb, int asid, u64 start, u64 end);
void hw_tlb_inval_all(struct hw_tlb *tlb, int asid);
/*
 * Each valid entry's index, in order, into i: the bit words are read as
 * they are, so the body may drop entries (it tests TLBE_VALID itself).
 */
#define for_each_tlb_valid(tlb, i)                                                        \
	for (u32 w_ = 0, nw_ = ((tlb)->nsets * (tlb)->ways + 63) / 64; w_ < nw_; w_++)     \
		for (u64 b_ = (tlb)->valid[w_]; b_ && ((i) = w_ * 64 + (u32)__builtin_ctzll(b_), 1); \
		     b_ &= b_ - 1)

/* LRU stamps renumbered in order, nothing else changed (hw_tlb_canon); every agent's. */
void hw_tlb_canon(struct hw_tlb *tlb);
void hw_tlbs_canon(void);
/* Mark the TLB's entries of other ASIDs as owed an invalidation (asids_reused). */
void hw_tlb_asids_reused(struct hw_tlb *tlb);
/* Whether e is a leftover of a reused ASID on a CPU running cur_asid (sweeps skip it). */
static inline bool tlbe_owed_flush(const struct hw_tlb *tlb, const struct tlb_entry *e, u16 cur_asid)
{
	return tlb->asids_reused && e->asid != cur_asid;
}

/* Call fn on every valid entry (invariant sweeps). */
void hw_tlb_for_each(struct hw_tlb *tlb,
		     void (*fn)(struct tlb_entry *e, void *arg), void *arg);

/* Checks no TLB of any CPU still maps a frame that was just freed. */
void hw_tlb_check_freed(u64 pfn, u64 nr);

#endif
