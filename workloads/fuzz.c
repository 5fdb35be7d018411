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
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch/pte_op_calls.h"
#include "hw/cache.h"
#include "hw/cpu.h"
#include "hw/host.h"
#include "hw/tlb.h"
#include "hw/interleave.h"
#include "hw/invariants.h"
#include "hw/phys.h"
#include "hw/random.h"
#include "mm/filemap.h"
#include "mm/core.h"
#include "mm/mm.h"
#include "mm/reclaim.h"
#include "workloads/fuzz.h"
#include "workloads/workload.h"

#define T_BASE FUZZ_BASE
#define P_SIZE FUZZ_SIZE
#define P_PAGES FUZZ_PAGES

/*
 * A sequence is drawn first, as a list of operations each with its own
 * generator for its inner choices, then run: removing operations (the
 * minimiser) leaves every other one as it was.
 */
static u64 *rng;

static u64 rnd(u64 n)
{
	return xorshift_rnd(rng, n);
}

struct fuzz_op {
	u8 k;      /* which operation (the ranges in fuzz_op_run) */
	u8 cpu;
	u32 page;  /* of the anonymous mapping, near the hot block 3 times in 4 */
	u64 r;     /* its own generator's start */
};

static bool written[P_PAGES]; /* stored to since last cleaned */
static bool cleaned[P_PAGES]; /* cleaned, not stored to or remapped since */
/* pages stored to inside an operation that cleans them: either may win */
static bool raced[P_PAGES];

/* A read-only shared file mapping after the anonymous one (file folios). */
#define F_BASE (T_BASE + P_SIZE)
#define F_PAGES 256

static struct mm_struct *fuzz_mm;

/*
 * --variant differential (check --diff): every TLB forgotten after each
 * operation, so what the hardware does depends on the page tables alone
 * and two backends see the same walks; the final tables are digested.
 */
static bool fuzz_differential;
static u64 fuzz_tables_digest;

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
	return pte_lookup(t->mm, T_BASE + page * PAGE_SIZE);
}

/* The folio's whole run of PTEs around page, in order, as rmap would see it. */
static int folio_run(struct fuzz *t, u64 page, u64 *first)
{
	pte_t *ptep = ptep_of(t, page);

	if (!ptep || !pte_present(ptep_get(ptep)))
		return 0;
	struct folio *folio = pfn_folio(pte_pfn(ptep_get(ptep)));
	u64 nr = (u64)folio_nr_pages(folio), pfn0 = folio_pfn(folio);
	u64 table = ALIGN_DOWN(page, PTRS_PER_PTE);

	*first = page - (pte_pfn(ptep_get(ptep)) - pfn0);
	if (*first + nr > P_PAGES)
		return 0;
	/* a folio mremapped across two PTE tables is two runs: callers batch within one table */
	if (*first < table) {
		nr -= table - *first;
		pfn0 += table - *first;
		*first = table;
	}
	nr = min(nr, table + PTRS_PER_PTE - *first);
	for (u64 i = 0; i < nr; i++) {
		pte_t *p = ptep_of(t, *first + i);

		if (!p || !pte_present(ptep_get(p)) || pte_pfn(ptep_get(p)) != pfn0 + i)
			return 0;
	}
	return (int)nr;
}

/* mprotect read-only, a store that must fault, read-write again */
static void fuzz_mprotect(struct fuzz *t, unsigned long a, unsigned long len)
{
	do_mprotect(t->mm, a, len, VM_READ);
	if (access_user(t->cpu, t->mm, a, true) == 0)
		hw_violation(VIOL_OTHER, "store to %#lx succeeded after mprotect(PROT_READ)", a);
	do_mprotect(t->mm, a, len, VM_READ | VM_WRITE);
	/* a batch must not make writable what may be shared (checked now: later ops may hide it) */
	mm_check_writable(t->mm, a, a + len);
}

/* MADV_FREE of n pages at page: which folios get freed lazily is up to the kernel's rules */
static void fuzz_madv_free(struct fuzz *t, u64 page, u64 n)
{
	do_madvise(t->mm, T_BASE + page * PAGE_SIZE, n * PAGE_SIZE, MADV_FREE);
	for (u64 i = ALIGN_DOWN(page, 512); i < min(P_PAGES, ALIGN(page + n, 512)); i++)
		written[i] = cleaned[i] = false;
}

