// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reference backend's public arm64 page-table dispatchers (its
 * asm/pgtable.h CONFIG_ARM64_CONTPTE block): plain entries take the raw
 * "__" path, contiguous ones go to the reference contpte. The reference
 * switches are resolved here. A kernel backend brings its tree's own
 * dispatchers instead (kernel/shim/api.c); the arch ops at the end call
 * whichever backend the run selected.
 */
#include "arch/arch.h"
#include "arch/arm64/api.h"
#include "arch/arm64/contpte.h"
#include "arch/arm64/tlbflush.h"
#include "arch/switches.h"
#include "hw/events.h"
#include "mm/mmu_gather.h"

#define B (&contpte_ref_ops)

static void contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
			       pte_t *ptep, pte_t pte)
{
	if (pte_valid_cont(pte))
		B->try_unfold(mm, addr, ptep, pte);
}

/*
 * Fold when the last entry of a naturally aligned block is written: the
 * core code fills ranges low to high, so the block is likely complete.
 * Special mappings have no folio and never fold.
 */
static void contpte_try_fold(struct mm_struct *mm, unsigned long addr,
			     pte_t *ptep, pte_t pte)
{
	const unsigned long contmask = CONT_PTES - 1;

	if (!lab_sw.contpte || ((addr >> PAGE_SHIFT) & contmask) != contmask)
		return;
	if ((pte_pfn(pte) & contmask) == contmask && pte_valid(pte) &&
	    !pte_cont(pte) && !pte_special(pte))
		B->try_fold(mm, addr, ptep, pte);
}

/* Gathers are what S4 shortens: count them and the loads inside them. */
static pte_t counted_gather(pte_t *ptep, pte_t pte, bool lockless)
{
	u64 reads = hw_events.v[EV_pte_read];

	pte = lockless ? B->ptep_get_lockless(ptep) : B->ptep_get(ptep, pte);
	hw_count(EV_contpte_get, 1);
	hw_count(EV_contpte_get_read, hw_events.v[EV_pte_read] - reads);
	return pte;
}

static pte_t ptep_get(pte_t *ptep)
{
	pte_t pte = __ptep_get(ptep);

	if (!pte_valid_cont(pte))
		return pte;
	return counted_gather(ptep, pte, false);
}

static pte_t ptep_get_lockless(pte_t *ptep)
{
	pte_t pte = __ptep_get(ptep);

	if (!pte_valid_cont(pte))
		return pte;
	return counted_gather(ptep, pte, true);
}

static void set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		     pte_t pte, unsigned int nr)
{
	pte = pte_mknoncont(pte);
	if (nr == 1) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__set_ptes(mm, addr, ptep, pte, 1);
		contpte_try_fold(mm, addr, ptep, pte);
	} else if (!lab_sw.contpte) {
		__set_ptes(mm, addr, ptep, pte, nr);
	} else {
		B->set_ptes(mm, addr, ptep, pte, nr);
	}
}

/*
 * The ways S2 compared of clearing one contiguous entry during a fullmm
 * teardown (reference only; kernels of every version unfold):
 *   none   unfold the block first: rewrite 16 entries, TLBI, DSB (no-opt);
 *   simple clear just this entry, leaving the rest of the block contiguous
 *          until the zap reaches them (the mm dies, nobody walks it);
 *   robust repaint the block non-contiguous, carrying young/dirty, but
 *          skip the TLB flush the ASID's death makes unnecessary, so no
 *          misprogrammed block is ever visible to a walker.
 */
static void unfold_noflush(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			   pte_t pte)
{
	pte_t *first = (pte_t *)ALIGN_DOWN((uintptr_t)ptep, CONT_PTES * sizeof(pte_t));
	unsigned long start = ALIGN_DOWN(addr, CONT_PTE_SIZE);

	pte = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES), pte_pgprot(pte_mknoncont(pte)));
	for (int i = 0; i < CONT_PTES; i++) {
		pte_t ptent = __ptep_get_and_clear(mm, start + i * PAGE_SIZE, first + i);

		if (pte_dirty(ptent))
			pte = pte_mkdirty(pte);
		if (pte_young(ptent))
			pte = pte_mkyoung(pte);
	}
	hw_count(EV_unfold, 1);
	__set_ptes(mm, start, first, pte, CONT_PTES);
}

static pte_t ptep_get_and_clear_full(struct mm_struct *mm, unsigned long addr,
				     pte_t *ptep, int full)
{
	pte_t pte = __ptep_get(ptep);

	if (pte_valid_cont(pte)) {
		if (!full || contpte_full_mode == CONTPTE_FULL_NONE)
			B->try_unfold(mm, addr, ptep, pte);
		else if (contpte_full_mode == CONTPTE_FULL_ROBUST)
			unfold_noflush(mm, addr, ptep, pte);
	}
	return __ptep_get_and_clear(mm, addr, ptep);
}

/*
 * Without exit-clear-ptes (reference only) a multi-entry clear is the
 * generic loop of ptep_get_and_clear_full() over every entry.
 */
static pte_t clear_ptes_one_by_one(struct mm_struct *mm, unsigned long addr,
				   pte_t *ptep, unsigned int nr, int full)
{
	pte_t pte = __pte(0);

	for (unsigned int i = 0; i < nr; i++, ptep++, addr += PAGE_SIZE) {
		pte_t tmp = ptep_get_and_clear_full(mm, addr, ptep, full);

		if (i == 0)
			pte = tmp;
		if (pte_dirty(tmp))
			pte = pte_mkdirty(pte);
		if (pte_young(tmp))
			pte = pte_mkyoung(pte);
	}
	return pte;
}

