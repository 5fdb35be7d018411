// SPDX-License-Identifier: GPL-2.0-only
/*
 * Random sequences of simulated loads/stores (on two CPUs, the hardware
 * updating random entries of contiguous blocks) and page-table operations
 * through core-mm, against an independent model of what the stores imply.
 */
#include <string.h>

#include "hw/cpu.h"
#include "hw/invariants.h"
#include "hw/phys.h"
#include "hw/random.h"
#include "mm/mm.h"
#include "workloads/fuzz.h"
#include "workloads/workload.h"

#define T_BASE FUZZ_BASE
#define P_SIZE FUZZ_SIZE
#define P_PAGES FUZZ_PAGES

static u64 rng;

static u64 rnd(u64 n)
{
	return xorshift_rnd(&rng, n);
}

static bool written[P_PAGES]; /* stored to since last cleaned */
static bool cleaned[P_PAGES]; /* cleaned, not stored to or remapped since */

struct fuzz {
	struct mm_struct *mm;
	struct hw_cpu *cpu;
};

static pte_t *ptep_of(struct fuzz *t, u64 page)
{
	pmd_t *pmd = pmd_walk(t->mm, T_BASE + page * PAGE_SIZE);

	return pmd && pmd_table(*pmd) ?
		pte_offset_map(pmd, T_BASE + page * PAGE_SIZE) : NULL;
}

/* The folio's whole run of PTEs around page, in order, as rmap would see it. */
static int folio_run(struct fuzz *t, u64 page, u64 *first)
{
	pte_t *ptep = ptep_of(t, page);

	if (!ptep || !pte_present(ptep_get(ptep)))
		return 0;
	struct folio *folio = pfn_folio(pte_pfn(ptep_get(ptep)));
	u64 nr = (u64)folio_nr_pages(folio);
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

u64 fuzz_rng_start(u64 seed)
{
	return xorshift_seed(seed);
}

void fuzz_sequence(u64 seed, int order, int nr_ops, bool lifecycle)
{
	struct fuzz t;

	rng = fuzz_rng_start(seed);
	t.cpu = &hw_machine.cpu[0];
	t.mm = mm_alloc();
	if (!t.mm || !mmap_anon(t.mm, T_BASE, P_SIZE, VM_READ | VM_WRITE, order, false)) {
		hw_violation(VIOL_OTHER, "fuzz: cannot set up the address space");
		return;
	}
	switch_mm(t.cpu, t.mm);
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
			flush_tlb_mm(t.mm);
		} else if (k < 78 && (nr = folio_run(&t, page, &first))) {
			/* MADV_FREE-style: clean the folio; its data is discarded */
			clear_young_dirty_ptes(find_vma(t.mm, T_BASE + first * PAGE_SIZE), T_BASE + first * PAGE_SIZE, ptep_of(&t, first),
					       (unsigned int)nr, CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
			hw_frame_clean(pte_pfn(ptep_get(ptep_of(&t, first))), (u64)nr);
			flush_tlb_mm(t.mm);
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
				if (access_user(t.cpu, t.mm, a, true) == 0)
					hw_violation(VIOL_OTHER, "store to %#lx succeeded after mprotect(PROT_READ)", a);
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
	flush_tlb_mm(t.mm);
	mm_check_invariants(t.mm);

	/*
	 * Stores imply dirty. Dirty may spread within a contiguous block
	 * (unfold gathers it), but a block cleaned and never stored to or
	 * remapped since must read clean.
	 */
	u64 block = arch_cont_ptes();
	for (u64 i = 0; i < P_PAGES; i++) {
		pte_t *p = ptep_of(&t, i);
		bool present = p && pte_present(ptep_get(p));
		bool all_clean = true;

		if (written[i] && !(present && pte_dirty(ptep_get(p))))
			hw_violation(VIOL_LOST_DIRTY, "fuzz: page %llu was stored to but reads clean",
				     (unsigned long long)i);
		for (u64 j = ALIGN_DOWN(i, block); j < ALIGN_DOWN(i, block) + block; j++)
			all_clean &= cleaned[j];
		if (present && all_clean && pte_dirty(ptep_get(p)))
			hw_violation(VIOL_OTHER, "fuzz: page %llu reads dirty though its block was cleaned and not stored to",
				     (unsigned long long)i);
	}
	mmput(t.mm);
}


u64 fuzz_sequence_seed(u64 run_seed, u64 s)
{
	return run_seed * 0x9E3779B97F4A7C15ULL + s + 1;
}

/* The fuzz workload: --iterations sequences of FUZZ_OPS operations each. */
#define FUZZ_OPS 2000

static int fuzz_run(const struct run_params *p, struct run_result *r, char *err,
		    size_t errlen)
{
	u64 seqs = p->iterations ? p->iterations : 16;
	bool lifecycle = !p->variant || strcmp(p->variant, "pte-only");

	if (lab_machine_setup(p, FUZZ_PAGES * 2 + 8192, err, errlen))
		return -1;
	for (u64 s = 0; s < seqs; s++)
		fuzz_sequence(fuzz_sequence_seed(p->seed, s), lab_folio_order(p->folio_size),
			      FUZZ_OPS, lifecycle);
	mm_check_all_freed();
	r->measured = hw_events;
	run_result_add(r, "sequences", (double)seqs);
	run_result_add(r, "operations", (double)(seqs * FUZZ_OPS));
	lab_machine_teardown();
	return 0;
}

const struct workload workload_fuzz = {
	.name = "fuzz",
	.help = "random page-table and lifecycle operations checked against a model (ptelab check)",
	.measured = "the whole run",
	.opts = RUN_OPT_FOLIO_SIZE | RUN_OPT_ITERATIONS | RUN_OPT_VARIANT,
	.default_size = FUZZ_SIZE,
	.default_folio_size = SZ_64K,
	.variants = "lifecycle|pte-only",
	.default_iterations = 16,
	.iterations_are = "sequences",
	.min_cpus = 2,
	.run = fuzz_run,
};
