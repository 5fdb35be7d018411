// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a run reports: reclaimed amounts equal to what left the page cache,
 * rss equal to the entries the page tables hold, figures that are finite
 * numbers for any size, and the same events whatever ran before in the
 * same process. Every run goes through a workload's ->run, as the CLI's.
 */
#include <math.h>
#include <stdlib.h>

#include "arch/arm64/switches.h"
#include "mm/filemap.h"
#include "mm/reclaim.h"
#include "mm/switches.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

static struct run_params params(const char *lru, u64 size, u64 folio_size)
{
	return (struct run_params){
		.arch = "arm64", .impl = "ref", .size = size, .folio_size = folio_size,
		.nr_cpus = 2, .seed = 1, .policy = HW_POLICY_ACCESSED,
		.tlb_entries = 1280, .tlb_ways = 5, .hafdbs = true, .lru = lru,
	};
}

/* One run as the CLI does it: the run's switches (its variant's), the workload's ->run. */
static bool run(const char *name, const struct run_params *p, struct run_result *r)
{
	const struct workload *w = workload_by_name(name);
	char err[200] = "";

	memset(r, 0, sizeof(*r));
	lab_switches_for_run(name, p->variant, NULL, 0);
	if (!w || w->run(p, r, err, sizeof(err))) {
		printf("    # %s: %s\n", name, w ? err : "no such workload");
		return false;
	}
	for (int i = 0; i < hw_violations.kept; i++)
		printf("    # %s %s: %s\n", name, p->variant ? p->variant : "", hw_violations.msg[i]);
	return true;
}

static double result(const struct run_result *r, const char *name)
{
	for (int i = 0; i < r->nr_extra; i++)
		if (!strcmp(r->extra_name[i], name))
			return r->extra_val[i];
	printf("    # no result named %s\n", name);
	return NAN;
}

/*
 * reclaim-file reclaims what was asked, in whole folios, and less than
 * one isolation batch more (it stops between batches): at 64K of a 64K
 * file every freed folio merges into a free block of order 10 whose head
 * says 1024 pages, so a size read after the free is caught here.
 */
static void test_reclaim_reports_what_left_the_cache(void)
{
	static const struct { u64 size, folio, reclaim; } c[] = {
		{ SZ_64K, SZ_64K, SZ_64K }, { SZ_64K, SZ_4K, SZ_64K },
		{ SZ_64K, SZ_64K, SZ_4K }, { 4 * SZ_64K, SZ_64K, 3 * SZ_64K },
		{ SZ_2M, SZ_2M, SZ_64K }, { SZ_1M_T, 4 * SZ_64K, SZ_1M_T / 2 },
	};

	for (int lru = 0; lru < 2; lru++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(c); i++) {
			struct run_params p = params(lru ? "classic" : "mglru", c[i].size, c[i].folio);
			struct run_result r;

			p.reclaim = c[i].reclaim;
			if (!run("reclaim-file", &p, &r)) {
				EXPECT(0);
				continue;
			}
			double got = result(&r, "reclaimed_bytes");
			u64 want = ALIGN(c[i].reclaim, c[i].folio);
			/* reclaim stops between isolation batches: less than one batch and one folio more */
			u64 over = (lru ? SWAP_CLUSTER_MAX : MIN_LRU_BATCH) * PAGE_SIZE + c[i].folio;
			bool ok = got >= (double)want && got < (double)(want + over) && got <= (double)c[i].size &&
				  fmod(got, (double)c[i].folio) == 0;

			if (!ok)
				printf("    # %s size %llu folio %llu reclaim %llu: reclaimed %.0f\n",
				       p.lru, (unsigned long long)c[i].size,
				       (unsigned long long)c[i].folio,
				       (unsigned long long)c[i].reclaim, got);
			EXPECT(ok);
			EXPECT_EQ(hw_violations.total, 0);
		}
	}
}

/*
 * memory.reclaim's count is checked against the pages that really left
 * the page cache: folios reclaim frees whose slots were already gone
 * (as if another path had taken them out) make the two differ.
 */
