// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CPU cache model (hw/cache.h): LRU within a set, the stream
 * prefetcher stopping at a page's end, one cache per CPU, the model off
 * when the profile has no cache, the PTE lines a sweep of a real
 * mapping touches, and the reference's block loops counting a block at
 * once as each entry would count.
 */
#include <string.h>

#include "arch/arm64/switches.h"
#include "arch/oracle.h"
#include "arch/pgtable.h"
#include "hw/cache.h"
#include "hw/cpu.h"
#include "hw/interleave.h"
#include "hw/invariants.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

/* 1 KiB in 2 ways: 8 sets, so pfns 8 apart share a set (these in pages of their own). */
static void test_lru_within_a_set(void)
{
	u64 a = hw_page_line(1000), b = hw_page_line(1000 + 512), c = hw_page_line(1000 + 1024);

	EXPECT_EQ(hw_cache_setup(1, 2), 0);
	EXPECT(!hw_cache_access(0, a));
	EXPECT(!hw_cache_access(0, b));
	EXPECT(hw_cache_access(0, a)); /* a is now the most recent of the set */
	EXPECT(!hw_cache_access(0, c)); /* c takes the place of b, the least recent */
	EXPECT(hw_cache_holds(0, a) && hw_cache_holds(0, c) && !hw_cache_holds(0, b));
	EXPECT(hw_cache_access(0, a));
	(void)hw_cache_access(0, b); /* b back in, in place of c */
	EXPECT(hw_cache_holds(0, a) && hw_cache_holds(0, b) && !hw_cache_holds(0, c));
	hw_cache_teardown();
}

/*
 * A recent line is found without a look at its set: once its set evicts
 * it (other lines, here PTE lines, filled the set while it stayed the
 * last struct page line touched), it is not a hit any more.
 */
static void test_recent_line_evicted(void)
{
	u64 a = hw_page_line(1000), id = 1;

	EXPECT_EQ(hw_cache_setup(1, 2), 0);
	EXPECT(!hw_cache_access(0, a));
	for (; hw_cache_holds(0, a) && id < 1000; id++)
		(void)hw_cache_access(0, HW_LINE_PT | id << 6 | (id & 63));
	EXPECT(!hw_cache_holds(0, a));
	/* and more pages streamed than the streamer follows: a's page is not one */
	for (u64 end = id + HW_CACHE_STREAMS; id < end; id++)
		(void)hw_cache_access(0, HW_LINE_PT | id << 6 | (id & 63));
	EXPECT(!hw_cache_access(0, a));
	hw_cache_teardown();
}

/* A sequential walk misses once per 4 KiB page: the streamer fetches the rest. */
static void test_streamer_stops_at_a_page(void)
{
	int misses = 0;

	EXPECT_EQ(hw_cache_setup(64, 8), 0);
	for (u64 pfn = 0; pfn < 128; pfn++)
		misses += !hw_cache_access(0, hw_page_line(pfn));
	EXPECT_EQ(misses, 2);
	/* everything walked fits: a second walk hits throughout */
	misses = 0;
	for (u64 pfn = 0; pfn < 128; pfn++)
		misses += !hw_cache_access(0, hw_page_line(pfn));
	EXPECT_EQ(misses, 0);
	/* backwards, with the folio's second line first, as rmap does */
	misses = 0;
	for (u64 pfn = 8191; pfn >= 8192 - 64; pfn--)
		misses += !hw_cache_access(0, hw_page_line(pfn));
	EXPECT_EQ(misses, 1);
	/* a line in each of many pages: no stream covers any */
	misses = 0;
	for (u64 pfn = 1 << 20; pfn < (1 << 20) + 64 * 40; pfn += 64)
		misses += !hw_cache_access(0, hw_page_line(pfn));
	EXPECT_EQ(misses, 40);
	hw_cache_teardown();
}

static void test_one_cache_per_cpu(void)
{
	EXPECT_EQ(hw_cache_setup(64, 8), 0);
	EXPECT(!hw_cache_access(0, hw_page_line(77)));
	EXPECT(hw_cache_access(0, hw_page_line(77)));
	EXPECT(!hw_cache_access(1, hw_page_line(77)));
	hw_cache_teardown();
}

static void test_geometry(void)
{
	EXPECT(hw_cache_geometry_ok(0, 0));      /* no cache */
	EXPECT(hw_cache_geometry_ok(1024, 16));  /* 1 MiB, 16-way: 1024 sets */
	EXPECT(hw_cache_geometry_ok(1280, 20));  /* 1.25 MiB, 20-way: 1024 sets */
	EXPECT(!hw_cache_geometry_ok(1024, 3));  /* lines not a multiple of the ways */
	EXPECT(!hw_cache_geometry_ok(1536, 16)); /* 1536 sets: not a power of two */
	EXPECT(!hw_cache_geometry_ok(64, 0));
	EXPECT(!hw_cache_geometry_ok(64, 65));
	EXPECT_EQ(hw_cache_setup(1536, 16), -1);
	EXPECT(!hw_cache_on);
}

/* Profile without a cache: software accesses count nothing. */
static void test_off_counts_nothing(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_1M_T, SZ_64K, HW_POLICY_ACCESSED);
	EXPECT(!hw_cache_on);
	t_touch(&t, 0, SZ_1M_T, true);
	for (u64 off = 0; off < SZ_1M_T; off += PAGE_SIZE)
		(void)ptep_get(t_ptep(&t, off));
	EXPECT_EQ(hw_events.v[EV_cache_hit] + hw_events.v[EV_cache_miss], 0);
	t_teardown(&t);
}

