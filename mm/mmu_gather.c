// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/mmu_gather.c (tlb_gather_mmu, __tlb_remove_folio_pages,
 * tlb_flush_rmaps, tlb_flush_mmu, tlb_finish_mmu), include/asm-generic/tlb.h,
 * as an SMP kernel builds it (delayed rmap).
 */
#include <stdlib.h>

#include "hw/host.h"
#include "hw/pgtable_mem.h"
#include "hw/phys.h"
#include "mm/mm.h"
#include "hw/perf.h"

static void __tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm,
			     bool fullmm)
{
	*tlb = (struct mmu_gather){ .mm = mm, .fullmm = fullmm };
	tlb->local.max = MMU_GATHER_BUNDLE;
	tlb->active = &tlb->local;
	tlb->start = fullmm ? 0 : ~0UL;
	tlb->end = fullmm ? ~0UL : 0;
}

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm)
{
	__tlb_gather_mmu(tlb, mm, false);
}

void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct mm_struct *mm)
{
	__tlb_gather_mmu(tlb, mm, true);
}

static void __tlb_reset_range(struct mmu_gather *tlb)
{
	if (tlb->fullmm) {
		tlb->start = tlb->end = ~0UL;
	} else {
		tlb->start = ~0UL;
		tlb->end = 0;
	}
	tlb->freed_tables = tlb->cleared_ptes = tlb->cleared_pmds = false;
}

void tlb_remove_tlb_entries(struct mmu_gather *tlb, unsigned long address,
			    unsigned int nr)
{
	tlb->start = min(tlb->start, address);
	tlb->end = max(tlb->end, address + (unsigned long)nr * PAGE_SIZE);
	tlb->cleared_ptes = true;
}

/* pte_free_tlb(): the walk cache for addr must go before the table does. */
void tlb_remove_table(struct mmu_gather *tlb, u64 *table, unsigned long addr)
{
	if (tlb->nr_tables == tlb->max_tables) {
		tlb->max_tables = tlb->max_tables ? 2 * tlb->max_tables : 64;
		tlb->tables = host_realloc(tlb->tables, tlb->max_tables * sizeof(*tlb->tables),
					   "the mmu_gather table list");
	}
	tlb->tables[tlb->nr_tables++] = table;
	tlb->freed_tables = true;
	tlb->cleared_pmds = true;
	if (!tlb->fullmm) {
		tlb->start = min(tlb->start, addr);
		tlb->end = max(tlb->end, addr + PAGE_SIZE);
	}
}

void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb)
{
	PERF_FUNC();
	if (!tlb->end)
		return;
	arch->tlb_flush(tlb);
	__tlb_reset_range(tlb);
}

static bool tlb_next_batch(struct mmu_gather *tlb)
{
	struct mmu_gather_batch *batch;

	/* Limit batching if we have delayed rmaps pending */
	if (tlb->delayed_rmap && tlb->active != &tlb->local)
		return false;

	batch = tlb->active->next;
	if (batch) {
		tlb->active = batch;
		return true;
	}
	if (tlb->batch_count == MAX_GATHER_BATCH_COUNT)
		return false;
	batch = host_malloc(PAGE_SIZE, "an mmu_gather batch");
	tlb->batch_count++;
	batch->next = NULL;
	batch->nr = 0;
	batch->max = MAX_GATHER_BATCH;
	tlb->active->next = batch;
	tlb->active = batch;
	return true;
}

/*
 * Contpte series v3 02/15 (Dec 2023, not merged in this form): how many
 * pages the gather takes before it must flush, allocating the next batch
 * now if it can (v4 made this tlb_reserve_space(): the allocation cost a
 * page even for one PTE).
 */
unsigned int tlb_get_guaranteed_space(struct mmu_gather *tlb)
{
	struct mmu_gather_batch *batch = tlb->active;
	int room = (int)batch->max - 1 - (int)batch->nr; /* it moves on with one slot left */

	if (tlb_next_batch(tlb)) {
		tlb->active = batch;
		room += (int)batch->next->max - 1;
	}
	return room > 0 ? (unsigned int)room : 0;
}

static void tlb_flush_rmap_batch(struct mmu_gather_batch *batch, struct vm_area_struct *vma)
{
	struct encoded_page **pages = batch->encoded_pages;

	for (unsigned int i = 0; i < batch->nr; i++) {
		unsigned long flags = encoded_page_flags(pages[i]);

		if (flags & ENCODED_PAGE_BIT_DELAY_RMAP) {
			struct page *page = encoded_page_ptr(pages[i]);
			unsigned long nr_pages = 1;

			if (flags & ENCODED_PAGE_BIT_NR_PAGES_NEXT)
				nr_pages = encoded_nr_pages(pages[++i]);
			folio_remove_rmap_ptes(page_folio(page), page, (int)nr_pages, vma);
		}
	}
}

