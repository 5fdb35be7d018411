// SPDX-License-Identifier: GPL-2.0-only
/*
 * Systematic interleaving (check --explore). A scenario is a block in a
 * state (dirty, clean, one entry young or dirty, write-protected dirty or
 * clean, one entry unmapped, empty; anonymous or file) and one operation
 * on it: an arch PTE op called as core-mm calls it (with the caller's
 * flush), or the core-mm call that makes the op (a fault, MADV_DONTNEED's
 * zap, fork, mremap, mprotect). Old, clean blocks matter: a bit lost while a block
 * is unfolded or folded is invisible when the rest of the block has it.
 * The scenario runs once to count the points inside the operation (every
 * raw PTE access, TLBI and DSB), then once per (point, agent, kind of
 * action, entry of the block) on a fresh mm, the action taken exactly
 * there: a load or store by another CPU or the SMMU whose walker sets
 * young/dirty, a store through its TLB, or a lockless reader. After each
 * run: the operation's postconditions (arch/postcond.c), the TLBs and
 * mapcounts (mm_check_invariants), every agent touching every page of the
 * block again (no livelock, no stale or conflicting TLB entry), nothing
 * lost (the oracle and the written frames), nothing leaked.
 *
 * With --minimise, a failing scenario's first failing run is described
 * with the kernel functions the point was in.
 */
#include <stdio.h>
#include <string.h>

#include "arch/pte_op_calls.h"
#include "hw/cache.h"
#include "hw/cpu.h"
#include "hw/interleave.h"
#include "hw/invariants.h"
#include "hw/phys.h"
#include "hw/tlb.h"
#include "kernel/symbolize.h"
#include "mm/filemap.h"
#include "mm/core.h"
#include "mm/mm.h"
#include "workloads/explore.h"
#include "workloads/workload.h"

#define X_ANON 0x40000000UL
#define X_FILE 0x50000000UL
#define X_UNITS 4
/* Positions tried per scenario: all of them up to this, else this many spread evenly. */
#define X_MAX_POSITIONS 96

enum xstate {
	XS_NONE,      /* the target folio not faulted in */
	XS_DIRTY,     /* stored to: young and dirty */
	XS_CLEAN,     /* then cleaned (MADV_FREE-style): old and clean */
	XS_YOUNG1,    /* clean, then one load: one entry young */
	XS_DIRTY1,    /* clean, then one store: one entry dirty */
	XS_RDONLY,    /* dirty, then write-protected (as fork leaves the parent) */
	XS_PARTIAL,   /* dirty, one entry zapped (the block not whole) */
	XS_RDONLY_CLEAN, /* clean, then write-protected: a write fault unfolds an old block */
	/*
	 * clean, then every page of the block but its last loaded, each walked:
	 * every entry young but the last where the walker sets the access flag
	 * in the entry it walks (HA, the accessed policy, a folio of a block or
	 * more); elsewhere another mix, still a scenario
	 */
	XS_OLD_LAST,
	/*
	 * dirty, a fork whose child exits, then a store to the folio's first
	 * page: 7.x reuses it in place (writable, exclusive; the rest shared
	 * and read-only; the block unfolded), and every page of the folio
	 * loaded again, cached apart
	 */
	XS_REUSED,
	XS_FILE,      /* a read-only file mapping, read in */
	XS_FILE_NONE, /* the same, the target folio not faulted in */
	NR_XSTATES
};

static const char *const state_names[NR_XSTATES] = {
	"empty", "dirty", "clean", "young-one", "dirty-one", "write-protected",
	"one-unmapped", "clean write-protected", "young but its last entry", "reused after fork", "file", "file-empty",
};

enum xop {
	XO_TCY, XO_CFY, XO_PTCY, XO_PCFY, XO_WRP, XO_CYDP_BOTH, XO_CYDP_YOUNG,
	XO_CYDP_DIRTY, XO_SAF_YOUNG, XO_SAF_WRITE, XO_GET, XO_LOCKLESS, XO_HINT,
	XO_ZAP, XO_FAULT_STORE, XO_FAULT_LOAD, XO_FORK, XO_NONPRESENT, XO_MREMAP,
	XO_SAF_YOUNG_LAST, XO_MPROTECT, NR_XOPS
};

