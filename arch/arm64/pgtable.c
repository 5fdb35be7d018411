// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reference backend: ptelab's twin of Linux 7.3's public arm64 PTE
 * API, i.e. the CONFIG_ARM64_CONTPTE dispatcher block of
 * arch/arm64/include/asm/pgtable.h and arch/arm64/mm/contpte.c, with the
 * kernel's names, shapes and algorithms (written for ptelab, not copied);
 * then the arm64 arch ops. With every switch on, ref and the linux-7.3
 * backend produce the same events (tests/python/test_parity.py).
 *
 * One translation unit on purpose: the contpte functions keep their kernel
 * names as statics. kernel/backend.c defines the global contpte_ptep_get,
 * contpte_ptep_get_lockless, __contpte_try_fold and __contpte_try_unfold
 * that count kernel backends, and any global contpte_* here would
 * interpose a kernel backend's own.
 *
 * Events are counted where kernel/backend.c counts them for kernels: a
 * gather and the loads inside it around contpte_ptep_get{,_lockless}, an
 * unfold at each __contpte_try_unfold call, a fold when __contpte_try_fold
 * leaves the block contiguous.
 *
 * The switches (arch/switches.h), each a minimal fork of this code:
 *   contpte              off: no block is folded or set contiguous;
 *   exit-clear-ptes      off: the arch has no clear_full_ptes/
 *                        get_and_clear_full_ptes, the generic loop runs
 *                        (and contpte_full_mode picks S2's way of clearing
 *                        one entry of a block at exit);
 *   ptep-get-early-exit  off: the gathers read all 16 entries (6.12);
 *   ptep-get-reread      off: the gathers test the dirty entry they found
 *                        for young instead of loading it again as 7.3 does.
 * young-batch, zap-batch and fork-batch are core-mm's (mm/).
 */
#include "arch/arch.h"
#include "arch/arm64/api.h"
#include "arch/arm64/gather_memo.h"
#include "arch/arm64/raw.h"
#include "arch/arm64/tlbflush.h"
#include "arch/arm64/switches.h"
#include "hw/cpu.h"
#include "hw/events.h"
#include "include/mmu_gather_types.h"
#include "include/page.h"
#include "hw/perf.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define TLB_FLUSH_VMA(mm, flags) { .vm_mm = (mm), .vm_flags = (flags) }

/* ---- asm/pgtable.h, CONFIG_ARM64_CONTPTE ------------------------------- */

static void __contpte_try_fold(struct mm_struct *mm, unsigned long addr,
			       pte_t *ptep, pte_t pte);
static void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
				 pte_t *ptep, pte_t pte);
static pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte);
static pte_t contpte_ptep_get_lockless(pte_t *orig_ptep);
static void contpte_set_ptes(struct mm_struct *mm, unsigned long addr,
			     pte_t *ptep, pte_t pte, unsigned int nr);
static void contpte_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				    pte_t *ptep, unsigned int nr, int full);
static pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm,
					     unsigned long addr, pte_t *ptep,
					     unsigned int nr, int full);
static bool contpte_test_and_clear_young_ptes(struct vm_area_struct *vma,
					      unsigned long addr, pte_t *ptep,
					      unsigned int nr);
static bool contpte_clear_flush_young_ptes(struct vm_area_struct *vma,
					   unsigned long addr, pte_t *ptep,
					   unsigned int nr);
static void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
				   pte_t *ptep, unsigned int nr);
static int contpte_ptep_set_access_flags(struct vm_area_struct *vma,
					 unsigned long addr, pte_t *ptep,
					 pte_t entry, int dirty);
static void contpte_clear_young_dirty_ptes(struct vm_area_struct *vma,
					   unsigned long addr, pte_t *ptep,
					   unsigned int nr, cydp_t flags);

/*
 * Fold when the last entry of a naturally aligned block is written: the
 * core code fills ranges low to high, so the block is likely complete.
 * Special mappings have no folio and never fold.
 */
static inline void contpte_try_fold(struct mm_struct *mm, unsigned long addr,
				    pte_t *ptep, pte_t pte)
{
	const unsigned long contmask = CONT_PTES - 1;
	bool valign = ((addr >> PAGE_SHIFT) & contmask) == contmask;

	if (!arm64_sw.contpte) /* --without contpte */
		return;

	if (unlikely(valign)) {
		bool palign = (pte_pfn(pte) & contmask) == contmask;

		if (unlikely(palign &&
			     pte_valid(pte) && !pte_cont(pte) && !pte_special(pte)))
			__contpte_try_fold(mm, addr, ptep, pte);
	}
}

static inline void contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
				      pte_t *ptep, pte_t pte)
{
	if (unlikely(pte_valid_cont(pte)))
		__contpte_try_unfold(mm, addr, ptep, pte);
}

/* A contiguous block can be judged by one entry: skip to its end. */
static inline unsigned int pte_batch_hint(pte_t *ptep, pte_t pte)
{
	if (!pte_valid_cont(pte))
		return 1;

	return CONT_PTES - (((unsigned long)ptep >> 3) & (CONT_PTES - 1));
}

/*
 * The public API core-mm calls: plain entries take the raw "__" path,
 * contiguous ones go to contpte_*. The contiguous bit may leak out through
 * the getters, so the setters clear it from what they are given.
 */
static inline pte_t ptep_get(pte_t *ptep)
{
	pte_t pte = __ptep_get(ptep);

	if (likely(!pte_valid_cont(pte)))
		return pte;

	return contpte_ptep_get(ptep, pte);
}

static inline pte_t ptep_get_lockless(pte_t *ptep)
{
	pte_t pte = __ptep_get(ptep);

	if (likely(!pte_valid_cont(pte)))
		return pte;

	return contpte_ptep_get_lockless(ptep);
}

