// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/mprotect.c (do_mprotect_pkey, mprotect_fixup,
 * change_pmd_range, change_pte_range, change_present_ptes and the
 * write-upgrade helpers); modify_prot_start/commit_ptes, arm64's mmu.c
 * ones, are arch/pgtable.h's.
 */
/*
 * mprotect: new vm_flags on whole VMAs (split at the edges), then
 * change_pte_range rewrites the present PTEs with the new protection, a
 * folio's run at a time with mprotect-batch (6.17's "mm: Optimize
 * mprotect() by batch-skipping PTEs" and "... by PTE batching"; off: one
 * PTE at a time, as 6.12): modify_prot_start_ptes clears the run
 * (gathering its young and dirty bits), modify_prot_commit_ptes sets it
 * again. Where the VMA is writable, entries that may be written without
 * a fault are made writable at once: a private mapping's only for
 * anonymous pages this mm owns exclusively, page by page
 * (commit_anon_folio_batch), a shared one's only if already dirty. The
 * TLB is flushed once, for every range changed, by the mmu_gather.
 */
#include "hw/invariants.h"
#include "mm/core.h"
#include "mm/mm.h"
#include "mm/mmu_gather.h"
#include "mm/mmu_notifier.h"
#include "mm/switches.h"
#include "hw/perf.h"

/*
 * Whether the entry may be made writable by the VMA's rights alone. The
 * lab has no NUMA hinting, soft-dirty or userfaultfd tracking, and a
 * writable VMA's protection is never PROT_NONE: always.
 */
static bool maybe_change_pte_writable(struct vm_area_struct *vma, pte_t pte)
{
	(void)pte;
	if (!(vma->vm_flags & VM_WRITE)) {
		hw_violation(VIOL_OTHER, "mprotect: a write upgrade asked in a VMA without VM_WRITE");
		return false;
	}
	return true;
}

/* A shared mapping's clean entry may still need its write fault (writenotify). */
static bool can_change_shared_pte_writable(struct vm_area_struct *vma, pte_t pte)
{
	return maybe_change_pte_writable(vma, pte) && pte_dirty(pte);
}

/* Set nr_ptes entries from idx of the run; their range joins the gather's flush. */
static void prot_commit_flush_ptes(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep,
				   pte_t oldpte, pte_t ptent, unsigned int nr_ptes, unsigned int idx,
				   bool set_write, struct mmu_gather *tlb)
{
	addr += idx * PAGE_SIZE;
	ptep += idx;
	oldpte = pte_advance_pfn(oldpte, idx);
	ptent = pte_advance_pfn(ptent, idx);
	if (set_write)
		ptent = pte_mkwrite(ptent);
	modify_prot_commit_ptes(vma, addr, ptep, oldpte, ptent, nr_ptes);
	/* pte_needs_flush(): arm64's is the generic "always" (x86's finer test is not modelled) */
	tlb_remove_tlb_entries(tlb, addr, nr_ptes); /* tlb_flush_pte_range */
}

/* How many pages from start_idx share the first one's PageAnonExclusive. */
static unsigned int page_anon_exclusive_batch(unsigned int start_idx, unsigned int max_len,
					      struct page *first_page, bool expected)
{
	unsigned int idx;

	for (idx = start_idx + 1; idx < start_idx + max_len; ++idx)
		if (expected != PageAnonExclusive(first_page + idx))
			break;
	return idx - start_idx;
}

/*
 * A run of one anonymous large folio: exclusivity is per page, so each
 * sub-run of pages alike is committed writable or not on its own.
 */
static void commit_anon_folio_batch(struct vm_area_struct *vma, struct page *first_page,
				    unsigned long addr, pte_t *ptep, pte_t oldpte, pte_t ptent,
				    unsigned int nr_ptes, struct mmu_gather *tlb)
{
	unsigned int batch_idx = 0, len;

	while (nr_ptes) {
		bool exclusive = PageAnonExclusive(first_page + batch_idx);

		len = page_anon_exclusive_batch(batch_idx, nr_ptes, first_page, exclusive);
		prot_commit_flush_ptes(vma, addr, ptep, oldpte, ptent, len, batch_idx, exclusive, tlb);
		batch_idx += len;
		nr_ptes -= len;
	}
}

static void set_write_prot_commit_flush_ptes(struct vm_area_struct *vma, struct folio *folio,
					     struct page *page, unsigned long addr, pte_t *ptep,
					     pte_t oldpte, pte_t ptent, unsigned int nr_ptes,
					     struct mmu_gather *tlb)
{
	bool set_write;

	if (vma->vm_flags & VM_SHARED) {
		set_write = can_change_shared_pte_writable(vma, ptent);
		prot_commit_flush_ptes(vma, addr, ptep, oldpte, ptent, nr_ptes, 0, set_write, tlb);
		return;
	}
	set_write = maybe_change_pte_writable(vma, ptent) && folio && folio_test_anon(folio);
	if (!set_write) {
		prot_commit_flush_ptes(vma, addr, ptep, oldpte, ptent, nr_ptes, 0, false, tlb);
		return;
	}
	commit_anon_folio_batch(vma, page, addr, ptep, oldpte, ptent, nr_ptes, tlb);
}

