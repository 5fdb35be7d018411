// SPDX-License-Identifier: GPL-2.0-only
/*
 * Random sequences of simulated loads/stores (on two CPUs and, on a
 * machine with one, the SMMU; the hardware updating random entries of
 * contiguous blocks, also inside kernel operations with --interleave) and
 * page-table operations through core-mm, against an independent model of
 * what the stores imply. Most operations stay near one block for a while,
 * so sequences like clean, load, store, fold reach the same entries.
 */
#include <stdio.h>
#include <string.h>

#include "arch/pte_op_calls.h"
#include "hw/cpu.h"
#include "hw/interleave.h"
#include "hw/invariants.h"
#include "hw/phys.h"
#include "hw/random.h"
#include "mm/filemap.h"
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
/* pages stored to inside an operation that cleans them: either may win */
static bool raced[P_PAGES];

/* A read-only shared file mapping after the anonymous one (file folios). */
#define F_BASE (T_BASE + P_SIZE)
#define F_PAGES 256

static struct mm_struct *fuzz_mm;

/* Any agent's store to the sequence's mm that succeeded, also inside kernel operations. */
static void fuzz_store(const struct hw_cpu *cpu, u64 va)
{
	if (cpu->ttbr != fuzz_mm->pgd || va < T_BASE || va >= T_BASE + P_SIZE)
		return;
	u64 page = (va - T_BASE) >> PAGE_SHIFT;

	written[page] = true;
	if (cleaned[page])
		raced[page] = true;
	cleaned[page] = false;
}

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
	struct address_space *file;
	struct fuzz t;
	u64 hot = 0;

	rng = fuzz_rng_start(seed);
	t.cpu = &hw_machine.cpu[0];
	t.mm = mm_alloc();
	file = address_space_create(F_PAGES * PAGE_SIZE, (unsigned int)min(order, 6));
	if (!t.mm || !file || !mmap_anon(t.mm, T_BASE, P_SIZE, VM_READ | VM_WRITE, order, false) ||
	    !mmap_file(t.mm, F_BASE, F_PAGES * PAGE_SIZE, file, 0, VM_READ)) {
		hw_violation(VIOL_OTHER, "fuzz: cannot set up the address space");
		return;
	}
	for (int c = 0; c < hw_machine.nr_cpus; c++)
		switch_mm(&hw_machine.cpu[c], t.mm);
	/* the SMMU translates a device's accesses through this mm (SVA) */
	if (hw_machine.smmu >= 0)
		hw_cpu_switch_mm(&hw_machine.cpu[hw_machine.smmu], t.mm->pgd, t.mm->context.asid);
	fuzz_mm = t.mm;
	hw_interleave.on_store = fuzz_store;
	hw_interleave.on = hw_interleave.chance > 0;
	for (u64 i = 0; i < P_PAGES; i++)
		written[i] = cleaned[i] = raced[i] = false;

	for (int op = 0; op < nr_ops; op++) {
		u64 page, first;
		int k = (int)rnd(lifecycle ? 124 : 112), nr;
		struct hw_cpu *cpu = &hw_machine.cpu[rnd(2)];

		/* near one block for a while, so operations meet on the same entries */
		if (rnd(32) == 0)
			hot = rnd(P_PAGES / 16) * 16;
		page = rnd(4) ? hot + rnd(16) : rnd(P_PAGES);
		hw_machine.cur_cpu = cpu->id;

		if (k < 45) {
			bool w = rnd(2);

			/* a device's access through the SMMU faults into the same handler (iopf) */
			if (hw_machine.smmu >= 0 && rnd(4) == 0)
				cpu = &hw_machine.cpu[hw_machine.smmu];
			if (access_user(cpu, t.mm, T_BASE + page * PAGE_SIZE, w) == 0 && w)
				fuzz_store(cpu, T_BASE + page * PAGE_SIZE);
		} else if (k < 55) {
			pte_t *p = ptep_of(&t, page);

			if (p)
				(void)ptep_get(p);
		} else if (k < 65 && (nr = folio_run(&t, page, &first))) {
			pte_t *p = ptep_of(&t, first);
			u64 s = rnd((u64)nr), n = 1 + rnd((u64)nr - s);
			struct vm_area_struct *v = find_vma(t.mm, T_BASE + first * PAGE_SIZE);
			unsigned long a = T_BASE + (first + s) * PAGE_SIZE;

			switch (rnd(4)) {
			case 0:
				test_and_clear_young_ptes(v, a, p + s, (unsigned int)n);
				break;
			case 1:
				clear_flush_young_ptes(v, a, p + s, (unsigned int)n);
				break;
			case 2:
				ptep_test_and_clear_young(v, a, p + s);
				break;
			default:
				ptep_clear_flush_young(v, a, p + s);
				break;
			}
		} else if (k < 72 && (nr = folio_run(&t, page, &first))) {
			/* fork-style write protect, then a write fault re-enables */
			wrprotect_ptes(t.mm, T_BASE + first * PAGE_SIZE, ptep_of(&t, first), (unsigned int)nr);
			flush_tlb_mm(t.mm);
		} else if (k < 78 && (nr = folio_run(&t, page, &first))) {
			pte_t *p;

			/*
			 * MADV_FREE-style: clean the folio; its data is discarded.
			 * A store inside the operation may land before or after
			 * the clean: such pages are claimed neither way.
			 */
			for (int i = 0; i < nr; i++) {
				written[first + i] = false;
				cleaned[first + i] = true;
				raced[first + i] = false;
			}
			clear_young_dirty_ptes(find_vma(t.mm, T_BASE + first * PAGE_SIZE), T_BASE + first * PAGE_SIZE, ptep_of(&t, first),
					       (unsigned int)nr, CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
			hw_frame_clean(pte_pfn(ptep_get(ptep_of(&t, first))), (u64)nr);
			flush_tlb_mm(t.mm);
			for (int i = 0; i < nr; i++) {
				if (!raced[first + i] && !written[first + i])
					continue;
				/* MADV_FREE may drop what was stored before it returned */
				written[first + i] = cleaned[first + i] = false;
				p = ptep_of(&t, first + i);
				if (p && pte_present(ptep_get(p)) && !pte_dirty(ptep_get(p)))
					hw_frame_clean(pte_pfn(ptep_get(p)), 1);
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
		} else if (k < 104) {
			/* GUP-fast: a lockless read, checked again as gup_fast_pte_range does */
			pte_t *p = ptep_of(&t, page);

			if (p) {
				pte_t l = ptep_get_lockless(p), g = ptep_get(p);

				if (pte_present(l) != pte_present(g) ||
				    (pte_present(l) && pte_pfn(l) != pte_pfn(g)))
					hw_violation(VIOL_OTHER, "ptep_get_lockless of va %#lx: pte %#llx, ptep_get: %#llx",
						     T_BASE + page * PAGE_SIZE, (unsigned long long)pte_val(l),
						     (unsigned long long)pte_val(g));
			}
		} else if (k < 108) {
			/* the file mapping: faults map whole folios, munmap zaps file folios */
			u64 fp = rnd(F_PAGES);

			if (rnd(3)) {
				access_user(cpu, t.mm, F_BASE + fp * PAGE_SIZE, false);
			} else {
				u64 n = 1 + rnd(min((u64)40, F_PAGES - fp));

				do_munmap(t.mm, F_BASE + fp * PAGE_SIZE, n * PAGE_SIZE);
				(void)mmap_file(t.mm, F_BASE + fp * PAGE_SIZE, n * PAGE_SIZE, file, fp, VM_READ);
			}
		} else if (k < 110) {
			/* a non-present entry (swap-like) set in an empty slot, then cleared */
			pte_t *p = ptep_of(&t, page);
			unsigned long a = T_BASE + page * PAGE_SIZE;

			if (p && pte_none(ptep_get(p))) {
				set_pte_at(t.mm, a, p, __pte((1 + rnd(0xffff)) << 12));
				ptep_get_and_clear_full(t.mm, a, p, 0);
			}
		} else if (k < 112) {
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

			k -= 12;
			if (page + n > P_PAGES)
				n = P_PAGES - page;
			len = n * PAGE_SIZE;
			if (k < 103) {
				struct mm_struct *child = dup_mm(t.mm);
				struct hw_cpu *c1 = &hw_machine.cpu[1];

				/* the child runs on cpu1: its faults are handled there */
				switch_mm(c1, child);
				hw_machine.cur_cpu = c1->id;
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
	hw_interleave.on = false;
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
	address_space_destroy(file);
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
	run_result_add(r, "interleaved_actions", (double)hw_interleave.acted);
	/* coverage: calls of each PTE op, and those on a contiguous entry */
	for (int o = 0; o < NR_PTE_OPS; o++) {
		run_result_add(r, pte_op_result_keys[o][0], (double)(pte_op_calls[o][0] + pte_op_calls[o][1]));
		run_result_add(r, pte_op_result_keys[o][1], (double)pte_op_calls[o][1]);
	}
	lab_machine_teardown();
	return 0;
}

const struct workload workload_fuzz = {
	.name = "fuzz",
	.help = "random page-table and lifecycle operations checked against a model (ptelab check)",
	.measured = "the whole run",
	.opts = RUN_OPT_FOLIO_SIZE | RUN_OPT_ITERATIONS | RUN_OPT_VARIANT | RUN_OPT_INTERLEAVE,
	.default_size = FUZZ_SIZE,
	.default_folio_size = SZ_64K,
	.variants = "lifecycle|pte-only",
	.default_iterations = 16,
	.iterations_are = "sequences",
	.min_cpus = 2,
	.run = fuzz_run,
};