static void test_reclaim_cross_check_catches_a_wrong_count(void)
{
	struct t_lab t;
	struct reclaim_stat rs = { 0 };
	u64 nr = SZ_1M_T >> PAGE_SHIFT;

	t_setup(&t, "arm64", SZ_64K, SZ_64K, HW_POLICY_ACCESSED);
	struct address_space *file = address_space_create(SZ_1M_T, 4);
	EXPECT(mmap_file(t.mm, T_BASE + SZ_2M, SZ_1M_T, file, 0, VM_READ) != NULL);
	for (u64 a = 0; a < SZ_1M_T; a += PAGE_SIZE)
		access_user(t.cpu, t.mm, T_BASE + SZ_2M + a, false);
	u64 first = memory_reclaim(SZ_64K, &rs);
	EXPECT(first >= 16 && first < 16 + MIN_LRU_BATCH + 16); /* whole batches: see memory_reclaim */
	EXPECT_EQ(hw_violations.total, 0);

	struct folio **saved = calloc(nr, sizeof(*saved));
	for (u64 i = 0; i < nr; i++) {
		saved[i] = xa_load(file, i);
		xa_store(file, i, NULL);
	}
	u64 got = memory_reclaim(SZ_64K, &rs);
	EXPECT(got >= 16);
	EXPECT(hw_violations.count[VIOL_OTHER] >= 1);
	/* put back the folios still cached (the freed ones lost their mapping) */
	for (u64 i = 0; i < nr; i++)
		if (saved[i] && saved[i]->page.mapping == file)
			xa_store(file, i, saved[i]);
	free(saved);
	hw_violations_reset();
	mmput(t.mm);
	address_space_destroy(file);
	mm_check_all_freed();
	EXPECT_EQ(hw_violations.total, 0);
	lab_machine_teardown();
}

/* mm->rss that the page tables do not back is reported by the invariants. */
static void test_rss_checked_against_the_page_tables(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_1M_T, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_256K_T, true);
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	EXPECT_EQ(t.mm->rss, SZ_256K_T >> PAGE_SHIFT);
	t.mm->rss += 1;
	mm_check_invariants(t.mm);
	EXPECT(hw_violations.count[VIOL_OTHER] >= 1);
	t.mm->rss -= 1;
	hw_violations_reset();
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

/* munmap, young-scan and mlock-loop: mapped pages as the page tables say. */
static void test_mapped_pages_match_the_page_tables(void)
{
	struct run_params p = params("mglru", SZ_1M_T, SZ_64K);
	struct run_result r;

	if (run("munmap", &p, &r)) {
		EXPECT(result(&r, "mapped_pages") == (double)(SZ_1M_T >> PAGE_SHIFT));
		EXPECT(result(&r, "rss_after") == 0);
		EXPECT(result(&r, "pt_pages_after") >= 0);
		EXPECT_EQ(hw_violations.total, 0);
	} else {
		EXPECT(0);
	}
	p.pmd_mapped = true;
	p.folio_size = SZ_2M;
	p.size = 2 * SZ_2M;
	if (run("munmap", &p, &r)) {
		EXPECT(result(&r, "mapped_pages") == (double)(2 * SZ_2M >> PAGE_SHIFT));
		EXPECT_EQ(hw_violations.total, 0);
	} else {
		EXPECT(0);
	}
	p = params("mglru", SZ_1M_T, SZ_64K);
	p.iterations = 2;
	EXPECT(run("mlock-loop", &p, &r));
	EXPECT_EQ(hw_violations.total, 0);
	EXPECT(run("young-scan", &p, &r));
	EXPECT_EQ(hw_violations.total, 0);
}

/* young-scan's figures are finite for any size, even below one 64K block. */
static void test_young_scan_figures_are_finite(void)
{
	static const struct { u64 size, folio; } c[] = {
		{ SZ_4K, SZ_4K }, { 2 * SZ_4K, 2 * SZ_4K }, { SZ_16K_T, SZ_4K },
		{ SZ_64K, SZ_64K }, { SZ_64K + SZ_16K_T, SZ_16K_T }, { SZ_2M, SZ_2M },
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(c); i++) {
		struct run_params p = params("mglru", c[i].size, c[i].folio);
		struct run_result r;

		if (!run("young-scan", &p, &r)) {
			EXPECT(0);
			continue;
		}
		u64 blocks = (c[i].size + SZ_64K - 1) / SZ_64K;
		double per_block = result(&r, "pte_read_per_block");
		EXPECT(isfinite(per_block));
		EXPECT(per_block == (double)r.measured.v[EV_pte_read] / (double)(2 * blocks));
		EXPECT(per_block > 0);
		for (int e = 0; e < r.nr_extra; e++)
			EXPECT(isfinite(r.extra_val[e]));
		EXPECT_EQ(hw_violations.total, 0);
	}
}

