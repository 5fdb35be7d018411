// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/swapfile.c (swapon, get_swap_pages, swap_free, the
 * per-CPU cluster allocation) and mm/page_io.c (swap_writepage,
 * swap_read_folio), for one device.
 */
/*
 * Slots are handed out as the kernel's SSD allocator does: each CPU takes
 * a free cluster of SWAPFILE_CLUSTER slots and gives out its slots in
 * order, so what one reclaimer writes out in a row sits in neighbouring
 * slots, which is what swap read-ahead's window (swap_state.c) relies on.
 * When no cluster is free, any free slot is taken (scan_swap_map_slots).
 * Each read or write of a folio is one request to the device, as one bio
 * is.
 */
#include <stdlib.h>

#include "hw/host.h"
#include "hw/invariants.h"
#include "hw/phys.h"
#include "mm/filemap.h"
#include "mm/shmem.h"
#include "mm/swap.h"
#include "sim/frames.h"
#include "sim/swapdev.h"

struct swap_info_struct swap_info;

#define NO_CLUSTER ~0u

int swapon(unsigned long nr_slots, struct sim_swapdev *bdev)
{
	if (swap_info.max || !nr_slots || nr_slots > XA_MAX_INDEX_VAL) /* a value entry must fit the page cache */
		return -1;
	swap_info.bdev = bdev;
	swap_info.max = nr_slots;
	swap_info.slot_used = host_calloc(nr_slots, 1, "the swap map");
	swap_info.slot_data = host_calloc(nr_slots, 1, "the swap map");
	swap_info.slot_owner = host_calloc(nr_slots, 1, "the swap map");
	swap_info.slot_index = host_calloc(nr_slots, sizeof(u32), "the swap map");
	swap_info.nr_clusters = (nr_slots + SWAPFILE_CLUSTER - 1) / SWAPFILE_CLUSTER;
	swap_info.cluster_count = host_calloc(swap_info.nr_clusters, sizeof(u16), "the swap map");
	swap_info.free_clusters = host_calloc(swap_info.nr_clusters, sizeof(u32), "the swap map");
	swap_info.cluster_free = host_calloc(swap_info.nr_clusters, 1, "the swap map");
	/* lowest cluster first */
	for (unsigned long c = 0; c < swap_info.nr_clusters; c++) {
		swap_info.free_clusters[c] = (u32)(swap_info.nr_clusters - 1 - c);
		swap_info.cluster_free[c] = 1;
	}
	swap_info.nr_free_clusters = swap_info.nr_clusters;
	for (int i = 0; i < SWAP_NR_CPU_CLUSTERS; i++)
		swap_info.cpu_cluster[i] = NO_CLUSTER;
	/* swapin_readahead_hits = ATOMIC_INIT(4): the first swap-in reads a whole window */
	swap_info.ra_hits = 4;
	return 0;
}

void swapoff(void)
{
	free(swap_info.slot_used);
	free(swap_info.slot_data);
	free(swap_info.slot_owner);
	free(swap_info.slot_index);
	free(swap_info.cluster_count);
	free(swap_info.free_clusters);
	free(swap_info.cluster_free);
	free(swap_info.ra_done);
	swap_readahead_reset();
	shmem_reset();
	swap_info = (struct swap_info_struct){ 0 };
}

/* The CPU software runs on: the sim agent's, else the sequential one's. */
static int swap_cpu(void)
{
	struct sim_agent *a = sim_current_agent;

	return (int)((a ? (u64)a->id : (u64)hw_machine.cur_cpu) % SWAP_NR_CPU_CLUSTERS);
}

static void take_slot(unsigned long off)
{
	swap_info.slot_used[off] = 1;
	swap_info.slot_data[off] = 0;
	swap_info.slot_owner[off] = 0;
	swap_info.cluster_count[off / SWAPFILE_CLUSTER]++;
	swap_info.inuse_pages++;
}

static unsigned long cluster_end(u32 c)
{
	return min((unsigned long)(c + 1) * SWAPFILE_CLUSTER, swap_info.max);
}

/* A free slot in this CPU's cluster at or after its cursor; ~0UL: none. */
static unsigned long alloc_in_cluster(int cpu)
{
	u32 c = swap_info.cpu_cluster[cpu];

	if (c == NO_CLUSTER)
		return ~0UL;
	for (unsigned long off = (unsigned long)c * SWAPFILE_CLUSTER + swap_info.cpu_next[cpu];
	     off < cluster_end(c); off++)
		if (!swap_info.slot_used[off]) {
			swap_info.cpu_next[cpu] = (u32)(off - (unsigned long)c * SWAPFILE_CLUSTER + 1);
			return off;
		}
	swap_info.cpu_cluster[cpu] = NO_CLUSTER;
	return ~0UL;
}