static inline void set_ptes(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, pte_t pte, unsigned int nr)
{
	pte = pte_mknoncont(pte);

	if (likely(nr == 1)) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__set_ptes(mm, addr, ptep, pte, 1);
		contpte_try_fold(mm, addr, ptep, pte);
	} else {
		contpte_set_ptes(mm, addr, ptep, pte, nr);
	}
}

static pte_t clear_ptes_one_by_one(struct mm_struct *mm, unsigned long addr,
				   pte_t *ptep, unsigned int nr, int full);

static inline void clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				   pte_t *ptep, unsigned int nr, int full)
{
	if (likely(nr == 1)) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__clear_full_ptes(mm, addr, ptep, nr, full);
	} else if (!arm64_sw.exit_clear_ptes) {
		clear_ptes_one_by_one(mm, addr, ptep, nr, full);
	} else {
		contpte_clear_full_ptes(mm, addr, ptep, nr, full);
	}
}

static inline pte_t get_and_clear_full_ptes(struct mm_struct *mm,
					    unsigned long addr, pte_t *ptep,
					    unsigned int nr, int full)
{
	pte_t pte;

	if (likely(nr == 1)) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		pte = __get_and_clear_full_ptes(mm, addr, ptep, nr, full);
	} else if (!arm64_sw.exit_clear_ptes) {
		pte = clear_ptes_one_by_one(mm, addr, ptep, nr, full);
	} else {
		pte = contpte_get_and_clear_full_ptes(mm, addr, ptep, nr, full);
	}

	return pte;
}

static inline pte_t ptep_get_and_clear(struct mm_struct *mm,
				       unsigned long addr, pte_t *ptep)
{
	contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
	return __ptep_get_and_clear(mm, addr, ptep);
}

static inline bool test_and_clear_young_ptes(struct vm_area_struct *vma,
					     unsigned long addr, pte_t *ptep,
					     unsigned int nr)
{
	if (likely(nr == 1 && !pte_cont(__ptep_get(ptep))))
		return __ptep_test_and_clear_young(vma, addr, ptep);

	return contpte_test_and_clear_young_ptes(vma, addr, ptep, nr);
}

/* int, not 7.3's bool: ptelab's fixed signature (arch/pte_api.h) */
static inline int ptep_test_and_clear_young(struct vm_area_struct *vma,
					    unsigned long addr, pte_t *ptep)
{
	return test_and_clear_young_ptes(vma, addr, ptep, 1);
}

static inline int ptep_clear_flush_young(struct vm_area_struct *vma,
					 unsigned long addr, pte_t *ptep)
{
	pte_t orig_pte = __ptep_get(ptep);

	if (likely(!pte_valid_cont(orig_pte)))
		return __ptep_clear_flush_young(vma, addr, ptep);

	return contpte_clear_flush_young_ptes(vma, addr, ptep, 1);
}

static inline bool clear_flush_young_ptes(struct vm_area_struct *vma,
					  unsigned long addr, pte_t *ptep,
					  unsigned int nr)
{
	if (likely(nr == 1 && !pte_cont(__ptep_get(ptep))))
		return __ptep_clear_flush_young(vma, addr, ptep);

	return contpte_clear_flush_young_ptes(vma, addr, ptep, nr);
}

static inline void wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
				  pte_t *ptep, unsigned int nr)
{
	if (likely(nr == 1)) {
		/*
		 * Only present entries are write-protected, so the contiguous
		 * bit alone decides the unfold, and the entry read serves
		 * ___ptep_set_wrprotect without a reload (fork of order-0
		 * folios is sensitive to it).
		 */
		pte_t orig_pte = __ptep_get(ptep);

		if (unlikely(pte_cont(orig_pte))) {
			__contpte_try_unfold(mm, addr, ptep, orig_pte);
			orig_pte = pte_mknoncont(orig_pte);
		}
		___ptep_set_wrprotect(mm, addr, ptep, orig_pte);
	} else {
		contpte_wrprotect_ptes(mm, addr, ptep, nr);
	}
}

static inline int ptep_set_access_flags(struct vm_area_struct *vma,
					unsigned long addr, pte_t *ptep,
					pte_t entry, int dirty)
{
	pte_t orig_pte = __ptep_get(ptep);

	entry = pte_mknoncont(entry);

	if (likely(!pte_valid_cont(orig_pte)))
		return __ptep_set_access_flags(vma, addr, ptep, entry, dirty);

	return contpte_ptep_set_access_flags(vma, addr, ptep, entry, dirty);
}

static inline void clear_young_dirty_ptes(struct vm_area_struct *vma,
					  unsigned long addr, pte_t *ptep,
					  unsigned int nr, cydp_t flags)
{
	if (likely(nr == 1 && !pte_cont(__ptep_get(ptep))))
		__clear_young_dirty_ptes(vma, addr, ptep, nr, flags);
	else
		contpte_clear_young_dirty_ptes(vma, addr, ptep, nr, flags);
}

/* ---- arch/arm64/mm/contpte.c --------------------------------------------- */

/* The lab maps no kernel memory: every mm is a user mm. */
static inline bool mm_is_user(struct mm_struct *mm)
{
	return true;
}

static inline bool system_supports_bbml3(void)
{
	return hw_machine.cfg.bbml2;
}

static inline pte_t *contpte_align_down(pte_t *ptep)
{
	return (pte_t *)ALIGN_DOWN((uintptr_t)ptep, sizeof(*ptep) * CONT_PTES);
}

/*
 * Widen [*start, *end) to whole blocks at an end whose entry is
 * contiguous. The nr entries are present and map consecutive pages of
 * one large folio in one VMA and one page table.
 */
