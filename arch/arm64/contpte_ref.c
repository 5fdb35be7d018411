// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptelab's reference arm64 contpte implementation, written for clarity.
 * It follows the semantics of the kernel's arch/arm64/mm/contpte.c; the
 * published optimisations sit behind lab_sw switches (S1, S2, S4).
 */
#include "arch/arm64/contpte.h"
#include "arch/arm64/tlbflush.h"
#include "arch/switches.h"
#include "hw/events.h"

#define TLB_FLUSH_VMA(mm, flags) { .vm_mm = (mm), .vm_flags = (flags) }

static inline pte_t *contpte_align_down(pte_t *ptep)
{
	return (pte_t *)((uintptr_t)ptep & ~(uintptr_t)(CONT_PTES * sizeof(pte_t) - 1));
}

/*
 * Rewrite a whole block with pte (cont or not), carrying over the young and
 * dirty state the hardware may have left in any of its entries. The block
 * is cleared and flushed first: break-before-make.
 */
static void contpte_convert(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, pte_t pte)
{
	struct vm_area_struct vma = TLB_FLUSH_VMA(mm, 0);
	unsigned long start_addr;
	pte_t *start_ptep;

	start_ptep = ptep = contpte_align_down(ptep);
	start_addr = addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	pte = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES), pte_pgprot(pte));

	for (int i = 0; i < CONT_PTES; i++, ptep++, addr += PAGE_SIZE) {
		pte_t ptent = __ptep_get_and_clear(mm, addr, ptep);

		if (pte_dirty(ptent))
			pte = pte_mkdirty(pte);
		if (pte_young(ptent))
			pte = pte_mkyoung(pte);
	}
	__flush_tlb_range(&vma, start_addr, addr, PAGE_SIZE, true, 3);
	__set_ptes(mm, start_addr, start_ptep, pte, CONT_PTES);
}

static void ref_try_unfold(struct mm_struct *mm, unsigned long addr,
			   pte_t *ptep, pte_t pte)
{
	hw_count(EV_unfold, 1);
	contpte_convert(mm, addr, ptep, pte_mknoncont(pte));
}

static void try_unfold(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		       pte_t pte)
{
	if (pte_valid_cont(pte))
		ref_try_unfold(mm, addr, ptep, pte);
}

/*
 * Fold only if the block maps 16 consecutive frames of one folio with
 * identical attributes apart from young/dirty.
 */
static void ref_try_fold(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			 pte_t pte)
{
	unsigned long start = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	unsigned long end = start + CONT_PTE_SIZE;
	u64 first, nr, pfn;
	pte_t expected, *p;

	if (!pfn_folio_span(pte_pfn(pte), &first, &nr))
		return;
	unsigned long folio_start = addr - (pte_pfn(pte) - first) * PAGE_SIZE;
	if (folio_start > start || folio_start + nr * PAGE_SIZE < end)
		return;

	pfn = ALIGN_DOWN(pte_pfn(pte), CONT_PTES);
	expected = pfn_pte(pfn, pte_pgprot(pte_mkold(pte_mkclean(pte))));
	p = contpte_align_down(ptep);
	for (int i = 0; i < CONT_PTES; i++, p++) {
		pte_t subpte = pte_mkold(pte_mkclean(__ptep_get(p)));

		if (!pte_same(subpte, expected))
			return;
		expected = pte_advance_pfn(expected, 1);
	}
	hw_count(EV_fold, 1);
	contpte_convert(mm, addr, ptep, pte_mkcont(pte));
}

/* Gather young/dirty over the block; S4 stops once both are known. */
static pte_t ref_ptep_get(pte_t *ptep, pte_t orig_pte)
{
	bool young = false, dirty = false;

	ptep = contpte_align_down(ptep);
	for (int i = 0; i < CONT_PTES; i++, ptep++) {
		pte_t pte = __ptep_get(ptep);

		dirty |= pte_dirty(pte);
		young |= pte_young(pte);
		if (young && dirty && lab_sw.ptep_get_early_exit)
			break;
	}
	if (dirty)
		orig_pte = pte_mkdirty(orig_pte);
	if (young)
		orig_pte = pte_mkyoung(orig_pte);
	return orig_pte;
}

/*
 * Without the PTL the block may be mid-fold or mid-unfold: retry until all
 * 16 entries read back as one consistent block.
 */