static const char *const op_names[NR_XOPS] = {
	"test_and_clear_young_ptes", "clear_flush_young_ptes", "ptep_test_and_clear_young",
	"ptep_clear_flush_young", "wrprotect_ptes; flush_tlb_mm",
	"clear_young_dirty_ptes(young|dirty); flush_tlb_mm",
	"clear_young_dirty_ptes(young); flush_tlb_mm", "clear_young_dirty_ptes(dirty); flush_tlb_mm",
	"ptep_set_access_flags(young)", "ptep_set_access_flags(write, dirty)", "ptep_get",
	"ptep_get_lockless", "pte_batch_hint", "madvise(MADV_DONTNEED)", "store fault",
	"load fault", "fork (copy_pte_range), child exits",
	"set_pte_at(non-present); ptep_get_and_clear_full",
	"mremap to an address 3 pages off its frames' block alignment",
	"ptep_set_access_flags(young) of the block's last entry (a fault without HA)",
	"mprotect(PROT_READ), then read-write (change_pte_range)",
};

/* the range an op covers: the target entry, a few entries of its folio, or the folio */
enum xrange { XR_ONE, XR_PART, XR_FOLIO };
static const char *const range_names[] = { "one", "part", "folio" };

static const struct scenario {
	u8 op, range, state;
} scenarios[] = {
	{ XO_TCY, XR_FOLIO, XS_DIRTY },        { XO_TCY, XR_FOLIO, XS_YOUNG1 },
	{ XO_TCY, XR_PART, XS_YOUNG1 },        { XO_CFY, XR_FOLIO, XS_YOUNG1 },
	{ XO_CFY, XR_FOLIO, XS_DIRTY },        { XO_CFY, XR_PART, XS_YOUNG1 },
	{ XO_PTCY, XR_ONE, XS_YOUNG1 },        { XO_PCFY, XR_ONE, XS_YOUNG1 },
	{ XO_PCFY, XR_ONE, XS_DIRTY },         { XO_WRP, XR_FOLIO, XS_DIRTY },
	{ XO_WRP, XR_FOLIO, XS_DIRTY1 },       { XO_WRP, XR_FOLIO, XS_CLEAN },
	{ XO_WRP, XR_PART, XS_DIRTY1 },        { XO_WRP, XR_ONE, XS_DIRTY },
	{ XO_CYDP_BOTH, XR_FOLIO, XS_DIRTY },  { XO_CYDP_BOTH, XR_FOLIO, XS_DIRTY1 },
	{ XO_CYDP_YOUNG, XR_PART, XS_YOUNG1 }, { XO_CYDP_DIRTY, XR_FOLIO, XS_DIRTY1 },
	{ XO_SAF_YOUNG, XR_ONE, XS_CLEAN },    { XO_SAF_WRITE, XR_ONE, XS_RDONLY },
	{ XO_GET, XR_ONE, XS_DIRTY1 },         { XO_LOCKLESS, XR_ONE, XS_DIRTY1 },
	{ XO_HINT, XR_ONE, XS_DIRTY },         { XO_ZAP, XR_FOLIO, XS_DIRTY },
	{ XO_ZAP, XR_FOLIO, XS_DIRTY1 },       { XO_ZAP, XR_FOLIO, XS_CLEAN },
	{ XO_ZAP, XR_PART, XS_DIRTY1 },        { XO_ZAP, XR_ONE, XS_DIRTY },
	{ XO_ZAP, XR_FOLIO, XS_PARTIAL },      { XO_FAULT_STORE, XR_ONE, XS_NONE },
	{ XO_FAULT_STORE, XR_ONE, XS_PARTIAL }, { XO_FAULT_STORE, XR_ONE, XS_RDONLY },
	{ XO_FAULT_LOAD, XR_ONE, XS_CLEAN },   { XO_FORK, XR_FOLIO, XS_DIRTY1 },
	{ XO_NONPRESENT, XR_ONE, XS_PARTIAL }, { XO_FAULT_LOAD, XR_ONE, XS_FILE_NONE },
	{ XO_ZAP, XR_FOLIO, XS_FILE },         { XO_ZAP, XR_PART, XS_FILE },
	{ XO_TCY, XR_FOLIO, XS_FILE },         { XO_CFY, XR_FOLIO, XS_FILE },
	{ XO_MREMAP, XR_FOLIO, XS_DIRTY1 },    { XO_MREMAP, XR_PART, XS_DIRTY },
	/* unfolds of an old, clean block: a bit lost on the way shows */
	{ XO_WRP, XR_PART, XS_CLEAN },         { XO_ZAP, XR_PART, XS_CLEAN },
	{ XO_SAF_WRITE, XR_ONE, XS_RDONLY_CLEAN }, { XO_MREMAP, XR_PART, XS_CLEAN },
	{ XO_WRP, XR_PART, XS_YOUNG1 },        { XO_FAULT_STORE, XR_ONE, XS_RDONLY_CLEAN },
	/* the no-op test of set_access_flags must look at every entry, the last too */
	{ XO_SAF_YOUNG_LAST, XR_ONE, XS_OLD_LAST },
	/* mprotect's batches over mixed folios, and over part of a block */
	{ XO_MPROTECT, XR_FOLIO, XS_REUSED },  { XO_MPROTECT, XR_PART, XS_DIRTY },
	{ XO_MREMAP, XR_FOLIO, XS_REUSED },
};

