/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The boundary between the reference backend's dispatchers (pgtable.c) and
 * its contpte (contpte_ref.c). Kernel backends do not use it: they bring
 * their tree's dispatchers and contpte.c together (arch/arm64/api.h).
 */
#ifndef PTELAB_ARM64_CONTPTE_H
#define PTELAB_ARM64_CONTPTE_H

#include "arch/arm64/raw.h"

struct contpte_ops {
	const char *name;    /* "ref", "linux-6.12", "tree:/path" */
	const char *version; /* kernel release, or "ptelab" */
	pte_t (*ptep_get)(pte_t *ptep, pte_t orig_pte);
	pte_t (*ptep_get_lockless)(pte_t *orig_ptep);
	void (*try_fold)(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte);
	void (*try_unfold)(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte);
	void (*set_ptes)(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			 pte_t pte, unsigned int nr);
	void (*clear_full_ptes)(struct mm_struct *mm, unsigned long addr,
				pte_t *ptep, unsigned int nr, int full);
	pte_t (*get_and_clear_full_ptes)(struct mm_struct *mm, unsigned long addr,
					 pte_t *ptep, unsigned int nr, int full);
	/* per-PTE young (every version up to 6.x) */
	int (*ptep_test_and_clear_young)(struct vm_area_struct *vma,
					 unsigned long addr, pte_t *ptep);
	int (*ptep_clear_flush_young)(struct vm_area_struct *vma,
				      unsigned long addr, pte_t *ptep);
	/* batched young (S1, 7.x) */
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
};

extern const struct contpte_ops contpte_ref_ops;


/*
 * Core-mm service arch code needs: the frames of the folio that contains
 * pfn (the kernel's page_folio() + folio_nr_pages()). False: no folio.
 */
bool pfn_folio_span(u64 pfn, u64 *first_pfn, u64 *nr_pages);

#endif