/*
 * The rmap removals delayed until the TLB no longer holds the entries
 * (zap_pte_range calls it after tlb_flush_mmu_tlbonly, under the PTL):
 * only the local batch and the active one can hold them, as
 * tlb_next_batch() starts no further batch while they are pending.
 */
void tlb_flush_rmaps(struct mmu_gather *tlb, struct vm_area_struct *vma)
{
	if (!tlb->delayed_rmap)
		return;
	tlb_flush_rmap_batch(&tlb->local, vma);
	if (tlb->active != &tlb->local)
		tlb_flush_rmap_batch(tlb->active, vma);
	tlb->delayed_rmap = false;
}

/*
 * The lab's bookkeeping, no kernel work: an anonymous page the zap left
 * mapped nowhere holds data nobody can read again (munmap, MADV_DONTNEED
 * discard it), so its frame's "written" mark is dropped, once the TLBs
 * are flushed and no stale entry can store to it. Reclaim may then free
 * its folio (a lazyfree one still mapped elsewhere) without that being
 * a lost write. File pages keep theirs: the page cache still holds them.
 */
static void tlb_batch_discard_anon(struct mmu_gather_batch *batch)
{
	for (unsigned int i = 0; i < batch->nr; i++) {
		struct page *page = encoded_page_ptr(batch->encoded_pages[i]);
		unsigned long nr = 1;

		if (encoded_page_flags(batch->encoded_pages[i]) & ENCODED_PAGE_BIT_NR_PAGES_NEXT)
			nr = encoded_nr_pages(batch->encoded_pages[++i]);
		if (!folio_test_anon(page_folio(page)))
			continue;
		for (unsigned long j = 0; j < nr; j++)
			if (page[j]._mapcount < 0)
				hw_frame_clean(page_to_pfn(page + j), 1);
	}
}

static void tlb_batch_pages_flush(struct mmu_gather *tlb)
{
	PERF_FUNC();
	for (struct mmu_gather_batch *batch = &tlb->local; batch && batch->nr;
	     batch = batch->next) {
		tlb_batch_discard_anon(batch);
		free_pages_and_swap_cache(batch->encoded_pages, (int)batch->nr);
		batch->nr = 0;
	}
	tlb->active = &tlb->local;
}

static void tlb_free_tables(struct mmu_gather *tlb)
{
	PERF_FUNC();
	for (unsigned int i = 0; i < tlb->nr_tables; i++)
		hw_pt_free(tlb->tables[i]);
	tlb->nr_tables = 0;
}

void tlb_flush_mmu(struct mmu_gather *tlb)
{
	PERF_FUNC();
	hw_count(EV_gather_flush, 1);
	tlb_flush_mmu_tlbonly(tlb);
	tlb_free_tables(tlb);
	tlb_batch_pages_flush(tlb);
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	PERF_FUNC();
	tlb_flush_mmu(tlb);
	for (struct mmu_gather_batch *b = tlb->local.next, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	free(tlb->tables);
	tlb->tables = NULL;
}

/* Returns true when the gather is full and must be flushed now. */
bool __tlb_remove_folio_pages(struct mmu_gather *tlb, struct page *page,
			      unsigned int nr_pages, bool delay_rmap)
{
	struct mmu_gather_batch *batch = tlb->active;
	unsigned long flags = delay_rmap ? ENCODED_PAGE_BIT_DELAY_RMAP : 0;

	if (nr_pages == 1) {
		batch->encoded_pages[batch->nr++] = encode_page(page, flags);
	} else {
		flags |= ENCODED_PAGE_BIT_NR_PAGES_NEXT;
		batch->encoded_pages[batch->nr++] = encode_page(page, flags);
		batch->encoded_pages[batch->nr++] = encode_nr_pages(nr_pages);
	}
	/* keep room for one more page + nr_pages pair */
	if (batch->nr >= batch->max - 1) {
		if (!tlb_next_batch(tlb))
			return true;
	}
	return false;
}

bool __tlb_remove_page(struct mmu_gather *tlb, struct page *page, bool delay_rmap)
{
	return __tlb_remove_folio_pages(tlb, page, 1, delay_rmap);
}
