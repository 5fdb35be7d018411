// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/shmem.c (shmem_get_folio_gfp, shmem_swapin_folio,
 * shmem_writeout), with mm/filemap.c's page-cache add and delete.
 */
/*
 * A memfd's pages: swap-backed folios in a page cache. A missing page is
 * allocated and zeroed; a page out on swap is read back into a new folio
 * that is put in the cache locked before the read, so nobody maps it
 * half-read, and its slot is freed once it is in (shmem keeps no swap
 * cache copy). Reclaim writes an unmapped folio out and leaves the
 * swap entries in its slots.
 */
#include "hw/host.h"
#include "hw/invariants.h"
#include "hw/phys.h"
#include "mm/filemap.h"
#include "mm/lru.h"
#include "mm/shmem.h"
#include "mm/swap.h"
#include "sim/frames.h"
#include "sim/waitq.h"

/* folio_wait_locked(): a fault that found a folio still being read in */
static struct sim_waitq folio_locked_wait = { .name = "folio_wait_locked" };

void shmem_reset(void)
{
	folio_locked_wait.list = (struct sim_waitlist){ NULL, NULL };
}

struct address_space *shmem_file_setup(u64 size, unsigned int order)
{
	struct address_space *mapping = address_space_create(size, order);

	mapping->shmem = true;
	return mapping;
}

static void shmem_add_to_page_cache(struct folio *folio, struct address_space *mapping,
				    u64 start, u64 nr)
{
	folio->page.mapping = mapping;
	folio->page.index = start;
	folio_set_swapbacked(folio);
	for (u64 i = 0; i < nr; i++)
		xa_store(mapping, start + i, folio);
	mapping->nrpages += (long)nr;
}

/*
 * shmem_swapin_cluster (swap_cluster_readahead): the other slots of the
 * window around entry whose pages are still out are read in as well, each
 * into its owner's page cache (the kernel: into the swap cache, where
 * that owner's fault finds it), locked until its read completes, and on
 * the LRU as the faulting page is. Only order-0 pages are read ahead (the
 * kernel reads a large folio alone). The lab gives the slot up at once
 * and marks the page dirty, as it does for a page a fault read; the
 * kernel keeps the clean swap-cache copy until the page is faulted, so a
 * page read ahead and reclaimed unused costs the lab a second write.
 */
static void shmem_swapin_cluster(swp_entry_t entry)
{
	unsigned long mask = swapin_nr_pages(entry.val) - 1;
	int frame = SIM_FRAME("swap_cluster_readahead");

	if (!mask)
		return;
	sim_frame_enter(frame);
	for (unsigned long off = entry.val & ~mask; off <= (entry.val | mask) && off < swap_info.max;
	     off++) {
		swp_entry_t e = { .val = off };
		struct address_space *mapping, *m;
		struct folio *folio;
		u64 index, i;

		if (off == entry.val || !swap_owner(off, &mapping, &index) || mapping->order ||
		    xa_load(mapping, index) != swp_to_radix_entry(e))
			continue;
		folio = folio_alloc(0); /* may reclaim, and sleep */
		if (!folio)
			break;
		sim_sync();
		/* while the allocation reclaimed, the page may have come in another way */
		if (!swap_owner(off, &m, &i) || m != mapping || i != index ||
		    xa_load(mapping, index) != swp_to_radix_entry(e)) {
			folios_put_refs_one(folio, 1);
			continue;
		}
		mapping->nrswapped--;
		/* locked before anyone can find it: the read's submission may yield */
		swap_readahead_started(folio);
		shmem_add_to_page_cache(folio, mapping, index, 1);
		swap_readahead_submitted(folio, swap_read_folio_async(folio, &e));
		swap_free(e);
		folio_set_dirty(folio);
		folio_add_lru(folio);
	}
	sim_frame_exit(frame);
}

/* shmem_swapin_folio(): the folio's pages come back from their slots. */
static struct folio *shmem_swapin_folio(struct address_space *mapping, u64 start, u64 nr,
					struct folio *folio)
{
	swp_entry_t entries[1U << MAX_PAGE_ORDER];
	int frame = SIM_FRAME("shmem_swapin_folio");

