/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mmu_gather: pages unmapped during a zap are kept until the TLB has been
 * flushed, then freed in bulk. With zap-batch a folio range takes two
 * slots (page + nr_pages) instead of one slot per page.
 */
#ifndef PTELAB_MM_MMU_GATHER_H
#define PTELAB_MM_MMU_GATHER_H

#include "include/mmu_gather_types.h"

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm);
void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct mm_struct *mm);
void tlb_finish_mmu(struct mmu_gather *tlb);
void tlb_flush_mmu(struct mmu_gather *tlb);
void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb);
void __tlb_reset_range(struct mmu_gather *tlb);
void tlb_table_flush(struct mmu_gather *tlb);
void tlb_table_init(struct mmu_gather *tlb);
void tlb_flush_rmaps(struct mmu_gather *tlb, struct vm_area_struct *vma);
bool __tlb_remove_folio_pages(struct mmu_gather *tlb, struct page *page,
			      unsigned int nr_pages, bool delay_rmap);
unsigned int tlb_get_guaranteed_space(struct mmu_gather *tlb);
bool __tlb_remove_page(struct mmu_gather *tlb, struct page *page, bool delay_rmap);
void tlb_remove_tlb_entries(struct mmu_gather *tlb, unsigned long address,
			    unsigned int nr);
void tlb_remove_table(struct mmu_gather *tlb, u64 *table, unsigned long addr);

#endif
