/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The public arm64 PTE API as core-mm calls it (asm/pgtable.h): ptep_get,
 * set_ptes, the *_young_ptes, ... A backend provides it whole: the
 * reference (arch/arm64/pgtable.c) or a kernel tree, whose own
 * CONFIG_ARM64_CONTPTE dispatcher block is compiled with its contpte.c
 * (kernel/shim/api.c). Signatures are ptelab's fixed ones; the wrappers
 * adapt each version's (int vs bool young, ...).
 */
#ifndef PTELAB_ARM64_API_H
#define PTELAB_ARM64_API_H

#include "arch/arm64/raw.h"

struct arm64_pte_api {
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
	/*
	 * The tree's own asm/pgtable.h defines test_and_clear_young_ptes
	 * (7.x): core-mm then batches young tests per folio; 6.x did not.
	 */
	bool batched_young;
};

/* A backend: its API with contiguous PTEs (CONFIG_ARM64_CONTPTE=y) and without. */
struct arm64_backend {
	const char *name;    /* "ref", "linux-7.3", "tree:/path" */
	const char *version; /* the kernel release, or "ptelab" */
	const struct arm64_pte_api *api;
	const struct arm64_pte_api *api_nocont; /* the tree's #else block */
};

extern const struct arm64_backend arm64_ref_backend;

/* The backend the arm64 arch ops call from now on (per run). */
void arm64_use_backend(const struct arm64_backend *b);
const struct arm64_backend *arm64_current_backend(void);

#endif
