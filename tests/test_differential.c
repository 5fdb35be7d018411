// SPDX-License-Identifier: GPL-2.0-only
/*
 * Differential tests: the same random operation sequences, with the
 * hardware setting access/dirty in random entries of blocks, run on the
 * reference backend and on every fetched kernel backend. Every value the
 * operations return (young, gathered PTEs, access-flag changes, faults)
 * and the final page tables must agree; event counts may differ.
 */
#include <stdlib.h>
#include <time.h>

#include "hw/cache.h"
#include "hw/random.h"
#include "hw/phys.h"
#include "kernel/backend.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

#define D_SIZE (SZ_2M * 2)
#define D_PAGES (D_SIZE >> PAGE_SHIFT)
#define D_SEQS 64
#define D_OPS 1000
#define TRACE_MAX (D_OPS * 4 + D_PAGES + 16)

struct trace {
	u64 v[TRACE_MAX];
	int op[TRACE_MAX];
	int n;
};

static u64 rng;

static u64 rnd(u64 n)
{
	return xorshift_rnd(&rng, n);
}

static void rec(struct trace *t, int op, u64 v)
{
	if (t->n < (int)TRACE_MAX) {
		t->op[t->n] = op;
		t->v[t->n++] = v;
	}
}

static pte_t *slot(struct t_lab *t, u64 page)
{
	pmd_t *pmd = pmd_walk(t->mm, T_BASE + page * PAGE_SIZE);

	return pmd && !pmd_none(*pmd) ? pte_offset_map(pmd, T_BASE + page * PAGE_SIZE) : NULL;
}

/* Present run of the folio around page: [first, first + nr). */
static int run_of(struct t_lab *t, u64 page, u64 *first)
{
	pte_t *p = slot(t, page);

	if (!p || !pte_present(ptep_get(p)))
		return 0;
	struct folio *folio = pfn_folio(pte_pfn(ptep_get(p)));
	*first = page - (pte_pfn(ptep_get(p)) - folio_pfn(folio));
	if (*first + folio_nr_pages(folio) > D_PAGES)
		return 0;
	/* every page of the folio, in order: a real folio run */
	for (long i = 0; i < folio_nr_pages(folio); i++) {
		pte_t *q = slot(t, *first + i);

		if (!q || !pte_present(ptep_get(q)) || pte_pfn(ptep_get(q)) != folio_pfn(folio) + (u64)i)
			return 0;
	}
	return (int)folio_nr_pages(folio);
}

/* Keep the hardware's view a function of the page tables alone. */
static void forget_tlbs(void)
{
	for (int c = 0; c < hw_machine.nr_cpus; c++)
		hw_tlb_inval_all(&hw_machine.cpu[c].tlb, -1);
}