static pte_t ref_ptep_get_lockless(pte_t *orig_ptep)
{
	pte_t orig_pte, pte, *ptep;
	u64 pfn;
	pgprot_t prot;

retry:
	orig_pte = __ptep_get(orig_ptep);
	if (!pte_valid_cont(orig_pte))
		return orig_pte;
	prot = pte_pgprot(pte_mkold(pte_mkclean(orig_pte)));
	ptep = contpte_align_down(orig_ptep);
	pfn = pte_pfn(orig_pte) - (u64)(orig_ptep - ptep);
	for (int i = 0; i < CONT_PTES; i++, ptep++, pfn++) {
		pte = __ptep_get(ptep);
		if (!pte_same(pte_mkold(pte_mkclean(pte)), pfn_pte(pfn, prot)))
			goto retry;
		if (pte_dirty(pte))
			orig_pte = pte_mkdirty(orig_pte);
		if (pte_young(pte))
			orig_pte = pte_mkyoung(orig_pte);
	}
	return orig_pte;
}

/* Entries are none on entry (set_ptes contract): set cont where aligned. */
static void ref_set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			 pte_t pte, unsigned int nr)
{
	unsigned long end = addr + ((unsigned long)nr << PAGE_SHIFT);
	u64 pfn = pte_pfn(pte);
	pgprot_t prot = pte_pgprot(pte_mknoncont(pte));

	do {
		unsigned long next = pte_cont_addr_end(addr, end);

		nr = (next - addr) >> PAGE_SHIFT;
		pte = pfn_pte(pfn, prot);
		if (((addr | next | (pfn << PAGE_SHIFT)) & ~CONT_PTE_MASK) == 0)
			pte = pte_mkcont(pte);
		__set_ptes(mm, addr, ptep, pte, nr);
		addr = next;
		ptep += nr;
		pfn += nr;
	} while (addr != end);
}

/* Only blocks the range covers partly need unfolding. */
static void contpte_try_unfold_partial(struct mm_struct *mm, unsigned long addr,
				       pte_t *ptep, unsigned int nr)
{
	if (ptep != contpte_align_down(ptep) || nr < CONT_PTES)
		try_unfold(mm, addr, ptep, __ptep_get(ptep));
	if (ptep + nr != contpte_align_down(ptep + nr)) {
		unsigned long last_addr = addr + PAGE_SIZE * (nr - 1);
		pte_t *last_ptep = ptep + nr - 1;

		try_unfold(mm, last_addr, last_ptep, __ptep_get(last_ptep));
	}
}

static void ref_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				pte_t *ptep, unsigned int nr, int full)
{
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	__clear_full_ptes(mm, addr, ptep, nr, full);
}

static pte_t ref_get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
					 pte_t *ptep, unsigned int nr, int full)
{
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	return __get_and_clear_full_ptes(mm, addr, ptep, nr, full);
}

/*
 * Per-PTE young on a block: core-mm tracks young per folio and a block
 * never spans folios, so clearing all 16 avoids an unfold.
 */
static int ref_ptep_test_and_clear_young(struct vm_area_struct *vma,
					 unsigned long addr, pte_t *ptep)
{
	int young = 0;

	ptep = contpte_align_down(ptep);
	addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	for (int i = 0; i < CONT_PTES; i++, ptep++, addr += PAGE_SIZE)
		young |= __ptep_test_and_clear_young(vma, addr, ptep);
	return young;
}

static int ref_ptep_clear_flush_young(struct vm_area_struct *vma,
				      unsigned long addr, pte_t *ptep)
{
	int young = ref_ptep_test_and_clear_young(vma, addr, ptep);

	if (young) {
		addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
		__flush_tlb_range_nosync(vma, addr, addr + CONT_PTE_SIZE, PAGE_SIZE, true, 3);
	}
	return young;
}

/* S1: widen to whole blocks only at the ends, visit every entry once. */
static bool ref_test_and_clear_young_ptes(struct vm_area_struct *vma,
					  unsigned long addr, pte_t *ptep,
					  unsigned int nr)
{
	unsigned long start = addr, end = addr + (unsigned long)nr * PAGE_SIZE;
	bool young = false;

	if (pte_cont(__ptep_get(ptep + nr - 1)))
		end = ALIGN(end, CONT_PTE_SIZE);
	if (pte_cont(__ptep_get(ptep))) {
		start = ALIGN_DOWN(start, CONT_PTE_SIZE);
		ptep = contpte_align_down(ptep);
	}
	for (; start < end; start += PAGE_SIZE, ptep++)
		young |= __ptep_test_and_clear_young(vma, start, ptep);
	return young;
}

