// SPDX-License-Identifier: GPL-2.0-only
/* Reclaim: exact amounts, LRU order, generations, Bloom filter, batching. */
#include <stdlib.h>

#include "hw/phys.h"
#include "mm/filemap.h"
#include "mm/lru.h"
#include "mm/mmu_notifier.h"
#include "mm/reclaim.h"
#include "hw/profile.h"
#include "mm/switches.h"
#include "sim/engine.h"
#include "include/sched.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

#define R_SIZE (32UL << 20)
#define R_PAGES (R_SIZE >> PAGE_SHIFT)
#define R_BASE 0x4000000000UL

struct r_lab {
	struct mm_struct *mm;
	struct address_space *file;
	struct hw_cpu *cpu;
};

static void r_setup_arch(struct r_lab *r, const char *arch_name, const char *lru, bool young_batch)
{
	struct run_params p = {
		.arch = arch_name, .impl = "ref", .nr_cpus = 2, .seed = 7,
		.policy = HW_POLICY_RANDOM, .tlb_entries = 256, .tlb_ways = 4,
		.hafdbs = true, .lru = lru,
	};
	char err[100];

	lab_switches_reset();
	lab_machine_setup(&p, R_PAGES * 2 + 8192, err, sizeof(err));
	if (!young_batch)
		lab_switch_off("young-batch");
	r->cpu = &hw_machine.cpu[0];
	r->file = address_space_create(R_SIZE, 4);
	r->mm = mm_alloc();
	mmap_file(r->mm, R_BASE, R_SIZE, r->file, 0, VM_READ);
	switch_mm(r->cpu, r->mm);
	for (u64 i = 0; i < R_PAGES; i++)
		access_user(r->cpu, r->mm, R_BASE + i * PAGE_SIZE, false);
}

static void r_setup(struct r_lab *r, const char *lru, bool young_batch)
{
	r_setup_arch(r, "arm64", lru, young_batch);
}

static void r_teardown(struct r_lab *r)
{
	mm_check_invariants(r->mm);
	mmput(r->mm);
	address_space_destroy(r->file);
	mm_check_all_freed();
	lab_machine_teardown();
}

static bool cached(struct r_lab *r, u64 page)
{
	return filemap_get_folio(r->file, page) != NULL;
}

static long lrugen_total(void)
{
	long n = 0;

	for (int g = 0; g < MAX_NR_GENS; g++)
		n += root_lruvec.lrugen.nr_pages[g];
	return n;
}

/*
 * memory.reclaim stops once it has what it asked for, between batches:
 * the overshoot is less than one isolation batch (batch pages) and one
 * folio.
 */
static void exact(const char *lru, u64 batch)
{
	struct r_lab r;
	struct reclaim_stat rs = { 0 };

	r_setup(&r, lru, true);
	u64 want = 10UL << 20 | 12 * PAGE_SIZE; /* not a multiple of the folio size */
	u64 got = memory_reclaim(want, &rs) << PAGE_SHIFT;
	EXPECT(got >= want && got < want + batch * PAGE_SIZE + SZ_64K);
	EXPECT_EQ(r.file->nrpages, (long)(R_PAGES - (got >> PAGE_SHIFT)));
	EXPECT_EQ(hw_violations.total, 0);
	r_teardown(&r);
	EXPECT_EQ(hw_violations.total, 0);
}

static void test_reclaim_exact_mglru(void) { exact("mglru", MIN_LRU_BATCH); }
static void test_reclaim_exact_classic(void) { exact("classic", SWAP_CLUSTER_MAX); }

/*
 * Reclaim isolates a batch, then judges it (evict_folios, and
 * shrink_inactive_list): once the LRU's tail is cold, asking one page
 * frees the whole batch (MIN_LRU_BATCH pages, SWAP_CLUSTER_MAX classic),
 * not the first folio it finds.
 */
static void batch(const char *lru, u64 pages)
{
	struct r_lab r;
	struct reclaim_stat rs = { 0 };

	r_setup(&r, lru, true);
	memory_reclaim(R_SIZE / 4, &rs); /* the tail is cold from here on */
	u64 before = (u64)r.file->nrpages;
	u64 got = memory_reclaim(PAGE_SIZE, &rs);
	EXPECT_EQ(got, pages);
	EXPECT_EQ(before - (u64)r.file->nrpages, pages);
	r_teardown(&r);
	EXPECT_EQ(hw_violations.total, 0);
}

static void test_reclaim_batch_mglru(void) { batch("mglru", MIN_LRU_BATCH); }
static void test_reclaim_batch_classic(void) { batch("classic", SWAP_CLUSTER_MAX); }

/*
 * Before 6.14, a folio the scans found young while reclaim had it
 * isolated is only marked PG_referenced (folio_update_gen), and
 * shrink_folio_list keeps a mapped one so marked without an rmap walk:
 * the next batch's first folio, marked, stays cached; unmarked, it goes.
 */
static bool tail_folio_kept(bool referenced, u64 *rmap_calls)
{
	struct r_lab r;
	struct reclaim_stat rs = { 0 };
	struct lru_gen_folio *lrugen = &root_lruvec.lrugen;

	r_setup(&r, "mglru", true);
	mm_sw.lru_gen_add = LRU_GEN_ADD_6_1;
	memory_reclaim(R_SIZE / 4, &rs); /* the tail is cold from here on */
	u32 pfn = lrugen->tail[lrugen->min_seq % MAX_NR_GENS]; /* lru_gen_from_seq */
	EXPECT(pfn != NULL_PFN);
	struct folio *folio = pfn_folio(pfn);
	u64 index = folio->page.index;

	EXPECT(folio_mapped(folio));
	if (referenced)
		folio_set_referenced(folio);
	u64 calls = hw_events.v[EV_rmap_call];
	memory_reclaim(PAGE_SIZE, &rs);
	*rmap_calls = hw_events.v[EV_rmap_call] - calls;
	bool kept = cached(&r, index);
	r_teardown(&r);
	EXPECT_EQ(hw_violations.total, 0);
	return kept;
}

