// SPDX-License-Identifier: GPL-2.0-only
/*
 * Property tests: random sequences of simulated loads/stores (on two
 * CPUs, the hardware updating random entries of contiguous blocks) and
 * pte operations. Afterwards, nothing is lost: every page stored to since
 * it was last cleaned reads dirty, no dirty state appears in a block
 * nobody stored to, and the oracle and TLB sweeps find no violation.
 */
#include <stdlib.h>

#include "hw/random.h"
#include "hw/phys.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

#define P_SIZE (SZ_2M * 2)
#define P_PAGES (P_SIZE >> PAGE_SHIFT)

static u64 rng = 88172645463325252ULL;

static u64 rnd(u64 n)
{
	return xorshift_rnd(&rng, n);
}

static bool written[P_PAGES]; /* stored to since last cleaned */
static bool cleaned[P_PAGES]; /* cleaned, not stored to or remapped since */

static void flush_all(struct t_lab *t)
{
	flush_tlb_mm(t->mm);
}

static pte_t *ptep_of(struct t_lab *t, u64 page)
{
	u64 *pmd = pmd_walk(t->mm, T_BASE + page * PAGE_SIZE);

	return pmd ? pte_offset_map(pmd, T_BASE + page * PAGE_SIZE) : NULL;
}

/* The folio-aligned run of present PTEs around page, as rmap would see. */
static int folio_run(struct t_lab *t, u64 page, u64 *first)
{
	pte_t *ptep = ptep_of(t, page);

	if (!ptep || !pte_present(ptep_get(ptep)))
		return 0;
	struct folio *folio = pfn_folio(pte_pfn(ptep_get(ptep)));
	u64 nr = folio_nr_pages(folio);
	*first = page - (pte_pfn(ptep_get(ptep)) - folio_pfn(folio));
	if (*first + nr > P_PAGES)
		return 0;
	for (u64 i = 0; i < nr; i++) {
		pte_t *p = ptep_of(t, *first + i);

		if (!p || !pte_present(ptep_get(p)) || pte_pfn(ptep_get(p)) != folio_pfn(folio) + i)
			return 0;
	}
	return (int)nr;
}