static inline pte_t *contpte_align_addr_ptep(unsigned long *start,
					     unsigned long *end, pte_t *ptep,
					     unsigned int nr)
{
	if (pte_cont(__ptep_get(ptep + nr - 1)))
		*end = ALIGN(*end, CONT_PTE_SIZE);

	if (pte_cont(__ptep_get(ptep))) {
		*start = ALIGN_DOWN(*start, CONT_PTE_SIZE);
		ptep = contpte_align_down(ptep);
	}

	return ptep;
}

/* Only blocks the range covers partly need unfolding. */
static void contpte_try_unfold_partial(struct mm_struct *mm, unsigned long addr,
				       pte_t *ptep, unsigned int nr)
{
	PERF_FUNC();
	if (ptep != contpte_align_down(ptep) || nr < CONT_PTES)
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));

	if (ptep + nr != contpte_align_down(ptep + nr)) {
		unsigned long last_addr = addr + PAGE_SIZE * (nr - 1);
		pte_t *last_ptep = ptep + nr - 1;

		contpte_try_unfold(mm, last_addr, last_ptep,
				   __ptep_get(last_ptep));
	}
}

/*
 * Rewrite a whole block with pte (cont or not), carrying over the young
 * and dirty state the hardware may have left in any of its entries:
 * clear, flush, repaint (break-before-make). flush is 7.3's
 * !system_supports_bbml3() (contpte_convert below); S2's robust-full exit
 * variant repaints without it.
 */
static void __contpte_convert(struct mm_struct *mm, unsigned long addr,
			      pte_t *ptep, pte_t pte, bool flush)
{
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);
	unsigned long start_addr;
	pte_t *start_ptep;
	int i;

	start_ptep = ptep = contpte_align_down(ptep);
	start_addr = addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	pte = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES), pte_pgprot(pte));

	for (i = 0; i < CONT_PTES; i++, ptep++, addr += PAGE_SIZE) {
		pte_t ptent = __ptep_get_and_clear(mm, addr, ptep);

		if (pte_dirty(ptent))
			pte = pte_mkdirty(pte);

		if (pte_young(ptent))
			pte = pte_mkyoung(pte);
	}

	/* 7.x's __flush_tlb_range(vma, start, end, stride, level, flags) */
	if (flush)
		arm64_flush_tlb_range_flags(&vma, start_addr, addr, PAGE_SIZE, 3,
					    TLBF_NOWALKCACHE);

	__set_ptes(mm, start_addr, start_ptep, pte, CONT_PTES);
}

/*
 * Under BBML3 the intermediate TLBI+DSB may go: a walker then sees the old
 * entries or the new ones, never an amalgam, until the caller's final
 * flush of the changed page.
 */
static void contpte_convert(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, pte_t pte)
{
	PERF_FUNC();
	__contpte_convert(mm, addr, ptep, pte, !system_supports_bbml3());
}

/*
 * contpte_try_fold() checked that the virtual and physical addresses are
 * aligned; fold only if one folio covers the block and all 16 entries are
 * valid, with consecutive frames and the same attributes apart from young
 * and dirty (the folded block ORs those).
 */
static void __contpte_try_fold(struct mm_struct *mm, unsigned long addr,
			       pte_t *ptep, pte_t pte)
{
	unsigned long folio_start, folio_end;
	unsigned long cont_start, cont_end;
	pte_t expected_pte, subpte;
	struct folio *folio;
	struct page *page;
	unsigned long pfn;
	pte_t *orig_ptep;
	pgprot_t prot;
	int i;

	if (!mm_is_user(mm))
		return;

	/* the vmemmap view (include/page.h), as the kernel's contpte.c reads it */
	page = pte_page(pte);
	folio = page_folio(page);
	folio_start = addr - (page - &folio->page) * PAGE_SIZE;
	folio_end = folio_start + folio_nr_pages(folio) * PAGE_SIZE;
	cont_start = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	cont_end = cont_start + CONT_PTE_SIZE;

	if (folio_start > cont_start || folio_end < cont_end)
		return;

	pfn = ALIGN_DOWN(pte_pfn(pte), CONT_PTES);
	prot = pte_pgprot(pte_mkold(pte_mkclean(pte)));
	expected_pte = pfn_pte(pfn, prot);
	orig_ptep = ptep;
	ptep = contpte_align_down(ptep);

	for (i = 0; i < CONT_PTES; i++) {
		subpte = pte_mkold(pte_mkclean(__ptep_get(ptep)));
		if (!pte_same(subpte, expected_pte))
			return;
		expected_pte = pte_advance_pfn(expected_pte, 1);
		ptep++;
	}

	pte = pte_mkcont(pte);
	contpte_convert(mm, addr, orig_ptep, pte);
	hw_count(EV_fold, 1);
}

static void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
				 pte_t *ptep, pte_t pte)
{
	hw_count(EV_unfold, 1);

	if (!mm_is_user(mm))
		return;

	pte = pte_mknoncont(pte);
	contpte_convert(mm, addr, ptep, pte);
}

/*
 * A gather's dirty/young tests beyond one per entry it loaded
 * (contpte_test): pte_read stands for a load and the compare-and-branch
 * on it; the loop before S4 tests both bits of every entry, S4's only
 * those it still needs.
 */
#define GTEST(bit, tests) ((*(tests))++, (bit))

static inline u64 contpte_extra_tests(unsigned int tests, u64 loads)
{
	return tests > loads ? tests - loads : 0;
}

/* A gather, and the loads inside it, are what S4 shortens: count them. */
static inline u64 contpte_gather_begin(void)
{
	return hw_events.v[EV_pte_read];
}

