/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct mmu_gather (include/asm-generic/tlb.h): what core-mm collects
 * during a zap, read by the arch's tlb_flush() (asm/tlb.h) to decide
 * what to invalidate. The functions are core-mm's (mm/mmu_gather.h).
 */
#ifndef PTELAB_INCLUDE_MMU_GATHER_TYPES_H
#define PTELAB_INCLUDE_MMU_GATHER_TYPES_H

#include "include/mm_types.h"
#include "include/page.h"

/* As in the kernel: a batch fills a page, at most ~10000 entries queued. */
#define MAX_GATHER_BATCH ((PAGE_SIZE - 2 * sizeof(void *)) / sizeof(void *))
#define MAX_GATHER_BATCH_COUNT (10000UL / MAX_GATHER_BATCH)
#define MMU_GATHER_BUNDLE 8

/*
 * An encoded page (include/linux/mm_types.h): a struct page pointer with
 * flags in its low bits, or, after one with NR_PAGES_NEXT, a page count.
 */
struct encoded_page;
#define ENCODED_PAGE_BIT_DELAY_RMAP 1UL
#define ENCODED_PAGE_BIT_NR_PAGES_NEXT 2UL
#define ENCODED_PAGE_BITS 3UL

static inline struct encoded_page *encode_page(struct page *page, unsigned long flags)
{
	return (struct encoded_page *)((uintptr_t)page | flags);
}

static inline unsigned long encoded_page_flags(struct encoded_page *page)
{
	return (uintptr_t)page & ENCODED_PAGE_BITS;
}

static inline struct page *encoded_page_ptr(struct encoded_page *page)
{
	return (struct page *)((uintptr_t)page & ~ENCODED_PAGE_BITS);
}

static inline struct encoded_page *encode_nr_pages(unsigned long nr)
{
	return (struct encoded_page *)(nr << 2);
}

static inline unsigned long encoded_nr_pages(struct encoded_page *page)
{
	return (uintptr_t)page >> 2;
}

struct mmu_gather_batch {
	struct mmu_gather_batch *next;
	unsigned int nr, max;
	struct encoded_page *encoded_pages[];
};

struct mmu_gather {
	struct mm_struct *mm;
	unsigned long start, end;
	/* we are in the middle of an operation to clear a full mm and can
	 * make some optimizations */
	unsigned int fullmm : 1;
	/* we have performed an operation which requires a complete flush of
	 * the tlb */
	unsigned int need_flush_all : 1;
	/* we have removed page directories */
	unsigned int freed_tables : 1;
	/*
	 * Pages queued with ENCODED_PAGE_BIT_DELAY_RMAP whose rmap removal
	 * waits for tlb_flush_rmaps() (a dirty file folio's, on SMP kernels).
	 */
	unsigned int delayed_rmap : 1;
	/* at which levels have we cleared entries? */
	unsigned int cleared_ptes : 1;
	unsigned int cleared_pmds : 1;
	unsigned int cleared_puds : 1;
	unsigned int cleared_p4ds : 1;
	/* tracks VM_EXEC | VM_HUGETLB | VM_PFNMAP in tlb_start_vma */
	unsigned int vma_exec : 1;
	unsigned int vma_huge : 1;
	unsigned int vma_pfn : 1;
	/* hugetlb's shared PMD tables (none in the lab) */
	unsigned int unshared_tables : 1;
	unsigned int fully_unshared_tables : 1;
	unsigned int batch_count;
	struct mmu_gather_batch *active;
	struct mmu_gather_batch local;
	struct page *__pages[MMU_GATHER_BUNDLE];
	/*
	 * The lab's stand-in for CONFIG_MMU_GATHER_TABLE_FREE's table batch:
	 * page-table pages to free once the walkers cannot reach them
	 * (tlb_table_flush(), mm/mmu_gather.c).
	 */
	u64 **tables;
	unsigned int nr_tables, max_tables;
};

#endif
