// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/memory.c (copy_page_range, copy_pte_range,
 * copy_present_ptes), kernel/fork.c (dup_mm).
 */
/*
 * fork: dup_mm copies the VMAs and, for private anonymous memory,
 * copy_pte_range shares every present page with the child read-only
 * (copy on write). With fork-batch a whole folio run goes in one step:
 * folio_pte_batch, one refcount add, one rmap call, wrprotect_ptes on the
 * parent and set_ptes on the child, so contiguous blocks stay folded.
 * Without it every PTE is done alone, and the parent's write-protect of a
 * single entry unfolds its block.
 */
#include <stdlib.h>
#include <string.h>

#include "mm/switches.h"
#include "hw/host.h"
#include "mm/core.h"
#include "mm/mm.h"
#include "mm/mmu_notifier.h"
#include "mm/rmap.h"
#include "hw/perf.h"

/* The tree's copy_pte_range, unless --without fork-batch asks for the twin's per-PTE fork. */
static bool tree_copy_pte_range(void)
{
	return mm_core && mm_core->copy_pte_range && mm_sw.fork_batch;
}

/* 7.3: a private mapping's entries are copied on write */
static inline bool vma_is_cow_mapping(struct vm_area_struct *vma)
{
	return !(vma->vm_flags & VM_SHARED);
}

/* 7.3 __copy_present_ptes: read-only on both sides if COW, the child's old (and clean if shared) */
static void __copy_present_ptes(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma,
				pte_t *dst_pte, pte_t *src_pte, pte_t pte, unsigned long addr,
				int nr)
{
	if (vma_is_cow_mapping(src_vma) && pte_write(pte)) {
		wrprotect_ptes(src_vma->vm_mm, addr, src_pte, (unsigned int)nr);
		pte = pte_wrprotect(pte);
	}
	if (src_vma->vm_flags & VM_SHARED)
		pte = pte_mkclean(pte);
	pte = pte_mkold(pte);
	set_ptes(dst_vma->vm_mm, addr, dst_pte, pte, (unsigned int)nr);
}

static int copy_present_ptes(struct vm_area_struct *dst_vma,
			     struct vm_area_struct *src_vma, pte_t *dst_pte,
			     pte_t *src_pte, pte_t pte, unsigned long addr,
			     int max_nr)
{
	PERF_FUNC();
	struct page *page = pfn_to_page(pte_pfn(pte));
	struct folio *folio = page_folio(page);
	/* 7.3: a private mapping's batch keeps clean and dirty apart */
	fpb_t flags = FPB_MERGE_WRITE |
		      (src_vma->vm_flags & VM_SHARED ? 0 : FPB_RESPECT_DIRTY);
	int nr = 1;

	if (folio_test_large(folio) && max_nr != 1 && mm_sw.fork_batch)
		nr = (int)folio_pte_batch_flags(folio, src_vma, src_pte, &pte,
						(unsigned int)max_nr, flags);
	folio_ref_add(folio, nr);
	if (folio_test_anon(folio))
		folio_dup_anon_rmap_ptes(folio, page, nr, dst_vma, src_vma);
	else
		folio_add_file_rmap_ptes(folio, page, nr, dst_vma);
	dst_vma->vm_mm->rss += nr;
	__copy_present_ptes(dst_vma, src_vma, dst_pte, src_pte, pte, addr, nr);
	return nr;
}