static inline pte_t contpte_gather_end(u64 reads, pte_t pte, unsigned int merges,
					unsigned int tests)
{
	hw_count(EV_contpte_merge, merges);
	hw_count(EV_contpte_test, contpte_extra_tests(tests, hw_events.v[EV_pte_read] - reads));
	hw_count(EV_contpte_get, 1);
	hw_count(EV_contpte_get_read, hw_events.v[EV_pte_read] - reads);
	return pte;
}

/* The locked gather counts its loads once, at its end (struct raw_tally). */
static inline pte_t contpte_gather_counted(const struct raw_tally *t, pte_t pte)
{
	raw_tally_count(t);
	hw_count(EV_contpte_get, 1);
	hw_count(EV_contpte_get_read, t->reads);
	return pte;
}

/*
 * One load of the gather: fast (no interleaving point between the loads:
 * no agent can act) it is only counted, raw_tally_lines() naming its
 * lines at the end; otherwise each is a point, as __ptep_get's.
 */
static inline __attribute__((always_inline)) pte_t gather_load(pte_t *ptep, struct raw_tally *t,
							      pte_t **last, bool fast)
{
	if (fast) {
		t->reads++;
		*last = ptep;
		return __pte(__atomic_load_n(&ptep->pte, __ATOMIC_RELAXED));
	}
	return __ptep_get_tally(ptep, t);
}

/*
 * Gather young/dirty from the block (the PTL is held: nothing folds or
 * unfolds under us). 7.3 stops once both are known; having found a dirty
 * entry it looks for a young one starting at that same entry, loading it
 * again (ptep-get-reread on). Off, it tests the entry it has.
 */
static inline __attribute__((always_inline)) pte_t gather(pte_t *ptep, pte_t orig_pte,
							 struct raw_tally *t, pte_t **last, bool fast,
							 unsigned int *merges, unsigned int *tests)
{
	pte_t pte;
	int i;

	for (i = 0; i < CONT_PTES; i++, ptep++) {
		pte = gather_load(ptep, t, last, fast);

		if (!arm64_sw.ptep_get_early_exit) {
			/* before S4 (6.12): every entry */
			if (GTEST(pte_dirty(pte), tests))
				orig_pte = pte_mkdirty(orig_pte), (*merges)++;
			if (GTEST(pte_young(pte), tests))
				orig_pte = pte_mkyoung(orig_pte), (*merges)++;
			continue;
		}

		if (GTEST(pte_dirty(pte), tests)) {
			orig_pte = pte_mkdirty(orig_pte), (*merges)++;
			if (!arm64_sw.ptep_get_reread) {
				if (GTEST(pte_young(pte), tests)) {
					orig_pte = pte_mkyoung(orig_pte), (*merges)++;
					break;
				}
				i++;
				ptep++;
			}
			for (; i < CONT_PTES; i++, ptep++) {
				pte = gather_load(ptep, t, last, fast);
				if (GTEST(pte_young(pte), tests)) {
					orig_pte = pte_mkyoung(orig_pte), (*merges)++;
					break;
				}
			}
			break;
		}

		if (GTEST(pte_young(pte), tests)) {
			orig_pte = pte_mkyoung(orig_pte), (*merges)++;
			i++;
			ptep++;
			for (; i < CONT_PTES; i++, ptep++) {
				pte = gather_load(ptep, t, last, fast);
				if (GTEST(pte_dirty(pte), tests)) {
					orig_pte = pte_mkdirty(orig_pte), (*merges)++;
					break;
				}
			}
			break;
		}
	}
	return orig_pte;
}

static pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte)
{
	PERF_FUNC();
	struct raw_tally reads = { 0, 0 };
	unsigned int merges = 0, tests = 0;
	pte_t *last = NULL, *entry = ptep;
	struct gather_memo_slot *memo;

	ptep = contpte_align_down(ptep);
	if (hw_interleave.on) {
		orig_pte = gather(ptep, orig_pte, &reads, &last, false, &merges, &tests);
		hw_count(EV_contpte_merge, merges);
		hw_count(EV_contpte_test, contpte_extra_tests(tests, reads.reads));
		return contpte_gather_counted(&reads, orig_pte);
	}

	/* the same block, entry and orig_pte as a gather before: its replay */
	u64 impl = gather_memo_ref_impl(arm64_sw.ptep_get_early_exit, arm64_sw.ptep_get_reread);
	unsigned int i = (unsigned int)(entry - ptep);
	const struct gather_memo_call *c;
	bool held = false;

	memo = gather_memo_slot(ptep);
	if (memo)
		held = gather_memo_holds(memo, ptep, impl);
	if (held && (c = gather_memo_find(memo, i, orig_pte))) {
		pte_t pte = gather_memo_replay(ptep, c);

		hw_count(EV_contpte_merge, c->sets);
		hw_count(EV_contpte_test, contpte_extra_tests(c->tests, c->reads));
		hw_count(EV_contpte_get, 1);
		hw_count(EV_contpte_get_read, c->reads);
		return pte;
	}

	pte_t pte = gather(ptep, orig_pte, &reads, &last, true, &merges, &tests);

	hw_count(EV_contpte_merge, merges);
	hw_count(EV_contpte_test, contpte_extra_tests(tests, reads.reads));
	/*
	 * The loads went up the block, each entry once but the dirty one
	 * reloaded right after itself (a hit on the line it is in): the
	 * entries up to the last one loaded, in order, then the reload.
	 */
	unsigned int span = (unsigned int)(last - ptep) + 1;

	if (memo)
		gather_memo_record_ref(memo, held, ptep, i, impl, orig_pte, pte, reads.reads, span,
				       tests, merges);
	raw_tally_lines(&reads, ptep, span, 1);
	if (hw_cache_on)
		reads.line_hits += reads.reads - span;
	return contpte_gather_counted(&reads, pte);
}