/* A slot for this CPU: its cluster, a fresh free cluster, or any free slot. */
static unsigned long alloc_slot(void)
{
	int cpu = swap_cpu();
	unsigned long off = alloc_in_cluster(cpu);

	while (off == ~0UL && swap_info.nr_free_clusters) {
		u32 c = swap_info.free_clusters[--swap_info.nr_free_clusters];

		swap_info.cluster_free[c] = 0;
		/* one the fallback scan (or a CPU still on it) used since it was freed */
		if (swap_info.cluster_count[c])
			continue;
		swap_info.cpu_cluster[cpu] = c;
		swap_info.cpu_next[cpu] = 0;
		off = alloc_in_cluster(cpu);
	}
	for (unsigned long n = 0; off == ~0UL && n < swap_info.max; n++) {
		unsigned long o = (swap_info.scan_next + n) % swap_info.max;

		if (!swap_info.slot_used[o]) {
			off = o;
			swap_info.scan_next = o + 1;
		}
	}
	return off;
}

bool folio_alloc_swap_slots(unsigned int nr, swp_entry_t *entries)
{
	if (swap_info.max - swap_info.inuse_pages < nr)
		return false;
	for (unsigned int i = 0; i < nr; i++) {
		entries[i].val = alloc_slot();
		take_slot(entries[i].val);
	}
	return true;
}

void swap_free(swp_entry_t entry)
{
	unsigned long off = entry.val;

	if (off >= swap_info.max || !swap_info.slot_used[off]) {
		hw_violation(VIOL_OTHER, "swap_free of slot %lu: not an allocated slot", off);
		return;
	}
	swap_info.slot_used[off] = 0;
	swap_info.slot_owner[off] = 0;
	swap_info.inuse_pages--;
	/* a cluster whose last slot is freed is free again */
	u32 c = (u32)(off / SWAPFILE_CLUSTER);
	if (!--swap_info.cluster_count[c] && !swap_info.cluster_free[c]) {
		swap_info.cluster_free[c] = 1;
		swap_info.free_clusters[swap_info.nr_free_clusters++] = c;
	}
}

bool swap_set_owner(swp_entry_t entry, struct address_space *mapping, u64 index)
{
	int o;

	for (o = 0; o < swap_info.nr_owners && swap_info.owners[o] != mapping; o++)
		;
	if (o == swap_info.nr_owners) {
		if (o == (int)ARRAY_SIZE(swap_info.owners) || index > UINT32_MAX)
			return false;
		swap_info.owners[swap_info.nr_owners++] = mapping;
	}
	swap_info.slot_owner[entry.val] = (u8)(o + 1);
	swap_info.slot_index[entry.val] = (u32)index;
	return true;
}

bool swap_owner(unsigned long offset, struct address_space **mapping, u64 *index)
{
	if (offset >= swap_info.max || !swap_info.slot_used[offset] || !swap_info.slot_owner[offset])
		return false;
	*mapping = swap_info.owners[swap_info.slot_owner[offset] - 1];
	*index = swap_info.slot_index[offset];
	return true;
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

/* what was written before it went out is there again, not yet on disk elsewhere */
static void swap_read_data(struct folio *folio, const swp_entry_t *entries)
{
	long nr = folio_nr_pages(folio);
	u64 pfn = folio_pfn(folio);

	swap_info.pswpin += (u64)nr;
	swap_info.read_ios++;
	hw_count(EV_swap_io, 1);
	for (long i = 0; i < nr; i++)
		if (swap_info.slot_data[entries[i].val])
			hw_frame_store(pfn + (u64)i);
}

void swap_read_folio(struct folio *folio, const swp_entry_t *entries)
{
	if (swap_info.bdev)
		sim_io(swap_info.bdev, (u64)folio_nr_pages(folio) << PAGE_SHIFT,
		       SIM_FRAME("swap_read_folio"));
	swap_read_data(folio, entries);
}

u64 swap_read_folio_async(struct folio *folio, const swp_entry_t *entries)
{
	u64 done = 0;

	if (swap_info.bdev)
		done = sim_io_submit(swap_info.bdev, (u64)folio_nr_pages(folio) << PAGE_SHIFT);
	swap_read_data(folio, entries);
	return done;
}
