/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The public page-table entry API an architecture presents to core-mm
 * (asm/pgtable.h): ptep_get, set_ptes, the *_young_ptes, ... Each arch
 * fills one; on arm64 it comes whole from the run's backend (the
 * reference, or a kernel tree's own dispatchers: arch/arm64/api.h).
 * Signatures are ptelab's fixed ones.
 */
#ifndef PTELAB_ARCH_PTE_API_H
#define PTELAB_ARCH_PTE_API_H

#include "include/mm_types.h"

struct pte_api {
	pte_t (*ptep_get)(pte_t *ptep);
	pte_t (*ptep_get_lockless)(pte_t *ptep);
	void (*set_ptes)(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			 pte_t pte, unsigned int nr);
	void (*clear_full_ptes)(struct mm_struct *mm, unsigned long addr,
				pte_t *ptep, unsigned int nr, int full);
	pte_t (*get_and_clear_full_ptes)(struct mm_struct *mm, unsigned long addr,
					 pte_t *ptep, unsigned int nr, int full);
	pte_t (*ptep_get_and_clear_full)(struct mm_struct *mm, unsigned long addr,
					 pte_t *ptep, int full);
	int (*ptep_test_and_clear_young)(struct vm_area_struct *vma,
					 unsigned long addr, pte_t *ptep);
	int (*ptep_clear_flush_young)(struct vm_area_struct *vma,
				      unsigned long addr, pte_t *ptep);
	bool (*test_and_clear_young_ptes)(struct vm_area_struct *vma,
					  unsigned long addr, pte_t *ptep,
					  unsigned int nr);
	bool (*clear_flush_young_ptes)(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep,
				       unsigned int nr);
	void (*wrprotect_ptes)(struct mm_struct *mm, unsigned long addr,
			       pte_t *ptep, unsigned int nr);
	void (*clear_young_dirty_ptes)(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep,
				       unsigned int nr, cydp_t flags);
	int (*ptep_set_access_flags)(struct vm_area_struct *vma,
				     unsigned long addr, pte_t *ptep,
				     pte_t entry, int dirty);
	unsigned int (*pte_batch_hint)(pte_t *ptep, pte_t pte);
};

#endif
