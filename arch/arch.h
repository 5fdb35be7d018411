/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One architecture's page-table API as core-mm sees it. The lab builds
 * arm64 and x86 into one binary, so mm/ reaches the arch through this
 * table; arch/pgtable.h wraps it in the kernel's function names.
 */
#ifndef PTELAB_ARCH_ARCH_H
#define PTELAB_ARCH_ARCH_H

#include "hw/mmu.h"
#include "arch/pte_api.h"
#include "include/mm_types.h"

struct mmu_gather;

struct arch_ops {
	const char *name;
	const struct hw_mmu_fmt *fmt;

	/* pte values */
	bool (*pte_present)(pte_t pte);
	u64 (*pte_pfn)(pte_t pte);
	bool (*pte_young)(pte_t pte);
	bool (*pte_dirty)(pte_t pte);
	bool (*pte_write)(pte_t pte);
	pte_t (*pte_mkold)(pte_t pte);
	pte_t (*pte_mkyoung)(pte_t pte);
	pte_t (*pte_mkclean)(pte_t pte);
	pte_t (*pte_mkdirty)(pte_t pte);
	pte_t (*pte_wrprotect)(pte_t pte);
	pte_t (*pte_mkwrite)(pte_t pte);
	pte_t (*pfn_pte)(u64 pfn, pgprot_t prot);
	pgprot_t (*pte_pgprot)(pte_t pte);
	pgprot_t (*vm_get_page_prot)(unsigned long vm_flags);

	/*
	 * Upper levels, read with the kernel's helpers over the arch's own
	 * bits (arch/pgtable.h wraps them; entries are u64 until pmd_t
	 * arrives). Four levels, the p4d folded into the pgd.
	 */
	u64 (*mk_table)(u64 *table);            /* *_populate's entry */
	u64 (*mk_pmd_leaf)(u64 pfn, pgprot_t prot);
	bool (*p4d_bad)(u64 p4d);               /* not a table of PUDs */
	u64 *(*p4d_pgtable)(u64 p4d);
	bool (*pud_bad)(u64 pud);               /* not a table of PMDs */
	u64 *(*pud_pgtable)(u64 pud);
	bool (*pmd_table)(u64 pmd);             /* a table of PTEs */
	bool (*pmd_leaf)(u64 pmd);              /* a block mapping a 2M folio */
	u64 (*pmd_pfn)(u64 pmd);
	unsigned long (*pmd_page_vaddr)(u64 pmd);

	/* operations on entries: the public PTE API */
	struct pte_api pte;

	/* TLB maintenance */
	void (*flush_tlb_range)(struct vm_area_struct *vma, unsigned long start,
				unsigned long end);
	void (*flush_tlb_mm)(struct mm_struct *mm);
	void (*flush_tlb_page)(struct vm_area_struct *vma, unsigned long addr);
	void (*tlb_flush)(struct mmu_gather *tlb);
};

extern const struct arch_ops arch_arm64_ops;
extern const struct arch_ops arch_x86_ops;

/* The architecture of the current run. */
extern const struct arch_ops *arch;

const struct arch_ops *arch_by_name(const char *name);
/* The run's arch: a's ops, with the PTE API pte (NULL: a's own). */
void arch_select(const struct arch_ops *a, const struct pte_api *pte);
/*
 * A set_ptes() of nr entries from addr (first frame pfn) over entries
 * cleared without invalidation is about to fold its whole aligned blocks:
 * what TLBs hold for them is marked (hw_mark_known_fold).
 */
struct mm_struct;
void arch_mark_fold_without_bbm(struct mm_struct *mm, unsigned long addr, u64 pfn, unsigned int nr);

/* arm64: the backend whose public PTE API the arch ops call (arch/arm64/api.h). */
struct arm64_backend;
extern const struct arm64_backend arm64_ref_backend;
void arm64_use_backend(const struct arm64_backend *b);
const struct pte_api *arm64_backend_api(void);
/* A run begins: arm64's recorded gathers are forgotten (arch/arm64/gather_memo.h). */
void gather_memo_reset(void);

#endif