static void clear_full_ptes(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, unsigned int nr, int full)
{
	if (nr == 1) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__clear_full_ptes(mm, addr, ptep, nr, full);
	} else if (!lab_sw.exit_clear_ptes) {
		clear_ptes_one_by_one(mm, addr, ptep, nr, full);
	} else {
		B->clear_full_ptes(mm, addr, ptep, nr, full);
	}
}

static pte_t get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				     pte_t *ptep, unsigned int nr, int full)
{
	if (nr == 1) {
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		return __get_and_clear_full_ptes(mm, addr, ptep, nr, full);
	}
	if (!lab_sw.exit_clear_ptes)
		return clear_ptes_one_by_one(mm, addr, ptep, nr, full);
	return B->get_and_clear_full_ptes(mm, addr, ptep, nr, full);
}

static int ptep_test_and_clear_young(struct vm_area_struct *vma,
				     unsigned long addr, pte_t *ptep)
{
	pte_t orig_pte = __ptep_get(ptep);

	if (!pte_valid_cont(orig_pte))
		return __ptep_test_and_clear_young(vma, addr, ptep);
	if (B->ptep_test_and_clear_young)
		return B->ptep_test_and_clear_young(vma, addr, ptep);
	return B->test_and_clear_young_ptes(vma, addr, ptep, 1);
}

static int ptep_clear_flush_young(struct vm_area_struct *vma,
				  unsigned long addr, pte_t *ptep)
{
	pte_t orig_pte = __ptep_get(ptep);

	if (!pte_valid_cont(orig_pte))
		return __ptep_clear_flush_young(vma, addr, ptep);
	if (B->ptep_clear_flush_young)
		return B->ptep_clear_flush_young(vma, addr, ptep);
	return B->clear_flush_young_ptes(vma, addr, ptep, 1);
}

static bool batched_young(void)
{
	return lab_sw.young_batch;
}

/*
 * S1: one call over a folio's PTEs. The caller guarantees they are
 * present, so the contiguous bit alone decides the path. Without
 * young-batch, the per-PTE loop core-mm used to run.
 */
static bool test_and_clear_young_ptes(struct vm_area_struct *vma,
				      unsigned long addr, pte_t *ptep,
				      unsigned int nr)
{
	bool young = false;

	if (nr == 1 && !pte_cont(__ptep_get(ptep)))
		return __ptep_test_and_clear_young(vma, addr, ptep);
	if (batched_young())
		return B->test_and_clear_young_ptes(vma, addr, ptep, nr);
	for (unsigned int i = 0; i < nr; i++)
		young |= ptep_test_and_clear_young(vma, addr + i * PAGE_SIZE, ptep + i);
	return young;
}

static bool clear_flush_young_ptes(struct vm_area_struct *vma,
				   unsigned long addr, pte_t *ptep,
				   unsigned int nr)
{
	bool young = false;

	if (nr == 1 && !pte_cont(__ptep_get(ptep)))
		return __ptep_clear_flush_young(vma, addr, ptep);
	if (batched_young())
		return B->clear_flush_young_ptes(vma, addr, ptep, nr);
	for (unsigned int i = 0; i < nr; i++)
		young |= ptep_clear_flush_young(vma, addr + i * PAGE_SIZE, ptep + i);
	return young;
}

static void wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
			   pte_t *ptep, unsigned int nr)
{
	if (nr == 1) {
		/* a single entry may not differ from its block: unfold */
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
		__wrprotect_ptes(mm, addr, ptep, 1);
	} else {
		B->wrprotect_ptes(mm, addr, ptep, nr);
	}
}

static void clear_young_dirty_ptes(struct vm_area_struct *vma,
				   unsigned long addr, pte_t *ptep,
				   unsigned int nr, cydp_t flags)
{
	if (nr == 1 && !pte_cont(__ptep_get(ptep)))
		__clear_young_dirty_ptes(vma, addr, ptep, nr, flags);
	else
		B->clear_young_dirty_ptes(vma, addr, ptep, nr, flags);
}

static int ptep_set_access_flags(struct vm_area_struct *vma, unsigned long addr,
				 pte_t *ptep, pte_t entry, int dirty)
{
	pte_t orig_pte = __ptep_get(ptep);

	entry = pte_mknoncont(entry);
	if (!pte_valid_cont(orig_pte))
		return __ptep_set_access_flags(vma, addr, ptep, entry, dirty);
	return B->ptep_set_access_flags(vma, addr, ptep, entry, dirty);
}

/* A contiguous block can be judged by one entry: skip to its end. */
static unsigned int pte_batch_hint(pte_t *ptep, pte_t pte)
{
	if (!pte_valid_cont(pte))
		return 1;
	return CONT_PTES - (unsigned int)(((uintptr_t)ptep >> 3) & (CONT_PTES - 1));
}

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
	.batched_young = true,                                      \
}

static const struct pte_api ref_api = REF_API;

/* The reference switches contpte off itself (lab_sw.contpte): one API. */
const struct arm64_backend arm64_ref_backend = {
	.name = "ref",
	.version = "ptelab",
	.api = &ref_api,
	.api_nocont = &ref_api,
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
	return lab_sw.contpte ? backend->api : backend->api_nocont;
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
	.pte = REF_API,
	.flush_tlb_range = flush_tlb_range,
	.flush_tlb_mm = flush_tlb_mm,
	.flush_tlb_page = flush_tlb_page,
	.tlb_flush = tlb_flush,
};