static void test_isolated_referenced_before_6_14(void)
{
	u64 marked, unmarked;

	EXPECT(tail_folio_kept(true, &marked));
	EXPECT(!tail_folio_kept(false, &unmarked));
	/* the marked folio was kept without its rmap walks (references, unmap) */
	EXPECT(marked < unmarked);
}

/* Folios read again after the first reclaim outlive cold ones. */
static void hot_survive(const char *lru)
{
	struct r_lab r;
	struct reclaim_stat rs = { 0 };
	u64 hot_first = R_PAGES - R_PAGES / 8, hot_evicted = 0, cold_left = 0;

	r_setup(&r, lru, true);
	memory_reclaim(R_SIZE / 4, &rs);
	for (u64 i = hot_first; i < R_PAGES; i++)
		EXPECT(cached(&r, i)); /* the newest were not reclaimed first */
	for (u64 i = hot_first; i < R_PAGES; i++)
		access_user(r.cpu, r.mm, R_BASE + i * PAGE_SIZE, false);
	memory_reclaim(R_SIZE / 2, &rs);
	for (u64 i = 0; i < R_PAGES; i++) {
		if (i >= hot_first)
			hot_evicted += !cached(&r, i);
		else
			cold_left += cached(&r, i);
	}
	EXPECT_EQ(hot_evicted, 0);
	EXPECT(cold_left < R_PAGES / 4 + 16);
	r_teardown(&r);
	EXPECT_EQ(hw_violations.total, 0);
}

static void test_hot_survive_mglru(void) { hot_survive("mglru"); }
static void test_hot_survive_classic(void) { hot_survive("classic"); }

static long folios_in_gen(struct r_lab *r, u64 seq, u64 from, u64 to)
{
	long n = 0;

	for (u64 i = from; i < to; i += 16) {
		struct folio *f = filemap_get_folio(r->file, i);

		n += f && f->page.gen && (u64)(f->page.gen - 1) == seq % MAX_NR_GENS;
	}
	return n;
}

static void test_generations(void)
{
	struct r_lab r;
	struct reclaim_stat rs = { 0 };
	u64 hot = R_PAGES - R_PAGES / 4;

	r_setup(&r, "mglru", true);
	EXPECT_EQ(lrugen_total(), (long)R_PAGES);
	EXPECT_EQ(root_lruvec.lrugen.max_seq - root_lruvec.lrugen.min_seq + 1, MIN_NR_GENS + 1);
	/* the first aging walks everything: every folio was read, all promoted */
	try_to_inc_max_seq(&root_lruvec, root_lruvec.lrugen.max_seq, 0, &rs);
	EXPECT_EQ(folios_in_gen(&r, root_lruvec.lrugen.max_seq - 1, 0, R_PAGES), (long)(R_PAGES / 16));
	/* read a quarter again (after a flush: cached entries set no access flag) */
	flush_tlb_mm(r.mm);
	for (u64 i = hot; i < R_PAGES; i++)
		access_user(r.cpu, r.mm, R_BASE + i * PAGE_SIZE, false);
	try_to_inc_max_seq(&root_lruvec, root_lruvec.lrugen.max_seq, 0, &rs);
	EXPECT_EQ(folios_in_gen(&r, root_lruvec.lrugen.max_seq - 1, hot, R_PAGES), (long)((R_PAGES - hot) / 16));
	EXPECT_EQ(folios_in_gen(&r, root_lruvec.lrugen.max_seq - 1, 0, hot), 0);
	EXPECT_EQ(lrugen_total(), (long)R_PAGES);
	for (int step = 0; step < 6; step++) {
		memory_reclaim(R_SIZE / 16, &rs);
		u64 nr_gens = root_lruvec.lrugen.max_seq - root_lruvec.lrugen.min_seq + 1;

		EXPECT(nr_gens >= MIN_NR_GENS && nr_gens <= MAX_NR_GENS);
		EXPECT_EQ(lrugen_total(), r.file->nrpages);
	}
	/* the cold three quarters went first */
	for (u64 i = hot; i < R_PAGES; i++)
		EXPECT(cached(&r, i));
	r_teardown(&r);
}

/*
 * Where folios join the generations (7.3 folio_add_lru, lru_gen_folio_seq,
 * evict_folios' putback): one faulted in is hot, one below the youngest;
 * one added outside a fault sits at the oldest; one reclaim rejected
 * (mlocked: it stays) does not go back to the oldest.
 */