/*
 * A sweep of 1 MiB of PTEs (256 entries, 32 lines of one table): on the
 * CPU whose walker filled them, all hits; on a cold CPU one miss, the
 * streamer fetching the other 31 lines; the next sweep hits.
 */
static void test_pte_sweep(void)
{
	struct t_lab t;
	u64 miss;

	t_setup(&t, "arm64", SZ_1M_T, SZ_64K, HW_POLICY_ACCESSED);
	EXPECT_EQ(hw_cache_setup(64, 8), 0);
	t_touch(&t, 0, SZ_1M_T, true);
	hw_events_reset();
	for (u64 off = 0; off < SZ_1M_T; off += PAGE_SIZE)
		(void)ptep_get(t_ptep(&t, off));
	EXPECT_EQ(hw_events.v[EV_cache_miss], 0);
	EXPECT(hw_events.v[EV_cache_hit] >= 256);
	hw_run_on_cpu(1);
	hw_events_reset();
	for (u64 off = 0; off < SZ_1M_T; off += PAGE_SIZE)
		(void)ptep_get(t_ptep(&t, off));
	miss = hw_events.v[EV_cache_miss];
	EXPECT_EQ(miss, 1);
	hw_events_reset();
	for (u64 off = 0; off < SZ_1M_T; off += PAGE_SIZE)
		(void)ptep_get(t_ptep(&t, off));
	EXPECT_EQ(hw_events.v[EV_cache_miss], 0);
	hw_run_on_cpu(0);
	t_teardown(&t);
	EXPECT(!hw_cache_on);
}

/*
 * 1 MiB of 64 KiB contpte blocks, block b's entry i young and dirty by
 * patterns whose density goes with b (none, some, all), then every
 * block gathered by ptep_get from an entry inside it and aged by
 * ptep_test_and_clear_young: the events and results of one run.
 */
#define BLOCKS_T (SZ_1M_T / SZ_64K)

static void block_run(bool per_entry, bool early_exit, bool reread, struct hw_counters *ev,
		      u64 *got)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_1M_T, SZ_64K, HW_POLICY_ACCESSED);
	arm64_sw.ptep_get_early_exit = early_exit;
	arm64_sw.ptep_get_reread = reread;
	EXPECT_EQ(hw_cache_setup(64, 8), 0);
	t_touch(&t, 0, SZ_1M_T, true);
	for (unsigned int b = 0; b < BLOCKS_T; b++)
		for (unsigned int i = 0; i < 16; i++) {
			pte_t *ptep = t_ptep(&t, (u64)b * SZ_64K + (u64)i * PAGE_SIZE);
			pte_t v = __pte(__atomic_load_n(&ptep->pte, __ATOMIC_RELAXED));

			if ((b * 5 + i * 3) % 7 >= b % 8)
				v = pte_mkold(v);
			if ((b * 3 + i * 5) % 11 >= b / 2 % 6)
				v = pte_mkclean(v);
			/* as if never accessed: state the test sets, not state lost */
			oracle_discard(ptep, 1, true, true);
			__atomic_store_n(&ptep->pte, pte_val(v), __ATOMIC_RELAXED);
		}
	hw_events_reset();
	if (per_entry) {
		/* every entry an interleaving point where no agent acts: the per-entry path */
		hw_interleave_random();
		hw_interleave.chance = 0;
		hw_interleave.on = true;
	}
	for (unsigned int b = 0; b < BLOCKS_T; b++) {
		u64 off = (u64)b * SZ_64K + (u64)(b % 16) * PAGE_SIZE;

		got[2 * b] = pte_val(ptep_get(t_ptep(&t, off)));
		got[2 * b + 1] = (u64)ptep_test_and_clear_young(t.vma, T_BASE + off, t_ptep(&t, off));
	}
	hw_interleave.on = false;
	*ev = hw_events;
	for (int k = 0; k < NR_VIOL_KINDS; k++)
		EXPECT_EQ(hw_violations.count[k], 0);
	t_teardown(&t);
}

static void test_block_loops_count_per_entry(void)
{
	static const struct {
		bool early_exit, reread;
	} sw[] = { { false, false }, { true, true }, { true, false } };

	for (unsigned int k = 0; k < ARRAY_SIZE(sw); k++) {
		struct hw_counters fast, slow;
		u64 got_fast[2 * BLOCKS_T], got_slow[2 * BLOCKS_T];

		for (int per_entry = 0; per_entry < 2; per_entry++)
			block_run(per_entry, sw[k].early_exit, sw[k].reread, per_entry ? &slow : &fast,
				  per_entry ? got_slow : got_fast);
		EXPECT(fast.v[EV_pte_read] > 0 && fast.v[EV_cache_hit] > 0);
		EXPECT(!memcmp(got_fast, got_slow, sizeof(got_fast)));
		for (int e = 0; e < NR_HW_EVENTS; e++)
			if (fast.v[e] != slow.v[e]) {
				printf("    # early exit %d reread %d: %s %llu at once, %llu per entry\n",
				       sw[k].early_exit, sw[k].reread, hw_event_names[e],
				       (unsigned long long)fast.v[e], (unsigned long long)slow.v[e]);
				EXPECT(false);
			}
	}
}

static const struct ktap_case cases[] = {
	{ "lru_within_a_set", test_lru_within_a_set },
	{ "recent_line_evicted", test_recent_line_evicted },
	{ "streamer_stops_at_a_page", test_streamer_stops_at_a_page },
	{ "one_cache_per_cpu", test_one_cache_per_cpu },
	{ "geometry", test_geometry },
	{ "off_counts_nothing", test_off_counts_nothing },
	{ "pte_sweep", test_pte_sweep },
	{ "block_loops_count_per_entry", test_block_loops_count_per_entry },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "cache", cases, (int)ARRAY_SIZE(cases));
}
