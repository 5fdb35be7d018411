// SPDX-License-Identifier: GPL-2.0-only
/*
 * A kernel tree's public arm64 PTE API. The shim includes the tree's own
 * CONFIG_ARM64_CONTPTE dispatcher block from asm/pgtable.h (or, built with
 * PTELAB_API_NOCONT, its #else block: the kernel without contpte); these
 * wrappers give each entry point ptelab's fixed signature
 * (arch/pte_api.h). An op the tree's asm/pgtable.h does not define takes
 * the generic version of include/linux/pgtable.h as core-mm is pinned to
 * it (7.3): test_and_clear_young_ptes and clear_flush_young_ptes loop over
 * the per-PTE op for 6.x, ptep_get_lockless is ptep_get without contpte.
 */
#include "arch/arm64/api.h"

static pte_t api_ptep_get(pte_t *ptep)
{
	return ptep_get(ptep);
}

static pte_t api_ptep_get_lockless(pte_t *ptep)
{
#ifdef ptep_get_lockless
	return ptep_get_lockless(ptep);
#else
	return ptep_get(ptep);
#endif
}

static void api_set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			 pte_t pte, unsigned int nr)
{
	set_ptes(mm, addr, ptep, pte, nr);
}

static void api_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				pte_t *ptep, unsigned int nr, int full)
{
	clear_full_ptes(mm, addr, ptep, nr, full);
}

static pte_t api_get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
					 pte_t *ptep, unsigned int nr, int full)
{
	return get_and_clear_full_ptes(mm, addr, ptep, nr, full);
}

/* generic: arm64 has no ptep_get_and_clear_full of its own */
static pte_t api_ptep_get_and_clear_full(struct mm_struct *mm, unsigned long addr,
					 pte_t *ptep, int full)
{
	return ptep_get_and_clear(mm, addr, ptep);
}

static int api_ptep_test_and_clear_young(struct vm_area_struct *vma,
					 unsigned long addr, pte_t *ptep)
{
	return ptep_test_and_clear_young(vma, addr, ptep);
}

static int api_ptep_clear_flush_young(struct vm_area_struct *vma,
				      unsigned long addr, pte_t *ptep)
{
	return ptep_clear_flush_young(vma, addr, ptep);
}

#ifdef test_and_clear_young_ptes
static bool api_test_and_clear_young_ptes(struct vm_area_struct *vma,
					  unsigned long addr, pte_t *ptep,
					  unsigned int nr)
{
	return test_and_clear_young_ptes(vma, addr, ptep, nr);
}
#else
/* the generic loop of include/linux/pgtable.h */
static bool api_test_and_clear_young_ptes(struct vm_area_struct *vma,
					  unsigned long addr, pte_t *ptep,
					  unsigned int nr)
{
	bool young = false;

	for (;;) {
		young |= ptep_test_and_clear_young(vma, addr, ptep);
		if (--nr == 0)
			break;
		ptep++;
		addr += PAGE_SIZE;
	}
	return young;
}
#endif

#ifdef clear_flush_young_ptes
static bool api_clear_flush_young_ptes(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep,
				       unsigned int nr)
{
	return clear_flush_young_ptes(vma, addr, ptep, nr);
}
#else
static bool api_clear_flush_young_ptes(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep,
				       unsigned int nr)
{
	bool young = false;

	for (;;) {
		young |= ptep_clear_flush_young(vma, addr, ptep);
		if (--nr == 0)
			break;
		ptep++;
		addr += PAGE_SIZE;
	}
	return young;
}
#endif

static void api_wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
			       pte_t *ptep, unsigned int nr)
{
	wrprotect_ptes(mm, addr, ptep, nr);
}

static void api_clear_young_dirty_ptes(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep,
				       unsigned int nr, cydp_t flags)
{
	clear_young_dirty_ptes(vma, addr, ptep, nr, flags);
}

static int api_ptep_set_access_flags(struct vm_area_struct *vma,
				     unsigned long addr, pte_t *ptep,
				     pte_t entry, int dirty)
{
	return ptep_set_access_flags(vma, addr, ptep, entry, dirty);
}

static unsigned int api_pte_batch_hint(pte_t *ptep, pte_t pte)
{
#ifdef pte_batch_hint
	return pte_batch_hint(ptep, pte);
#else
	return 1;
#endif
}

#ifdef PTELAB_API_NOCONT
#define API_NAME ptelab_arm64_api_nocont
#else
#define API_NAME ptelab_arm64_api
#endif

const struct pte_api API_NAME = {
	.ptep_get = api_ptep_get,
	.ptep_get_lockless = api_ptep_get_lockless,
	.set_ptes = api_set_ptes,
	.clear_full_ptes = api_clear_full_ptes,
	.get_and_clear_full_ptes = api_get_and_clear_full_ptes,
	.ptep_get_and_clear_full = api_ptep_get_and_clear_full,
	.ptep_test_and_clear_young = api_ptep_test_and_clear_young,
	.ptep_clear_flush_young = api_ptep_clear_flush_young,
	.test_and_clear_young_ptes = api_test_and_clear_young_ptes,
	.clear_flush_young_ptes = api_clear_flush_young_ptes,
	.wrprotect_ptes = api_wrprotect_ptes,
	.clear_young_dirty_ptes = api_clear_young_dirty_ptes,
	.ptep_set_access_flags = api_ptep_set_access_flags,
	.pte_batch_hint = api_pte_batch_hint,
};