/* mremap n pages at page to page `to`; the hole it leaves is mapped again */
static void fuzz_mremap(struct fuzz *t, u64 page, u64 n, u64 to, int order)
{
	unsigned long a = T_BASE + page * PAGE_SIZE, len = n * PAGE_SIZE;

	if (to + n > P_PAGES || do_mremap_fixed(t->mm, a, len, T_BASE + to * PAGE_SIZE))
		return;
	for (u64 i = 0; i < n; i++) {
		/* a moved batch carries its folio's dirty to every entry */
		written[to + i] = written[page + i];
		cleaned[to + i] = false;
		raced[to + i] = raced[page + i];
		written[page + i] = cleaned[page + i] = raced[page + i] = false;
	}
	mm_check_writable(t->mm, T_BASE + to * PAGE_SIZE, T_BASE + to * PAGE_SIZE + len);
	(void)mmap_anon(t->mm, a, len, VM_READ | VM_WRITE, order, false);
}

static const char *const fork_follow_names[] = {
	"", "; mprotect its folio read-only and back", "; MADV_FREE its folio, a store, MADV_PAGEOUT",
	"; stores to its first block, mprotect its folio read-only and back, mremap it",
};

/* While the minimiser prints a trace: what the operation did, in words. */
static char *fuzz_desc;
#define DESC(...) do { if (fuzz_desc) snprintf(fuzz_desc, 160, __VA_ARGS__); } while (0)
#define VA(pg) ((unsigned long long)(T_BASE + (u64)(pg) * PAGE_SIZE))

/* One operation: its kind, agent and page drawn, its inner choices from op->r. */
static void fuzz_op_run(struct fuzz *t_, const struct fuzz_op *op, int order,
			struct address_space *file)
{
	struct fuzz t = *t_;
	u64 page = op->page, first, orng = op->r;
	int k = op->k, nr;
	struct hw_cpu *cpu = &hw_machine.cpu[op->cpu];

