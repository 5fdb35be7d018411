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
#include "hw/perf.h"
#include "mm/core.h"
#include "mm/mm.h"

/*
 * The tree's mm/mmu_gather.c, when the run's backend extracts it
 * (kernel/core_roots.c): ptelab's callers enter the gather here, so a
 * gather begun by the lab is filled, flushed and finished by the tree's
 * code (the zap's own calls inside the tree's unit already are).
 */
#define CORE_GATHER(fn, ...)					\
	do {							\
		if (mm_core && mm_core->fn)		\
			return mm_core->fn(__VA_ARGS__);	\
	} while (0)

/* include/asm-generic/tlb.h */
void __tlb_reset_range(struct mmu_gather *tlb)
{
	if (tlb->fullmm) {
		tlb->start = tlb->end = ~0UL;
	} else {
		tlb->start = ~0UL;
		tlb->end = 0;
	}
	tlb->freed_tables = 0;
	tlb->cleared_ptes = 0;
	tlb->cleared_pmds = 0;
	tlb->cleared_puds = 0;
	tlb->cleared_p4ds = 0;
	tlb->unshared_tables = 0;
}

void tlb_remove_tlb_entries(struct mmu_gather *tlb, unsigned long address,
			    unsigned int nr)
{
	tlb->start = min(tlb->start, address);
	tlb->end = max(tlb->end, address + (unsigned long)nr * PAGE_SIZE);
	tlb->cleared_ptes = 1;
}

/*
 * pte_free_tlb(): the walk cache for addr must go before the table does.
 * The lab's CONFIG_MMU_GATHER_TABLE_FREE: tables wait in the gather until
 * tlb_table_flush().
 */
void tlb_remove_table(struct mmu_gather *tlb, u64 *table, unsigned long addr)
{
	if (tlb->nr_tables == tlb->max_tables) {
		tlb->max_tables = tlb->max_tables ? 2 * tlb->max_tables : 64;
		tlb->tables = host_realloc(tlb->tables, tlb->max_tables * sizeof(*tlb->tables),
					   "the mmu_gather table list");
	}
	tlb->tables[tlb->nr_tables++] = table;
	tlb->freed_tables = 1;
	tlb->cleared_pmds = 1;
	if (!tlb->fullmm) {
		tlb->start = min(tlb->start, addr);
		tlb->end = max(tlb->end, addr + PAGE_SIZE);
	}
}

void tlb_flush_mmu_tlbonly(struct mmu_gather *tlb)
{
	PERF_FUNC();
	/*
	 * Anything calling __tlb_adjust_range() also sets at least one of
	 * these bits.
	 */
	if (!(tlb->freed_tables || tlb->cleared_ptes || tlb->cleared_pmds ||
	      tlb->cleared_puds || tlb->cleared_p4ds || tlb->unshared_tables))
		return;
	arch->tlb_flush(tlb);
	__tlb_reset_range(tlb);
}

