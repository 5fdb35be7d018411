/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Other agents acting inside a kernel operation. Without this, hardware
 * access/dirty updates and the other CPUs' accesses happen only between
 * whole operations, and races inside contpte_convert, between a fold and
 * the caller's flush, or between a writer and the hardware are never
 * seen. With it on, every raw PTE access (__ptep_get, __set_pte,
 * __ptep_get_and_clear, the cmpxchg loops) and every TLBI and DSB is a
 * point where, now and then, another agent that runs the same mm makes a
 * load or store to a page of the block being worked on, its TLB entry for
 * that page possibly evicted first, so its walker sets young/dirty in the
 * descriptors (on whichever entry of a block the hardware policy picks).
 * Its accesses never fault into the kernel: a faulting access would wait
 * for the operation to end, as a real CPU waits on the PTE lock.
 */
#ifndef PTELAB_HW_INTERLEAVE_H
#define PTELAB_HW_INTERLEAVE_H

#include "hw/types.h"

struct hw_cpu;

struct hw_interleave {
	bool on;
	u32 chance;            /* one point in `chance` lets an agent act */
	int depth;             /* inside an agent's action: no nesting */
	/* the operation's block: a known entry and the address it maps */
	const u64 *ctx_ptep;
	u64 ctx_va;
	const u64 *ctx_pgd;    /* its mm's tables: only agents running it act */
	/* the workload's model hears of every store that succeeded */
	void (*on_store)(const struct hw_cpu *cpu, u64 va);
	u64 acted;             /* actions taken (for the run's results) */
};

extern struct hw_interleave hw_interleave;

/* What the next points act around (the arch wrappers say it per call). */
static inline void hw_interleave_ctx(const u64 *pgd, const u64 *ptep, u64 va)
{
	hw_interleave.ctx_pgd = pgd;
	hw_interleave.ctx_ptep = ptep;
	hw_interleave.ctx_va = va;
}

void __hw_interleave_point(const u64 *ptep);

/* A point: ptep is the entry about to be read or written, NULL for TLBI/DSB. */
static inline void hw_interleave_point(const u64 *ptep)
{
	if (__builtin_expect(hw_interleave.on, 0))
		__hw_interleave_point(ptep);
}

#endif