	rng = &orng;
	/*
	 * the hardware's random choices inside it (policy, interleaving) from
	 * its own generator too: the minimiser's removals leave them alone
	 */
	hw_machine.rng = (op->r * 0x9E3779B97F4A7C15ULL) | 1;
	hw_run_on_cpu(cpu->id);
	if (k < 45) {
		bool w = rnd(2);

		/* a device's access through the SMMU faults into the same handler (iopf) */
		if (hw_machine.smmu >= 0 && rnd(4) == 0)
			cpu = &hw_machine.cpu[hw_machine.smmu];
		DESC("%s %s va %#llx", hw_agent_name(cpu), w ? "store" : "load", VA(page));
		if (access_user(cpu, t.mm, T_BASE + page * PAGE_SIZE, w) == 0 && w)
			fuzz_store(cpu, T_BASE + page * PAGE_SIZE);
	} else if (k < 55) {
		pte_t *p = ptep_of(&t, page);

		DESC("ptep_get va %#llx", VA(page));
		if (p)
			(void)ptep_get(p);
	} else if (k < 65 && (nr = folio_run(&t, page, &first))) {
		pte_t *p = ptep_of(&t, first);
		u64 s = rnd((u64)nr), n = 1 + rnd((u64)nr - s);
		struct vm_area_struct *v = find_vma(t.mm, T_BASE + first * PAGE_SIZE);
		unsigned long a = T_BASE + (first + s) * PAGE_SIZE;

		static const char *const young_ops[] = { "test_and_clear_young_ptes", "clear_flush_young_ptes",
							 "ptep_test_and_clear_young", "ptep_clear_flush_young" };
		u64 which = rnd(4);

		DESC("%s va %#lx nr %llu", young_ops[which], a, which < 2 ? (unsigned long long)n : 1ULL);
		switch (which) {
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
		DESC("wrprotect_ptes va %#llx nr %d; flush_tlb_mm", VA(first), nr);
		wrprotect_ptes(t.mm, T_BASE + first * PAGE_SIZE, ptep_of(&t, first), (unsigned int)nr);
		flush_tlb_mm(t.mm);
	} else if (k < 78 && (nr = folio_run(&t, page, &first))) {
		pte_t *p;

		/*
		 * MADV_FREE-style: clean the folio; its data is discarded.
		 * A store inside the operation may land before or after
		 * the clean: such pages are claimed neither way.
		 */
		DESC("clear_young_dirty_ptes va %#llx nr %d (MADV_FREE-style); flush_tlb_mm", VA(first), nr);
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
		DESC("munmap va %#llx pages %llu; mmap again", VA(page), (unsigned long long)n);
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
		DESC("%s TLB forgets everything", hw_agent_name(cpu));
		hw_tlb_inval_all(&cpu->tlb, -1);
	} else if (k < 104) {
		/* GUP-fast: a lockless read, checked again as gup_fast_pte_range does */
		pte_t *p = ptep_of(&t, page);

		DESC("ptep_get_lockless va %#llx (GUP-fast)", VA(page));
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
			DESC("%s load file va %#llx", hw_agent_name(cpu), (unsigned long long)(F_BASE + fp * PAGE_SIZE));
			access_user(cpu, t.mm, F_BASE + fp * PAGE_SIZE, false);
		} else if (rnd(2)) {
			/*
			 * memory.reclaim of some of the page cache: the rmap young
			 * test (and MGLRU's look-around and aging walk) and reclaim's
			 * unmap of the file folios the mapping holds. One batch that
			 * frees nothing ends it (a writer interrupted by a signal):
			 * with other agents touching every page, sixteen retries
			 * over a page cache that stays young repeat the same scan
			 */
			u64 pages = 16 + rnd(49);
			struct reclaim_stat rs = { 0 };

			DESC("memory.reclaim %llu pages (%s LRU)", (unsigned long long)pages,
			     lru_gen_enabled ? "multi-gen" : "classic");
			(void)memory_reclaim_retries(pages << PAGE_SHIFT, &rs, 1);
		} else {
			u64 n = 1 + rnd(min((u64)40, F_PAGES - fp));

			DESC("munmap file va %#llx pages %llu; mmap again", (unsigned long long)(F_BASE + fp * PAGE_SIZE),
			     (unsigned long long)n);
			do_munmap(t.mm, F_BASE + fp * PAGE_SIZE, n * PAGE_SIZE);
			(void)mmap_file(t.mm, F_BASE + fp * PAGE_SIZE, n * PAGE_SIZE, file, fp, VM_READ);
		}
	} else if (k < 110) {
		/* a non-present entry (swap-like) set in an empty slot, then cleared */
		pte_t *p = ptep_of(&t, page);
		unsigned long a = T_BASE + page * PAGE_SIZE;

		DESC("set_pte_at va %#llx non-present, then ptep_get_and_clear_full", VA(page));
		if (p && pte_none(ptep_get(p))) {
			set_pte_at(t.mm, a, p, __pte((1 + rnd(0xffff)) << 12));
			ptep_get_and_clear_full(t.mm, a, p, 0);
		}
	} else if (k < 112) {
		/* a single-entry rewrite: unfold, then refold when complete */
		pte_t *p = ptep_of(&t, page);

		DESC("ptep_set_access_flags va %#llx young", VA(page));
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
			u64 follow = rnd(4), fn = (u64)folio_run(&t, page, &first);
			struct mm_struct *child;
			struct hw_cpu *c1 = &hw_machine.cpu[1];

			/*
			 * in a large folio the parent stores to its first page (a
			 * batch that starts there finds one writable, exclusive
			 * entry and read-only shared neighbours), then, three
			 * times in four, frees, mprotects or mremaps the folio
			 */
			if (fn > 1)
				page = first;
			else
				follow = 0;
			child = dup_mm(t.mm);
			DESC("fork; the child stores to 8 pages on cpu1, exits; the parent stores to va %#llx%s",
			     VA(page), fork_follow_names[follow]);
			/* the child runs on cpu1: its faults are handled there */
			switch_mm(c1, child);
			hw_run_on_cpu(c1->id);
			for (int i = 0; i < 8; i++)
				access_user(c1, child, T_BASE + rnd(P_PAGES) * PAGE_SIZE, true);
			mm_check_invariants(child);
			mmput(child);
			switch_mm(c1, t.mm);
			/*
			 * the parent alone maps its folios again: 7.x reuses a large
			 * one in place, one page exclusive and writable, the rest
			 * not (mixed folios, which batches must not treat as one)
			 */
			hw_run_on_cpu(t.cpu->id);
			if (access_user(t.cpu, t.mm, T_BASE + page * PAGE_SIZE, true) == 0)
				fuzz_store(t.cpu, T_BASE + page * PAGE_SIZE);
			a = T_BASE + page * PAGE_SIZE;
			len = fn * PAGE_SIZE;
			if (follow == 1) {
				fuzz_mprotect(&t, a, len);
			} else if (follow == 2) {
				/* the lazyfree folio written again: reclaim must put its entries back as they were */
				fuzz_madv_free(&t, page, fn);
				if (access_user(t.cpu, t.mm, a, true) == 0)
					fuzz_store(t.cpu, a);
				do_madvise(t.mm, a, len, MADV_PAGEOUT);
				mm_check_writable(t.mm, a, a + len);
			} else if (follow == 3) {
				/*
				 * the whole first block reused page by page, then
				 * refolded writable by mprotect: mremap's batch may
				 * start at a contiguous hint and run on into the
				 * folio's read-only, shared pages
				 */
				for (u64 i = 1; i < min(fn, (u64)arch_cont_ptes()); i++)
					if (access_user(t.cpu, t.mm, a + i * PAGE_SIZE, true) == 0)
						fuzz_store(t.cpu, a + i * PAGE_SIZE);
				fuzz_mprotect(&t, a, len);
				fuzz_mremap(&t, page, fn, page + fn + 1 + rnd(64), order);
			}
		} else if (k < 106) {
			DESC("mprotect va %#lx pages %llu read-only, a store, read-write again", a,
			     (unsigned long long)n);
			fuzz_mprotect(&t, a, len);
		} else if (k < 108) {
			DESC("madvise va %#lx pages %llu MADV_DONTNEED", a, (unsigned long long)n);
			do_madvise(t.mm, a, len, MADV_DONTNEED);
			for (u64 i = page; i < page + n; i++)
				written[i] = cleaned[i] = false;
		} else if (k < 110) {
			DESC("madvise va %#lx pages %llu MADV_FREE", a, (unsigned long long)n);
			fuzz_madv_free(&t, page, n);
		} else if (k < 111) {
			/* PAGEOUT on odd lengths: no draw of its own, the sequences stay as they were */
			int advice = n & 1 ? MADV_PAGEOUT : MADV_COLD;

			DESC("madvise va %#lx pages %llu %s", a, (unsigned long long)n,
			     advice == MADV_PAGEOUT ? "MADV_PAGEOUT" : "MADV_COLD");
			do_madvise(t.mm, a, len, advice);
		} else if (k >= 112) {
			/*
			 * mremap the span further up, mostly to an address whose
			 * alignment in a block differs from its frames'; the hole
			 * it leaves is mapped again
			 */
			u64 to = page + n + 1 + rnd(64);

			DESC("mremap va %#lx pages %llu to va %#llx; mmap the old range again", a,
			     (unsigned long long)n, VA(to));
			fuzz_mremap(&t, page, n, to, order);
		} else {
			DESC("mlock va %#lx pages %llu, munlock", a, (unsigned long long)n);
			/* population is a write access (FOLL_WRITE): it may dirty */
			do_mlock(t.mm, a, len, true);
			do_mlock(t.mm, a, len, false);
			for (u64 i = page; i < page + n; i++)
				cleaned[i] = false;
		}
	}
	rng = NULL;
	(void)order;
}

