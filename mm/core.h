/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A kernel tree's own core-mm functions, when the run's backend has them
 * (kernel/core_roots.c lists the roots; kernel/shim/core_entry.c fills
 * this table in the tree's unit): mm/ calls each root through here, and
 * its own twin when mm_core is NULL (the reference backend, --core ref)
 * or the table has no such root. Signatures are the twin's.
 */
#ifndef PTELAB_MM_CORE_H
#define PTELAB_MM_CORE_H

#include "include/mm_types.h"

struct mmu_gather;
struct folio;
struct mm_walk;
struct page;

struct mm_core_ops {
	const char *kernel; /* the tree's version, "X.Y.Z" */
	unsigned int kver;  /* the same, as KERNEL_VERSION(X, Y, Z) */
	unsigned long (*zap_pte_range)(struct mmu_gather *tlb, struct vm_area_struct *vma,
				       pmd_t *pmd, unsigned long addr, unsigned long end);
	/* rmap_one of folio_referenced(): arg is its struct folio_referenced_arg (mm/rmap.h) */
	bool (*folio_referenced_one)(struct folio *folio, struct vm_area_struct *vma,
				     unsigned long address, void *arg);
	/* rmap_one of try_to_unmap() (reclaim's unmap of a folio; arg: its ttu_flags, 0) */
	bool (*try_to_unmap_one)(struct folio *folio, struct vm_area_struct *vma,
				 unsigned long address, void *arg);
	/* mlock_walk_ops.pmd_entry (mm/pagewalk.h's struct mm_walk) */
	int (*mlock_pte_range)(pmd_t *pmd, unsigned long addr, unsigned long end,
			       struct mm_walk *walk);
	/* MGLRU aging: one PTE table's share of walk_mm (args->private: struct lru_gen_mm_walk) */
	bool (*walk_pte_range)(pmd_t *pmd, unsigned long start, unsigned long end,
			       struct mm_walk *args);
	/* mprotect: one PTE table's share of change_protection (the pages changed, < 0: none mapped) */
	long (*change_pte_range)(struct mmu_gather *tlb, struct vm_area_struct *vma, pmd_t *pmd,
				 unsigned long addr, unsigned long end, pgprot_t newprot,
				 unsigned long cp_flags);
	/* mremap: one PTE table's share of move_page_tables (0, or < 0 if a table is gone) */
	int (*move_ptes)(struct vm_area_struct *vma, struct vm_area_struct *new_vma, pmd_t *old_pmd,
			 unsigned long old_addr, pmd_t *new_pmd, unsigned long new_addr,
			 unsigned long extent);
	/* MADV_COLD/MADV_PAGEOUT's pmd_entry (walk->private: struct madvise_walk_private, mm/madvise.h) */
	int (*madvise_cold_or_pageout_pte_range)(pmd_t *pmd, unsigned long addr, unsigned long end,
						 struct mm_walk *walk);
	/* MADV_FREE's pmd_entry (walk->private: the call's struct mmu_gather) */
	int (*madvise_free_pte_range)(pmd_t *pmd, unsigned long addr, unsigned long end,
				      struct mm_walk *walk);
	/* fork: one PTE table's share of copy_page_range (0, or < 0 on failure) */
	int (*copy_pte_range)(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma,
			      pmd_t *dst_pmd, pmd_t *src_pmd, unsigned long addr, unsigned long end);
	/* mm/mmu_gather.c (mm/mmu_gather.h): the gather ptelab's callers use */
	void (*tlb_gather_mmu)(struct mmu_gather *tlb, struct mm_struct *mm);
	void (*tlb_gather_mmu_fullmm)(struct mmu_gather *tlb, struct mm_struct *mm);
	void (*tlb_finish_mmu)(struct mmu_gather *tlb);
	void (*tlb_flush_mmu)(struct mmu_gather *tlb);
	void (*tlb_flush_rmaps)(struct mmu_gather *tlb, struct vm_area_struct *vma);
	bool (*__tlb_remove_folio_pages)(struct mmu_gather *tlb, struct page *page,
					 unsigned int nr_pages, bool delay_rmap);
};

/* The run's core (lab_machine_setup sets it); NULL: ptelab's twin. */
extern const struct mm_core_ops *mm_core;

/*
 * Whether the tree's VM_WARN_ON*()/VM_BUG_ON*() conditions are checked, as
 * a CONFIG_DEBUG_VM kernel does (kernel/shim/core.h): on for check's
 * workloads (fuzz, explore), which look for bugs; off for the measured
 * ones, as in the distributions' kernels whose costs they model.
 * lab_machine_setup turns it off; those workloads turn it on after.
 */
extern bool mm_debug_vm;

#endif
