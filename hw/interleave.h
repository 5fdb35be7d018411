/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Other agents acting inside a kernel operation. Without this, hardware
 * access/dirty updates and the other CPUs' accesses happen only between
 * whole operations, and races inside contpte_convert, between a fold and
 * the caller's flush, or between a writer and a lockless reader are never
 * seen. With it on, every raw PTE access (__ptep_get, __set_pte,
 * __ptep_get_and_clear, the cmpxchg loops) and every TLBI and DSB is a
 * point where another agent that runs the same mm may act on an entry of
 * the block being worked on: a load or a store (its TLB entry evicted
 * first, so its walker sets young/dirty in the descriptors, or through
 * what it caches), or a lockless reader (ptep_get_lockless, as GUP-fast).
 * Its accesses never fault into the kernel: a faulting access would wait
 * for the operation to end, as a real CPU waits on the PTE lock; a reader
 * that keeps retrying gives up (it would wait for the writer to finish).
 *
 * Two modes: random (fuzz --interleave N: one point in N acts, any
 * action), and exact (check --explore: the operation's points are
 * counted, and one chosen action happens at one chosen point).
 */
#ifndef PTELAB_HW_INTERLEAVE_H
#define PTELAB_HW_INTERLEAVE_H

#include <setjmp.h>

#include "hw/types.h"

struct hw_cpu;

/* What the kernel code is doing at a point. */
enum hw_il_point {
	IL_READ,     /* __ptep_get */
	IL_WRITE,    /* __set_pte */
	IL_XCHG,     /* __ptep_get_and_clear */
	IL_CMPXCHG,  /* a cmpxchg loop's try */
	IL_TLBI,
	IL_DSB,
	NR_IL_POINTS
};

/* What another agent does there. */
enum hw_il_action {
	IL_ACT_LOAD,       /* its TLB entry evicted: the walker sets the access flag */
	IL_ACT_STORE,      /* evicted too: the walker sets young and dirty */
	IL_ACT_STORE_TLB,  /* through whatever its TLB still caches */
	IL_ACT_READER,     /* a lockless reader: ptep_get_lockless of the entry */
	NR_IL_ACTS
};

extern const char *const hw_il_point_names[NR_IL_POINTS];
extern const char *const hw_il_action_names[NR_IL_ACTS];

#define IL_READS_KEPT 8
#define IL_BT_MAX 16

struct hw_interleave {
	bool on;
	u32 chance;            /* random mode: one point in `chance` lets an agent act */
	int depth;             /* inside an agent's action: no nesting */
	/* the operation's block: a known entry and the address it maps */
	const u64 *ctx_ptep;
	u64 ctx_va;
	const u64 *ctx_pgd;    /* its mm's tables: only agents running it act */
	/* the workload's model hears of every store that succeeded */
	void (*on_store)(const struct hw_cpu *cpu, u64 va);
	u64 acted;             /* actions taken (for the run's results) */

	/* exact mode (at >= 0): act once, at point number `at`, as told */
	long at;
	u64 points;            /* points passed since the workload reset it */
	int act_agent;         /* which agent */
	int act_kind;          /* enum hw_il_action */
	u64 *act_ptep;         /* on this entry, mapping act_va */
	u64 act_va;
	/* where the action happened: the point, the entry, the call chain */
	int hit_point;
	const u64 *hit_ptep;
	bool want_backtrace;
	int bt_n;
	void *bt[IL_BT_MAX];

	/*
	 * The lockless reader (set by the workload: the arch layer's
	 * ptep_get_lockless). What readers returned, checked when the
	 * operation ends (arch/postcond.c, check --explore).
	 */
	u64 (*reader)(u64 *ptep);
	bool in_reader;
	u32 reader_reads;
	jmp_buf reader_jmp;
	u64 reader_gave_up;    /* readers that kept retrying (would wait) */
	int nr_read;
	u64 *read_ptep[IL_READS_KEPT];
	u64 read_val[IL_READS_KEPT];

	/*
	 * Set (with on): every point is logged here and nothing acts, the
	 * points not counted: what a piece of kernel code touched, in order
	 * (arch/arm64/gather_memo.c records a tree's gather so).
	 */
	struct hw_il_log *log;
};

#define IL_LOG_MAX 64
struct hw_il_log {
	unsigned int n; /* points passed; those past IL_LOG_MAX are not kept */
	u8 what[IL_LOG_MAX];
	const u64 *ptep[IL_LOG_MAX];
};

extern struct hw_interleave hw_interleave;

/* What the next points act around (the arch wrappers say it per call). */
static inline void hw_interleave_ctx(const u64 *pgd, const u64 *ptep, u64 va)
{
	hw_interleave.ctx_pgd = pgd;
	hw_interleave.ctx_ptep = ptep;
	hw_interleave.ctx_va = va;
}

/* Exact mode: act at point `at` (-1: only count the points) on ptep/va. */
void hw_interleave_exact(long at, int agent, int kind, u64 *ptep, u64 va);
/* Back to the random mode (or off, chance 0), nothing recorded. */
void hw_interleave_random(void);

void __hw_interleave_point(u64 *ptep, enum hw_il_point what);

/* A point: ptep is the entry about to be read or written, NULL for TLBI/DSB. */
static inline void hw_interleave_point(u64 *ptep, enum hw_il_point what)
{
	if (__builtin_expect(hw_interleave.on, 0))
		__hw_interleave_point(ptep, what);
}

#endif