static void change_present_ptes(struct mmu_gather *tlb, struct vm_area_struct *vma,
				unsigned long addr, pte_t *ptep, unsigned int nr_ptes,
				pgprot_t newprot, struct folio *folio, struct page *page,
				unsigned long cp_flags)
{
	pte_t oldpte = modify_prot_start_ptes(vma, addr, ptep, nr_ptes);
	pte_t ptent = pte_modify(oldpte, newprot);

	if ((cp_flags & MM_CP_TRY_CHANGE_WRITABLE) && !pte_write(ptent))
		set_write_prot_commit_flush_ptes(vma, folio, page, addr, ptep, oldpte, ptent, nr_ptes,
						 tlb);
	else
		prot_commit_flush_ptes(vma, addr, ptep, oldpte, ptent, nr_ptes, 0, false, tlb);
}

/* A folio's run from ptep that may change alike (no batch: one PTE, 6.12's shape). */
static unsigned int mprotect_folio_pte_batch(struct folio *folio, pte_t *ptep, pte_t pte,
					     unsigned int max_nr_ptes)
{
	if (!mm_sw.mprotect_batch || !folio || !folio_test_large(folio))
		return 1;
	return folio_pte_batch_flags(folio, NULL, ptep, &pte, max_nr_ptes,
				     FPB_RESPECT_SOFT_DIRTY | FPB_RESPECT_WRITE);
}

static long change_pte_range(struct mmu_gather *tlb, struct vm_area_struct *vma, pmd_t *pmd,
			     unsigned long addr, unsigned long end, pgprot_t newprot,
			     unsigned long cp_flags)
{
	PERF_FUNC();
	spinlock_t *ptl;
	pte_t *pte = pte_offset_map_lock(vma->vm_mm, pmd, addr, &ptl);
	unsigned int nr_ptes;
	long pages = 0;

	if (!pte)
		return -1;
	arch_enter_lazy_mmu_mode();
	do {
		pte_t oldpte = ptep_get(pte);

		nr_ptes = 1;
		if (pte_present(oldpte)) {
			struct page *page = pfn_to_page(pte_pfn(oldpte)); /* vm_normal_page() */
			struct folio *folio = page_folio(page);

			nr_ptes = mprotect_folio_pte_batch(folio, pte, oldpte,
							   (unsigned int)((end - addr) >> PAGE_SHIFT));
			change_present_ptes(tlb, vma, addr, pte, nr_ptes, newprot, folio, page,
					    cp_flags);
			pages += nr_ptes;
		}
	} while (pte += nr_ptes, addr += nr_ptes * PAGE_SIZE, addr != end);
	arch_leave_lazy_mmu_mode();
	pte_unmap_unlock(pte - 1, ptl);
	return pages;
}

/*
 * The tree's change_pte_range (mm/core.h), unless --without mprotect-batch
 * asks for the per-PTE shape the tree does not have.
 */
static bool tree_change_pte_range(void)
{
	return mm_core && mm_core->change_pte_range && mm_sw.mprotect_batch;
}

/*
 * change_protection over one VMA: change_pmd_range's notifier range from
 * the first table it changes, each table's PTEs into the gather.
 */
static void change_protection(struct mmu_gather *tlb, struct vm_area_struct *vma,
			      unsigned long cp_flags)
{
	struct mm_struct *mm = vma->vm_mm;
	struct mmu_notifier_range range = { 0 };
	pgprot_t newprot = vma->vm_page_prot;

	for (unsigned long addr = vma->vm_start, next; addr < vma->vm_end; addr = next) {
		pmd_t *pmdp = pmd_walk(mm, addr);

		next = min((addr + SZ_2M) & ~(SZ_2M - 1), vma->vm_end);
		if (!pmdp || !pmd_table(*pmdp))
			continue;
		if (!range.start) {
			mmu_notifier_range_init(&range, MMU_NOTIFY_PROTECTION_VMA, 0, mm, addr,
						vma->vm_end);
			mmu_notifier_invalidate_range_start(&range);
		}
		if (tree_change_pte_range())
			mm_core->change_pte_range(tlb, vma, pmdp, addr, next, newprot, cp_flags);
		else
			change_pte_range(tlb, vma, pmdp, addr, next, newprot, cp_flags);
	}
	if (range.start)
		mmu_notifier_invalidate_range_end(&range);
}

/*
 * vma_wants_manual_pte_write_upgrade: a private writable VMA's entries are
 * read-only (copy on write) by their protection, so those that need no
 * fault are upgraded by hand; a shared writable one's protection is
 * writable already (the lab has no writenotify).
 */
static bool vma_wants_manual_pte_write_upgrade(const struct vm_area_struct *vma)
{
	return !(vma->vm_flags & VM_SHARED) && (vma->vm_flags & VM_WRITE);
}

int do_mprotect(struct mm_struct *mm, unsigned long start, unsigned long len,
		unsigned long vm_flags)
{
	PERF_FUNC();
	unsigned long end = start + len;
	struct vm_area_struct *vma = vma_split_range(mm, start, end);
	struct mmu_gather tlb;

	if (!vma || (start | len) & ~PAGE_MASK)
		return -1;
	tlb_gather_mmu(&tlb, mm);
	for (struct vm_area_struct *v = vma; v && v->vm_start < end; v = v->vm_next) {
		/* mprotect_fixup */
		v->vm_flags = (v->vm_flags & ~(VM_READ | VM_WRITE | VM_EXEC)) | vm_flags;
		v->vm_page_prot = arch->vm_get_page_prot(v->vm_flags);
		change_protection(&tlb, v, vma_wants_manual_pte_write_upgrade(v) ?
				  MM_CP_TRY_CHANGE_WRITABLE : 0);
	}
	tlb_finish_mmu(&tlb);
	return 0;
}