/* mm/mmu_gather.c */
static bool tlb_next_batch(struct mmu_gather *tlb)
{
	struct mmu_gather_batch *batch;

	/* Limit batching if we have delayed rmaps pending */
	if (tlb->delayed_rmap && tlb->active != &tlb->local)
		return false;

	batch = tlb->active;
	if (batch->next) {
		tlb->active = batch->next;
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
		struct encoded_page *enc = pages[i];

		if (encoded_page_flags(enc) & ENCODED_PAGE_BIT_DELAY_RMAP) {
			struct page *page = encoded_page_ptr(enc);
			unsigned int nr_pages = 1;

			if (encoded_page_flags(enc) & ENCODED_PAGE_BIT_NR_PAGES_NEXT)
				nr_pages = (unsigned int)encoded_nr_pages(pages[++i]);
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
	CORE_GATHER(tlb_flush_rmaps, tlb, vma);
	if (!tlb->delayed_rmap)
		return;
	tlb_flush_rmap_batch(&tlb->local, vma);
	if (tlb->active != &tlb->local)
		tlb_flush_rmap_batch(tlb->active, vma);
	tlb->delayed_rmap = 0;
}

/*
 * Reschedule points while freeing (cond_resched in the kernel): a batch
 * holds fewer entries than this (MAX_GATHER_BATCH), so it is one call.
 */
#define MAX_NR_FOLIOS_PER_FREE 512

static void __tlb_batch_free_encoded_pages(struct mmu_gather_batch *batch)
{
	struct encoded_page **pages = batch->encoded_pages;
	unsigned int nr;

	/* no page poisoning or init_on_free in the kernels the lab models */
	while (batch->nr) {
		nr = min(MAX_NR_FOLIOS_PER_FREE, batch->nr);
		/* cover page + nr_pages, never leave nr_pages behind */
		if (encoded_page_flags(pages[nr - 1]) & ENCODED_PAGE_BIT_NR_PAGES_NEXT)
			nr++;
		free_pages_and_swap_cache(pages, (int)nr);
		pages += nr;
		batch->nr -= nr;
	}
}

static void tlb_batch_pages_flush(struct mmu_gather *tlb)
{
	PERF_FUNC();
	for (struct mmu_gather_batch *batch = &tlb->local; batch && batch->nr;
	     batch = batch->next)
		__tlb_batch_free_encoded_pages(batch);
	tlb->active = &tlb->local;
}

static void tlb_batch_list_free(struct mmu_gather *tlb)
{
	for (struct mmu_gather_batch *batch = tlb->local.next, *next; batch; batch = next) {
		next = batch->next;
		free(batch);
	}
	tlb->local.next = NULL;
}

/*
 * The lab's table batch (CONFIG_MMU_GATHER_TABLE_FREE's tlb_table_flush
 * and tlb_table_init): the tree's unit calls these too, its own work on
 * tables being the lab's (kernel/core_roots.c).
 */
void tlb_table_flush(struct mmu_gather *tlb)
{
	PERF_FUNC();
	for (unsigned int i = 0; i < tlb->nr_tables; i++)
		hw_pt_free(tlb->tables[i]);
	tlb->nr_tables = 0;
	free(tlb->tables);
	tlb->tables = NULL;
	tlb->max_tables = 0;
}

void tlb_table_init(struct mmu_gather *tlb)
{
	tlb->tables = NULL;
	tlb->nr_tables = tlb->max_tables = 0;
}

static void tlb_flush_mmu_free(struct mmu_gather *tlb)
{
	tlb_table_flush(tlb);
	tlb_batch_pages_flush(tlb);
}

void tlb_flush_mmu(struct mmu_gather *tlb)
{
	CORE_GATHER(tlb_flush_mmu, tlb);
	PERF_FUNC();
	hw_count(EV_gather_flush, 1);
	tlb_flush_mmu_tlbonly(tlb);
	tlb_flush_mmu_free(tlb);
}

static void __tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm,
			     bool fullmm)
{
	tlb->mm = mm;
	tlb->fullmm = fullmm;
	tlb->need_flush_all = 0;
	tlb->local.next = NULL;
	tlb->local.nr = 0;
	tlb->local.max = MMU_GATHER_BUNDLE;
	tlb->active = &tlb->local;
	tlb->batch_count = 0;
	tlb->delayed_rmap = 0;
	tlb_table_init(tlb);
	tlb->vma_pfn = 0;
	tlb->fully_unshared_tables = 0;
	__tlb_reset_range(tlb);
	/* inc_tlb_flush_pending(): one gather at a time per mm in the lab */
}

void tlb_gather_mmu(struct mmu_gather *tlb, struct mm_struct *mm)
{
	CORE_GATHER(tlb_gather_mmu, tlb, mm);
	__tlb_gather_mmu(tlb, mm, false);
}

void tlb_gather_mmu_fullmm(struct mmu_gather *tlb, struct mm_struct *mm)
{
	CORE_GATHER(tlb_gather_mmu_fullmm, tlb, mm);
	__tlb_gather_mmu(tlb, mm, true);
}

void tlb_finish_mmu(struct mmu_gather *tlb)
{
	CORE_GATHER(tlb_finish_mmu, tlb);
	PERF_FUNC();
	/* mm_tlb_flush_nested() is false: no parallel gather on the mm in the lab */
	tlb_flush_mmu(tlb);
	tlb_batch_list_free(tlb);
}

/* Returns true when the gather is full and must be flushed now. */
bool __tlb_remove_folio_pages(struct mmu_gather *tlb, struct page *page,
			      unsigned int nr_pages, bool delay_rmap)
{
	CORE_GATHER(__tlb_remove_folio_pages, tlb, page, nr_pages, delay_rmap);
	struct mmu_gather_batch *batch = tlb->active;
	unsigned long flags = delay_rmap ? ENCODED_PAGE_BIT_DELAY_RMAP : 0;

	/* Add the page and check if we are full. If so force a flush. */
	if (nr_pages == 1) {
		batch->encoded_pages[batch->nr++] = encode_page(page, flags);
	} else {
		flags |= ENCODED_PAGE_BIT_NR_PAGES_NEXT;
		batch->encoded_pages[batch->nr++] = encode_page(page, flags);
		batch->encoded_pages[batch->nr++] = encode_nr_pages(nr_pages);
	}
	/*
	 * Make sure that we can always add another "page" + "nr_pages",
	 * requiring two entries instead of only a single one.
	 */
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