static inline bool contpte_is_consistent(pte_t pte, unsigned long pfn,
					 pgprot_t orig_prot)
{
	pgprot_t prot = pte_pgprot(pte_mkold(pte_mkclean(pte)));

	return pte_valid_cont(pte) && pte_pfn(pte) == pfn &&
	       pgprot_val(prot) == pgprot_val(orig_prot);
}

/*
 * Without the PTL the block may be unfolded, changed and refolded while
 * we read it: retry until every entry read belongs to one consistent
 * block (valid, contiguous, consecutive frames, same attributes apart from
 * young/dirty). An entry that is not contiguous is consistent alone. The
 * same early exit, re-read and switches as contpte_ptep_get().
 */
static pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	PERF_FUNC();
	u64 reads = contpte_gather_begin();
	/* a retry's folds and tests are work done too, as its loads */
	unsigned int merges = 0, tests = 0;
	pgprot_t orig_prot;
	unsigned long pfn;
	pte_t orig_pte;
	pte_t *ptep;
	pte_t pte;
	int i;

retry:
	orig_pte = __ptep_get(orig_ptep);

	if (!pte_valid_cont(orig_pte))
		return contpte_gather_end(reads, orig_pte, merges, tests);

	orig_prot = pte_pgprot(pte_mkold(pte_mkclean(orig_pte)));
	ptep = contpte_align_down(orig_ptep);
	pfn = pte_pfn(orig_pte) - (unsigned long)(orig_ptep - ptep);

	for (i = 0; i < CONT_PTES; i++, ptep++, pfn++) {
		pte = __ptep_get(ptep);

		if (!contpte_is_consistent(pte, pfn, orig_prot))
			goto retry;

		if (!arm64_sw.ptep_get_early_exit) {
			/* before S4 (6.12): every entry */
			if (GTEST(pte_dirty(pte), &tests))
				orig_pte = pte_mkdirty(orig_pte), merges++;
			if (GTEST(pte_young(pte), &tests))
				orig_pte = pte_mkyoung(orig_pte), merges++;
			continue;
		}

		if (GTEST(pte_dirty(pte), &tests)) {
			orig_pte = pte_mkdirty(orig_pte), merges++;
			if (!arm64_sw.ptep_get_reread) {
				if (GTEST(pte_young(pte), &tests)) {
					orig_pte = pte_mkyoung(orig_pte), merges++;
					break;
				}
				i++;
				ptep++;
				pfn++;
			}
			for (; i < CONT_PTES; i++, ptep++, pfn++) {
				pte = __ptep_get(ptep);

				if (!contpte_is_consistent(pte, pfn, orig_prot))
					goto retry;

				if (GTEST(pte_young(pte), &tests)) {
					orig_pte = pte_mkyoung(orig_pte), merges++;
					break;
				}
			}
			break;
		}

		if (GTEST(pte_young(pte), &tests)) {
			orig_pte = pte_mkyoung(orig_pte), merges++;
			i++;
			ptep++;
			pfn++;
			for (; i < CONT_PTES; i++, ptep++, pfn++) {
				pte = __ptep_get(ptep);

				if (!contpte_is_consistent(pte, pfn, orig_prot))
					goto retry;

				if (GTEST(pte_dirty(pte), &tests)) {
					orig_pte = pte_mkdirty(orig_pte), merges++;
					break;
				}
			}
			break;
		}
	}

	return contpte_gather_end(reads, orig_pte, merges, tests);
}

/*
 * When nr > 1 every entry is none on entry (the set_ptes() contract), so
 * nothing needs unfolding first: set the contiguous bit on every naturally
 * aligned block of the range.
 */
static void contpte_set_ptes(struct mm_struct *mm, unsigned long addr,
			     pte_t *ptep, pte_t pte, unsigned int nr)
{
	PERF_FUNC();
	unsigned long next;
	unsigned long end;
	unsigned long pfn;
	pgprot_t prot;

	/* --without contpte: never contiguous */
	if (!mm_is_user(mm) || !pte_valid(pte) || !arm64_sw.contpte)
		return __set_ptes(mm, addr, ptep, pte, nr);

	end = addr + ((unsigned long)nr << PAGE_SHIFT);
	pfn = pte_pfn(pte);
	prot = pte_pgprot(pte);

	do {
		next = pte_cont_addr_end(addr, end);
		nr = (next - addr) >> PAGE_SHIFT;
		pte = pfn_pte(pfn, prot);

		if (((addr | next | (pfn << PAGE_SHIFT)) & ~CONT_PTE_MASK) == 0)
			pte = pte_mkcont(pte);
		else
			pte = pte_mknoncont(pte);

		__set_ptes(mm, addr, ptep, pte, nr);

		addr = next;
		ptep += nr;
		pfn += nr;
	} while (addr != end);
}

static void contpte_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				    pte_t *ptep, unsigned int nr, int full)
{
	PERF_FUNC();
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	__clear_full_ptes(mm, addr, ptep, nr, full);
}

static pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm,
					     unsigned long addr, pte_t *ptep,
					     unsigned int nr, int full)
{
	PERF_FUNC();
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	return __get_and_clear_full_ptes(mm, addr, ptep, nr, full);
}

/*
 * Core-mm tracks young per folio and a block never spans folios, so young
 * is cleared for whole blocks at the ends rather than unfolding them.
 */
