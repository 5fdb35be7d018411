/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Swap (include/linux/swap.h, swapops.h; mm/swapfile.c, mm/page_io.c, 7.3):
 * one swap device of max slots, one page each. A slot lives in a shmem
 * page cache as a value entry (swp_to_radix_entry) while its page is out.
 * I/O goes to a sim/ swap device, so reads sleep in modelled time and
 * writes occupy the device; without one (sequential runs) I/O is free.
 */
#ifndef PTELAB_MM_SWAP_H
#define PTELAB_MM_SWAP_H

#include <stdint.h>

#include "include/page.h"

typedef struct {
	unsigned long val;
} swp_entry_t;

/* xarray value entries: tagged with the low bit, never a pointer */
static inline bool xa_is_value(const void *entry)
{
	return (uintptr_t)entry & 1;
}

static inline void *swp_to_radix_entry(swp_entry_t entry)
{
	return (void *)((entry.val << 1) | 1);
}

static inline swp_entry_t radix_to_swp_entry(const void *arg)
{
	return (swp_entry_t){ .val = (uintptr_t)arg >> 1 };
}

struct sim_swapdev;

struct swap_info_struct {
	struct sim_swapdev *bdev; /* NULL: I/O takes no modelled time */
	unsigned long max;        /* slots */
	unsigned long inuse_pages;
	u32 *free_slots;          /* a stack of free slot numbers */
	unsigned long nr_free;
	u8 *slot_data;            /* lab: 1 if the page written out had data (was written) */
	/* what happened (vmstat pswpin / pswpout, in pages) */
	u64 pswpin, pswpout;
	u64 read_ios, write_ios;
};

extern struct swap_info_struct swap_info;

/* swapon: a device of nr_slots pages; 0, or -1 if there is one already. */
int swapon(unsigned long nr_slots, struct sim_swapdev *bdev);
void swapoff(void);
static inline bool total_swap_pages(void)
{
	return swap_info.max != 0;
}

/* get_swap_pages(): nr slots into entries[]; false when the device is full. */
bool folio_alloc_swap_slots(unsigned int nr, swp_entry_t *entries);
void swap_free(swp_entry_t entry);

/*
 * swap_writepage(): the folio's pages go out to entries[]; the write is
 * submitted, not waited for (reclaim does not sleep on it).
 */
void swap_writepage(struct folio *folio, const swp_entry_t *entries);
/* swap_read_folio(): read the folio in from entries[], sleeping until it is there. */
void swap_read_folio(struct folio *folio, const swp_entry_t *entries);

#endif