u64 fuzz_rng_start(u64 seed)
{
	return xorshift_seed(seed);
}

/* The operations of a sequence, drawn from its seed. */
static void fuzz_draw(u64 seed, int nr_ops, bool lifecycle, struct fuzz_op *ops)
{
	u64 srng = fuzz_rng_start(seed), hot = 0;

	rng = &srng;
	for (int i = 0; i < nr_ops; i++) {
		struct fuzz_op *op = &ops[i];

		op->k = (u8)rnd(lifecycle ? 126 : 112);
		op->cpu = (u8)rnd(2);
		/* near one block for a while, so operations meet on the same entries */
		if (rnd(32) == 0)
			hot = rnd(P_PAGES / 16) * 16;
		op->page = (u32)(rnd(4) ? hot + rnd(16) : rnd(P_PAGES));
		op->r = (rnd(~0ULL) << 1) | 1;
	}
	rng = NULL;
}

/* Runs ops on a fresh mm; what the run breaks is recorded as violations. */
static void fuzz_run_ops(u64 seed, int order, const struct fuzz_op *ops, int nr_ops, FILE *trace)
{
	struct address_space *file;
	struct fuzz t;

	/*
	 * a sequence runs the same alone as after others (reproducers, the
	 * minimiser): the same random draws, empty TLBs, the same frames,
	 * ASIDs and per-CPU batches
	 */
	mm_restart();
	hw_machine.rng = seed | 1;
	/* reclaim by either LRU: every other sequence runs the multi-gen one */
	lru_gen_enabled = seed & 1;
	for (int a = 0; a < hw_machine.nr_agents; a++)
		hw_tlb_inval_all(&hw_machine.cpu[a].tlb, -1);
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
	hw_interleave.reader = ptep_get_lockless_racing;
	hw_interleave_random();
	hw_interleave_ctx(NULL, NULL, 0); /* nothing from the last sequence's mm */
	hw_interleave.on = hw_interleave.chance > 0;
	for (u64 i = 0; i < P_PAGES; i++)
		written[i] = cleaned[i] = raced[i] = false;

	for (int i = 0; i < nr_ops; i++) {
		char d[160] = "";

		fuzz_desc = trace ? d : NULL;
		fuzz_op_run(&t, &ops[i], order, file);
		if (trace)
			fprintf(trace, "%s\n", d);
		if (fuzz_differential)
			for (int a = 0; a < hw_machine.nr_agents; a++)
				hw_tlb_inval_all(&hw_machine.cpu[a].tlb, -1);
	}
	fuzz_desc = NULL;
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
	if (fuzz_differential) {
		for (u64 va = T_BASE; va < F_BASE + F_PAGES * PAGE_SIZE; va += PAGE_SIZE) {
			pte_t *p = pte_lookup(t.mm, va);
			u64 v = p ? p->pte : 0;

			fuzz_tables_digest = (fuzz_tables_digest ^ (v + va)) * 0x100000001b3ULL;
		}
	}
	mmput(t.mm);
	address_space_destroy(file);
}