static bool contpte_test_and_clear_young_ptes(struct vm_area_struct *vma,
					      unsigned long addr, pte_t *ptep,
					      unsigned int nr)
{
	PERF_FUNC();
	unsigned long end = addr + nr * PAGE_SIZE;
	struct raw_tally t = { 0, 0 };
	bool young = false;

	ptep = contpte_align_addr_ptep(&addr, &end, ptep, nr);
	if (!hw_interleave.on) {
		/* no agent acts between the steps: a load and a cmpxchg that cannot fail per entry */
		unsigned int n = (unsigned int)((end - addr) >> PAGE_SHIFT);

		t.reads += n;
		t.atomics += n;
		raw_tally_lines(&t, ptep, n, 2);
		for (unsigned int i = 0; i < n; i++) {
			pteval_t v = __atomic_load_n(&ptep[i].pte, __ATOMIC_RELAXED);

			if (pte_young(__pte(v))) {
				young = true;
				__atomic_store_n(&ptep[i].pte, pte_val(pte_mkold(__pte(v))),
						 __ATOMIC_RELAXED);
			}
		}
	} else {
		for (; addr != end; ptep++, addr += PAGE_SIZE)
			young |= __ptep_test_and_clear_young_tally(ptep, &t);
	}
	raw_tally_count(&t);

	return young;
}

/* The flush covers what was cleared, without waiting for it (as 7.3). */
static bool contpte_clear_flush_young_ptes(struct vm_area_struct *vma,
					   unsigned long addr, pte_t *ptep,
					   unsigned int nr)
{
	PERF_FUNC();
	bool young;

	young = contpte_test_and_clear_young_ptes(vma, addr, ptep, nr);

	if (young) {
		unsigned long end = addr + nr * PAGE_SIZE;

		contpte_align_addr_ptep(&addr, &end, ptep, nr);
		arm64_flush_tlb_range_flags(vma, addr, end, PAGE_SIZE, 3,
					    TLBF_NOWALKCACHE | TLBF_NOSYNC);
	}

	return young;
}

/*
 * Write permission must be uniform over a block: a whole block keeps its
 * fold (the caller's later flush makes it read-only), a partly covered one
 * is unfolded.
 */
static void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
				   pte_t *ptep, unsigned int nr)
{
	PERF_FUNC();
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	__wrprotect_ptes(mm, addr, ptep, nr);
}

/* Young/dirty are per folio: clear whole blocks at the ends, no unfold. */
static void contpte_clear_young_dirty_ptes(struct vm_area_struct *vma,
					   unsigned long addr, pte_t *ptep,
					   unsigned int nr, cydp_t flags)
{
	PERF_FUNC();
	unsigned long start = addr;
	unsigned long end = start + nr * PAGE_SIZE;

	ptep = contpte_align_addr_ptep(&start, &end, ptep, nr);
	__clear_young_dirty_ptes(vma, start, ptep, (end - start) / PAGE_SIZE, flags);
}

/*
 * Whether every entry of the block already has the access state asked for
 * (AF, dirty, write permission: what __ptep_set_access_flags() updates).
 * A walker that reads entries one by one (no HAFDBS, an SMMU without HTTU)
 * would otherwise fault forever on an entry whose sibling alone was
 * updated, since the gathered view looks complete.
 */
static bool contpte_all_subptes_match_access_flags(pte_t *ptep, pte_t entry)
{
	pte_t *cont_ptep = contpte_align_down(ptep);
	const pteval_t cmp_mask = PTE_RDONLY | PTE_AF | PTE_WRITE | PTE_DIRTY;
	pteval_t entry_cmp = pte_val(entry) & cmp_mask;
	int i;

	for (i = 0; i < CONT_PTES; i++) {
		pteval_t pte_cmp = pte_val(__ptep_get(cont_ptep + i)) & cmp_mask;

		if (pte_cmp != entry_cmp)
			return false;
	}

	return true;
}

/*
 * Young/dirty can be fixed up over the whole block without unfolding (all
 * 16 entries, so that software access management does not fault again,
 * with one flush at the end); a change of write permission must unfold.
 */
static int contpte_ptep_set_access_flags(struct vm_area_struct *vma,
					 unsigned long addr, pte_t *ptep,
					 pte_t entry, int dirty)
{
	PERF_FUNC();
	unsigned long start_addr;
	pte_t orig_pte;
	int i;

	if (contpte_all_subptes_match_access_flags(ptep, entry))
		return 0;

	/* the raw target entry, not the gathered view, decides the unfold */
	orig_pte = pte_mknoncont(__ptep_get(ptep));

	if (pte_write(orig_pte) == pte_write(entry)) {
		ptep = contpte_align_down(ptep);
		start_addr = addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);

		for (i = 0; i < CONT_PTES; i++, ptep++, addr += PAGE_SIZE)
			__ptep_set_access_flags(vma, addr, ptep, entry, 0);

		if (dirty)
			arm64_flush_tlb_range_flags(vma, start_addr,
						    start_addr + CONT_PTE_SIZE,
						    PAGE_SIZE, 3,
						    TLBF_NOWALKCACHE | TLBF_NOBROADCAST);
	} else {
		__contpte_try_unfold(vma->vm_mm, addr, ptep, orig_pte);
		__ptep_set_access_flags(vma, addr, ptep, entry, dirty);
	}

	return 1;
}

/* ---- reference-only variants --------------------------------------------- */

/*
 * arm64 has no ptep_get_and_clear_full(): the generic one is
 * ptep_get_and_clear(). S2 compared ways of clearing one contiguous entry
 * of a fullmm teardown, picked by contpte_full_mode (the exit workload's
 * variants, with exit-clear-ptes off), as R. Roberts posted and measured
 * them in Nov/Dec 2023:
 *   NONE    ptep_get_and_clear(): unfold the block first (16 entries
 *           rewritten, TLBI, DSB: no-opt);
 *   SIMPLE  v2 14/14: clear just this entry, leaving the rest of the
 *           block contiguous until the zap reaches them (the mm dies);
 *           young/dirty of the cleared entries are dropped, so a later
 *           ptep_get() of the block may miss them;
 *   ROBUST  the "robust" rework of that thread: clear this entry, stash
 *           its young/dirty into the block's highest entry still valid
 *           (a cmpxchg unless it has them already), and return the
 *           block's gather over what remains, so nothing is ever lost.
 */
