/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arm64 pte value helpers, with the kernel's names and semantics (7.3's;
 * kernel/quirks.c's kernel_dups checks each tree still defines them so).
 */
#ifndef PTELAB_ARM64_PTE_H
#define PTELAB_ARM64_PTE_H

#include "arch/arm64/pgtable-hwdef.h"

#define pte_valid(pte) (!!(pte_val(pte) & PTE_VALID))
#define pte_present_invalid(pte) \
	((pte_val(pte) & (PTE_VALID | PTE_PRESENT_INVALID)) == PTE_PRESENT_INVALID)
#define pte_present(pte) (pte_valid(pte) || pte_present_invalid(pte))
#define pte_none(pte) (!pte_val(pte))
#ifdef PTELAB_SHIM
/*
 * A kernel tree's code (kernel/shim): its dirty and young tests are
 * counted, so kernel/backend.c sees how many a gather of the tree's made
 * (contpte_test).
 */
extern unsigned long ptelab_pte_bit_tests;
/* and the young and dirty bits it sets: a gather's merges (contpte_merge) */
extern unsigned long ptelab_pte_bit_sets;

static inline bool ptelab_count_test(bool bit)
{
	ptelab_pte_bit_tests++;
	return bit;
}
#define pte_young(pte) ptelab_count_test(!!(pte_val(pte) & PTE_AF))
#define PTELAB_COUNT_SET() (ptelab_pte_bit_sets++)
#else
#define pte_young(pte) (!!(pte_val(pte) & PTE_AF))
#define PTELAB_COUNT_SET() ((void)0)
#endif
#define pte_special(pte) (!!(pte_val(pte) & PTE_SPECIAL))
#define pte_write(pte) (!!(pte_val(pte) & PTE_WRITE))
#define pte_rdonly(pte) (!!(pte_val(pte) & PTE_RDONLY))
#define pte_cont(pte) (!!(pte_val(pte) & PTE_CONT))
#define pte_user(pte) (!!(pte_val(pte) & PTE_USER))
#define pte_hw_dirty(pte) (pte_write(pte) && !pte_rdonly(pte))
#define pte_sw_dirty(pte) (!!(pte_val(pte) & PTE_DIRTY))
#ifdef PTELAB_SHIM
#define pte_dirty(pte) ptelab_count_test(pte_sw_dirty(pte) || pte_hw_dirty(pte))
#else
#define pte_dirty(pte) (pte_sw_dirty(pte) || pte_hw_dirty(pte))
#endif
#define pte_valid_cont(pte) (pte_valid(pte) && pte_cont(pte))
#define pte_same(a, b) (pte_val(a) == pte_val(b))

static inline u64 pte_pfn(pte_t pte)
{
	return (pte_val(pte) & PTE_ADDR_LOW) >> PAGE_SHIFT;
}

/* the pte's struct page in the vmemmap view (include/page.h, included by the user) */
#define pte_page(pte) pfn_to_page(pte_pfn(pte))

static inline pte_t pfn_pte(u64 pfn, pgprot_t prot)
{
	return __pte((pfn << PAGE_SHIFT) | pgprot_val(prot));
}

static inline pgprot_t pte_pgprot(pte_t pte)
{
	return __pgprot(pte_val(pte) & ~PTE_ADDR_LOW);
}

static inline pte_t clear_pte_bit(pte_t pte, u64 bits)
{
	return __pte(pte_val(pte) & ~bits);
}

static inline pte_t set_pte_bit(pte_t pte, u64 bits)
{
	return __pte(pte_val(pte) | bits);
}

static inline pte_t pte_mkold(pte_t pte)
{
	return clear_pte_bit(pte, PTE_AF);
}

static inline pte_t pte_mkyoung(pte_t pte)
{
	PTELAB_COUNT_SET();
	return set_pte_bit(pte, PTE_AF);
}

static inline pte_t pte_mkclean(pte_t pte)
{
	pte = clear_pte_bit(pte, PTE_DIRTY);
	return set_pte_bit(pte, PTE_RDONLY);
}

static inline pte_t pte_mkdirty(pte_t pte)
{
	PTELAB_COUNT_SET();
	pte = set_pte_bit(pte, PTE_DIRTY);
	if (pte_write(pte))
		pte = clear_pte_bit(pte, PTE_RDONLY);
	return pte;
}

static inline pte_t pte_mkwrite_novma(pte_t pte)
{
	pte = set_pte_bit(pte, PTE_WRITE);
	if (pte_sw_dirty(pte))
		pte = clear_pte_bit(pte, PTE_RDONLY);
	return pte;
}

/* Moving a hardware-dirty entry to read-only keeps dirty in software. */
static inline pte_t pte_wrprotect(pte_t pte)
{
	if (pte_hw_dirty(pte))
		pte = set_pte_bit(pte, PTE_DIRTY);
	pte = clear_pte_bit(pte, PTE_WRITE);
	return set_pte_bit(pte, PTE_RDONLY);
}

static inline pte_t pte_mkcont(pte_t pte)
{
#ifdef PTELAB_MKCONT_TYPE_PAGE /* 6.x kernels also set the page type */
	pte = set_pte_bit(pte, PTE_TYPE_PAGE);
#endif
	return set_pte_bit(pte, PTE_CONT);
}

static inline pte_t pte_mknoncont(pte_t pte)
{
	return clear_pte_bit(pte, PTE_CONT);
}

static inline pte_t pte_advance_pfn(pte_t pte, unsigned long nr)
{
	return pfn_pte(pte_pfn(pte) + nr, pte_pgprot(pte));
}

static inline unsigned long pte_cont_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long b = (addr + CONT_PTE_SIZE) & CONT_PTE_MASK;

	return (b - 1 < end - 1) ? b : end;
}

#endif
