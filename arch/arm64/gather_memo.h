/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Exact replay of contpte_ptep_get's gather. ptep_get() on an entry of a
 * contiguous block gathers young and dirty from the block's 16 entries,
 * and the kernel's range walkers (GUP's follow_page_pte, mlock, the MGLRU
 * walk, folio_pte_batch) call it on every entry, pass after pass over
 * blocks nothing changed in between (S4's loop: 98 % of its gathers).
 *
 * A gather's result and every event it counts are a function of the
 * block's entries, the entry it was called on, orig_pte and the code (the
 * reference with its switches, or one tree's). While those match a
 * recorded call, the call replays: the same result, the same loads and
 * bit tests counted, the same cache-model touches in the same order,
 * inside the same perf frame; the loop does not run. Nothing replays or
 * records while other agents may act (hw_interleave.on).
 *
 * A tree's gather is recorded only once it showed it is such a function:
 * run with its points logged (hw_interleave.log), it loaded only inside
 * its block, through __ptep_get, stored nothing and counted nothing but
 * those loads' cache touches. Logging costs about three plain runs, so
 * only an entry called a fourth time with the same block runs logged and
 * records; later calls replay. Walks that meet each entry a few times
 * (MGLRU's aging walk, reclaim's rmap walk: S1) pay for no logging, loops
 * (S4's) replay nearly every call. The reference's gather is the lab's
 * own loop and records from its first call.
 *
 * PTELAB_NO_REPLAY=1 in the environment turns it off: every gather runs.
 */
#ifndef PTELAB_ARM64_GATHER_MEMO_H
#define PTELAB_ARM64_GATHER_MEMO_H

#include "arch/arm64/pgtable-hwdef.h"
#include "hw/cache.h"
#include "hw/events.h"
#include "hw/interleave.h"

#define GM_SLOTS 4096 /* blocks remembered, direct-mapped by host address: S4's buffer is 4096 */
#define GM_RUNS 4     /* runs of loads on one host line a recorded gather may have */

/* One recorded call: on entry i of the block with orig, what the gather did. */
struct gather_memo_call {
	pteval_t orig, result;
	u8 reads;         /* loads */
	u8 nr_runs;
	u8 run[GM_RUNS];  /* the entry each run of loads on one host line started at */
	u16 tests, sets;  /* bit tests and sets (contpte_test/_merge's raw figures) */
};

struct gather_memo_slot {
	const pte_t *base;
	u64 impl;         /* the code that ran: gather_memo_ref_impl() or a tree's function */
	u32 gen;
	u16 calls_lo, calls_hi; /* per entry, calls with call[i].orig so far (0..3), in two bits */
	u16 recorded;     /* entries whose call[i] replays */
	pteval_t v[CONT_PTES];
	struct gather_memo_call call[CONT_PTES];
};

extern struct gather_memo_slot *gather_memo; /* NULL: not yet used, or off */
extern u32 gather_memo_gen;

/*
 * Replaying is exact whenever it happens, so whether to try is only a
 * matter of host time: a walk that meets every entry once (MGLRU's aging
 * walk) finds nothing recorded and pays the lookups for nothing. Calls
 * are tried in windows of GM_WINDOW; a window where under a quarter
 * replayed skips the memo for the next GM_SKIP calls.
 */
#define GM_WINDOW 1024
#define GM_SKIP (16 * GM_WINDOW)
struct gather_memo_stat {
	u32 tried, replayed, skip, unused;
} __attribute__((aligned(8))); /* whole words: host memory to lab/fast_forward.c */
extern struct gather_memo_stat gather_memo_stat;
void gather_memo_window(void);

/* A run begins: what earlier runs recorded is forgotten (a backend may reload elsewhere). */
void gather_memo_reset(void);

/* The block an entry is in: blocks are aligned to their size, as contpte_align_down() has it. */
static inline const pte_t *gather_memo_base(const pte_t *ptep)
{
	return (const pte_t *)((uintptr_t)ptep & ~(uintptr_t)(CONT_PTES * sizeof(pte_t) - 1));
}

/* The slot a block's calls are recorded in, NULL while nothing may replay. */
static inline struct gather_memo_slot *gather_memo_slot(const pte_t *base)
{
	if (__builtin_expect(!gather_memo || hw_interleave.on, 0))
		return NULL;
	if (gather_memo_stat.skip) {
		gather_memo_stat.skip--;
		return NULL;
	}
	if (++gather_memo_stat.tried == GM_WINDOW)
		gather_memo_window();
	return &gather_memo[((uintptr_t)base >> (CONT_PTE_SHIFT - PAGE_SHIFT + 3)) & (GM_SLOTS - 1)];
}

/* Whether the slot holds this block as it is now, as the code `impl` saw it. */
static inline bool gather_memo_holds(const struct gather_memo_slot *s, const pte_t *base, u64 impl)
{
	u64 diff = 0;

	if (s->base != base || s->impl != impl || s->gen != gather_memo_gen)
		return false;
	for (int k = 0; k < CONT_PTES; k++)
		diff |= s->v[k] ^ pte_val(base[k]);
	return !diff;
}

/* The recorded call of entry i with orig, or NULL. */
static inline const struct gather_memo_call *gather_memo_find(const struct gather_memo_slot *s,
							    unsigned int i, pte_t orig)
{
	return s->recorded & (1u << i) && s->call[i].orig == pte_val(orig) ? &s->call[i] : NULL;
}

/*
 * A recorded call again: its loads and cache touches (each run's first
 * load goes through the cache model as it did, the others were hits on
 * the line just touched), its result. The caller counts the rest.
 */
static inline pte_t gather_memo_replay(const pte_t *base, const struct gather_memo_call *c)
{
	gather_memo_stat.replayed++;
	hw_count(EV_pte_read, c->reads);
	if (hw_cache_on) {
		for (unsigned int r = 0; r < c->nr_runs; r++)
			hw_cache_pte(base + c->run[r]);
		hw_events.v[EV_cache_hit] += (u64)(c->reads - c->nr_runs);
	}
	return __pte(c->result);
}

/* The reference's gather with its switches, as an impl token (a tree's: its function's address << 3). */
static inline u64 gather_memo_ref_impl(bool early_exit, bool reread)
{
	return 1 | (u64)early_exit << 1 | (u64)reread << 2;
}

static inline u64 gather_memo_tree_impl(const void *fn)
{
	return (u64)(uintptr_t)fn << 3;
}

/*
 * The reference's gather of entry i: it loaded the entries from the base
 * up to span in order, reads loads in all (a reload is a hit on the line
 * it just touched). held: gather_memo_holds() said the slot holds the
 * block as it is (the caller asked already; the gather stored nothing).
 */
void gather_memo_record_ref(struct gather_memo_slot *s, bool held, const pte_t *base,
			    unsigned int i, u64 impl, pte_t orig, pte_t result, unsigned int reads,
			    unsigned int span, unsigned int tests, unsigned int sets);

/*
 * A tree's gather of entry i, run as fn(ptep, orig), counted as it counts
 * (its bit tests and sets in *tests and *sets): plainly the first three
 * times, logged and recorded the fourth. held: as for record_ref. Returns
 * its result.
 */
pte_t gather_memo_run_tree(struct gather_memo_slot *s, bool held, pte_t (*fn)(pte_t *, pte_t),
			   pte_t *ptep, pte_t orig, unsigned long *tests, unsigned long *sets);

#endif