const unsigned int explore_nr_scenarios = ARRAY_SIZE(scenarios);

/* The geometry of one run: where the target entry, its block and folio are. */
struct xgeo {
	u64 unit;          /* bytes: the larger of a block and a folio */
	u64 folio_pages, block_pages;
	u64 base;          /* the mapping's start (anonymous or file) */
	u64 tva;           /* the target entry: entry 5 of the second unit */
	u64 fva;           /* its folio */
	u64 bva;           /* its block */
	u64 rva, rnr;      /* the op's range */
};

static void geometry(const struct scenario *sc, int order, struct xgeo *g)
{
	u64 block = arch_cont_ptes() ? arch_cont_ptes() : 16;

	g->folio_pages = 1ULL << order;
	g->block_pages = block;
	g->unit = max(block, g->folio_pages) * PAGE_SIZE;
	g->base = sc->state >= XS_FILE ? X_FILE : X_ANON;
	g->tva = g->base + g->unit + 5 * PAGE_SIZE;
	g->fva = ALIGN_DOWN(g->tva, g->folio_pages * PAGE_SIZE);
	g->bva = ALIGN_DOWN(g->tva, block * PAGE_SIZE);
	if (sc->op == XO_SAF_YOUNG_LAST) {
		g->rva = g->bva + (block - 1) * PAGE_SIZE;
		g->rnr = 1;
	} else if (sc->range == XR_ONE) {
		g->rva = g->tva;
		g->rnr = 1;
	} else if (sc->range == XR_FOLIO) {
		g->rva = g->fva;
		g->rnr = g->folio_pages;
	} else {
		u64 lo = max(g->fva, g->bva + 2 * PAGE_SIZE);
		u64 hi = min(g->fva + g->folio_pages * PAGE_SIZE, g->bva + 8 * PAGE_SIZE);

		g->rva = lo;
		g->rnr = (hi - lo) / PAGE_SIZE;
	}
}

static u64 pfn_at(struct mm_struct *mm, u64 va)
{
	pte_t *p = pte_lookup(mm, va);

	return p && pte_present(ptep_get(p)) ? pte_pfn(ptep_get(p)) : ~0ULL;
}

/* Stores other agents made inside the operation (MADV_FREE may drop them). */
static u64 stored_va[8];
static int nr_stored;
static struct mm_struct *x_mm;

static void x_store(const struct hw_cpu *cpu, u64 va)
{
	if (cpu->ttbr == x_mm->pgd && nr_stored < (int)ARRAY_SIZE(stored_va))
		stored_va[nr_stored++] = va;
}

static int x_access(int agent, struct mm_struct *mm, u64 va, bool write)
{
	struct hw_cpu *cpu = &hw_machine.cpu[agent];

	hw_run_on_cpu(cpu->smmu ? 0 : agent);
	return access_user(cpu, mm, va, write);
}

