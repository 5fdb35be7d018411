/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What each public PTE operation must leave behind, checked after every
 * call (arch/pgtable.h), beside the oracle's "nothing was lost":
 *   young ops           the range reads old; clear_flush_young also left
 *                       no TLB entry for a page that was young (arm64);
 *   clear_young_dirty   the requested bits read clear;
 *   wrprotect_ptes      no entry of the range is writable;
 *   set_ptes            exactly the requested entries exist;
 *   *clear*_ptes        the range is empty;
 *   set_access_flags    a walker that checks one descriptor (no HA, or
 *                       no HD, somewhere on the machine) can now access;
 * and for every op that writes: contiguous blocks at the edges of the
 * range are whole and consistent (its neighbours kept their frames), and
 * no entry of them reads young or dirty that no entry of its block was,
 * nor the caller asked for (an op spreads them, never makes them up), and
 * a contiguous block maps one folio; a
 * fullmm ptep_get_and_clear_full() may leave its block partly cleared
 * until arch_leave_lazy_mmu_mode(), as its caller promises to finish it.
 * The hardware may set young/dirty during an operation (interleaving):
 * then the "reads old/clean" parts do not apply. A lockless reader that
 * raced the operation (hw/interleave.h) must have seen an entry absent
 * or mapping the frame it mapped before or after the call, never a torn
 * or foreign one; and with the frame it had before, the young and dirty
 * its block had then, unless the op clears them there.
 */
#ifndef PTELAB_ARCH_POSTCOND_H
#define PTELAB_ARCH_POSTCOND_H

#include "include/mm_types.h"

/* What an op may take from the entries a racing lockless reader sees (pc.takes). */
#define PC_TAKES_YOUNG 1  /* young, over the range's blocks: contpte clears them whole */
#define PC_TAKES_DIRTY 2
#define PC_TAKES_RANGE 4  /* all of the range's own entries: it replaces or clears them */

/* What a check needs from before the call. */
struct postcond {
	const char *op;
	pte_t *ptep;
	unsigned long addr;
	unsigned int nr;
	u64 hw_updates;       /* hardware A/D updates so far */
	bool full;            /* a fullmm clear of one entry: its block may be owed */
	unsigned int takes;   /* PC_TAKES_*, set by the caller after postcond_start() */
	u64 acted;            /* agents' actions inside operations so far */
	u64 young_before[8];  /* clear_flush_young: pages young before (nr <= 512) */
	/* the entries of the edge blocks outside the range */
	pte_t *edge[2];
	u64 edge_val[2][16];
	unsigned int edge_nr[2];
	/* the range's first and last blocks, whole: the young/dirty they had */
	pte_t *blk[2];
	u64 blk_val[2][16];
	/*
	 * With agents acting inside operations: the range's blocks before
	 * the call, for what a lockless reader racing it may return.
	 */
	pte_t *snap_start;
	unsigned int snap_nr;
	u64 snap[512 + 2 * 16];
};

/* Also tells hw/interleave.h which block the operation works on. */
void postcond_start(struct postcond *pc, const char *op, struct mm_struct *mm,
		    unsigned long addr, pte_t *ptep, unsigned int nr, bool young_map);

void postcond_young_cleared(const struct postcond *pc, struct mm_struct *mm, bool young,
			    bool flushed);
void postcond_young_dirty_cleared(const struct postcond *pc, cydp_t flags);
void postcond_wrprotected(const struct postcond *pc);
void postcond_set(const struct postcond *pc, pte_t pte);
void postcond_cleared(const struct postcond *pc);
void postcond_lazy_mmu_leave(void);
void postcond_reset(void);
void postcond_access_flags(const struct postcond *pc, pte_t entry, int dirty);

#endif
