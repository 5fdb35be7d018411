// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recording contpte_ptep_get's gathers for exact replay
 * (arch/arm64/gather_memo.h says when a call replays).
 */
#include <stdlib.h>
#include <string.h>

#include "arch/arm64/gather_memo.h"
#include "hw/state.h"

struct gather_memo_slot *gather_memo;
u32 gather_memo_gen;
struct gather_memo_stat gather_memo_stat;

void gather_memo_window(void)
{
	if (gather_memo_stat.replayed * 4 < gather_memo_stat.tried)
		gather_memo_stat.skip = GM_SKIP;
	gather_memo_stat.tried = gather_memo_stat.replayed = 0;
}

void gather_memo_reset(void)
{
	static bool off;

	if (!gather_memo && !off) {
		const char *e = getenv("PTELAB_NO_REPLAY");

		off = e && *e && strcmp(e, "0");
		/* calloc: the table's pages are the host's zero pages until a block uses one */
		if (!off)
			gather_memo = calloc(GM_SLOTS, sizeof(*gather_memo));
		/* what replays is what runs: no result depends on the table (hw/state.h) */
		if (gather_memo)
			hw_state_register(gather_memo, GM_SLOTS * sizeof(*gather_memo), HW_STATE_HOST);
		hw_state_register(&gather_memo_stat, sizeof(gather_memo_stat), HW_STATE_HOST);
	}
	gather_memo_gen++;
	gather_memo_stat = (struct gather_memo_stat){ 0, 0, 0, 0 };
}

/* The slot made to hold the block as it is now, for impl: what it held is dropped. */
static void gather_memo_claim(struct gather_memo_slot *s, const pte_t *base, u64 impl)
{
	s->base = base;
	s->impl = impl;
	s->gen = gather_memo_gen;
	s->calls_lo = s->calls_hi = s->recorded = 0;
	memcpy(s->v, base, sizeof(s->v));
}

/* Runs of loads on one host line, from the entries loaded in order; false: too many to keep. */
static bool gather_runs(struct gather_memo_call *c, const pte_t *base, const u8 *idx,
			unsigned int n)
{
	uintptr_t line = 0;

	c->nr_runs = 0;
	for (unsigned int k = 0; k < n; k++) {
		uintptr_t l = (uintptr_t)(base + idx[k]) >> HW_CACHE_LINE_SHIFT;

		if (l == line)
			continue;
		if (c->nr_runs == GM_RUNS)
			return false;
		c->run[c->nr_runs++] = idx[k];
		line = l;
	}
	return true;
}

void gather_memo_record_ref(struct gather_memo_slot *s, bool held, const pte_t *base,
			    unsigned int i, u64 impl, pte_t orig, pte_t result, unsigned int reads,
			    unsigned int span, unsigned int tests, unsigned int sets)
{
	struct gather_memo_call *c = &s->call[i];
	/* entries loaded in order from a line-aligned base start a new host line every line_ptes */
	const unsigned int line_ptes = (1u << HW_CACHE_LINE_SHIFT) / sizeof(pte_t);

	if (!held)
		gather_memo_claim(s, base, impl);
	s->recorded &= ~(1u << i);
	if (reads > 255 || span > CONT_PTES || (span + line_ptes - 1) / line_ptes > GM_RUNS ||
	    ((uintptr_t)base & (line_ptes * sizeof(pte_t) - 1)))
		return;
	c->nr_runs = 0;
	for (unsigned int k = 0; k < span; k += line_ptes)
		c->run[c->nr_runs++] = (u8)k;
	c->orig = pte_val(orig);
	c->result = pte_val(result);
	c->reads = (u8)reads;
	c->tests = (u16)tests;
	c->sets = (u16)sets;
	s->recorded |= 1u << i;
}

/*
 * Whether a logged gather was a function of its block alone: every point
 * a load inside it, every load logged (a plain load would be unseen), one
 * cache touch per load (a struct page read would be another) and no other
 * event. Its loads' entries go to idx.
 */
static bool gather_pure(const struct hw_il_log *log, const pte_t *base,
			const struct hw_counters *before, u8 *idx)
{
	u64 reads = hw_events.v[EV_pte_read] - before->v[EV_pte_read];
	u64 touches = hw_events.v[EV_cache_hit] + hw_events.v[EV_cache_miss] -
		      before->v[EV_cache_hit] - before->v[EV_cache_miss];

	if (!hw_cache_on || log->n > IL_LOG_MAX || log->n > 255 || reads != log->n ||
	    touches != log->n)
		return false;
	for (unsigned int k = 0; k < log->n; k++) {
		const pte_t *p = (const pte_t *)log->ptep[k];

		if (log->what[k] != IL_READ || p < base || p >= base + CONT_PTES)
			return false;
		idx[k] = (u8)(p - base);
	}
	for (int e = 0; e < NR_HW_EVENTS; e++)
		if (e != EV_pte_read && e != EV_cache_hit && e != EV_cache_miss &&
		    hw_events.v[e] != before->v[e])
			return false;
	return true;
}

pte_t gather_memo_run_tree(struct gather_memo_slot *s, bool held, pte_t (*fn)(pte_t *, pte_t),
			   pte_t *ptep, pte_t orig, unsigned long *tests, unsigned long *sets)
{
	const pte_t *base = gather_memo_base(ptep);
	unsigned int i = (unsigned int)(ptep - base);
	u64 impl = gather_memo_tree_impl((const void *)fn);
	unsigned long t0 = *tests, s0 = *sets;
	struct gather_memo_call *c = &s->call[i];
	struct hw_counters before;
	struct hw_il_log log;
	u8 idx[IL_LOG_MAX];
	u16 bit = (u16)(1u << i);
	pte_t pte;

	if (!held)
		gather_memo_claim(s, base, impl);
	if (!((s->calls_lo | s->calls_hi) & bit) || c->orig != pte_val(orig)) {
		/* a first call: count 1 */
		s->calls_lo |= bit;
		s->calls_hi &= (u16)~bit;
		s->recorded &= (u16)~bit;
		c->orig = pte_val(orig);
		return fn(ptep, orig);
	}
	if (!((s->calls_lo & s->calls_hi) & bit)) {
		/* 1 -> 2 -> 3 */
		if (s->calls_lo & bit)
			s->calls_lo &= (u16)~bit, s->calls_hi |= bit;
		else
			s->calls_lo |= bit;
		return fn(ptep, orig);
	}

	log.n = 0;
	before = hw_events;
	hw_interleave.log = &log;
	hw_interleave.on = true;
	pte = fn(ptep, orig);
	hw_interleave.on = false;
	hw_interleave.log = NULL;
	if (!gather_pure(&log, base, &before, idx) || !gather_runs(c, base, idx, log.n) ||
	    *tests - t0 > 0xffff || *sets - s0 > 0xffff || !gather_memo_holds(s, base, impl)) {
		s->calls_lo &= (u16)~bit;
		s->calls_hi &= (u16)~bit;
		return pte;
	}
	c->result = pte_val(pte);
	c->reads = (u8)log.n;
	c->tests = (u16)(*tests - t0);
	c->sets = (u16)(*sets - s0);
	s->recorded |= 1u << i;
	return pte;
}