/* The block in the scenario's state, with core-mm and the ops the kernel uses. */
static void set_state(const struct scenario *sc, const struct xgeo *g, struct mm_struct *mm)
{
	bool file = sc->state >= XS_FILE;
	u64 fend = g->fva + g->folio_pages * PAGE_SIZE;
	struct vm_area_struct *vma = find_vma(mm, g->fva);

	for (u64 va = g->base; va < g->base + X_UNITS * g->unit; va += PAGE_SIZE) {
		if ((sc->state == XS_NONE || sc->state == XS_FILE_NONE) && va >= g->fva && va < fend)
			continue;
		x_access(0, mm, va, !file);
	}
	switch (sc->state) {
	case XS_CLEAN:
	case XS_YOUNG1:
	case XS_DIRTY1:
	case XS_RDONLY_CLEAN:
	case XS_OLD_LAST:
		clear_young_dirty_ptes(vma, g->fva, pte_lookup(mm, g->fva), (unsigned int)g->folio_pages,
				       CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
		flush_tlb_mm(mm);
		hw_frame_clean(pfn_at(mm, g->fva), g->folio_pages);
		if (sc->state == XS_YOUNG1 || sc->state == XS_DIRTY1)
			x_access(0, mm, g->tva, sc->state == XS_DIRTY1);
		/* each walked alone: through the block's TLB entry no flag would be set */
		for (u64 i = 0; sc->state == XS_OLD_LAST && i + 1 < g->block_pages; i++) {
			u64 va = g->bva + i * PAGE_SIZE;

			hw_tlb_inval(&hw_machine.cpu[0].tlb, hw_machine.cpu[0].asid, va, va + PAGE_SIZE);
			x_access(0, mm, va, false);
		}
		if (sc->state == XS_RDONLY_CLEAN) {
			wrprotect_ptes(mm, g->fva, pte_lookup(mm, g->fva), (unsigned int)g->folio_pages);
			flush_tlb_mm(mm);
		}
		break;
	case XS_RDONLY:
		wrprotect_ptes(mm, g->fva, pte_lookup(mm, g->fva), (unsigned int)g->folio_pages);
		flush_tlb_mm(mm);
		break;
	case XS_PARTIAL:
		do_madvise(mm, g->tva, PAGE_SIZE, MADV_DONTNEED);
		break;
	case XS_REUSED:
		mmput(dup_mm(mm));
		x_access(0, mm, g->fva, true);
		for (u64 va = g->fva; va < fend; va += PAGE_SIZE)
			x_access(0, mm, va, false);
		break;
	default:
		break;
	}
	/* what the state left cached stays cached: the op starts from a warm TLB */
}

static void run_op(const struct scenario *sc, const struct xgeo *g, struct mm_struct *mm)
{
	struct vm_area_struct *vma = find_vma(mm, g->rva);
	pte_t *r = pte_lookup(mm, g->rva), *t = pte_lookup(mm, g->tva);
	unsigned int nr = (unsigned int)g->rnr;

	switch (sc->op) {
	case XO_TCY:
		test_and_clear_young_ptes(vma, g->rva, r, nr);
		break;
	case XO_CFY:
		clear_flush_young_ptes(vma, g->rva, r, nr);
		break;
	case XO_PTCY:
		ptep_test_and_clear_young(vma, g->rva, r);
		break;
	case XO_PCFY:
		ptep_clear_flush_young(vma, g->rva, r);
		break;
	case XO_WRP:
		wrprotect_ptes(mm, g->rva, r, nr);
		flush_tlb_mm(mm);
		break;
	case XO_CYDP_BOTH:
	case XO_CYDP_YOUNG:
	case XO_CYDP_DIRTY:
		clear_young_dirty_ptes(vma, g->rva, r, nr,
				       sc->op == XO_CYDP_YOUNG ? CYDP_CLEAR_YOUNG :
				       sc->op == XO_CYDP_DIRTY ? CYDP_CLEAR_DIRTY :
				       CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
		flush_tlb_mm(mm);
		break;
	case XO_SAF_YOUNG:
		ptep_set_access_flags(vma, g->tva, t, pte_mkyoung(ptep_get(t)), 0);
		break;
	case XO_SAF_WRITE:
		/* a write fault on an exclusive anonymous folio reuses it (wp_page_reuse) */
		ptep_set_access_flags(vma, g->tva, t,
				      pte_mkyoung(pte_mkdirty(pte_mkwrite(ptep_get(t)))), 1);
		break;
	case XO_SAF_YOUNG_LAST:
		ptep_set_access_flags(vma, g->rva, r, pte_mkyoung(ptep_get(r)), 0);
		break;
	case XO_GET:
		(void)ptep_get(t);
		break;
	case XO_LOCKLESS:
		(void)ptep_get_lockless(t);
		break;
	case XO_HINT:
		(void)pte_batch_hint(t, ptep_get(t));
		break;
	case XO_ZAP:
		do_madvise(mm, g->rva, g->rnr * PAGE_SIZE, MADV_DONTNEED);
		break;
	case XO_FAULT_STORE:
	case XO_FAULT_LOAD:
		x_access(0, mm, g->tva, sc->op == XO_FAULT_STORE);
		break;
	case XO_FORK: {
		struct mm_struct *child = dup_mm(mm);

		mmput(child);
		break;
	}
	case XO_MREMAP:
		do_mremap_fixed(mm, g->rva, g->rnr * PAGE_SIZE,
				X_ANON + (X_UNITS + 1) * g->unit + 3 * PAGE_SIZE);
		break;
	case XO_MPROTECT:
		do_mprotect(mm, g->rva, g->rnr * PAGE_SIZE, VM_READ);
		do_mprotect(mm, g->rva, g->rnr * PAGE_SIZE, VM_READ | VM_WRITE);
		break;
	case XO_NONPRESENT:
		if (t && pte_none(ptep_get(t))) {
			set_pte_at(mm, g->tva, t, __pte(0x5000));
			ptep_get_and_clear_full(mm, g->tva, t, 0);
		}
		break;
	}
}

struct xcase {
	long at;
	int agent, kind;
	u64 entry;        /* of the target block */
};

/*
 * One run: a fresh mm, the state, then the op with the case's action
 * (at < 0: none, the points only counted). Returns the points passed.
 */
static u64 x_run(const struct scenario *sc, int order, u64 seed, const struct xcase *c)
{
	struct xgeo g;
	struct mm_struct *mm;
	struct address_space *file;
	struct hw_interleave *il = &hw_interleave;
	u64 points = 0;

	geometry(sc, order, &g);
	/* every run from the same machine: frames, ASIDs, random draws, empty TLBs */
	mm_restart();
	hw_machine.rng = seed | 1;
	hw_run_on_cpu(0);
	for (int a = 0; a < hw_machine.nr_agents; a++)
		hw_tlb_inval_all(&hw_machine.cpu[a].tlb, -1);
	mm = mm_alloc();
	file = address_space_create(X_UNITS * g.unit, (unsigned int)min(order, 6));
	if (!file || !mmap_anon(mm, X_ANON, X_UNITS * g.unit, VM_READ | VM_WRITE, order, false) ||
	    !mmap_file(mm, X_FILE, X_UNITS * g.unit, file, 0, VM_READ)) {
		hw_violation(VIOL_OTHER, "explore: cannot set up the address space");
		goto out;
	}
	for (int a = 0; a < hw_machine.nr_cpus; a++)
		switch_mm(&hw_machine.cpu[a], mm);
	if (hw_machine.smmu >= 0)
		hw_cpu_switch_mm(&hw_machine.cpu[hw_machine.smmu], mm->pgd, mm->context.asid);
	set_state(sc, &g, mm);
	if (!pte_lookup(mm, g.bva)) {
		hw_violation(VIOL_OTHER, "explore: scenario state left no page table at va %#llx",
			     (unsigned long long)g.bva);
		goto out;
	}
	/* a fault starts from a TLB that does not hold the address */
	if (sc->op == XO_FAULT_STORE || sc->op == XO_FAULT_LOAD)
		hw_tlb_inval(&hw_machine.cpu[0].tlb, hw_machine.cpu[0].asid, g.tva, g.tva + PAGE_SIZE);
	if (sc->op == XO_CYDP_BOTH || sc->op == XO_CYDP_DIRTY) /* MADV_FREE: the data may go */
		hw_frame_clean(pfn_at(mm, g.fva), g.folio_pages);

	x_mm = mm;
	nr_stored = 0;
	il->on_store = x_store;
	il->reader = ptep_get_lockless_racing;
	hw_interleave_exact(c->at, c->agent, c->kind, &pte_lookup(mm, g.bva)[c->entry].pte,
			    g.bva + c->entry * PAGE_SIZE);
	hw_interleave_ctx(mm->pgd, &pte_lookup(mm, g.bva)->pte, g.bva);
	hw_run_on_cpu(0);
	il->on = true;
	run_op(sc, &g, mm);
	il->on = false;
	points = il->points;
	hw_interleave_ctx(NULL, NULL, 0);

	/* a store that raced a clean of dirty may have landed before it */
	if (sc->op == XO_CYDP_BOTH || sc->op == XO_CYDP_DIRTY)
		for (int i = 0; i < nr_stored; i++) {
			pte_t *p = pte_lookup(mm, stored_va[i]);

			if (p && pte_present(ptep_get(p)) && !pte_dirty(ptep_get(p)))
				hw_frame_clean(pte_pfn(ptep_get(p)), 1);
		}
	/* right after the operation and the caller's flush */
	mm_check_invariants(mm);
	/* then everyone uses the block again: no livelock, no stale translation */
	for (int a = 0; a < hw_machine.nr_agents; a++)
		for (u64 va = g.bva; va < g.bva + g.block_pages * PAGE_SIZE; va += PAGE_SIZE)
			x_access(a, mm, va, false);
	if (sc->state < XS_FILE)
		for (u64 va = g.bva; va < g.bva + g.block_pages * PAGE_SIZE; va += PAGE_SIZE)
			x_access(0, mm, va, true);
	mm_check_invariants(mm);
out:
	mmput(mm);
	if (file)
		address_space_destroy(file);
	mm_check_all_freed();
	return points;
}

/* "fn (file:line) <- fn (file:line)": where the kernel code was at the point */
static void call_chain(char *buf, size_t len)
{
	size_t used = 0;
	int shown = 0;

	buf[0] = 0;
	for (int i = 1; i < hw_interleave.bt_n && shown < 4; i++) {
		struct code_loc loc;

		symbolize((unsigned long)hw_interleave.bt[i], true, &loc);
		/* the point itself (the lab's hardware, its raw accessors) is not where the kernel was */
		if (!strncmp(loc.file, "hw/", 3) || strstr(loc.file, "/hw/") ||
		    strstr(loc.file, "arch/arm64/raw.") || !strcmp(loc.function, "??"))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s (%s:%d)",
					 shown ? " <- " : "", loc.function, loc.file, loc.line);
		shown++;
		if (used >= len)
			break;
	}
}

static int scenario_name(char *buf, size_t len, const struct scenario *sc)
{
	return snprintf(buf, len, "%s [%s] on a %s block", op_names[sc->op], range_names[sc->range],
			state_names[sc->state]);
}

static void describe(struct run_result *r, u64 s, const struct scenario *sc, int order, u64 seed,
		     const struct xcase *c, u64 points, bool chain)
{
	size_t used = strlen(r->text), len = sizeof(r->text);
	char name[160], where[512] = "", msg[160];
	struct hw_violations saved = hw_violations;
	struct xgeo g;

	/* the case again, alone: its own first message, not counted twice */
	geometry(sc, order, &g);
	hw_violations_reset();
	hw_interleave.want_backtrace = chain;
	x_run(sc, order, seed, c);
	hw_interleave.want_backtrace = false;
	snprintf(msg, sizeof(msg), "%s", hw_violations.kept ? hw_violations.msg[0] :
		 "(not raised again when run alone)");
	hw_violations = saved;
	if (chain)
		call_chain(where, sizeof(where));
	scenario_name(name, sizeof(name), sc);
	if (used + 1 >= len)
		return;
	used += (size_t)snprintf(r->text + used, len - used,
				 "scenario %llu: %s (va %#llx, nr %llu)\n",
				 (unsigned long long)s, name, (unsigned long long)g.rva,
				 (unsigned long long)g.rnr);
	if (used + 1 < len && c->at < 0)
		used += (size_t)snprintf(r->text + used, len - used,
					 "  with no other agent acting (%llu points)\n",
					 (unsigned long long)points);
	else if (used + 1 < len)
		used += (size_t)snprintf(r->text + used, len - used,
					 "  at point %ld of %llu (%s), %s: %s va %#llx (entry %llu of the block)\n",
					 c->at + 1, (unsigned long long)points,
					 hw_interleave.hit_point >= 0 ?
					 hw_il_point_names[hw_interleave.hit_point] : "not reached",
					 hw_agent_name(&hw_machine.cpu[c->agent]), hw_il_action_names[c->kind],
					 (unsigned long long)(g.bva + c->entry * PAGE_SIZE),
					 (unsigned long long)c->entry);
	if (used + 1 < len && where[0])
		used += (size_t)snprintf(r->text + used, len - used, "  in %s\n", where);
	if (used + 1 < len)
		snprintf(r->text + used, len - used, "  -> %s\n", msg);
}

/* What the run found: failing scenarios, the first, how many described. */
struct xfound {
	u64 scenarios, described;
	double first;
};

static void failed(struct run_result *r, u64 s, const struct scenario *sc, int order, u64 seed,
		   const struct xcase *c, u64 points, bool chain, struct xfound *f)
{
	f->scenarios++;
	if (f->first < 0)
		f->first = (double)s;
	if (f->described++ < 3)
		describe(r, s, sc, order, seed, c, points, chain);
}

static int explore_run(const struct run_params *p, struct run_result *r, char *err, size_t errlen)
{
	u64 first = p->first_sequence, n = p->iterations ? p->iterations : explore_nr_scenarios;
	int order = lab_folio_order(p->folio_size);
	u64 runs = 0, total_points = 0;
	struct xfound f = { .first = -1 };

	if (first >= explore_nr_scenarios) {
		snprintf(err, errlen, "--first-sequence %llu: explore has scenarios 0 to %u",
			 (unsigned long long)first, explore_nr_scenarios - 1);
		return -1;
	}
	n = min(n, explore_nr_scenarios - first);
	/* check judges correctness, not time: no cache model (hw/cache.h) */
	struct run_params untimed = *p;

	untimed.prof = NULL;
	if (lab_machine_setup(&untimed, 16384, err, errlen))
		return -1;
	/* check's workloads: the tree's VM_WARN_ON*() conditions are checked (mm/core.h) */
	mm_debug_vm = true;
	run_phase_begin(r);
	for (u64 s = first; s < first + n; s++) {
		const struct scenario *sc = &scenarios[s];
		struct xcase none = { .at = -1 };
		bool file = sc->state >= XS_FILE;
		int agents[HW_MAX_CPUS + 1], nr_agents = 0;
		u64 before = hw_violations.total, points, positions;

		for (int a = 1; a < hw_machine.nr_agents; a++)
			agents[nr_agents++] = a;
		points = x_run(sc, order, p->seed, &none);
		runs++;
		total_points += points;
		/* it fails with nobody else acting: that is the case to show */
		if (hw_violations.total != before)
			failed(r, s, sc, order, p->seed, &none, points, false, &f);
		positions = min(points, (u64)X_MAX_POSITIONS);
		/* every position, agent, kind and entry; the first failing case is kept */
		for (u64 i = 0; i < positions && hw_violations.total == before; i++) {
			long at = positions == points ? (long)i :
				  (long)(i * (points - 1) / (positions - 1));

			for (int a = 0; a < nr_agents && hw_violations.total == before; a++)
				for (int k = 0; k < NR_IL_ACTS && hw_violations.total == before; k++) {
					if (file && (k == IL_ACT_STORE || k == IL_ACT_STORE_TLB))
						continue;
					for (u64 e = 0; e < arch_cont_ptes() + !arch_cont_ptes() * 16 &&
					     hw_violations.total == before; e++) {
						struct xcase c = { at, agents[a], k, e };

						x_run(sc, order, p->seed, &c);
						runs++;
						if (hw_violations.total != before)
							failed(r, s, sc, order, p->seed, &c, points, p->minimise,
							       &f);
					}
				}
		}
		if (hw_violations.total == before && points == 0 && sc->op != XO_FAULT_STORE &&
		    sc->op != XO_FAULT_LOAD)
			hw_violation(VIOL_OTHER, "explore: scenario %llu (%s) passed no point: "
				     "the operation did nothing", (unsigned long long)s, op_names[sc->op]);
	}
	run_phase_end(r);
	r->measured = hw_events;
	run_result_add(r, "sequences", (double)n);
	run_result_add(r, "operations", (double)runs);
	run_result_add(r, "points", (double)total_points);
	run_result_add(r, "first_failing_sequence", f.first);
	run_result_add(r, "failing_scenarios", (double)f.scenarios);
	run_result_add(r, "readers_gave_up", (double)hw_interleave.reader_gave_up);
	run_result_add_pte_op_calls(r);
	lab_machine_teardown();
	return 0;
}

const struct workload workload_explore = {
	.name = "explore",
	.help = "every interleaving point of small PTE-op scenarios, one action each (check --explore)",
	.measured = "the whole run",
	.opts = RUN_OPT_FOLIO_SIZE | RUN_OPT_ITERATIONS | RUN_OPT_FIRST_SEQUENCE | RUN_OPT_MINIMISE,
	.default_size = X_UNITS * SZ_2M,
	.default_folio_size = SZ_64K,
	.default_iterations = 0,
	.iterations_are = "scenarios",
	.min_cpus = 2,
	/* the interleaving points are arm64's raw PTE accessors, TLBIs and DSBs */
	.arm64_only = true,
	.run = explore_run,
};
