/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mmu_gather: pages unmapped during a zap are kept until the TLB has been
 * flushed, then freed in bulk. With zap-batch a folio range takes two
 * slots (page + nr_pages) instead of one slot per page.
 */
#ifndef PTELAB_MM_MMU_GATHER_H
#define PTELAB_MM_MMU_GATHER_H

#include "mm/mm_types.h"
#include "mm/page.h"

/* As in the kernel: a batch fills a page, at most ~10000 entries queued. */
#define MAX_GATHER_BATCH ((PAGE_SIZE - 2 * sizeof(void *)) / sizeof(void *))
#define MAX_GATHER_BATCH_COUNT (10000UL / MAX_GATHER_BATCH)
#define MMU_GATHER_BUNDLE 8

/* An encoded page: a struct page pointer, or a page count after one. */
struct encoded_page;
#define ENCODED_PAGE_BIT_DELAY_RMAP 1UL
#define ENCODED_PAGE_BIT_NR_PAGES_NEXT 2UL

struct mmu_gather_batch {
	struct mmu_gather_batch *next;
	unsigned int nr, max;
	struct encoded_page *encoded_pages[];
};

struct mmu_gather {
	struct mm_struct *mm;
	unsigned long start, end;
	bool fullmm, freed_tables, cleared_ptes, cleared_pmds;
	unsigned int batch_count;
	struct mmu_gather_batch *active;
	struct mmu_gather_batch local;
	struct encoded_page *__encoded_pages[MMU_GATHER_BUNDLE];
	/* page-table pages to free once the walkers cannot reach them */
	u64 **tables;
	unsigned int nr_tables, max_tables;
};

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct mm_struct *mm);
void tlb_finish_mmu(struct mmu_gather *tlb);
void tlb_flush_mmu(struct mmu_gather *tlb);
void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb);
bool __tlb_remove_folio_pages(struct mmu_gather *tlb, struct page *page,
			      unsigned int nr_pages, bool delay_rmap);
bool __tlb_remove_page(struct mmu_gather *tlb, struct page *page, bool delay_rmap);
void tlb_remove_tlb_entries(struct mmu_gather *tlb, unsigned long address,
			    unsigned int nr);
void tlb_remove_table(struct mmu_gather *tlb, u64 *table, unsigned long addr);

#endif
