/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The raw ("__"-prefixed) arm64 PTE operations: they touch entries exactly
 * as asked and know nothing of contiguous blocks. Every load, store and
 * atomic is counted, and goes through the CPU's cache model (hw/cache.h). A kernel backend's contpte.c calls these too.
 */
#ifndef PTELAB_ARM64_RAW_H
#define PTELAB_ARM64_RAW_H

#include "arch/arm64/pte.h"
#include "hw/cache.h"
#include "hw/events.h"
#include "hw/interleave.h"
#include "include/mm_types.h"

/*
 * The single-entry accesses inline, in the reference and in a kernel
 * backend alike (it is compiled against this header): the hottest calls
 * of every run. Each is counted, and is a point where other agents may act.
 */
static inline pte_t __ptep_get(pte_t *ptep)
{
	hw_count(EV_pte_read, 1);
	hw_cache_pte(ptep);
	hw_interleave_point(&ptep->pte, IL_READ);
	return __pte(__atomic_load_n(&ptep->pte, __ATOMIC_RELAXED));
}

/*
 * A loop over a block's entries (the reference's contpte gathers and
 * young tests) counts its loads and atomics in a local tally and adds
 * them to hw_events once at its end: the same events, modelled cost and
 * perf frame as counting each, at a third of the lab's hottest loops'
 * cost. Between the steps only an interleaving point's agents run, and
 * they count events of their own.
 */
struct raw_tally {
	unsigned int reads, atomics;
	/* with the cache model: the host line touched last, and repeat touches of it (hits) */
	uintptr_t line;
	unsigned int line_hits;
};

static inline void raw_tally_count(const struct raw_tally *t)
{
	hw_count(EV_pte_read, t->reads);
	hw_count(EV_pte_atomic, t->atomics);
	if (t->line_hits)
		hw_count(EV_cache_hit, t->line_hits);
}

/* A loop's next entry in the line it touched last is a hit on a recent line (hw/cache.h). */
static inline void raw_tally_line(struct raw_tally *t, const pte_t *ptep)
{
	uintptr_t l = (uintptr_t)ptep >> HW_CACHE_LINE_SHIFT;

	if (l == t->line) {
		t->line_hits++;
	} else {
		t->line = l;
		hw_cache_pte(ptep);
	}
}

/*
 * raw_tally_line() for k touches of each of the n entries from ptep, in
 * order, at once: the new lines touched go through the cache model, the
 * rest are hits. For loops that touch their entries in order with no
 * interleaving point between the steps (!hw_interleave.on): the same
 * events as touching each.
 */
static inline void raw_tally_lines(struct raw_tally *t, const pte_t *ptep, unsigned int n,
				   unsigned int k)
{
	const pte_t *end = ptep + n;

	if (!hw_cache_on || !n)
		return;
	while (ptep < end) {
		uintptr_t l = (uintptr_t)ptep >> HW_CACHE_LINE_SHIFT;
		const pte_t *next = (const pte_t *)((l + 1) << HW_CACHE_LINE_SHIFT);
		unsigned int touches = k * (unsigned int)((next < end ? next : end) - ptep);

		if (l != t->line) {
			t->line = l;
			hw_cache_pte(ptep);
			touches--;
		}
		t->line_hits += touches;
		ptep = next;
	}
}

static inline pte_t __ptep_get_tally(pte_t *ptep, struct raw_tally *t)
{
	t->reads++;
	if (hw_cache_on)
		raw_tally_line(t, ptep);
	hw_interleave_point(&ptep->pte, IL_READ);
	return __pte(__atomic_load_n(&ptep->pte, __ATOMIC_RELAXED));
}

static inline void __set_pte(pte_t *ptep, pte_t pte)
{
	hw_count(EV_pte_write, 1);
	hw_cache_pte(ptep);
	hw_interleave_point(&ptep->pte, IL_WRITE);
	__atomic_store_n(&ptep->pte, pte_val(pte), __ATOMIC_RELAXED);
}

/*
 * An atomic exchange with 0. The simulation runs on one host thread
 * (other agents act only at interleaving points, the engine's agents are
 * coroutines), so it is a plain load and store.
 */
static inline pte_t __ptep_get_and_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	pteval_t cur;

	(void)mm;
	(void)addr;
	hw_count(EV_pte_atomic, 1);
	hw_cache_pte(ptep);
	hw_interleave_point(&ptep->pte, IL_XCHG);
	cur = __atomic_load_n(&ptep->pte, __ATOMIC_RELAXED);
	__atomic_store_n(&ptep->pte, 0, __ATOMIC_RELAXED);
	return __pte(cur);
}

/*
 * cmpxchg on a descriptor the hardware may update at any moment. The
 * simulation runs on one host thread (other agents act only at
 * interleaving points, the engine's agents are coroutines), so the
 * atomic step is a plain load and store: the same result without a
 * locked host instruction.
 */
static inline pteval_t pte_cmpxchg_tally(pte_t *ptep, pteval_t old, pteval_t new,
					 struct raw_tally *t)
{
	pteval_t cur;

	t->atomics++;
	if (hw_cache_on)
		raw_tally_line(t, ptep);
	hw_interleave_point(&ptep->pte, IL_CMPXCHG);
	cur = __atomic_load_n(&ptep->pte, __ATOMIC_RELAXED);
	if (cur == old)
		__atomic_store_n(&ptep->pte, new, __ATOMIC_RELAXED);
	return cur;
}

static inline pteval_t pte_cmpxchg(pte_t *ptep, pteval_t old, pteval_t new)
{
	struct raw_tally t = { 0, 0 };
	pteval_t cur = pte_cmpxchg_tally(ptep, old, new, &t);

	raw_tally_count(&t);
	return cur;
}

static inline int __ptep_test_and_clear_young_tally(pte_t *ptep, struct raw_tally *t)
{
	pte_t old_pte, pte = __ptep_get_tally(ptep, t);

	do {
		old_pte = pte;
		pte = pte_mkold(pte);
		pte = __pte(pte_cmpxchg_tally(ptep, pte_val(old_pte), pte_val(pte), t));
	} while (pte_val(pte) != pte_val(old_pte));
	return pte_young(pte);
}

/* Inline: per entry of every young scan, the lab's second hottest call. */
static inline int __ptep_test_and_clear_young(struct vm_area_struct *vma,
					      unsigned long addr, pte_t *ptep)
{
	struct raw_tally t = { 0, 0 };
	int young = __ptep_test_and_clear_young_tally(ptep, &t);

	(void)vma;
	(void)addr;
	raw_tally_count(&t);
	return young;
}

void __set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		pte_t pte, unsigned int nr);
void __pte_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep);
void __clear_full_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		       unsigned int nr, int full);
pte_t __get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				pte_t *ptep, unsigned int nr, int full);
int __ptep_clear_flush_young(struct vm_area_struct *vma, unsigned long addr,
			     pte_t *ptep);
void ___ptep_set_wrprotect(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			   pte_t pte);
void __ptep_set_wrprotect(struct mm_struct *mm, unsigned long addr, pte_t *ptep);
void __wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		      unsigned int nr);
void __clear_young_dirty_pte(struct vm_area_struct *vma, unsigned long addr,
			     pte_t *ptep, pte_t pte, cydp_t flags);
void __clear_young_dirty_ptes(struct vm_area_struct *vma, unsigned long addr,
			      pte_t *ptep, unsigned int nr, cydp_t flags);
int __ptep_set_access_flags(struct vm_area_struct *vma, unsigned long addr,
			    pte_t *ptep, pte_t entry, int dirty);

#endif
