/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The VMAs that map an object, for the reverse map: a file's i_mmap and
 * an anon_vma's tree of anon_vma_chains. The kernel keeps them in an
 * interval tree keyed by page offset (mm/interval_tree.c); the lab keeps
 * an array in insertion order and filters by offset on the walk, which
 * visits the same VMAs (the order differs only between VMAs of different
 * processes, which no walk depends on).
 */
#ifndef PTELAB_MM_INTERVAL_TREE_H
#define PTELAB_MM_INTERVAL_TREE_H

#include <stdbool.h>

#include "include/mm_types.h"

struct rb_root_cached {
	struct vm_area_struct **vmas;
	int nr, cap;
};

void vma_interval_tree_insert(struct vm_area_struct *vma, struct rb_root_cached *root);
void vma_interval_tree_remove(struct vm_area_struct *vma, struct rb_root_cached *root);
void vma_interval_tree_destroy(struct rb_root_cached *root);

/* Does vma map any page offset in [first, last]? */
static inline bool vma_interval_overlaps(const struct vm_area_struct *vma,
					 unsigned long first, unsigned long last)
{
	unsigned long vfirst = vma->vm_pgoff;
	unsigned long vlast = vma->vm_pgoff + ((vma->vm_end - vma->vm_start) >> PAGE_SHIFT) - 1;

	return vfirst <= last && first <= vlast;
}

/* for each VMA of root mapping a page offset in [first, last] */
#define vma_interval_tree_foreach(vma, root, first, last)				\
	for (int __i = 0; __i < (root)->nr; __i++)					\
		if (((vma) = (root)->vmas[__i]),					\
		    vma_interval_overlaps((vma), (first), (last)))

#endif
