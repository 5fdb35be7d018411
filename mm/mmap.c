// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/mmap.c and mm/vma.c (do_munmap, unmap_region,
 * __split_vma, remove_vma), kernel/fork.c (vm_area_dup).
 */
/*
 * munmap: split VMAs at the edges, zap, free tables, flush (unmap_region);
 * and the VMA lifecycle the reverse map follows: a VMA that is copied
 * (split, fork) joins its original's anon_vmas and file i_mmap, a VMA
 * that goes leaves them.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/host.h"
#include "mm/filemap.h"
#include "mm/mm.h"
#include "mm/mmu_notifier.h"
#include "mm/rmap.h"
#include "hw/perf.h"

/*
 * A copy of orig in the same file's i_mmap; the caller links its
 * anon_vmas (anon_vma_clone for a split, anon_vma_fork for fork).
 */
struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig)
{
	struct vm_area_struct *new = host_malloc(sizeof(*new), "a VMA");

	memcpy(new, orig, sizeof(*new));
	new->vm_next = NULL;
	new->anon_vma_chain = NULL;
	new->nr_anon_vma_chain = 0;
	if (new->vm_file_mapping)
		vma_interval_tree_insert(new, &new->vm_file_mapping->i_mmap);
	return new;
}

/* The VMA is gone from its mm: it leaves the reverse map, then is freed. */
void remove_vma(struct vm_area_struct *vma)
{
	PERF_FUNC();
	unlink_anon_vmas(vma);
	if (vma->vm_file_mapping)
		vma_interval_tree_remove(vma, &vma->vm_file_mapping->i_mmap);
	free(vma);
}

static struct vm_area_struct *split_vma(struct vm_area_struct *vma,
					unsigned long addr)
{
	struct vm_area_struct *new = vm_area_dup(vma);

	anon_vma_clone(new, vma);
	new->vm_start = addr;
	new->vm_pgoff += (addr - vma->vm_start) >> PAGE_SHIFT;
	new->vm_next = vma->vm_next;
	vma->vm_end = addr;
	vma->vm_next = new;
	vma->vm_mm->nr_vmas++;
	return new;
}

/*
 * Make [start, end) a run of whole VMAs, splitting at the edges (the
 * vma_modify() step of mlock, mprotect, madvise). Returns the first VMA,
 * or NULL if part of the range is not mapped.
 */
struct vm_area_struct *vma_split_range(struct mm_struct *mm, unsigned long start,
				       unsigned long end)
{
	struct vm_area_struct *vma = find_vma(mm, start), *v;

	if (!vma)
		return NULL;
	for (v = vma; v->vm_end < end; v = v->vm_next)
		if (!v->vm_next || v->vm_next->vm_start != v->vm_end)
			return NULL; /* a hole */
	if (vma->vm_start < start)
		vma = split_vma(vma, start);
	for (v = vma; v->vm_end < end; v = v->vm_next)
		;
	if (v->vm_end > end)
		split_vma(v, end);
	return vma;
}

int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	PERF_FUNC();
	unsigned long end = start + len;
	struct vm_area_struct **link = &mm->mmap, *prev = NULL, *vma;
	struct mmu_gather tlb;

	if ((start | len) & ~PAGE_MASK || !len || end < start)
		return -1;
	while (*link && (*link)->vm_end <= start) {
		prev = *link;
		link = &(*link)->vm_next;
	}
	if (!*link || (*link)->vm_start >= end)
		return 0;
	if ((*link)->vm_start < start) {
		split_vma(*link, start);
		prev = *link;
		link = &(*link)->vm_next;
	}
	struct vm_area_struct *last = *link;
	while (last->vm_next && last->vm_next->vm_start < end)
		last = last->vm_next;
	if (last->vm_end > end)
		split_vma(last, end);

	tlb_gather_mmu(&tlb, mm);
	/* 7.3's unmap_vmas(): secondary MMUs let go of the range before the zap */
	struct mmu_notifier_range range;

	mmu_notifier_range_init(&range, MMU_NOTIFY_UNMAP, 0, mm, start, end);
	mmu_notifier_invalidate_range_start(&range);
	for (vma = *link; vma && vma->vm_start < end; vma = vma->vm_next)
		unmap_vmas(&tlb, vma, start, end);
	mmu_notifier_invalidate_range_end(&range);
	struct vm_area_struct *next = vma;
	free_pgtables(&tlb, mm, prev ? prev->vm_end : 0, next ? next->vm_start : ~0UL);
	tlb_finish_mmu(&tlb);

	for (vma = *link; vma != next;) {
		struct vm_area_struct *n = vma->vm_next;

		remove_vma(vma);
		mm->nr_vmas--;
		vma = n;
	}
	*link = next;
	return 0;
}