static void test_placement(void)
{
	struct r_lab r;
	struct lru_gen_folio *g = &root_lruvec.lrugen;
	struct folio *f;

	r_setup(&r, "mglru", true);
	/* every folio came in through filemap_fault */
	EXPECT_EQ(folios_in_gen(&r, g->max_seq - 1, 0, R_PAGES), (long)(R_PAGES / 16));
	EXPECT_EQ(g->nr_pages[g->min_seq % MAX_NR_GENS], 0);
	/* the same folio added again outside a fault: the oldest generation */
	f = filemap_get_folio(r.file, 0);
	lru_del_folio(f);
	folio_add_lru(f);
	EXPECT_EQ((u64)(f->page.gen - 1), g->min_seq % MAX_NR_GENS);
	/* the fault window is the handler's alone */
	EXPECT(!lru_gen_in_fault());
	/* rejected by reclaim: never back to the oldest generation */
	EXPECT_EQ(lru_gen_folio_seq(&root_lruvec, f, false), g->min_seq);
	folio_set_active(f);
	EXPECT_EQ(lru_gen_folio_seq(&root_lruvec, f, false), g->max_seq - 1);
	folio_clear_active(f);
	r_teardown(&r);
	EXPECT_EQ(hw_violations.total, 0);
}

/*
 * The placement rule of S3's older kernels (mm_sw.lru_gen_add, set by the
 * max-guest-memory variants): before 6.14 an active folio joins the
 * youngest generation itself; 6.1 files a swap-backed one just above the
 * oldest, 6.7 just below the youngest, and 6.7 keeps the rest off the
 * oldest when there are more than MIN_NR_GENS generations.
 */
static void test_placement_before_6_14(void)
{
	struct r_lab r;
	struct lru_gen_folio *g = &root_lruvec.lrugen;
	struct reclaim_stat rs = { 0 };
	struct folio *f;

	r_setup(&r, "mglru", true);
	f = filemap_get_folio(r.file, 0);
	lab_switches_for_run("max-guest-memory", "v2", NULL, 0);
	EXPECT_EQ(mm_sw.lru_gen_add, LRU_GEN_ADD_6_1);
	folio_set_active(f);
	EXPECT_EQ(lru_gen_folio_seq(&root_lruvec, f, false), g->max_seq);
	folio_clear_active(f);
	EXPECT_EQ(lru_gen_folio_seq(&root_lruvec, f, false), g->min_seq);
	folio_set_swapbacked(f);
	EXPECT_EQ(lru_gen_folio_seq(&root_lruvec, f, false), g->min_seq + 1);
	lab_switches_for_run("max-guest-memory", "6.12", NULL, 0);
	EXPECT_EQ(mm_sw.lru_gen_add, LRU_GEN_ADD_6_7);
	EXPECT_EQ(lru_gen_folio_seq(&root_lruvec, f, false), g->max_seq - 1);
	folio_clear_swapbacked(f);
	/* MIN_NR_GENS + 1 generations after setup: the oldest; one more aging: above it */
	EXPECT_EQ(lru_gen_folio_seq(&root_lruvec, f, false), g->min_seq);
	try_to_inc_max_seq(&root_lruvec, root_lruvec.lrugen.max_seq, 0, &rs);
	EXPECT(g->min_seq + MIN_NR_GENS < g->max_seq);
	EXPECT_EQ(lru_gen_folio_seq(&root_lruvec, f, false), g->min_seq + 1);
	EXPECT_EQ(lru_gen_folio_seq(&root_lruvec, f, true), g->min_seq);
	lab_switches_for_run("max-guest-memory", "7.3", NULL, 0);
	EXPECT_EQ(mm_sw.lru_gen_add, LRU_GEN_ADD_6_14);
	folio_set_active(f);
	EXPECT_EQ(lru_gen_folio_seq(&root_lruvec, f, false), g->max_seq - 1);
	folio_clear_active(f);
	lab_switches_reset();
	r_teardown(&r);
	EXPECT_EQ(hw_violations.total, 0);
}

static void test_bloom(void)
{
	struct r_lab r;
	int false_pos = 0;

	r_setup(&r, "mglru", true);
	/* the items are PMD entries: the file's, then the rest of the same table */
	pmd_t *pmd = pmd_walk(r.mm, R_BASE);
	pmd_t *table = (pmd_t *)((uintptr_t)pmd & ~(uintptr_t)(PAGE_SIZE - 1));
	u64 used = R_SIZE / SZ_2M, first = (u64)(pmd - table);
	u64 seq = root_lruvec.lrugen.max_seq + 1;
	EXPECT(test_bloom_filter(&root_lruvec, seq, pmd)); /* no filter yet: walk everything */
	struct reclaim_stat rs = { 0 };
	try_to_inc_max_seq(&root_lruvec, root_lruvec.lrugen.max_seq, 0, &rs);
	/* that aging found every table young: all of them are in the filter */
	EXPECT(test_bloom_filter(&root_lruvec, root_lruvec.lrugen.max_seq, pmd));
	pmd_t *other = first + used < PTRS_PER_PTE ? pmd + used : table;
	update_bloom_filter(&root_lruvec, root_lruvec.lrugen.max_seq, other);
	EXPECT(test_bloom_filter(&root_lruvec, root_lruvec.lrugen.max_seq, other));
	/* items never added are (almost always) out */
	int n = 0;
	for (u64 i = 0; i < PTRS_PER_PTE; i++) {
		if ((i >= first && i < first + used) || table + i == other)
			continue;
		false_pos += test_bloom_filter(&root_lruvec, root_lruvec.lrugen.max_seq, table + i);
		n++;
	}
	EXPECT(n > 400);
	EXPECT(false_pos < n / 20);
	/* a second aging with nothing young left skips what the first found cold */
	try_to_inc_max_seq(&root_lruvec, root_lruvec.lrugen.max_seq, 0, &rs);
	try_to_inc_max_seq(&root_lruvec, root_lruvec.lrugen.max_seq, 0, &rs);
	EXPECT(rs.nr_bloom_skipped > 0);
	r_teardown(&r);
}