void fuzz_sequence(u64 seed, int order, int nr_ops, bool lifecycle)
{
	struct fuzz_op *ops = host_calloc((size_t)nr_ops, sizeof(*ops), "a fuzz sequence");

	fuzz_draw(seed, nr_ops, lifecycle, ops);
	fuzz_run_ops(seed, order, ops, nr_ops, NULL);
	free(ops);
}


u64 fuzz_sequence_seed(u64 run_seed, u64 s)
{
	return run_seed * 0x9E3779B97F4A7C15ULL + s + 1;
}

/* The fuzz workload: --iterations sequences of FUZZ_OPS operations each. */
#define FUZZ_OPS 2000

/*
 * ops run on a fresh mm in a child process from the pristine machine (the
 * kernel code may crash or hang): the first kind of violation it raised
 * (want's if among them), -1 for none, -2 if the child died. With desc_fd,
 * the child writes what each operation did, one line each, then the first
 * violation's message.
 */
static int fuzz_try(u64 seed, int order, const struct fuzz_op *ops, int n, int want, int desc_fd)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -2;
	if (pid == 0) {
		FILE *trace = desc_fd >= 0 ? fdopen(desc_fd, "w") : NULL;

		alarm(60);
		hw_violations_reset();
		fuzz_run_ops(seed, order, ops, n, trace);
		mm_check_all_freed();
		if (trace) {
			fprintf(trace, "%s\n", hw_violations.kept ? hw_violations.msg[0] : "");
			fclose(trace);
		}
		for (int k = 0; k < NR_VIOL_KINDS; k++)
			if (hw_violations.count[k] && (k == want || want < 0 || !hw_violations.count[want]))
				_exit(10 + k);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -2;
	return WEXITSTATUS(status) >= 10 ? WEXITSTATUS(status) - 10 : -1;
}