static bool ref_clear_flush_young_ptes(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep,
				       unsigned int nr)
{
	bool young = ref_test_and_clear_young_ptes(vma, addr, ptep, nr);

	if (young) {
		unsigned long start = addr, end = addr + (unsigned long)nr * PAGE_SIZE;

		/* the flush covers what was cleared: whole blocks at the ends */
		start = ALIGN_DOWN(start, CONT_PTE_SIZE);
		end = ALIGN(end, CONT_PTE_SIZE);
		__flush_tlb_range_nosync(vma, start, end, PAGE_SIZE, true, 3);
	}
	return young;
}

/* Write permission is uniform over a block: wrprotect keeps it folded. */
static void ref_wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
			       pte_t *ptep, unsigned int nr)
{
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	__wrprotect_ptes(mm, addr, ptep, nr);
}

/* Young/dirty are per folio: clear whole blocks at the ends, no unfold. */
static void ref_clear_young_dirty_ptes(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep,
				       unsigned int nr, cydp_t flags)
{
	unsigned long start = addr, end = start + (unsigned long)nr * PAGE_SIZE;

	if (pte_cont(__ptep_get(ptep + nr - 1)))
		end = ALIGN(end, CONT_PTE_SIZE);
	if (pte_cont(__ptep_get(ptep))) {
		start = ALIGN_DOWN(start, CONT_PTE_SIZE);
		ptep = contpte_align_down(ptep);
	}
	__clear_young_dirty_ptes(vma, start, ptep, (end - start) / PAGE_SIZE, flags);
}

/*
 * Nothing to do only if every entry of the block already has the access
 * state asked for: a walker that reads entries one by one (no HAFDBS, an
 * SMMU without HTTU) would otherwise fault forever on an entry whose
 * sibling alone was updated, since the gathered view looks complete.
 */
static bool all_subptes_match_access_flags(pte_t *ptep, pte_t entry)
{
	const pteval_t mask = PTE_RDONLY | PTE_AF | PTE_WRITE | PTE_DIRTY;
	pte_t *p = contpte_align_down(ptep);

	for (int i = 0; i < CONT_PTES; i++)
		if ((pte_val(__ptep_get(p + i)) & mask) != (pte_val(entry) & mask))
			return false;
	return true;
}

/*
 * Setting young/dirty applies to the whole block; a change of write
 * permission must unfold first since it may not differ within a block.
 */
static int ref_ptep_set_access_flags(struct vm_area_struct *vma,
				     unsigned long addr, pte_t *ptep,
				     pte_t entry, int dirty)
{
	pte_t orig_pte;

	if (all_subptes_match_access_flags(ptep, entry))
		return 0;
	orig_pte = pte_mknoncont(__ptep_get(ptep));
	if (pte_write(orig_pte) == pte_write(entry)) {
		unsigned long start_addr = ALIGN_DOWN(addr, CONT_PTE_SIZE);
		pte_t *p = contpte_align_down(ptep);

		for (int i = 0; i < CONT_PTES; i++, p++)
			__ptep_set_access_flags(vma, start_addr + i * PAGE_SIZE, p, entry, 0);
		/* a stale read-only entry on this CPU would fault again */
		if (dirty)
			arm64_flush_tlb_range_flags(vma, start_addr, start_addr + CONT_PTE_SIZE,
						    PAGE_SIZE, 3,
						    TLBF_NOWALKCACHE | TLBF_NOBROADCAST);
	} else {
		ref_try_unfold(vma->vm_mm, addr, ptep, orig_pte);
		__ptep_set_access_flags(vma, addr, ptep, entry, dirty);
	}
	return 1;
}

const struct contpte_ops contpte_ref_ops = {
	.name = "ref",
	.version = "ptelab",
	.ptep_get = ref_ptep_get,
	.ptep_get_lockless = ref_ptep_get_lockless,
	.try_fold = ref_try_fold,
	.try_unfold = ref_try_unfold,
	.set_ptes = ref_set_ptes,
	.clear_full_ptes = ref_clear_full_ptes,
	.get_and_clear_full_ptes = ref_get_and_clear_full_ptes,
	.ptep_test_and_clear_young = ref_ptep_test_and_clear_young,
	.ptep_clear_flush_young = ref_ptep_clear_flush_young,
	.test_and_clear_young_ptes = ref_test_and_clear_young_ptes,
	.clear_flush_young_ptes = ref_clear_flush_young_ptes,
	.wrprotect_ptes = ref_wrprotect_ptes,
	.clear_young_dirty_ptes = ref_clear_young_dirty_ptes,
	.ptep_set_access_flags = ref_ptep_set_access_flags,
};