static int run_sequence(const char *impl, u64 seed, u64 folio, struct trace *tr)
{
	struct t_lab t;

	tr->n = 0;
	rng = seed;
	if (!t_setup_impl(&t, impl, "arm64", D_SIZE, folio, HW_POLICY_RANDOM))
		return -1;
	int order = t.vma->folio_order;
	switch_mm(&hw_machine.cpu[1], t.mm);
	for (int op = 0; op < D_OPS; op++) {
		u64 page = rnd(D_PAGES), first;
		u64 k = rnd(100);
		int nr;

		if (k < 40) {
			struct hw_cpu *cpu = &hw_machine.cpu[rnd(2)];

			hw_run_on_cpu(cpu->id);
			rec(tr, 1, (u64)access_user(cpu, t.mm, T_BASE + page * PAGE_SIZE, rnd(2)));
		} else if (k < 50) {
			pte_t *p = slot(&t, page);

			rec(tr, 2, p ? pte_val(ptep_get(p)) : 0);
		} else if (k < 55) {
			pte_t *p = slot(&t, page);

			rec(tr, 3, p ? pte_val(ptep_get_lockless(p)) : 0);
		} else if (k < 70 && (nr = run_of(&t, page, &first))) {
			u64 s = rnd((u64)nr), n = 1 + rnd((u64)nr - s);
			unsigned long a = T_BASE + (first + s) * PAGE_SIZE;
			pte_t *p = slot(&t, first) + s;
			struct vm_area_struct *v = find_vma(t.mm, a);

			if (n == 1 && rnd(2))
				rec(tr, 4, (u64)(rnd(2) ? ptep_test_and_clear_young(v, a, p)
							: ptep_clear_flush_young(v, a, p)));
			else
				rec(tr, 5, rnd(2) ? test_and_clear_young_ptes(v, a, p, (unsigned int)n)
						  : clear_flush_young_ptes(v, a, p, (unsigned int)n));
		} else if (k < 75 && (nr = run_of(&t, page, &first))) {
			u64 s = rnd((u64)nr), n = 1 + rnd((u64)nr - s);

			wrprotect_ptes(t.mm, T_BASE + (first + s) * PAGE_SIZE, slot(&t, first) + s,
				       (unsigned int)n);
		} else if (k < 80 && (nr = run_of(&t, page, &first))) {
			u64 s = rnd((u64)nr), n = 1 + rnd((u64)nr - s);
			cydp_t flags = 1 + (int)rnd(3);

			/* dirty is dropped per folio (MADV_FREE): whole folio, data discarded */
			if (flags & CYDP_CLEAR_DIRTY) {
				s = 0;
				n = (u64)nr;
				hw_frame_clean(pte_pfn(ptep_get(slot(&t, first))), n);
			}
			unsigned long a = T_BASE + (first + s) * PAGE_SIZE;
			clear_young_dirty_ptes(find_vma(t.mm, a), a, slot(&t, first) + s,
					       (unsigned int)n, flags);
		} else if (k < 88) {
			pte_t *p = slot(&t, page);
			unsigned long a = T_BASE + page * PAGE_SIZE;

			if (p && pte_present(ptep_get(p))) {
				pte_t e = pte_mkyoung(ptep_get(p));

				if (rnd(2))
					e = pte_mkdirty(pte_mkwrite(e));
				rec(tr, 6, (u64)ptep_set_access_flags(find_vma(t.mm, a), a, p, e,
								      pte_dirty(e)));
			}
		} else if (k < 94) {
			u64 n = 1 + rnd(40);

			if (page + n > D_PAGES)
				n = D_PAGES - page;
			do_munmap(t.mm, T_BASE + page * PAGE_SIZE, n * PAGE_SIZE);
			mmap_anon(t.mm, T_BASE + page * PAGE_SIZE, n * PAGE_SIZE,
				  VM_READ | VM_WRITE, order, false);
		} else {
			/* a single-entry rewrite: unfold now, refold when complete */
			pte_t *p = slot(&t, page);

			if (p && pte_present(ptep_get(p))) {
				unsigned long a = T_BASE + page * PAGE_SIZE;
				pte_t e = ptep_get_and_clear_full(t.mm, a, p, 0);

				flush_tlb_page(find_vma(t.mm, a), a);
				set_pte_at(t.mm, a, p, pte_mkold(e));
			}
		}
		forget_tlbs();
	}
	/* the final page tables, entry by entry */
	for (u64 i = 0; i < D_PAGES; i++) {
		pte_t *p = slot(&t, i);

		rec(tr, 9, p ? p->pte : 0);
	}
	mm_check_invariants(t.mm);
	int bad = (int)hw_violations.total;
	for (int i = 0; i < hw_violations.kept; i++)
		printf("    # %s: %s\n", impl, hw_violations.msg[i]);
	t_teardown(&t);
	return bad;
}

static struct trace ref_tr, k_tr;

static void differential(const char *impl)
{
	static const u64 folios[] = { SZ_16K_T, SZ_64K, SZ_128K_T, SZ_2M };
	char names[32][64];
	int n = kernel_fetched(names, 32);
	bool have = false;
	struct timespec t0, t1;

	for (int i = 0; i < n; i++)
		have |= !strcmp(names[i], impl);
	if (!have) {
		ktap_skip_now = "kernel source not fetched (ptelab kernels fetch)";
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int seq = 0; seq < D_SEQS; seq++) {
		u64 seed = 0x9E3779B97F4A7C15ULL * (seq + 1);
		u64 folio = folios[seq % ARRAY_SIZE(folios)];

		EXPECT_EQ(run_sequence("ref", seed, folio, &ref_tr), 0);
		EXPECT_EQ(run_sequence(impl, seed, folio, &k_tr), 0);
		EXPECT_EQ(ref_tr.n, k_tr.n);
		for (int i = 0; i < ref_tr.n && i < k_tr.n; i++) {
			if (ref_tr.op[i] != k_tr.op[i] || ref_tr.v[i] != k_tr.v[i]) {
				printf("    # seq %d folio %lluK step %d op %d: ref %#llx, %s %#llx\n",
				       seq, (unsigned long long)(folio >> 10), i, ref_tr.op[i],
				       (unsigned long long)ref_tr.v[i], impl,
				       (unsigned long long)k_tr.v[i]);
				ktap_failed_now = 1;
				break;
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("    # %s: %d sequences x %d operations on ref and %s in %.2f s\n", impl, D_SEQS,
	       D_OPS, impl, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
}

static void test_linux_6_12(void) { differential("linux-6.12"); }
static void test_linux_7_2(void) { differential("linux-7.2"); }
static void test_linux_7_3(void) { differential("linux-7.3"); }

static const struct ktap_case cases[] = {
	{ "linux-6.12_vs_ref", test_linux_6_12 },
	{ "linux-7.2_vs_ref", test_linux_7_2 },
	{ "linux-7.3_vs_ref", test_linux_7_3 },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "differential", cases, (int)ARRAY_SIZE(cases));
}