/* A figure that is not finite never reaches the results: it is a violation. */
static void test_non_finite_result_is_a_violation(void)
{
	struct run_result r = { 0 };
	volatile double zero = 0;

	hw_violations_reset();
	run_result_add(&r, "ratio", 1 / zero);
	run_result_add(&r, "nan", zero / zero);
	EXPECT_EQ(r.nr_extra, 2);
	EXPECT(isfinite(r.extra_val[0]) && isfinite(r.extra_val[1]));
	EXPECT_EQ(hw_violations.count[VIOL_OTHER], 2);
	hw_violations_reset();
}

/* The runs of the determinism tests: small, every workload, both LRUs. */
struct spec {
	const char *workload;
	struct run_params p;
};

#define N_SPECS 8

static void specs(struct spec s[N_SPECS])
{
	s[0] = (struct spec){ "munmap", params("mglru", SZ_1M_T, SZ_64K) };
	s[1] = (struct spec){ "mlock-loop", params("mglru", SZ_1M_T, SZ_64K) };
	s[1].p.iterations = 1;
	s[2] = (struct spec){ "exit", params("mglru", SZ_1M_T, SZ_64K) };
	s[2].p.iterations = 3;
	s[3] = (struct spec){ "young-scan", params("mglru", SZ_1M_T, SZ_64K) };
	s[3].p.policy = HW_POLICY_RANDOM;
	s[4] = (struct spec){ "reclaim-file", params("mglru", 4 * SZ_1M_T, SZ_64K) };
	s[4].p.reclaim = 2 * SZ_1M_T;
	s[5] = (struct spec){ "reclaim-file", params("classic", 4 * SZ_1M_T, SZ_64K) };
	s[5].p.reclaim = 3 * SZ_1M_T;
	s[6] = (struct spec){ "exit", params("mglru", SZ_1M_T, SZ_64K) };
	s[6].p.iterations = 3;
	s[6].p.variant = "baseline";
	s[7] = (struct spec){ "reclaim-file", params("mglru", 4 * SZ_1M_T, SZ_64K) };
	s[7].p.reclaim = 2 * SZ_1M_T;
	s[7].p.variant = "rehot";
	s[7].p.policy = HW_POLICY_RANDOM;
}

static int same_run(const struct spec *s, const struct run_result *a,
		    const struct run_result *b, int n)
{
	int differ = 0;

	for (int e = 0; e < NR_HW_EVENTS; e++) {
		if (a->measured.v[e] != b->measured.v[e] || a->setup.v[e] != b->setup.v[e]) {
			if (differ++ < 3)
				printf("    # %s%s%s run %d: %s measured %llu vs %llu, setup %llu vs %llu\n",
				       s->workload, s->p.variant ? " " : "",
				       s->p.variant ? s->p.variant : "", n, hw_event_names[e],
				       (unsigned long long)a->measured.v[e],
				       (unsigned long long)b->measured.v[e],
				       (unsigned long long)a->setup.v[e],
				       (unsigned long long)b->setup.v[e]);
		}
	}
	if (a->nr_extra != b->nr_extra)
		differ++;
	for (int i = 0; i < a->nr_extra && i < b->nr_extra; i++)
		if (a->extra_val[i] != b->extra_val[i]) {
			if (differ++ < 3)
				printf("    # %s run %d: %s %g vs %g\n", s->workload, n,
				       a->extra_name[i], a->extra_val[i], b->extra_val[i]);
		}
	return differ;
}

/* The same spec three times in a row in one process: the same events. */
static void test_same_spec_three_times(void)
{
	struct spec s[N_SPECS];

	specs(s);
	for (int i = 0; i < N_SPECS; i++) {
		struct run_result r[3];
		bool ok = true;

		for (int n = 0; n < 3; n++) {
			ok &= run(s[i].workload, &s[i].p, &r[n]);
			EXPECT_EQ(hw_violations.total, 0);
		}
		EXPECT(ok);
		if (!ok)
			continue;
		EXPECT_EQ(same_run(&s[i], &r[0], &r[1], 2), 0);
		EXPECT_EQ(same_run(&s[i], &r[0], &r[2], 3), 0);
	}
}

/* Every spec once, then again in the reverse order: nothing depends on what ran before. */
static void test_order_does_not_matter(void)
{
	struct spec s[N_SPECS];
	struct run_result *first = calloc(N_SPECS, sizeof(*first));
	struct run_result again;

	specs(s);
	for (int i = 0; i < N_SPECS; i++)
		EXPECT(run(s[i].workload, &s[i].p, &first[i]));
	for (int i = N_SPECS - 1; i >= 0; i--) {
		if (run(s[i].workload, &s[i].p, &again))
			EXPECT_EQ(same_run(&s[i], &first[i], &again, 2), 0);
		else
			EXPECT(0);
	}
	free(first);
}

