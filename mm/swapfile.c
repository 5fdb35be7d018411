// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/swapfile.c (swapon, get_swap_pages, swap_free) and
 * mm/page_io.c (swap_writepage, swap_read_folio), for one device.
 */
/*
 * Slots are handed out from a stack (the kernel's cluster allocator is
 * not modelled: which slot a page gets changes no count here). Each
 * read or write of a folio is one request to the device, as one bio is.
 */
#include <stdlib.h>

#include "hw/host.h"
#include "hw/invariants.h"
#include "hw/phys.h"
#include "mm/filemap.h"
#include "mm/swap.h"
#include "sim/frames.h"
#include "sim/swapdev.h"

struct swap_info_struct swap_info;

int swapon(unsigned long nr_slots, struct sim_swapdev *bdev)
{
	if (swap_info.max || !nr_slots || nr_slots > XA_MAX_INDEX_VAL) /* a value entry must fit the page cache */
		return -1;
	swap_info.bdev = bdev;
	swap_info.max = nr_slots;
	swap_info.free_slots = host_calloc(nr_slots, sizeof(u32), "the swap map");
	swap_info.slot_data = host_calloc(nr_slots, 1, "the swap map");
	/* lowest slot first */
	for (unsigned long i = 0; i < nr_slots; i++)
		swap_info.free_slots[i] = (u32)(nr_slots - 1 - i);
	swap_info.nr_free = nr_slots;
	return 0;
}

void swapoff(void)
{
	free(swap_info.free_slots);
	free(swap_info.slot_data);
	swap_info = (struct swap_info_struct){ 0 };
}

bool folio_alloc_swap_slots(unsigned int nr, swp_entry_t *entries)
{
	if (swap_info.nr_free < nr)
		return false;
	for (unsigned int i = 0; i < nr; i++) {
		entries[i].val = swap_info.free_slots[--swap_info.nr_free];
		swap_info.slot_data[entries[i].val] = 0;
	}
	swap_info.inuse_pages += nr;
	return true;
}

void swap_free(swp_entry_t entry)
{
	if (entry.val >= swap_info.max || swap_info.nr_free >= swap_info.max) {
		hw_violation(VIOL_OTHER, "swap_free of slot %lu: not an allocated slot", entry.val);
		return;
	}
	swap_info.free_slots[swap_info.nr_free++] = (u32)entry.val;
	swap_info.inuse_pages--;
}

void swap_writepage(struct folio *folio, const swp_entry_t *entries)
{
	long nr = folio_nr_pages(folio);
	u64 pfn = folio_pfn(folio);

	/* the data is on its way to the device: the frame may be reused */
	for (long i = 0; i < nr; i++) {
		swap_info.slot_data[entries[i].val] = hw_frame_written(pfn + (u64)i) ||
						      folio_test_dirty(folio);
		hw_frame_clean(pfn + (u64)i, 1);
	}
	swap_info.pswpout += (u64)nr;
	swap_info.write_ios++;
	hw_count(EV_swap_io, 1);
	if (swap_info.bdev)
		sim_io_submit(swap_info.bdev, (u64)nr << PAGE_SHIFT);
}

void swap_read_folio(struct folio *folio, const swp_entry_t *entries)
{
	long nr = folio_nr_pages(folio);
	u64 pfn = folio_pfn(folio);

	swap_info.pswpin += (u64)nr;
	swap_info.read_ios++;
	hw_count(EV_swap_io, 1);
	if (swap_info.bdev)
		sim_io(swap_info.bdev, (u64)nr << PAGE_SHIFT, SIM_FRAME("swap_read_folio"));
	/* what was written before it went out is there again, not yet on disk elsewhere */
	for (long i = 0; i < nr; i++)
		if (swap_info.slot_data[entries[i].val])
			hw_frame_store(pfn + (u64)i);
}