static void one_sequence(const char *arch_name, u64 folio, enum hw_cont_policy pol,
			 int nr_ops, bool lifecycle)
{
	struct t_lab t;

	t_setup(&t, arch_name, P_SIZE, folio, pol);
	int order = t.vma->folio_order;
	switch_mm(&hw_machine.cpu[1], t.mm);
	for (u64 i = 0; i < P_PAGES; i++)
		written[i] = cleaned[i] = false;

	for (int op = 0; op < nr_ops; op++) {
		u64 page = rnd(P_PAGES), first;
		int k = (int)rnd(lifecycle ? 112 : 100), nr;
		struct hw_cpu *cpu = &hw_machine.cpu[rnd(2)];

		if (k < 45) {
			bool w = rnd(2);

			hw_machine.cur_cpu = cpu->id;
			if (access_user(cpu, t.mm, T_BASE + page * PAGE_SIZE, w) == 0 && w) {
				written[page] = true;
				cleaned[page] = false;
			}
		} else if (k < 55) {
			pte_t *p = ptep_of(&t, page);

			if (p)
				(void)ptep_get(p);
		} else if (k < 65 && (nr = folio_run(&t, page, &first))) {
			pte_t *p = ptep_of(&t, first);
			u64 s = rnd((u64)nr), n = 1 + rnd((u64)nr - s);

			if (rnd(2))
				test_and_clear_young_ptes(find_vma(t.mm, T_BASE + first * PAGE_SIZE), T_BASE + (first + s) * PAGE_SIZE, p + s, (unsigned int)n);
			else
				clear_flush_young_ptes(find_vma(t.mm, T_BASE + first * PAGE_SIZE), T_BASE + (first + s) * PAGE_SIZE, p + s, (unsigned int)n);
		} else if (k < 72 && (nr = folio_run(&t, page, &first))) {
			/* fork-style write protect, then a write fault re-enables */
			wrprotect_ptes(t.mm, T_BASE + first * PAGE_SIZE, ptep_of(&t, first), (unsigned int)nr);
			flush_all(&t);
		} else if (k < 78 && (nr = folio_run(&t, page, &first))) {
			/* MADV_FREE-style: clean the folio; its data is discarded */
			clear_young_dirty_ptes(find_vma(t.mm, T_BASE + first * PAGE_SIZE), T_BASE + first * PAGE_SIZE, ptep_of(&t, first),
					       (unsigned int)nr, CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
			hw_frame_clean(pte_pfn(ptep_get(ptep_of(&t, first))), (u64)nr);
			flush_all(&t);
			for (int i = 0; i < nr; i++) {
				written[first + i] = false;
				cleaned[first + i] = true;
			}
		} else if (k < 84) {
			/* munmap a random span (partial folios, partial blocks) */
			u64 n = 1 + rnd(40);

			if (page + n > P_PAGES)
				n = P_PAGES - page;
			do_munmap(t.mm, T_BASE + page * PAGE_SIZE, n * PAGE_SIZE);
			for (u64 i = page; i < page + n; i++)
				written[i] = cleaned[i] = false;
			/* map it again so faults can refill it */
			struct vm_area_struct *v = mmap_anon(t.mm, T_BASE + page * PAGE_SIZE,
							     n * PAGE_SIZE, VM_READ | VM_WRITE,
							     order, false);
			(void)v;
		} else if (k < 90) {
			/* the other CPU's TLB forgets (capacity eviction) */
			hw_tlb_inval_all(&cpu->tlb, -1);
		} else if (k < 100) {
			/* a single-entry rewrite: unfold, then refold when complete */
			pte_t *p = ptep_of(&t, page);

			if (p && pte_present(ptep_get(p))) {
				pte_t e = ptep_get(p);

				ptep_set_access_flags(find_vma(t.mm, T_BASE + page * PAGE_SIZE), T_BASE + page * PAGE_SIZE, p,
						      pte_mkyoung(e), 0);
			}
		} else {
			/* process lifecycle: fork, mprotect, madvise, mlock on a span */
			u64 n = 1 + rnd(64);
			unsigned long a = T_BASE + page * PAGE_SIZE, len;

			if (page + n > P_PAGES)
				n = P_PAGES - page;
			len = n * PAGE_SIZE;
			if (k < 103) {
				struct mm_struct *child = dup_mm(t.mm);
				struct hw_cpu *c1 = &hw_machine.cpu[1];

				switch_mm(c1, child);
				for (int i = 0; i < 8; i++)
					access_user(c1, child, T_BASE + rnd(P_PAGES) * PAGE_SIZE, true);
				mm_check_invariants(child);
				mmput(child);
				switch_mm(c1, t.mm);
			} else if (k < 106) {
				do_mprotect(t.mm, a, len, VM_READ);
				EXPECT(access_user(t.cpu, t.mm, a, true) != 0);
				do_mprotect(t.mm, a, len, VM_READ | VM_WRITE);
			} else if (k < 108) {
				do_madvise(t.mm, a, len, MADV_DONTNEED);
				for (u64 i = page; i < page + n; i++)
					written[i] = cleaned[i] = false;
			} else if (k < 110) {
				/* which folios get freed lazily is up to the kernel's rules */
				do_madvise(t.mm, a, len, MADV_FREE);
				for (u64 i = ALIGN_DOWN(page, 512); i < min(P_PAGES, ALIGN(page + n, 512)); i++)
					written[i] = cleaned[i] = false;
			} else if (k < 111) {
				do_madvise(t.mm, a, len, MADV_COLD);
			} else {
				/* population is a write access (FOLL_WRITE): it may dirty */
				do_mlock(t.mm, a, len, true);
				do_mlock(t.mm, a, len, false);
				for (u64 i = page; i < page + n; i++)
					cleaned[i] = false;
			}
		}
		(void)order;
	}
	flush_all(&t);
	mm_check_invariants(t.mm);

	/*
	 * Stores imply dirty. Dirty may spread within a contiguous block
	 * (unfold gathers it), but a block cleaned and never stored to or
	 * remapped since must read clean.
	 */
	u64 block = arch->fmt->cont_ptes ? arch->fmt->cont_ptes : 1;
	for (u64 i = 0; i < P_PAGES; i++) {
		pte_t *p = ptep_of(&t, i);
		bool present = p && pte_present(ptep_get(p));
		bool all_clean = true;

		if (written[i])
			EXPECT(present && pte_dirty(ptep_get(p)));
		for (u64 j = ALIGN_DOWN(i, block); j < ALIGN_DOWN(i, block) + block; j++)
			all_clean &= cleaned[j];
		if (present && all_clean)
			EXPECT(!pte_dirty(ptep_get(p)));
	}
	EXPECT_EQ(hw_violations.total, 0);
	if (hw_violations.total)
		for (int i = 0; i < hw_violations.kept; i++)
			printf("    # %s\n", hw_violations.msg[i]);
	t_teardown(&t);
}

static void run_many(const char *arch_name, enum hw_cont_policy pol, bool lifecycle)
{
	static const u64 sizes[] = { SZ_4K, SZ_16K_T, SZ_64K, SZ_256K_T, SZ_2M };

	for (unsigned int s = 0; s < ARRAY_SIZE(sizes); s++)
		for (int seq = 0; seq < 8; seq++)
			one_sequence(arch_name, sizes[s], pol, 3000, lifecycle);
}

static void test_arm64_accessed(void) { run_many("arm64", HW_POLICY_ACCESSED, false); }
static void test_arm64_random(void) { run_many("arm64", HW_POLICY_RANDOM, false); }
static void test_arm64_adversarial(void) { run_many("arm64", HW_POLICY_ADVERSARIAL, false); }
static void test_x86(void) { run_many("x86", HW_POLICY_ACCESSED, false); }
static void test_arm64_lifecycle(void) { run_many("arm64", HW_POLICY_RANDOM, true); }
static void test_x86_lifecycle(void) { run_many("x86", HW_POLICY_ACCESSED, true); }

static const struct ktap_case cases[] = {
	{ "arm64_policy_accessed", test_arm64_accessed },
	{ "arm64_policy_random", test_arm64_random },
	{ "arm64_policy_adversarial", test_arm64_adversarial },
	{ "x86", test_x86 },
	{ "arm64_lifecycle_ops", test_arm64_lifecycle },
	{ "x86_lifecycle_ops", test_x86_lifecycle },
};

int main(void)
{
	return ktap_run("property", cases, ARRAY_SIZE(cases));
}