/* A run that fails half-way (here: nothing to map) leaves nothing for the next. */
static void test_failed_run_leaves_nothing(void)
{
	struct spec s = { "munmap", params("mglru", SZ_1M_T, SZ_64K) };
	struct run_params bad = s.p;
	struct run_result r0, r1, r_bad;

	bad.size = 0;
	EXPECT(run(s.workload, &s.p, &r0));
	EXPECT(!run(s.workload, &bad, &r_bad));
	EXPECT(run(s.workload, &s.p, &r1));
	EXPECT_EQ(hw_violations.total, 0);
	EXPECT_EQ(same_run(&s, &r0, &r1, 2), 0);
}

/*
 * Exit's variants are kernels: each is in the lab's table (it sets the
 * switches, the workload does not) and the lab has none exit lacks.
 */
static void test_exit_variants_are_the_labs(void)
{
	const struct workload *w = workload_by_name("exit");
	const char *names[] = { "7.3", "baseline", "no-opt", "simple-full", "robust-full", "clear-ptes" };
	char list[128] = "";

	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++) {
		EXPECT(lab_variant_sets_switches("exit", names[i]));
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? "|" : "", names[i]);
		/* every switch a variant names exists (a wrong name aborts here) */
		lab_switches_for_run("exit", names[i], NULL, 0);
	}
	EXPECT(w && !strcmp(w->variants, list));
	EXPECT(!lab_variant_sets_switches("exit", "bogus"));
	EXPECT(!lab_variant_sets_switches("fuzz", "pte-only"));
	EXPECT(!lab_variant_ref_only("exit", "clear-ptes"));
	EXPECT(!lab_variant_ref_only("exit", "baseline"));
	EXPECT(!lab_variant_ref_only("exit", "7.3"));
	EXPECT(lab_variant_ref_only("exit", "no-opt"));
	EXPECT(lab_variant_ref_only("exit", "robust-full"));
	/* the run's switches: --without's and the variant's, from all on */
	const char *without[] = { "fork-batch" };
	lab_switches_for_run("exit", "simple-full", without, 1);
	EXPECT(!mm_sw.fork_batch && arm64_sw.contpte && !mm_sw.zap_clear_ptes_v3);
	EXPECT(!arm64_sw.exit_clear_ptes && arm64_sw.full_mode == CONTPTE_FULL_SIMPLE);
	/* S2's rows are 2023 kernels: 6.7's zap, rmap queueing and release_pages */
	EXPECT(!mm_sw.zap_batch && !mm_sw.deferred_split_partial && !mm_sw.folio_batch_free);
	lab_switches_for_run("exit", "baseline", NULL, 0);
	EXPECT(!mm_sw.zap_batch && !arm64_sw.contpte && arm64_sw.exit_clear_ptes);
	EXPECT(arm64_sw.full_mode == CONTPTE_FULL_NONE);
	lab_switches_for_run("exit", "clear-ptes", NULL, 0);
	EXPECT(!mm_sw.zap_batch && mm_sw.zap_clear_ptes_v3 && arm64_sw.contpte &&
	       arm64_sw.exit_clear_ptes);
	lab_switches_for_run("exit", "7.3", NULL, 0);
	EXPECT(mm_sw.zap_batch && !mm_sw.zap_clear_ptes_v3 && mm_sw.folio_batch_free);
	lab_switches_for_run("munmap", NULL, NULL, 0);
	EXPECT(arm64_sw.contpte && arm64_sw.exit_clear_ptes && !mm_sw.zap_clear_ptes_v3);
}

/* The determinism cases go first: they must see this process's first runs. */
static const struct ktap_case cases[] = {
	{ "same_spec_three_times", test_same_spec_three_times },
	{ "order_does_not_matter", test_order_does_not_matter },
	{ "failed_run_leaves_nothing", test_failed_run_leaves_nothing },
	{ "reclaim_reports_what_left_the_cache", test_reclaim_reports_what_left_the_cache },
	{ "reclaim_cross_check_catches_a_wrong_count", test_reclaim_cross_check_catches_a_wrong_count },
	{ "rss_checked_against_the_page_tables", test_rss_checked_against_the_page_tables },
	{ "mapped_pages_match_the_page_tables", test_mapped_pages_match_the_page_tables },
	{ "young_scan_figures_are_finite", test_young_scan_figures_are_finite },
	{ "non_finite_result_is_a_violation", test_non_finite_result_is_a_violation },
	{ "exit_variants_are_the_labs", test_exit_variants_are_the_labs },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "results", cases, (int)ARRAY_SIZE(cases));
}
