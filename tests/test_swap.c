// SPDX-License-Identifier: GPL-2.0-only
/*
 * Swap slots and swap read-ahead (mm/swapfile.c, mm/swap_state.c,
 * mm/shmem.c): each CPU gives out the slots of its own cluster in order;
 * a fault that reads a page from swap reads the rest of the window around
 * its slot into the page cache too, the window growing while the pages
 * read ahead are used and staying at one page when faults jump about.
 */
#include <stdlib.h>

#include "mm/filemap.h"
#include "mm/reclaim.h"
#include "mm/shmem.h"
#include "mm/swap.h"
#include "sim/engine.h"
#include "sim/swapdev.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

static void setup(void)
{
	struct run_params p = {
		.arch = "arm64", .impl = "ref", .nr_cpus = 2, .seed = 1,
		.policy = HW_POLICY_RANDOM, .tlb_entries = 256, .tlb_ways = 4, .hafdbs = true,
	};
	char err[100];

	lab_switches_reset();
	EXPECT_EQ(lab_machine_setup(&p, 16384, err, sizeof(err)), 0);
}

static void teardown(void)
{
	swapoff();
	lab_machine_teardown();
}

/* get_swap_pages: a CPU's slots come in order from its cluster, another CPU's from another */
static void test_cluster_per_cpu(void)
{
	swp_entry_t e[4], f[2], all[SWAPFILE_CLUSTER];

	setup();
	EXPECT_EQ(swapon(3 * SWAPFILE_CLUSTER, NULL), 0);
	hw_machine.cur_cpu = 0;
	EXPECT(folio_alloc_swap_slots(4, e));
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(e[i].val, (unsigned long)i);
	hw_machine.cur_cpu = 1;
	EXPECT(folio_alloc_swap_slots(2, f));
	EXPECT_EQ(f[0].val, (unsigned long)SWAPFILE_CLUSTER);
	EXPECT_EQ(f[1].val, (unsigned long)SWAPFILE_CLUSTER + 1);
	/* CPU 0 goes on where it stopped, past a slot freed behind it */
	hw_machine.cur_cpu = 0;
	swap_free(e[1]);
	EXPECT(folio_alloc_swap_slots(1, e));
	EXPECT_EQ(e[0].val, 4UL);
	/* CPU 1 fills its cluster, then takes the last free one */
	hw_machine.cur_cpu = 1;
	EXPECT(folio_alloc_swap_slots(SWAPFILE_CLUSTER - 2, all));
	EXPECT_EQ(all[SWAPFILE_CLUSTER - 3].val, 2UL * SWAPFILE_CLUSTER - 1);
	EXPECT(folio_alloc_swap_slots(1, f));
	EXPECT_EQ(f[0].val, 2UL * SWAPFILE_CLUSTER);
	EXPECT(folio_alloc_swap_slots(SWAPFILE_CLUSTER - 1, all));
	EXPECT_EQ(all[SWAPFILE_CLUSTER - 2].val, 3UL * SWAPFILE_CLUSTER - 1);
	/* CPU 0 ends its cluster; with no free cluster left, any free slot: the freed 1 */
	hw_machine.cur_cpu = 0;
	EXPECT(folio_alloc_swap_slots(SWAPFILE_CLUSTER - 5, all));
	EXPECT_EQ(all[SWAPFILE_CLUSTER - 6].val, (unsigned long)SWAPFILE_CLUSTER - 1);
	EXPECT(folio_alloc_swap_slots(1, f));
	EXPECT_EQ(f[0].val, 1UL);
	EXPECT_EQ(swap_info.inuse_pages, 3UL * SWAPFILE_CLUSTER);
	EXPECT(!folio_alloc_swap_slots(1, f));
	teardown();
	EXPECT_EQ(hw_violations.total, 0);
}

/*
 * swapin_nr_pages: eight at first, then one page when faults jump, two
 * for a neighbour, up to eight with hits
 */
static void test_window(void)
{
	setup();
	EXPECT_EQ(swapon(1024, NULL), 0);
	/* swapin_readahead_hits starts at 4: the first swap-in reads a whole window */
	EXPECT_EQ(swapin_nr_pages(50), 8UL);
	swap_info.ra_last_pages = 0;
	EXPECT_EQ(swapin_nr_pages(100), 1UL);
	EXPECT_EQ(swapin_nr_pages(101), 2UL);  /* prev_offset + 1 */
	swap_info.ra_hits = 1;
	EXPECT_EQ(swapin_nr_pages(500), 4UL);  /* 1 + 2, rounded up to 4 */
	swap_info.ra_hits = 6;
	EXPECT_EQ(swapin_nr_pages(600), 8UL);  /* 8 = 1 << page_cluster at most */
	swap_info.ra_hits = 30;
	EXPECT_EQ(swapin_nr_pages(700), 8UL);
	EXPECT_EQ(swapin_nr_pages(10), 4UL);   /* no hits: not below half the last window */
	EXPECT_EQ(swapin_nr_pages(900), 2UL);
	EXPECT_EQ(swapin_nr_pages(300), 1UL);
	teardown();
	EXPECT_EQ(hw_violations.total, 0);
}