/*
 * x86's walker sets the accessed bit of the PMD entry it goes through
 * (arch_has_hw_nonleaf_pmd_young); MGLRU's aging walk skips a PTE table
 * whose bit is clear and clears the bit of one it walks. The bit comes
 * back when a CPU walks through the table again (after a TLB flush: a
 * TLB hit walks nothing); a table skipped so has also left the Bloom
 * filter, until look-around finds it worth walking.
 */
static void test_nonleaf_pmd_young(void)
{
	struct r_lab r;
	struct reclaim_stat rs = { 0 };

	r_setup_arch(&r, "x86", "mglru", true);
	pmd_t *pmd = pmd_walk(r.mm, R_BASE);
	EXPECT(arch_has_hw_nonleaf_pmd_young());
	EXPECT(pmd_young(*pmd)); /* populated young, and walked through since */
	try_to_inc_max_seq(&root_lruvec, root_lruvec.lrugen.max_seq, 0, &rs);
	u64 walked = rs.nr_walk_ptes;
	EXPECT(walked >= R_PAGES);
	EXPECT(!pmd_young(*pmd));
	/* nothing walked through the tables since: the next aging skips them all */
	try_to_inc_max_seq(&root_lruvec, root_lruvec.lrugen.max_seq, 0, &rs);
	EXPECT_EQ(rs.nr_walk_ptes, walked);
	/* a TLB hit (the last page the set-up read) sets nothing; a walk after a flush does */
	pmd_t *last = pmd_walk(r.mm, R_BASE + R_SIZE - PAGE_SIZE);
	access_user(r.cpu, r.mm, R_BASE + R_SIZE - PAGE_SIZE, false);
	EXPECT(!pmd_young(*last));
	flush_tlb_mm(r.mm);
	access_user(r.cpu, r.mm, R_BASE, false);
	EXPECT(pmd_young(*pmd));
	/*
	 * young again, but the table dropped out of the Bloom filter when it
	 * was skipped: the walk clears the bit and still skips it
	 */
	u64 skipped = rs.nr_bloom_skipped;
	try_to_inc_max_seq(&root_lruvec, root_lruvec.lrugen.max_seq, 0, &rs);
	EXPECT_EQ(rs.nr_walk_ptes, walked);
	EXPECT(rs.nr_bloom_skipped > skipped);
	EXPECT(!pmd_young(*pmd));
	/* look-around's feedback puts it back; young, it is walked */
	flush_tlb_mm(r.mm);
	access_user(r.cpu, r.mm, R_BASE, false);
	update_bloom_filter(&root_lruvec, root_lruvec.lrugen.max_seq, pmd);
	try_to_inc_max_seq(&root_lruvec, root_lruvec.lrugen.max_seq, 0, &rs);
	EXPECT(rs.nr_walk_ptes > walked);
	r_teardown(&r);
	EXPECT_EQ(hw_violations.total, 0);

	/*
	 * A secondary MMU's accesses never set the bit: from 6.12 an mm with
	 * notifiers is walked whatever it says, and the bit is left alone;
	 * the seed's era (lru_gen_spte HOST) skips such a table all the same.
	 */
	static const struct mmu_notifier_ops no_ops;
	for (int era = 0; era < 2; era++) {
		struct mmu_notifier sub = { .ops = &no_ops };

		r_setup_arch(&r, "x86", "mglru", true);
		if (era)
			mm_sw.lru_gen_spte = LRU_GEN_SPTE_HOST;
		EXPECT_EQ(mmu_notifier_register(&sub, r.mm), 0);
		pmd = pmd_walk(r.mm, R_BASE);
		pmdp_test_and_clear_young(NULL, R_BASE, pmd);
		rs = (struct reclaim_stat){ 0 };
		try_to_inc_max_seq(&root_lruvec, root_lruvec.lrugen.max_seq, 0, &rs);
		if (era)
			EXPECT(rs.nr_walk_ptes < R_PAGES);
		else
			EXPECT(rs.nr_walk_ptes >= R_PAGES);
		EXPECT(!pmd_young(*pmd));
		mmu_notifier_unregister(&sub, r.mm);
		r_teardown(&r);
		lab_switches_reset();
		EXPECT_EQ(hw_violations.total, 0);
	}

	/* arm64 (no FEAT_HAFT modelled): the bit plays no part */
	r_setup(&r, "mglru", true);
	EXPECT(!arch_has_hw_nonleaf_pmd_young());
	r_teardown(&r);
}

/* The per-PTE and the batched young tests evict the same folios. */
static void same_decisions(const char *lru)
{
	static bool gone[2][R_PAGES];
	struct r_lab r;

	for (int mode = 0; mode < 2; mode++) {
		struct reclaim_stat rs = { 0 };

		r_setup(&r, lru, mode == 1);
		memory_reclaim(R_SIZE / 4, &rs);
		for (u64 i = R_PAGES / 2; i < R_PAGES; i++)
			access_user(r.cpu, r.mm, R_BASE + i * PAGE_SIZE, false);
		memory_reclaim(R_SIZE / 4, &rs);
		for (u64 i = 0; i < R_PAGES; i++)
			gone[mode][i] = !cached(&r, i);
		r_teardown(&r);
	}
	u64 differ = 0;
	for (u64 i = 0; i < R_PAGES; i++)
		differ += gone[0][i] != gone[1][i];
	EXPECT_EQ(differ, 0);
}

static void test_same_decisions_classic(void) { same_decisions("classic"); }
static void test_same_decisions_mglru(void) { same_decisions("mglru"); }

