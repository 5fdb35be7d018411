// SPDX-License-Identifier: GPL-2.0-only
/* Mirrors 7.3: mm/pagewalk.c (walk_page_range, walk_pmd_range). */
/* mm/pagewalk.c (7.3): walk_page_range() down to the PMDs. */
#include "mm/mm.h"
#include "mm/pagewalk.h"

static int walk_pmd_range(unsigned long addr, unsigned long end, struct mm_walk *walk)
{
	for (unsigned long next; addr < end; addr = next) {
		pmd_t *pmd = pmd_walk(walk->mm, addr);
		int err;

		next = min((addr + SZ_2M) & ~(SZ_2M - 1), end);
again:
		if (!pmd || pmd_none(*pmd))
			continue; /* a hole: no pte_hole callback needed here */
		walk->action = ACTION_SUBTREE;
		err = walk->ops->pmd_entry ? walk->ops->pmd_entry(pmd, addr, next, walk) : 0;
		if (err)
			return err;
		/* the table went away under it (pte_offset_map_lock failed): look again */
		if (walk->action == ACTION_AGAIN)
			goto again;
	}
	return 0;
}

int walk_page_range(struct mm_struct *mm, unsigned long start, unsigned long end,
		    const struct mm_walk_ops *ops, void *private)
{
	struct mm_walk walk = { .ops = ops, .mm = mm, .private = private };

	for (struct vm_area_struct *vma = mm->mmap; vma && vma->vm_start < end; vma = vma->vm_next) {
		unsigned long s = max(start, vma->vm_start), e = min(end, vma->vm_end);
		int err;

		if (vma->vm_end <= start)
			continue;
		walk.vma = vma;
		err = ops->test_walk ? ops->test_walk(s, e, &walk) : 0;
		if (err > 0)
			continue;
		if (!err)
			err = walk_pmd_range(s, e, &walk);
		if (err)
			return err;
	}
	return 0;
}