static int copy_pte_range(struct vm_area_struct *dst_vma,
			  struct vm_area_struct *src_vma, pmd_t *dst_pmd,
			  pmd_t *src_pmd, unsigned long addr, unsigned long end)
{
	PERF_FUNC();
	pte_t *dst_pte, *src_pte, *dst_start, *src_start;
	spinlock_t *dst_ptl, *src_ptl;
	int nr;

	/* the tree's own, when the backend runs its core-mm code (mm/core.h) */
	if (tree_copy_pte_range())
		return mm_core->copy_pte_range(dst_vma, src_vma, dst_pmd, src_pmd, addr, end);
	/* pte_alloc_map_lock(), then the source's lock nested inside */
	if (!pte_alloc_map(dst_vma->vm_mm, dst_pmd))
		return -1;
	dst_start = dst_pte = pte_offset_map_lock(dst_vma->vm_mm, dst_pmd, addr, &dst_ptl);
	src_start = src_pte = pte_offset_map_nolock(src_vma->vm_mm, src_pmd, addr, &src_ptl);
	if (!src_pte) {
		pte_unmap_unlock(dst_start, dst_ptl);
		return 0;
	}
	pte_spin_lock(src_ptl);
	for (; addr != end; src_pte += nr, dst_pte += nr, addr += (unsigned long)nr * PAGE_SIZE) {
		pte_t ptent = ptep_get(src_pte);

		nr = 1;
		if (!pte_present(ptent))
			continue;
		nr = copy_present_ptes(dst_vma, src_vma, dst_pte, src_pte, ptent, addr,
				       (int)((end - addr) >> PAGE_SHIFT));
	}
	pte_unmap_unlock(src_start, src_ptl);
	pte_unmap_unlock(dst_start, dst_ptl);
	return 0;
}

/*
 * 7.3 vma_needs_copy: a mapping without anonymous pages (no anon_vma: a
 * shared or read-only file mapping) is left for faults to fill in the
 * child, which makes fork of big file mappings light. (No VM_PFNMAP,
 * VM_MIXEDMAP or uffd-wp mappings in the lab.)
 */
static bool vma_needs_copy(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	return src_vma->anon_vma != NULL;
}

static int copy_page_range(struct vm_area_struct *dst_vma,
			   struct vm_area_struct *src_vma)
{
	/* a COW mapping's parent entries become read-only: secondary MMUs must follow */
	bool is_cow = (src_vma->vm_flags & (VM_SHARED | VM_WRITE)) == VM_WRITE;
	struct mmu_notifier_range range;
	int ret = 0;

	if (!vma_needs_copy(dst_vma, src_vma))
		return 0;
	mmu_notifier_range_init(&range, MMU_NOTIFY_PROTECTION_PAGE, 0, src_vma->vm_mm,
				src_vma->vm_start, src_vma->vm_end);
	if (is_cow)
		mmu_notifier_invalidate_range_start(&range);
	for (unsigned long addr = src_vma->vm_start, next; addr < src_vma->vm_end; addr = next) {
		pmd_t *src_pmd = pmd_walk(src_vma->vm_mm, addr), *dst_pmd;

		next = pmd_addr_end(addr, src_vma->vm_end);
		if (!src_pmd || pmd_none(*src_pmd))
			continue;
		if (!pmd_table(*src_pmd)) {
			ret = -1; /* PMD-mapped THP: copy_huge_pmd is not modelled */
			break;
		}
		dst_pmd = pmd_alloc_walk(dst_vma->vm_mm, addr);
		if (!dst_pmd || copy_pte_range(dst_vma, src_vma, dst_pmd, src_pmd, addr, next)) {
			ret = -1;
			break;
		}
	}
	if (is_cow)
		mmu_notifier_invalidate_range_end(&range);
	return ret;
}

struct mm_struct *dup_mm(struct mm_struct *oldmm)
{
	PERF_FUNC();
	struct mm_struct *mm = mm_alloc();
	struct vm_area_struct **link = &mm->mmap;

	for (struct vm_area_struct *v = oldmm->mmap; v; v = v->vm_next) {
		struct vm_area_struct *n = vm_area_dup(v);

		n->vm_mm = mm;
		anon_vma_fork(n, v);
		*link = n;
		link = &n->vm_next;
		mm->nr_vmas++;
		if (copy_page_range(n, v))
			goto fail;
	}
	/* the parent's write-protected entries must not stay writable in TLBs */
	flush_tlb_mm(oldmm);
	return mm;
fail:
	mmput(mm);
	return NULL;
}
