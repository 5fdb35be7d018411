// SPDX-License-Identifier: GPL-2.0-only
/*
 * What fast-forward relies on (lab/fast_forward.h; the skip itself is
 * tested on the optimised binary, test_golden.py: a sanitizer's
 * allocator turns it off): the registry of memory that is not state, and
 * TLB stamps written canonically without changing a replacement choice.
 */
#include "hw/state.h"
#include "hw/tlb.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

static void test_registry_keeps_ranges_sorted_and_apart(void)
{
	static u64 a[4], b[2];
	static char c[3];
	int n = hw_state_nr_ranges;

	EXPECT_EQ(hw_state_register(&a[1], 16, HW_STATE_ACCUMULATES), 0);
	EXPECT_EQ(hw_state_register(&a[1], 16, HW_STATE_ACCUMULATES), 0); /* again: no change */
	EXPECT_EQ(hw_state_nr_ranges, n + 1);
	EXPECT_EQ(hw_state_register(&a[2], 16, HW_STATE_HOST), -1);      /* overlaps */
	EXPECT_EQ(hw_state_register(c, 3, HW_STATE_ACCUMULATES), -1);     /* not whole words */
	EXPECT_EQ(hw_state_register(c, 3, HW_STATE_HOST), 0);
	EXPECT_EQ(hw_state_register(b, sizeof(b), HW_STATE_ACCUMULATES), 0);
	for (int i = 1; i < hw_state_nr_ranges; i++)
		EXPECT(hw_state_ranges[i - 1].hi <= hw_state_ranges[i].lo);
	hw_state_unregister(&a[1]);
	hw_state_unregister(c);
	hw_state_unregister(b);
	EXPECT_EQ(hw_state_nr_ranges, n);
}

/* the events counters and the perf frames' counts are registered at start-up */
static void test_accumulators_are_registered(void)
{
	bool events = false;

	for (int i = 0; i < hw_state_nr_ranges; i++)
		if (hw_state_ranges[i].lo == (uintptr_t)&hw_events &&
		    hw_state_ranges[i].kind == HW_STATE_ACCUMULATES)
			events = true;
	EXPECT(events);
	EXPECT(hw_state_nr_ranges > PERF_MAX_NODES);
}

/*
 * Two TLBs filled alike, one renumbered between every step: the same
 * entries survive every fill (the victims are the same), with stamps 1..n
 * per set after a renumbering.
 */
static void test_tlb_canon_changes_no_victim(void)
{
	struct hw_tlb x, y;
	u64 seed = 7;

	hw_tlb_init(&x, 32, 4);
	hw_tlb_init(&y, 32, 4);
	for (int step = 0; step < 4000; step++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		u64 va = ((seed >> 33) % 96) << 12;

		if (!hw_tlb_lookup(&x, 1, va))
			hw_tlb_fill(&x, 1, va, 12, va >> 12, 0, NULL);
		if (!hw_tlb_lookup(&y, 1, va))
			hw_tlb_fill(&y, 1, va, 12, va >> 12, 0, NULL);
		if (step % 3 == 0)
			hw_tlb_canon(&y);
		for (u32 i = 0; i < x.nsets * x.ways; i++)
			if ((x.e[i].flags & TLBE_VALID) != (y.e[i].flags & TLBE_VALID) ||
			    ((x.e[i].flags & TLBE_VALID) && x.e[i].va != y.e[i].va)) {
				EXPECT_EQ(x.e[i].va, y.e[i].va);
				step = 4000;
				break;
			}
	}
	hw_tlb_canon(&y);
	for (u32 s = 0; s < y.nsets; s++) {
		u32 seen = 0;

		for (u32 w = 0; w < y.ways; w++)
			if (y.e[s * y.ways + w].flags & TLBE_VALID)
				seen |= 1u << y.e[s * y.ways + w].stamp;
		EXPECT_EQ(seen, 0x1e); /* full sets: 1, 2, 3, 4 */
	}
	EXPECT_EQ(y.clock, 4);
	hw_tlb_exit(&x);
	hw_tlb_exit(&y);
}

/* A clock about to wrap is renumbered first: the entry used last is still the newest. */
static void test_tlb_clock_does_not_wrap(void)
{
	struct hw_tlb x, y;

	hw_tlb_init(&x, 32, 4);
	hw_tlb_init(&y, 32, 4);
	y.clock = UINT32_MAX - 5;
	for (int step = 0; step < 400; step++) {
		u64 va = (u64)((step * 7) % 40) << 12;

		if (!hw_tlb_lookup(&x, 1, va))
			hw_tlb_fill(&x, 1, va, 12, va >> 12, 0, NULL);
		if (!hw_tlb_lookup(&y, 1, va))
			hw_tlb_fill(&y, 1, va, 12, va >> 12, 0, NULL);
	}
	for (u32 i = 0; i < x.nsets * x.ways; i++)
		EXPECT_EQ(x.e[i].va, y.e[i].va);
	EXPECT(y.clock < 1000);
	hw_tlb_exit(&x);
	hw_tlb_exit(&y);
}

static const struct ktap_case cases[] = {
	{ "tlb_clock_does_not_wrap", test_tlb_clock_does_not_wrap },
	{ "registry_keeps_ranges_sorted_and_apart", test_registry_keeps_ranges_sorted_and_apart },
	{ "accumulators_are_registered", test_accumulators_are_registered },
	{ "tlb_canon_changes_no_victim", test_tlb_canon_changes_no_victim },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "state", cases, (int)ARRAY_SIZE(cases));
}