struct aging_args {
	u64 seq, end;
	bool ok;
	struct reclaim_stat rs;
};

static void aging_fn(void *arg)
{
	struct aging_args *a = arg;

	a->ok = try_to_inc_max_seq(&root_lruvec, a->seq, 0, &a->rs);
	a->end = sim_now();
}

/*
 * nr_agents reclaimers that need aging at once (a PTE load costs 1 ns, so
 * a walk takes time); returns the PTE loads of it all (the walk reads
 * every entry of the file's tables). a[] says who made the generation and
 * when each was done.
 */
static u64 aging_reads(int nr_agents, bool era_6_1, struct aging_args a[2])
{
	struct r_lab r;
	struct profile prof = { .name = "test" };
	struct profile_meter meter;
	struct sim_engine *e;
	u64 seq, before;
	int ok = 0;

	r_setup(&r, "mglru", true);
	mm_sw.lru_gen_aging_6_1 = era_6_1;
	seq = root_lruvec.lrugen.max_seq;
	before = hw_events.v[EV_pte_read];
	prof.cost[EV_pte_read] = 1;
	e = sim_engine_create(&(struct sim_config){ .seed = 1 });
	profile_meter_init(&meter, &prof);
	sim_set_cost_hook(e, profile_meter_cost_since, &meter);
	for (int i = 0; i < nr_agents; i++) {
		a[i] = (struct aging_args){ .seq = seq };
		sim_agent_create(e, i ? "direct" : "first", "reclaim", aging_fn, &a[i]);
	}
	EXPECT_EQ(sim_run(e), 0);
	sim_engine_destroy(e);
	before = hw_events.v[EV_pte_read] - before;
	/* however many needed it, one new generation, and one of them made it */
	EXPECT_EQ(root_lruvec.lrugen.max_seq, seq + 1);
	for (int i = 0; i < nr_agents; i++)
		ok += a[i].ok;
	EXPECT_EQ(ok, 1);
	EXPECT_EQ(a[0].rs.nr_aging + (nr_agents > 1 ? a[1].rs.nr_aging : 0), 1);
	/* a stale seq is no aging at all */
	EXPECT(!try_to_inc_max_seq(&root_lruvec, seq, 0, &a[0].rs));
	EXPECT_EQ(root_lruvec.lrugen.max_seq, seq + 1);
	r_teardown(&r);
	lab_switches_reset();
	EXPECT_EQ(hw_violations.total, 0);
	return before;
}

struct lru_add_args {
	struct folio *folios[PAGEVEC_SIZE + 5];
	struct folio *more[6]; /* 3 small, a large one, 2 small left in the batch */
	bool on_lru_before_full, refs_held, on_lru_after_full, drained, large_moved;
	u64 acquired_at_full;
};

/* Adds a full batch, then 5 more it drains itself at t = 100. */
static void lru_add_fn(void *arg)
{
	struct lru_add_args *a = arg;
	int n = PAGEVEC_SIZE + 5;

	for (int i = 0; i < n; i++)
		a->folios[i] = folio_alloc(0);
	a->on_lru_before_full = false;
	a->refs_held = true;
	for (int i = 0; i < PAGEVEC_SIZE - 1; i++) {
		folio_add_lru(a->folios[i]);
		a->on_lru_before_full |= folio_test_lru(a->folios[i]);
		a->refs_held &= folio_ref_count(a->folios[i]) == 2;
	}
	folio_add_lru(a->folios[PAGEVEC_SIZE - 1]); /* the batch is full: onto the LRU */
	a->acquired_at_full = root_lruvec.lru_lock.st.acquired;
	a->on_lru_after_full = true;
	for (int i = 0; i < PAGEVEC_SIZE; i++)
		a->on_lru_after_full &= folio_test_lru(a->folios[i]) &&
					folio_ref_count(a->folios[i]) == 1;
	sim_advance(100);
	for (int i = PAGEVEC_SIZE; i < n; i++)
		folio_add_lru(a->folios[i]);
	lru_add_drain();
	a->drained = true;
	for (int i = PAGEVEC_SIZE; i < n; i++)
		a->drained &= folio_test_lru(a->folios[i]);
	/* a large folio takes the batch onto the LRU with it at once */
	for (int i = 0; i < 6; i++)
		a->more[i] = folio_alloc(i == 3 ? 2 : 0);
	for (int i = 0; i < 4; i++)
		folio_add_lru(a->more[i]);
	a->large_moved = true;
	for (int i = 0; i < 4; i++)
		a->large_moved &= folio_test_lru(a->more[i]);
	folio_add_lru(a->more[4]);
	folio_add_lru(a->more[5]);
}

/* Holds the lruvec lock from t = 5 to 1005 (a reclaimer isolating a batch). */
static void lru_hold_fn(void *arg)
{
	(void)arg;
	sim_advance(5);
	lruvec_lock_irq(&root_lruvec);
	sim_advance(1000);
	lruvec_unlock_irq(&root_lruvec);
}

/*
 * On the engine a new folio waits in its task's lru_add batch, off the
 * LRU and holding a reference, until the batch is full (then all of it
 * goes on under one acquisition of the lruvec lock) or is drained; a
 * drain while a reclaimer holds the lock waits for it.
 */
