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

/* mm/swapfile.c: slots are handed out by clusters of this many (SWAPFILE_CLUSTER) */
#define SWAPFILE_CLUSTER 256
/* per-CPU allocation clusters the lab keeps (the kernel: one per CPU) */
#define SWAP_NR_CPU_CLUSTERS 256

struct sim_swapdev;
struct address_space;
struct swap_info_struct {
	struct sim_swapdev *bdev; /* NULL: I/O takes no modelled time */
	unsigned long max;        /* slots */
	unsigned long inuse_pages;
	u8 *slot_used;            /* swap_map: the slot holds a page */
	u8 *slot_data;            /* lab: 1 if the page written out had data (was written) */
	/* the cluster allocator: used slots per cluster, a stack of free clusters */
	u16 *cluster_count;
	u32 *free_clusters;
	u8 *cluster_free;         /* on free_clusters */
	unsigned long nr_clusters, nr_free_clusters;
	/* each CPU's cluster (percpu_cluster, ~0: none) and where in it to look next */
	u32 cpu_cluster[SWAP_NR_CPU_CLUSTERS];
	u32 cpu_next[SWAP_NR_CPU_CLUSTERS];
	unsigned long scan_next;  /* the fallback scan's cursor (cluster_next) */
	/*
	 * Whose page a slot holds. The kernel reads a slot's page into the
	 * swap cache by entry alone; the lab, with no swap cache, puts a
	 * read-ahead page straight back into its owner's page cache, so it
	 * keeps the owner (an index into owners[]) and the page's index there.
	 */
	u8 *slot_owner;
	u32 *slot_index;
	struct address_space *owners[16];
	int nr_owners;
	/* swap read-ahead (swap_state.c): swapin_readahead_hits, prev_offset, last_readahead_pages */
	unsigned long ra_hits, ra_prev_offset, ra_last_pages;
	u64 *ra_done;             /* per frame: when a read-ahead folio's read completes */
	u64 ra_pages, ra_hit_pages;
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

/*
 * get_swap_pages(): nr slots into entries[], from this CPU's cluster (the
 * next free slots after the last it gave), a free cluster when that one is
 * used up, else any free slot; false when the device is full.
 */
bool folio_alloc_swap_slots(unsigned int nr, swp_entry_t *entries);
void swap_free(swp_entry_t entry);
/* Record whose page slot `entry` holds (shmem_writeout); false if there are too many owners. */
bool swap_set_owner(swp_entry_t entry, struct address_space *mapping, u64 index);
/* The owner of an allocated slot, as recorded; false for a free or unowned slot. */
bool swap_owner(unsigned long offset, struct address_space **mapping, u64 *index);

/*
 * swap_writepage(): the folio's pages go out to entries[]; the write is
 * submitted, not waited for (reclaim does not sleep on it).
 */
void swap_writepage(struct folio *folio, const swp_entry_t *entries);
/* swap_read_folio(): read the folio in from entries[], sleeping until it is there. */
void swap_read_folio(struct folio *folio, const swp_entry_t *entries);
/* Machine reset: no fault is left asleep on a read-ahead (swapoff). */
void swap_readahead_reset(void);
/* The read submitted, not waited for: when it completes (0 without a device). */
u64 swap_read_folio_async(struct folio *folio, const swp_entry_t *entries);

/*
 * mm/swap_state.c. page_cluster: read-ahead reads up to 1 << SWAP_PAGE_CLUSTER
 * slots around the one a fault needs (/proc/sys/vm/page-cluster, default 3).
 */
#define SWAP_PAGE_CLUSTER 3
/* swapin_nr_pages(): the window for a fault on slot offset (1: no read-ahead). */
unsigned long swapin_nr_pages(unsigned long offset);
/* A folio about to be read ahead: locked (and PG_readahead) from now until its read completes. */
void swap_readahead_started(struct folio *folio);
/* Its read was submitted and completes at done. */
void swap_readahead_submitted(struct folio *folio, u64 done);
/* A folio read ahead and still being read: sleep until it is in; false if it is not one. */
bool swap_readahead_wait(struct folio *folio);
/* A fault found a folio read ahead (swap_cache_get_folio): a hit for the window. */
void swap_readahead_hit(struct folio *folio);
/* Whether a folio's read-ahead read is still on its way (reclaim keeps it). */
bool folio_readahead_busy(struct folio *folio);

#endif
