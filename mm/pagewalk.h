/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * include/linux/pagewalk.h (7.3), the part ptelab's callers use:
 * walk_page_range() visits every PMD of the VMAs in a range and hands the
 * present ones to ops->pmd_entry (mlock, madvise and MGLRU's aging walk
 * use it in 7.3; zap, fork and mprotect keep their own pmd loops there).
 * PMD entries are u64 until a pmd_t arrives.
 */
#ifndef PTELAB_MM_PAGEWALK_H
#define PTELAB_MM_PAGEWALK_H

#include "include/mm_types.h"

struct mm_walk;

struct mm_walk_ops {
	/* a present PMD (a table or a leaf) covering [addr, next) */
	int (*pmd_entry)(pmd_t *pmd, unsigned long addr, unsigned long next, struct mm_walk *walk);
	/* before each VMA: 0 walks it, 1 skips it, < 0 stops with that error */
	int (*test_walk)(unsigned long start, unsigned long end, struct mm_walk *walk);
};

/* What a pmd_entry asks of the walk next (include/linux/pagewalk.h). */
enum page_walk_action {
	ACTION_SUBTREE = 0,  /* go on (there is no pte_entry level here) */
	ACTION_CONTINUE = 1, /* go on to the next PMD */
	ACTION_AGAIN = 2,    /* call pmd_entry again on this PMD */
};

struct mm_walk {
	const struct mm_walk_ops *ops;
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	enum page_walk_action action;
	void *private;
};

/* 0, or the first error a callback returned */
int walk_page_range(struct mm_struct *mm, unsigned long start, unsigned long end,
		    const struct mm_walk_ops *ops, void *private);

#endif