static pte_t contpte_ptep_get_and_clear_full_robust(struct mm_struct *mm,
						    unsigned long addr, pte_t *ptep)
{
	pte_t orig_pte = __ptep_get_and_clear(mm, addr, ptep);
	bool dirty = pte_dirty(orig_pte), young = pte_young(orig_pte);
	pte_t *start = contpte_align_down(ptep);

	if (!dirty && !young)
		return contpte_ptep_get(ptep, orig_pte);
	for (ptep = start + CONT_PTES - 1; ptep >= start; ptep--) {
		pte_t pte = __ptep_get(ptep);

		if (!pte_valid(pte))
			continue;
		if (dirty)
			pte = pte_mkdirty(pte);
		if (young)
			pte = pte_mkyoung(pte);
		/* __ptep_set_access_flags_notlbi(): the mm dies, no flush */
		__ptep_set_access_flags(NULL, addr, ptep, pte, 0);
		return contpte_ptep_get(ptep, orig_pte);
	}
	return orig_pte;
}

static pte_t ptep_get_and_clear_full(struct mm_struct *mm, unsigned long addr,
				     pte_t *ptep, int full)
{
	pte_t pte;

	if (!full || arm64_sw.full_mode == CONTPTE_FULL_NONE)
		return ptep_get_and_clear(mm, addr, ptep);

	pte = __ptep_get(ptep);
	if (pte_valid_cont(pte) && arm64_sw.full_mode == CONTPTE_FULL_ROBUST)
		return contpte_ptep_get_and_clear_full_robust(mm, addr, ptep);
	return __ptep_get_and_clear(mm, addr, ptep);
}

/*
 * Without exit-clear-ptes the arch defines no clear_full_ptes() or
 * get_and_clear_full_ptes(): the generic loop of include/linux/pgtable.h
 * over ptep_get_and_clear_full() runs for every entry.
 */
static pte_t clear_ptes_one_by_one(struct mm_struct *mm, unsigned long addr,
				   pte_t *ptep, unsigned int nr, int full)
{
	pte_t pte, tmp_pte;

	pte = ptep_get_and_clear_full(mm, addr, ptep, full);
	while (--nr) {
		ptep++;
		addr += PAGE_SIZE;
		tmp_pte = ptep_get_and_clear_full(mm, addr, ptep, full);
		if (pte_dirty(tmp_pte))
			pte = pte_mkdirty(pte);
		if (pte_young(tmp_pte))
			pte = pte_mkyoung(pte);
	}
	return pte;
}

/* ---- arm64 arch ops ------------------------------------------------------ */

/* asm/tlb.h: flush what the gather collected. */
static void tlb_flush(struct mmu_gather *tlb)
{
	struct vm_area_struct vma = { .vm_mm = tlb->mm };
	bool last_level = !tlb->freed_tables;

	/*
	 * Tearing down the whole address space: the ASID is not reused
	 * without a full invalidation, only the walk cache matters.
	 */
	if (tlb->fullmm) {
		if (!last_level)
			flush_tlb_mm(tlb->mm);
		return;
	}
	__flush_tlb_range(&vma, tlb->start, tlb->end,
			  tlb->cleared_ptes ? PAGE_SIZE : SZ_2M, last_level,
			  tlb->cleared_ptes ? 3 : 2);
}

static bool a_present(pte_t p) { return pte_present(p); }
static u64 a_pfn(pte_t p) { return pte_pfn(p); }
static bool a_young(pte_t p) { return pte_young(p); }
static bool a_dirty(pte_t p) { return pte_dirty(p); }
static bool a_write(pte_t p) { return pte_write(p); }
static pte_t a_mkwrite(pte_t p) { return pte_mkwrite_novma(p); }

