// SPDX-License-Identifier: GPL-2.0-only
/*
 * The exact replay of contpte_ptep_get's gather (arch/arm64/gather_memo.h):
 * what replays counts what the gather counted, a changed block or entry
 * runs again, and a tree's gather that reads outside its block or stores
 * is never recorded.
 */
#include "arch/arm64/gather_memo.h"
#include "hw/cache.h"
#include "hw/phys.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

#define A64_AF (1ULL << 10)
#define A64_RDONLY (1ULL << 7)
#define A64_SWDIRTY (1ULL << 55)

static void age(pte_t *p, int n)
{
	for (int i = 0; i < n; i++) {
		p[i].pte &= ~(A64_AF | A64_SWDIRTY);
		p[i].pte |= A64_RDONLY;
		*hw_pt_shadow(&p[i].pte) = 0;
	}
}

/* A lab with a small cache model and four 64K blocks mapped, young and dirty. */
static pte_t *setup(struct t_lab *t)
{
	t_setup(t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(t, 0, 4 * SZ_64K, true);
	EXPECT_EQ(hw_cache_setup(4, 2), 0); /* empty: the first pass misses */
	return t_ptep(t, 0);
}

/*
 * Three passes of ptep_get over 64 entries in blocks of three shapes
 * (young and dirty, one young entry, nothing): results and every event.
 */
static void passes(pte_t *p, pteval_t *res, struct hw_counters *ev)
{
	struct hw_counters before;

	age(p + 16, 32);
	p[16 + 9].pte |= A64_AF;
	hw_events_snapshot(&before);
	for (int pass = 0, k = 0; pass < 3; pass++)
		for (int i = 0; i < 64; i++)
			res[k++] = pte_val(ptep_get(&p[i]));
	hw_events_diff(ev, &before, &hw_events);
}

static void test_replay_counts_what_the_gather_counted(void)
{
	static pteval_t on[192], off[192];
	struct hw_counters ev_on, ev_off;
	struct t_lab t;
	pte_t *p = setup(&t);
	u32 replayed;

	EXPECT(gather_memo != NULL);
	gather_memo_stat.replayed = 0;
	passes(p, on, &ev_on);
	replayed = gather_memo_stat.replayed;
	t_teardown(&t);

	p = setup(&t);
	struct gather_memo_slot *memo = gather_memo;

	gather_memo = NULL; /* every gather runs */
	passes(p, off, &ev_off);
	gather_memo = memo;
	t_teardown(&t);

	/* the second and third passes replay the first */
	EXPECT_EQ(replayed, 128);
	for (int i = 0; i < 192; i++)
		EXPECT_EQ(on[i], off[i]);
	EXPECT(ev_on.v[EV_cache_miss] > 0);
	for (int e = 0; e < NR_HW_EVENTS; e++)
		if (ev_on.v[e] != ev_off.v[e])
			EXPECT_EQ(ev_on.v[e], ev_off.v[e]);
}

static void test_a_changed_entry_runs_the_gather_again(void)
{
	struct t_lab t;
	pte_t *p = setup(&t);

	age(p, 16);
	EXPECT(!pte_young(ptep_get(&p[3])));
	u32 replayed = gather_memo_stat.replayed;

	EXPECT(!pte_young(ptep_get(&p[3])));
	EXPECT_EQ(gather_memo_stat.replayed, replayed + 1);
	/* the walker set young in another entry of the block: the gather sees it */
	p[11].pte |= A64_AF;
	EXPECT(pte_young(ptep_get(&p[3])));
	EXPECT_EQ(gather_memo_stat.replayed, replayed + 1);
	t_teardown(&t);
}

/* A load and a store as arch/arm64/raw.h counts them (its __ptep_get, __set_pte). */
static pte_t load(pte_t *ptep)
{
	hw_count(EV_pte_read, 1);
	hw_cache_pte(ptep);
	hw_interleave_point(&ptep->pte, IL_READ);
	return *ptep;
}

static void store(pte_t *ptep, pte_t pte)
{
	hw_count(EV_pte_write, 1);
	hw_cache_pte(ptep);
	hw_interleave_point(&ptep->pte, IL_WRITE);
	*ptep = pte;
}

/* Stand-ins for a tree's contpte_ptep_get. */
static pte_t gather_inside(pte_t *ptep, pte_t orig)
{
	pte_t *base = (pte_t *)gather_memo_base(ptep);

	for (int i = 0; i < CONT_PTES; i++)
		if (pte_val(load(base + i)) & A64_AF)
			orig = __pte(pte_val(orig) | A64_AF);
	return orig;
}

static pte_t gather_past_the_block(pte_t *ptep, pte_t orig)
{
	pte_t *base = (pte_t *)gather_memo_base(ptep);

	for (int i = 0; i <= CONT_PTES; i++)
		if (pte_val(load(base + i)) & A64_AF)
			orig = __pte(pte_val(orig) | A64_AF);
	return orig;
}

static pte_t gather_that_stores(pte_t *ptep, pte_t orig)
{
	store(ptep, load(ptep));
	return orig;
}

static unsigned long tests, sets;

static bool recorded_within_five(pte_t (*fn)(pte_t *, pte_t), pte_t *p)
{
	for (int k = 0; k < 5; k++) {
		struct gather_memo_slot *s = gather_memo_slot(p);

		EXPECT(s != NULL);
		if (!s)
			return false;
		bool held = gather_memo_holds(s, p, gather_memo_tree_impl((const void *)fn));

		if (held && gather_memo_find(s, 2, p[2]))
			return true;
		gather_memo_run_tree(s, held, fn, &p[2], p[2], &tests, &sets);
	}
	return false;
}

static void test_a_tree_gather_is_recorded_only_when_pure(void)
{
	struct t_lab t;
	pte_t *p = setup(&t);

	EXPECT(recorded_within_five(gather_inside, p));
	EXPECT(!recorded_within_five(gather_past_the_block, p + 16));
	EXPECT(!recorded_within_five(gather_that_stores, p + 32));
	/* without the cache model a struct page read could not be told apart: never */
	hw_cache_setup(0, 0);
	EXPECT(!recorded_within_five(gather_inside, p + 48));
	t_teardown(&t);
}

static void test_nothing_replays_while_agents_may_act(void)
{
	struct t_lab t;
	pte_t *p = setup(&t);

	hw_interleave.on = true;
	EXPECT(gather_memo_slot(p) == NULL);
	hw_interleave.on = false;
	EXPECT(gather_memo_slot(p) != NULL);
	t_teardown(&t);
}

static const struct ktap_case cases[] = {
	{ "replay_counts_what_the_gather_counted", test_replay_counts_what_the_gather_counted },
	{ "a_changed_entry_runs_the_gather_again", test_a_changed_entry_runs_the_gather_again },
	{ "a_tree_gather_is_recorded_only_when_pure", test_a_tree_gather_is_recorded_only_when_pure },
	{ "nothing_replays_while_agents_may_act", test_nothing_replays_while_agents_may_act },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "gather_memo", cases, (int)ARRAY_SIZE(cases));
}