/* the file's pages 0..nr-1, written and sent to swap in order (slots 0..nr-1) */
static struct address_space *swapped_file(u64 nr)
{
	struct address_space *m = shmem_file_setup(nr << PAGE_SHIFT, 0);

	for (u64 i = 0; i < nr; i++) {
		struct folio *f = shmem_get_folio(m, i);

		folio_set_dirty(f);
		lru_del_folio(f);
		EXPECT(reclaim_folio(f));
	}
	EXPECT_EQ(m->nrswapped, (long)nr);
	return m;
}

static bool in_cache(struct address_space *m, u64 index)
{
	void *e = xa_load(m, index);

	return e && !xa_is_value(e);
}

/*
 * A sequential walk over pages written out in order: the first fault
 * reads alone, its neighbour opens a window of two, hits widen it to
 * eight; every page read ahead is in the page cache, marked, until its
 * fault finds it there (a hit).
 */
static void test_readahead_sequential(void)
{
	struct address_space *m;

	setup();
	EXPECT_EQ(swapon(1024, NULL), 0);
	m = swapped_file(32);
	swap_info.ra_hits = 0; /* as after swap-ins that found nothing read ahead */
	EXPECT(shmem_get_folio(m, 5) != NULL);
	EXPECT(!in_cache(m, 4) && !in_cache(m, 6));
	EXPECT(shmem_get_folio(m, 6) != NULL);   /* window [6, 7] */
	EXPECT(in_cache(m, 7) && folio_test_readahead(filemap_get_folio(m, 7)));
	EXPECT(shmem_get_folio(m, 7) != NULL);   /* a hit */
	EXPECT(!folio_test_readahead(filemap_get_folio(m, 7)));
	EXPECT(shmem_get_folio(m, 8) != NULL);   /* one hit: window of four, [8, 11] */
	EXPECT(in_cache(m, 9) && in_cache(m, 10) && in_cache(m, 11) && !in_cache(m, 12));
	for (u64 i = 9; i < 12; i++)
		EXPECT(shmem_get_folio(m, i) != NULL);
	EXPECT(shmem_get_folio(m, 12) != NULL);  /* three hits: eight, [8, 15] */
	for (u64 i = 13; i < 16; i++)
		EXPECT(in_cache(m, i));
	EXPECT(!in_cache(m, 16));
	EXPECT_EQ(swap_info.ra_pages, 7ULL);
	EXPECT_EQ(swap_info.ra_hit_pages, 4ULL);
	/* what was read ahead left swap: its slot is free, the page dirty (the only copy) */
	EXPECT_EQ(m->nrswapped, 32L - 11);
	EXPECT_EQ(swap_info.inuse_pages, 32UL - 11);
	EXPECT(folio_test_dirty(filemap_get_folio(m, 15)));
	address_space_destroy(m);
	teardown();
	EXPECT_EQ(hw_violations.total, 0);
}

struct ra_args {
	struct address_space *m;
	u64 t_before, t_after, done;
	bool busy_before, busy_after, locked_after;
};

static void ra_fn(void *arg)
{
	struct ra_args *a = arg;
	struct folio *f;

	shmem_get_folio(a->m, 5);
	shmem_get_folio(a->m, 6); /* reads 7 ahead */
	f = filemap_get_folio(a->m, 7);
	a->done = swap_info.ra_done[folio_pfn(f)];
	a->busy_before = folio_readahead_busy(f);
	a->t_before = sim_now();
	shmem_get_folio(a->m, 7); /* waits for its read */
	a->t_after = sim_now();
	a->busy_after = folio_readahead_busy(f);
	a->locked_after = folio_test_locked(f);
}

/*
 * On the device, a page read ahead stays locked until its read completes:
 * reclaim keeps it (folio_readahead_busy), a fault on it sleeps until
 * then, and it is unlocked after.
 */
static void test_readahead_in_flight(void)
{
	struct sim_swapdev dev;
	struct ra_args a = { 0 };
	struct sim_engine *e;

	setup();
	EXPECT_EQ(sim_swapdev_init(&dev, "swap", 10000, 1000000000, 16), 0);
	EXPECT_EQ(swapon(1024, &dev), 0);
	a.m = swapped_file(16);
	e = sim_engine_create(&(struct sim_config){ .seed = 1 });
	sim_agent_create(e, "vcpu0", "vcpu", ra_fn, &a);
	EXPECT_EQ(sim_run(e), 0);
	sim_engine_destroy(e);
	EXPECT(a.done > a.t_before);
	EXPECT(a.busy_before);
	EXPECT_EQ(a.t_after, a.done);
	EXPECT(!a.busy_after && !a.locked_after);
	address_space_destroy(a.m);
	teardown();
	sim_swapdev_release(&dev);
	EXPECT_EQ(hw_violations.total, 0);
}

static const struct ktap_case cases[] = {
	{ "cluster_per_cpu", test_cluster_per_cpu },
	{ "readahead_window", test_window },
	{ "readahead_sequential", test_readahead_sequential },
	{ "readahead_in_flight", test_readahead_in_flight },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "swap", cases, (int)ARRAY_SIZE(cases));
}