static void test_lru_add_batch_and_lock(void)
{
	struct r_lab r;
	struct sim_engine *e;
	struct lru_add_args a = { 0 };
	struct task_struct tasks[2] = { { .comm = "adder" }, { .comm = "reclaimer" } };
	struct sim_agent *ag;
	u64 bounces;

	r_setup(&r, "mglru", true);
	bounces = hw_events.v[EV_lru_lock_bounce];
	e = sim_engine_create(&(struct sim_config){ .seed = 1 });
	ag = sim_agent_create(e, "adder", "vcpu", lru_add_fn, &a);
	ag->task = &tasks[0];
	ag = sim_agent_create(e, "reclaimer", "kswapd", lru_hold_fn, NULL);
	ag->task = &tasks[1];
	EXPECT_EQ(sim_run(e), 0);
	EXPECT(!a.on_lru_before_full);
	EXPECT(a.refs_held);
	EXPECT(a.on_lru_after_full);
	EXPECT_EQ(a.acquired_at_full, 1);
	EXPECT(a.drained);
	/* the drain asked at 100 and was granted at 1005; then the large folio's move */
	EXPECT_EQ(root_lruvec.lru_lock.st.acquired, 4);
	EXPECT_EQ(root_lruvec.lru_lock.st.contended, 1);
	EXPECT_EQ(root_lruvec.lru_lock.st.wait_ns, 905);
	EXPECT_EQ(sim_agent(e, 0)->clock, 1005);
	/* the word went adder -> reclaimer -> adder: two transfers */
	EXPECT_EQ(hw_events.v[EV_lru_lock_bounce] - bounces, 2);
	EXPECT(a.large_moved);
	/* the last two wait in the finished task's batch until lru_add_drain_all */
	EXPECT_EQ(tasks[0].lru_add_nr, 2);
	EXPECT(!folio_test_lru(a.more[4]) && !folio_test_lru(a.more[5]));
	lru_add_drain_all();
	EXPECT_EQ(tasks[0].lru_add_nr, 0);
	EXPECT(folio_test_lru(a.more[4]) && folio_test_lru(a.more[5]));
	EXPECT_EQ(folio_ref_count(a.more[5]), 1);
	sim_engine_destroy(e);
	for (int i = 0; i < PAGEVEC_SIZE + 5; i++)
		folios_put_refs_one(a.folios[i], 1);
	for (int i = 0; i < 6; i++)
		folios_put_refs_one(a.more[i], 1);
	r_teardown(&r);
	EXPECT_EQ(hw_violations.total, 0);
}

/*
 * iterate_mm_list: two reclaimers that need aging at once walk the mm
 * once between them. 6.4+: the second ends the iteration the first is in
 * and makes the generation at once, without waiting for the first's
 * walk. 6.1: the first, finishing its walk, makes it; the second (direct
 * reclaim) waits until it has.
 */
static void test_aging_once_per_seq(void)
{
	struct aging_args a[2];
	u64 one = aging_reads(1, false, a), two = aging_reads(2, false, a);

	EXPECT(one > R_PAGES / 2);
	EXPECT(two < one + one / 4);
	EXPECT(!a[0].ok && a[1].ok);
	EXPECT(a[1].end < a[0].end);
	two = aging_reads(2, true, a);
	EXPECT(two < one + one / 4);
	EXPECT(a[0].ok && !a[1].ok);
	EXPECT(a[1].end >= a[0].end && a[0].end > 0);
}

/*
 * Root reclaim passes (shrink_node, as an allocation's) at a priority
 * from a fresh MGLRU (every folio young in the youngest of three
 * generations: it must age before anything is evictable), in an era's
 * shape; returns the pages they looked at.
 */
static u64 scanned_after_aging(bool aging_6_1, bool lru_gen_7_2, int priority, int passes,
			       u64 *nr_aging)
{
	struct r_lab r;
	struct reclaim_stat rs = { 0 };
	/* SWAP_CLUSTER_MAX, as an allocation asks: set_initial_priority leaves it be */
	struct scan_control sc = { .nr_to_reclaim = SWAP_CLUSTER_MAX, .priority = priority, .stat = &rs };

	r_setup(&r, "mglru", true);
	mm_sw.lru_gen_aging_6_1 = aging_6_1;
	mm_sw.lru_gen_7_2 = lru_gen_7_2;
	mm_sw.lru_gen_stop_at_high_wmark = !aging_6_1 && lru_gen_7_2;
	EXPECT_EQ(root_lruvec.lrugen.max_seq - root_lruvec.lrugen.min_seq + 1, (u64)MIN_NR_GENS + 1);
	for (int i = 0; i < passes; i++)
		lru_gen_shrink_node(&sc);
	*nr_aging = rs.nr_aging;
	EXPECT_EQ(sc.nr_reclaimed >= rs.nr_reclaimed, true);
	r_teardown(&r);
	lab_switches_reset();
	EXPECT_EQ(hw_violations.total, 0);
	return rs.nr_scanned;
}

/*
 * What root reclaim does when the generations need aging, by era and
 * priority. At DEF_PRIORITY (a pass may look at 8192 >> 12 = 2 folios):
 * the first pass retires the two empty old generations and ends, having
 * scanned nothing; in the second, out of cold folios, 6.3 .. 7.1 (with
 * 6.1 .. 6.3's aging, S3's v1, or 6.4's) still do not age ("try to get
 * away with not aging at the default priority") and look at nothing,
 * while 7.2+ must age (eviction is not possible) and looks at its 2
 * folios. At priority 0, with three generations of which the youngest
 * holds everything: 6.3 .. 7.1 age and stop scanning the lruvec
 * (get_nr_to_scan's -1/0), whichever aging they have; 7.2+ age, look at
 * one batch of MIN_LRU_BATCH folios and stop (root reclaim's rotation
 * when low on cold folios).
 */