	sim_frame_enter(frame);
	for (u64 i = 0; i < nr; i++)
		entries[i] = radix_to_swp_entry(xa_load(mapping, start + i));
	mapping->nrswapped -= (long)nr;
	folio_set_locked(folio);
	shmem_add_to_page_cache(folio, mapping, start, nr);
	if (nr == 1 && !mapping->order) {
		/* its own read first, then the window's; it waits only for its own */
		u64 done = swap_read_folio_async(folio, entries);

		shmem_swapin_cluster(entries[0]);
		if (swap_info.bdev) {
			int io = SIM_FRAME("swap_read_folio");

			sim_frame_enter(io);
			sim_sleep_until(max(done, sim_now()));
			sim_frame_exit(io);
		}
	} else {
		swap_read_folio(folio, entries); /* may sleep: others see a locked folio */
	}
	for (u64 i = 0; i < nr; i++)
		swap_free(entries[i]);
	/* the only copy is in memory again */
	folio_set_dirty(folio);
	folio_clear_locked(folio);
	sim_wake_up(&folio_locked_wait, 0);
	sim_frame_exit(frame);
	return folio;
}

struct folio *shmem_get_folio(struct address_space *mapping, u64 index)
{
	u64 nr = 1UL << mapping->order, start = ALIGN_DOWN(index, nr);
	struct folio *folio;
	bool swapped;

	if (index >= mapping->nr_pages)
		return NULL;
	for (;;) {
		sim_sync(); /* the page cache is shared with every agent */
		folio = filemap_get_folio(mapping, index);
		if (!folio)
			break;
		/* read ahead and still on its way: wait for the read, look again */
		if (swap_readahead_wait(folio))
			continue;
		if (!folio_test_locked(folio)) {
			swap_readahead_hit(folio);
			return folio;
		}
		sim_wait(&folio_locked_wait, SIM_FRAME("folio_wait_locked"));
	}
	/* a folio never straddles the end of the file */
	if (start + nr > mapping->nr_pages)
		nr = 1, start = index;
	folio = folio_alloc(nr == 1 ? 0 : mapping->order); /* may reclaim, and sleep */
	if (!folio)
		return NULL;
	sim_sync();
	/* while the allocation reclaimed, the page may have come in another way */
	if (filemap_get_folio(mapping, index)) {
		folios_put_refs_one(folio, 1);
		return shmem_get_folio(mapping, index);
	}
	swapped = xa_is_value(xa_load(mapping, start));
	for (u64 i = 1; i < nr; i++)
		if (xa_is_value(xa_load(mapping, start + i)) != swapped)
			hw_violation(VIOL_OTHER, "shmem: folio at index %llu is partly on swap",
				     (unsigned long long)start);
	if (swapped)
		shmem_swapin_folio(mapping, start, nr, folio);
	else
		shmem_add_to_page_cache(folio, mapping, start, nr); /* zeroed: clean */
	folio_add_lru(folio);
	return folio;
}

bool shmem_writeout(struct folio *folio)
{
	struct address_space *mapping = folio->page.mapping;
	u64 nr = (u64)folio_nr_pages(folio), start = folio->page.index;
	swp_entry_t entries[1U << MAX_PAGE_ORDER];
	int frame = SIM_FRAME("shmem_writeout");

	if (!folio_alloc_swap_slots((unsigned int)nr, entries))
		return false;
	sim_frame_enter(frame);
	/* whose pages the slots hold, for read-ahead to put them back */
	for (u64 i = 0; i < nr; i++)
		swap_set_owner(entries[i], mapping, start + i);
	/*
	 * __remove_mapping: the slots say where the pages are before the
	 * write is submitted (submitting may yield): a fault meanwhile reads
	 * the slot, as the kernel's finds the folio in the swap cache, and
	 * never maps a folio on its way out.
	 */
	for (u64 i = 0; i < nr; i++)
		xa_store(mapping, start + i, swp_to_radix_entry(entries[i]));
	mapping->nrpages -= (long)nr;
	mapping->nrswapped += (long)nr;
	folio->page.mapping = NULL;
	filemap_count_removed(nr);
	swap_writepage(folio, entries);
	folio_clear_dirty(folio);
	/* the page cache's reference */
	folios_put_refs_one(folio, 1);
	sim_frame_exit(frame);
	return true;
}