/* Budget of the minimiser: candidate runs and seconds. */
#define MINIMISE_RUNS 4000
#define MINIMISE_SECONDS 120

/* The trace of ops (run again in a child, described) into r->text. */
static void fuzz_trace(u64 seq, u64 seed, int order, const struct fuzz_op *ops, int n,
		       int kind, int runs, struct run_result *r)
{
	char *out = r->text, buf[256];
	size_t len = sizeof(r->text), used;
	int fds[2], i = 0, cut = 0;
	FILE *in;

	used = (size_t)snprintf(out, len, "sequence %llu: %d of %d operations still raise %s "
				"(%d runs to shrink)\n", (unsigned long long)seq, n, FUZZ_OPS,
				hw_violation_names[kind], runs);
	if (pipe(fds))
		return;
	/* a trace longer than the pipe holds is read while the child writes */
	pid_t pid = fork();

	if (pid == 0) {
		close(fds[0]);
		_exit(fuzz_try(seed, order, ops, n, kind, fds[1]) == kind ? 0 : 1);
	}
	close(fds[1]);
	in = fdopen(fds[0], "r");
	/* the operations while they fit (room kept for the violation), then the violation */
	while (in && fgets(buf, sizeof(buf), in)) {
		buf[strcspn(buf, "\n")] = 0;
		if (i < n && used + 512 < len) {
			used += (size_t)snprintf(out + used, len - used, "  %3d. %s\n", i + 1, buf);
		} else if (i < n) {
			cut++;
		} else if (buf[0]) {
			if (cut && used + 1 < len)
				used += (size_t)snprintf(out + used, len - used,
							 "  ... %d more operations (the trace is cut here)\n", cut);
			cut = 0;
			if (used + 1 < len)
				used += (size_t)snprintf(out + used, len - used, "  -> %s\n", buf);
		}
		i++;
	}
	if (in)
		fclose(in);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/*
 * --minimise: the first sequence that fails alone is shrunk (ddmin) to
 * fewest operations that still raise the same kind of violation.
 */
static void fuzz_minimise(const struct run_params *p, int order, bool lifecycle, u64 seqs,
			  struct run_result *r)
{
	struct fuzz_op *ops = host_calloc(FUZZ_OPS, sizeof(*ops), "the minimiser"),
		       *cand = host_calloc(FUZZ_OPS, sizeof(*ops), "the minimiser");
	time_t start = time(NULL);
	int kind = -1, n = FUZZ_OPS, g = 2, runs = 0;
	u64 seq = 0, seed = 0;

	for (u64 s = 0; s < seqs && kind < 0; s++) {
		seq = p->first_sequence + s;
		seed = fuzz_sequence_seed(p->seed, seq);
		fuzz_draw(seed, FUZZ_OPS, lifecycle, ops);
		kind = fuzz_try(seed, order, ops, FUZZ_OPS, -1, -1);
		if (kind == -2) {
			snprintf(r->text, sizeof(r->text), "sequence %llu: the run died (a crash or hang, "
				 "not a violation): not minimised\n", (unsigned long long)seq);
			/* here too: the crash or hang becomes this run's finding */
			fuzz_run_ops(seed, order, ops, FUZZ_OPS, NULL);
			goto out;
		}
	}
	if (kind < 0) {
		snprintf(r->text, sizeof(r->text), "no sequence of these raises a violation when "
			 "run alone\n");
		goto out;
	}
	while (n >= 2 && runs < MINIMISE_RUNS && time(NULL) - start < MINIMISE_SECONDS) {
		int chunk = (n + g - 1) / g;
		bool reduced = false;

		for (int c = 0; c < g && !reduced; c++) {
			int lo = c * chunk, hi = min(n, lo + chunk), m = 0;

			if (lo >= n)
				break;
			for (int i = 0; i < n; i++)
				if (i < lo || i >= hi)
					cand[m++] = ops[i];
			runs++;
			if (fuzz_try(seed, order, cand, m, kind, -1) == kind) {
				memcpy(ops, cand, (size_t)m * sizeof(*ops));
				n = m;
				g = max(g - 1, 2);
				reduced = true;
			}
		}
		if (!reduced) {
			if (g >= n)
				break;
			g = min(2 * g, n);
		}
	}
	run_result_add(r, "minimised_operations", (double)n);
	fuzz_trace(seq, seed, order, ops, n, kind, runs, r);
	/*
	 * The minimised operations once more, in this run: their violation is
	 * the run's (invariants not ok, exit 1), as it was the child's.
	 */
	fuzz_run_ops(seed, order, ops, n, NULL);
out:
	free(ops);
	free(cand);
}

static int fuzz_run(const struct run_params *p, struct run_result *r, char *err,
		    size_t errlen)
{
	u64 seqs = p->iterations ? p->iterations : 16;
	bool lifecycle = !p->variant || strcmp(p->variant, "pte-only");
	/* digests fit a JSON number exactly: 52 bits */
	const u64 mask = (1ULL << 52) - 1;
	int order = lab_folio_order(p->folio_size);
	double failing = -1;

	/* check judges correctness, not time: no cache model (hw/cache.h) */
	struct run_params untimed = *p;

	untimed.prof = NULL;
	if (lab_machine_setup(&untimed, FUZZ_PAGES * 2 + 8192, err, errlen))
		return -1;
	/* check's workloads: the tree's VM_WARN_ON*() conditions are checked (mm/core.h) */
	mm_debug_vm = true;
	run_phase_begin(r);
	fuzz_differential = p->variant && !strcmp(p->variant, "differential");
	fuzz_tables_digest = 0;
	pte_op_digest_on = fuzz_differential;
	if (p->minimise) {
		fuzz_minimise(p, order, lifecycle, seqs, r);
		seqs = 0;
	}
	u64 lazyfreed = vm_lazyfreed_pages();

	for (u64 s = 0; s < seqs; s++) {
		u64 before = hw_violations.total;

		fuzz_sequence(fuzz_sequence_seed(p->seed, p->first_sequence + s), order, FUZZ_OPS,
			      lifecycle);
		if (failing < 0 && hw_violations.total != before)
			failing = (double)(p->first_sequence + s);
	}
	mm_check_all_freed();
	run_phase_end(r);
	r->measured = hw_events;
	run_result_add(r, "sequences", (double)seqs);
	run_result_add(r, "operations", (double)(seqs * FUZZ_OPS));
	/* the reproducer of the first one: --first-sequence N --iterations 1 */
	run_result_add(r, "first_failing_sequence", failing);
	run_result_add(r, "interleaved_actions", (double)hw_interleave.acted);
	run_result_add(r, "interleaved_readers_gave_up", (double)hw_interleave.reader_gave_up);
	/* coverage: MADV_FREE'd pages that reclaim discarded (a batched lazyfree unmap) */
	run_result_add(r, "lazyfreed_pages", (double)(vm_lazyfreed_pages() - lazyfreed));
	if (fuzz_differential) {
		run_result_add(r, "returns_digest", (double)(pte_op_digest & mask));
		run_result_add(r, "tables_digest", (double)(fuzz_tables_digest & mask));
	}
	/* coverage: calls of each PTE op, and those on a contiguous entry */
	run_result_add_pte_op_calls(r);
	lab_machine_teardown();
	return 0;
}

const struct workload workload_fuzz = {
	.name = "fuzz",
	.help = "random page-table and lifecycle operations checked against a model (ptelab check)",
	.measured = "the whole run",
	.opts = RUN_OPT_FOLIO_SIZE | RUN_OPT_ITERATIONS | RUN_OPT_VARIANT | RUN_OPT_INTERLEAVE |
		RUN_OPT_FIRST_SEQUENCE | RUN_OPT_MINIMISE,
	.default_size = FUZZ_SIZE,
	.default_folio_size = SZ_64K,
	.variants = "lifecycle|pte-only|differential",
	.default_iterations = 16,
	.iterations_are = "sequences",
	.min_cpus = 2,
	.run = fuzz_run,
};