static void test_after_aging_by_era(void)
{
	u64 aging;

	EXPECT_EQ(scanned_after_aging(true, false, DEF_PRIORITY, 2, &aging), 0ULL);
	EXPECT_EQ(aging, 0ULL);
	EXPECT_EQ(scanned_after_aging(false, false, DEF_PRIORITY, 2, &aging), 0ULL);
	EXPECT_EQ(aging, 0ULL);
	EXPECT_EQ(scanned_after_aging(false, true, DEF_PRIORITY, 1, &aging), 0ULL);
	EXPECT_EQ(aging, 0ULL);
	EXPECT_EQ(scanned_after_aging(false, true, DEF_PRIORITY, 2, &aging), 2 * 16ULL);
	EXPECT_EQ(aging, 1ULL);

	EXPECT_EQ(scanned_after_aging(true, false, 0, 1, &aging), 0ULL);
	EXPECT_EQ(aging, 1ULL);
	EXPECT_EQ(scanned_after_aging(false, false, 0, 1, &aging), 0ULL);
	EXPECT_EQ(aging, 1ULL);
	EXPECT_EQ(scanned_after_aging(false, true, 0, 1, &aging), MIN_LRU_BATCH * 16ULL);
	EXPECT_EQ(aging, 1ULL);
}

/*
 * The classic LRU's root reclaim at a priority (get_scan_count): a pass
 * looks at each list's size >> priority, in SWAP_CLUSTER_MAX batches;
 * direct reclaim at DEF_PRIORITY scans its whole (small) target even if
 * that frees less than it wants; at priority 0 the target is the whole
 * list, and a pass stops once it has what it wants.
 */
static void test_classic_priority(void)
{
	struct r_lab r;

	for (int priority = DEF_PRIORITY; priority >= 0; priority -= DEF_PRIORITY) {
		struct reclaim_stat rs = { 0 };
		struct scan_control sc = { .nr_to_reclaim = SWAP_CLUSTER_MAX, .priority = priority,
					   .stat = &rs };

		r_setup(&r, "classic", true);
		long inactive = root_lruvec.nr_pages[LRU_INACTIVE_FILE];
		long active = root_lruvec.nr_pages[LRU_ACTIVE_FILE];

		EXPECT(inactive + active == (long)R_PAGES);
		u64 freed = shrink_lruvec_classic_root(&sc);
		if (priority == DEF_PRIORITY) {
			EXPECT(rs.nr_scanned >= (u64)(inactive >> DEF_PRIORITY));
			EXPECT(rs.nr_scanned <= (u64)((inactive + active) >> DEF_PRIORITY) + 16);
			EXPECT(freed < SWAP_CLUSTER_MAX);
		} else {
			/* every folio young once: the first pass keeps them all, whole list */
			EXPECT_EQ(freed, 0ULL);
			EXPECT(rs.nr_scanned >= (u64)inactive);
			u64 scanned = rs.nr_scanned;
			/* the second finds them cold and stops with what it wants */
			freed = shrink_lruvec_classic_root(&sc);
			EXPECT(freed >= SWAP_CLUSTER_MAX);
			EXPECT(rs.nr_scanned - scanned < 4 * SWAP_CLUSTER_MAX);
		}
		r_teardown(&r);
		EXPECT_EQ(hw_violations.total, 0);
	}
}

/*
 * MADV_FREE, then reclaim: the clean lazyfree folios are discarded, each
 * 64K folio's sixteen entries cleared by one batched unmap (7.3's
 * lazyfree batching: no unfold, one flush per folio); the folio written
 * again after MADV_FREE is mapped back as it was (its entries still one
 * contiguous block), becomes swap-backed and keeps its data.
 */
static void lazyfree(const char *lru)
{
	struct run_params p = {
		.arch = "arm64", .impl = "ref", .nr_cpus = 2, .seed = 7,
		.policy = HW_POLICY_RANDOM, .tlb_entries = 256, .tlb_ways = 4,
		.hafdbs = true, .lru = lru,
	};
	const u64 size = SZ_2M, nr = size >> PAGE_SHIFT, kept = SZ_64K >> PAGE_SHIFT;
	const unsigned long redirtied = R_BASE + size / 2;
	struct reclaim_stat rs = { 0 };
	struct hw_counters before, ev;
	char err[100];

	lab_switches_reset();
	lab_machine_setup(&p, 8192, err, sizeof(err));
	struct hw_cpu *cpu = &hw_machine.cpu[0];
	struct mm_struct *mm = mm_alloc();

	mmap_anon(mm, R_BASE, size, VM_READ | VM_WRITE, 4, true);
	switch_mm(cpu, mm);
	for (u64 a = 0; a < size; a += PAGE_SIZE)
		access_user(cpu, mm, R_BASE + a, true);
	EXPECT_EQ(do_madvise(mm, R_BASE, size, MADV_FREE), 0);
	access_user(cpu, mm, redirtied + 3 * PAGE_SIZE, true);
	u64 freed = vm_lazyfreed_pages();

	hw_events_snapshot(&before);
	u64 got = memory_reclaim(size, &rs);
	hw_events_diff(&ev, &before, &hw_events);
	EXPECT_EQ(got, nr - kept);
	EXPECT_EQ(vm_lazyfreed_pages() - freed, nr - kept);
	EXPECT_EQ(mm->rss, (long)kept);
	EXPECT_EQ(ev.v[EV_unfold], 0);
	EXPECT_EQ(ev.v[EV_fold], 0);
	pte_t *ptep = pte_offset_map(pmd_walk(mm, redirtied), redirtied);
	pte_t pte = ptep_get(ptep);
	EXPECT(pte_present(pte) && pte_write(pte) && (pte_val(*ptep) & (1ULL << 52)) /* PTE_CONT */);
	struct folio *folio = pfn_folio(pte_pfn(pte));
	EXPECT(folio_test_swapbacked(folio) && folio_test_anon(folio));
	EXPECT(hw_frame_written(pte_pfn(pte) + 3));
	for (u64 a = 0; a < size; a += SZ_64K)
		if (R_BASE + a != redirtied)
			EXPECT(pte_none(ptep_get(pte_offset_map(pmd_walk(mm, R_BASE + a), R_BASE + a))));
	mm_check_invariants(mm);
	mmput(mm);
	mm_check_all_freed();
	lab_machine_teardown();
	EXPECT_EQ(hw_violations.total, 0);
}