static pgprot_t vm_get_page_prot(unsigned long vm_flags)
{
	if (!(vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return __pgprot(PAGE_NONE_VAL);
	if ((vm_flags & VM_SHARED) && (vm_flags & VM_WRITE))
		return __pgprot(PAGE_SHARED_VAL);
	/* private writable mappings start read-only: copy on write */
	return __pgprot(PAGE_READONLY_VAL);
}

static u64 mk_table(u64 *table)
{
	return (u64)(uintptr_t)table | PMD_TYPE_TABLE;
}

static u64 mk_pmd_leaf(u64 pfn, pgprot_t prot)
{
	return ((pfn << PAGE_SHIFT) | pgprot_val(prot)) & ~PTE_TABLE_BIT & ~PTE_CONT;
}

/* asm/pgtable.h's upper-level helpers (4 levels, 4K: __va is the identity here) */
static bool a_p4d_bad(u64 p4d) { return (p4d & P4D_TYPE_MASK) != P4D_TYPE_TABLE; }
static u64 *a_p4d_pgtable(u64 p4d) { return (u64 *)(uintptr_t)(p4d & PTE_ADDR_LOW); }
static bool a_pud_bad(u64 pud) { return (pud & PUD_TYPE_MASK) != PUD_TYPE_TABLE; }
static u64 *a_pud_pgtable(u64 pud) { return (u64 *)(uintptr_t)(pud & PTE_ADDR_LOW); }
static bool a_pmd_table(u64 pmd) { return (pmd & PMD_TYPE_MASK) == PMD_TYPE_TABLE; }
static bool a_pmd_leaf(u64 pmd) { return pte_present(__pte(pmd)) && !a_pmd_table(pmd); }
static u64 a_pmd_pfn(u64 pmd) { return (pmd & PTE_ADDR_LOW & ~(SZ_2M - 1)) >> PAGE_SHIFT; }
static unsigned long a_pmd_page_vaddr(u64 pmd) { return (unsigned long)(pmd & PTE_ADDR_LOW); }

#define REF_API {                                                  \
	.ptep_get = ptep_get,                                       \
	.ptep_get_lockless = ptep_get_lockless,                     \
	.set_ptes = set_ptes,                                       \
	.clear_full_ptes = clear_full_ptes,                         \
	.get_and_clear_full_ptes = get_and_clear_full_ptes,         \
	.ptep_get_and_clear_full = ptep_get_and_clear_full,         \
	.ptep_test_and_clear_young = ptep_test_and_clear_young,     \
	.ptep_clear_flush_young = ptep_clear_flush_young,           \
	.test_and_clear_young_ptes = test_and_clear_young_ptes,     \
	.clear_flush_young_ptes = clear_flush_young_ptes,           \
	.wrprotect_ptes = wrprotect_ptes,                           \
	.clear_young_dirty_ptes = clear_young_dirty_ptes,           \
	.ptep_set_access_flags = ptep_set_access_flags,             \
	.pte_batch_hint = pte_batch_hint,                           \
}

static const struct pte_api ref_api = REF_API;

/*
 * The kernel without CONFIG_ARM64_CONTPTE (7.3's #else block): the public
 * names are the raw "__" operations; what the block does not define takes
 * include/linux/pgtable.h's generic version (7.3), as for a kernel tree.
 */
static pte_t nocont_ptep_get_and_clear_full(struct mm_struct *mm, unsigned long addr,
					    pte_t *ptep, int full)
{
	return __ptep_get_and_clear(mm, addr, ptep);
}

static bool nocont_test_and_clear_young_ptes(struct vm_area_struct *vma, unsigned long addr,
					     pte_t *ptep, unsigned int nr)
{
	bool young = false;

	for (;;) {
		young |= __ptep_test_and_clear_young(vma, addr, ptep);
		if (--nr == 0)
			break;
		ptep++;
		addr += PAGE_SIZE;
	}
	return young;
}

static bool nocont_clear_flush_young_ptes(struct vm_area_struct *vma, unsigned long addr,
					  pte_t *ptep, unsigned int nr)
{
	bool young = false;

	for (;;) {
		young |= __ptep_clear_flush_young(vma, addr, ptep);
		if (--nr == 0)
			break;
		ptep++;
		addr += PAGE_SIZE;
	}
	return young;
}

static unsigned int nocont_pte_batch_hint(pte_t *ptep, pte_t pte)
{
	return 1;
}

static const struct pte_api ref_api_nocont = {
	.ptep_get = __ptep_get,
	.ptep_get_lockless = __ptep_get,
	.set_ptes = __set_ptes,
	.clear_full_ptes = __clear_full_ptes,
	.get_and_clear_full_ptes = __get_and_clear_full_ptes,
	.ptep_get_and_clear_full = nocont_ptep_get_and_clear_full,
	.ptep_test_and_clear_young = __ptep_test_and_clear_young,
	.ptep_clear_flush_young = __ptep_clear_flush_young,
	.test_and_clear_young_ptes = nocont_test_and_clear_young_ptes,
	.clear_flush_young_ptes = nocont_clear_flush_young_ptes,
	.wrprotect_ptes = __wrprotect_ptes,
	.clear_young_dirty_ptes = __clear_young_dirty_ptes,
	.ptep_set_access_flags = __ptep_set_access_flags,
	.pte_batch_hint = nocont_pte_batch_hint,
};

const struct arm64_backend arm64_ref_backend = {
	.name = "ref",
	.version = "ptelab",
	.api = &ref_api,
	.api_nocont = &ref_api_nocont,
};

static const struct arm64_backend *backend = &arm64_ref_backend;

void arm64_use_backend(const struct arm64_backend *b)
{
	backend = b;
}

const struct arm64_backend *arm64_current_backend(void)
{
	return backend;
}

/* --without contpte: the tree's kernel built without CONFIG_ARM64_CONTPTE. */
const struct pte_api *arm64_backend_api(void)
{
	return arm64_sw.contpte ? backend->api : backend->api_nocont;
}

const struct arch_ops arch_arm64_ops = {
	.name = "arm64",
	.fmt = &hw_fmt_arm64,
	.pte_present = a_present,
	.pte_pfn = a_pfn,
	.pte_young = a_young,
	.pte_dirty = a_dirty,
	.pte_write = a_write,
	.pte_mkold = pte_mkold,
	.pte_mkyoung = pte_mkyoung,
	.pte_mkclean = pte_mkclean,
	.pte_mkdirty = pte_mkdirty,
	.pte_wrprotect = pte_wrprotect,
	.pte_mkwrite = a_mkwrite,
	.pfn_pte = pfn_pte,
	.pte_pgprot = pte_pgprot,
	.vm_get_page_prot = vm_get_page_prot,
	.mk_table = mk_table,
	.mk_pmd_leaf = mk_pmd_leaf,
	.p4d_bad = a_p4d_bad,
	.p4d_pgtable = a_p4d_pgtable,
	.pud_bad = a_pud_bad,
	.pud_pgtable = a_pud_pgtable,
	.pmd_table = a_pmd_table,
	.pmd_leaf = a_pmd_leaf,
	.pmd_pfn = a_pmd_pfn,
	.pmd_page_vaddr = a_pmd_page_vaddr,
	.pte = REF_API,
	.flush_tlb_range = flush_tlb_range,
	.flush_tlb_mm = flush_tlb_mm,
	.flush_tlb_page = flush_tlb_page,
	.tlb_flush = tlb_flush,
};