static void test_lazyfree_mglru(void) { lazyfree("mglru"); }
static void test_lazyfree_classic(void) { lazyfree("classic"); }

/*
 * MADV_PAGEOUT reclaims the folios of the range at once, references
 * ignored: mapped page-cache folios are unmapped (batched, no unfold) and
 * dropped; anonymous ones stay (the lab swaps out no anonymous folio) and
 * go back on the LRU. MADV_COLD clears the range's young bits, flushed
 * once by the mmu_gather, and keeps every page.
 */
static void test_madvise_pageout_and_cold(void)
{
	struct r_lab r;
	struct hw_counters before, ev;
	const u64 half = R_PAGES / 2;

	r_setup(&r, "classic", true);
	struct vm_area_struct *anon = mmap_anon(r.mm, R_BASE + R_SIZE, SZ_2M, VM_READ | VM_WRITE, 4, true);

	EXPECT(anon != NULL);
	for (u64 a = 0; a < SZ_2M; a += PAGE_SIZE)
		access_user(r.cpu, r.mm, R_BASE + R_SIZE + a, true);
	long rss = r.mm->rss;

	hw_events_snapshot(&before);
	EXPECT_EQ(do_madvise(r.mm, R_BASE, half * PAGE_SIZE, MADV_PAGEOUT), 0);
	hw_events_diff(&ev, &before, &hw_events);
	EXPECT_EQ(r.file->nrpages, (long)(R_PAGES - half));
	EXPECT(!cached(&r, 0) && !cached(&r, half - 1) && cached(&r, half));
	EXPECT_EQ(r.mm->rss, rss - (long)half);
	EXPECT_EQ(ev.v[EV_unfold], 0);
	EXPECT_EQ(do_madvise(r.mm, R_BASE + R_SIZE, SZ_2M, MADV_PAGEOUT), 0);
	EXPECT_EQ(r.mm->rss, rss - (long)half);
	struct folio *folio = pfn_folio(pte_pfn(ptep_get(pte_offset_map(pmd_walk(r.mm, R_BASE + R_SIZE),
									 R_BASE + R_SIZE))));
	EXPECT(folio_test_lru(folio) && folio_test_anon(folio));

	hw_events_snapshot(&before);
	EXPECT_EQ(do_madvise(r.mm, R_BASE + half * PAGE_SIZE, half * PAGE_SIZE, MADV_COLD), 0);
	hw_events_diff(&ev, &before, &hw_events);
	EXPECT_EQ(r.file->nrpages, (long)(R_PAGES - half));
	for (u64 i = half; i < R_PAGES; i += 16)
		EXPECT(!pte_young(ptep_get(pte_offset_map(pmd_walk(r.mm, R_BASE + i * PAGE_SIZE),
							  R_BASE + i * PAGE_SIZE))));
	EXPECT_EQ(ev.v[EV_unfold], 0);
	EXPECT(ev.v[EV_dsb] <= 2);
	EXPECT(do_madvise(r.mm, R_BASE, PAGE_SIZE, 99) != 0);
	r_teardown(&r);
	EXPECT_EQ(hw_violations.total, 0);
}

static const struct ktap_case cases[] = {
	{ "reclaim_exact_mglru", test_reclaim_exact_mglru },
	{ "reclaim_exact_classic", test_reclaim_exact_classic },
	{ "reclaim_batch_mglru", test_reclaim_batch_mglru },
	{ "reclaim_batch_classic", test_reclaim_batch_classic },
	{ "isolated_referenced_before_6_14", test_isolated_referenced_before_6_14 },
	{ "hot_survive_mglru", test_hot_survive_mglru },
	{ "hot_survive_classic", test_hot_survive_classic },
	{ "generations", test_generations },
	{ "aging_once_per_seq", test_aging_once_per_seq },
	{ "lru_add_batch_and_lock", test_lru_add_batch_and_lock },
	{ "after_aging_by_era", test_after_aging_by_era },
	{ "bloom_filter", test_bloom },
	{ "nonleaf_pmd_young", test_nonleaf_pmd_young },
	{ "classic_priority", test_classic_priority },
	{ "placement", test_placement },
	{ "placement_before_6_14", test_placement_before_6_14 },
	{ "same_decisions_classic", test_same_decisions_classic },
	{ "same_decisions_mglru", test_same_decisions_mglru },
	{ "lazyfree_mglru", test_lazyfree_mglru },
	{ "lazyfree_classic", test_lazyfree_classic },
	{ "madvise_pageout_and_cold", test_madvise_pageout_and_cold },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "reclaim", cases, (int)ARRAY_SIZE(cases));
}
