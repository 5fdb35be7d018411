// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "hw/events.h"
#include "hw/host.h"
#include "hw/pgtable_mem.h"

/*
 * Page-table pages come and go at every munmap, so freed slots go on a
 * free list and are reused. Every slot ever allocated is also kept in
 * all_slots, so a machine reset can hand them all back at once (tables a
 * failed run left behind included): the host memory is a cache, invisible
 * to a run because a slot is zeroed when handed out and nothing in the lab
 * depends on its address (hashes use the table's id, numbered per machine).
 */
static void *free_slots;
static u64 live;    /* tables handed out and not freed, this machine */
static u32 next_id; /* ids of this machine's tables, in allocation order */
static void **all_slots;
static u64 nr_slots, max_slots;

u64 *hw_pt_alloc(int level)
{
	void *slot = free_slots;

	if (slot) {
		free_slots = *(void **)slot;
	} else {
		slot = host_aligned_alloc(PT_SLOT_SIZE, PT_SLOT_SIZE, "page-table pages");
		if (nr_slots == max_slots) {
			max_slots = max_slots ? 2 * max_slots : 1024;
			all_slots = host_realloc(all_slots, max_slots * sizeof(*all_slots),
						 "page-table pages");
		}
		all_slots[nr_slots++] = slot;
	}
	memset(slot, 0, PT_SLOT_SIZE);
	hw_pt_meta(slot)->level = level;
	hw_pt_meta(slot)->id = next_id++;
	live++;
	hw_count(EV_pt_alloc, 1);
	return slot;
}

void hw_pt_free(u64 *table)
{
	*(void **)table = free_slots;
	free_slots = table;
	live--;
	hw_count(EV_pt_free, 1);
}

u64 hw_pt_live(void)
{
	return live;
}

void hw_pt_reset(void)
{
	free_slots = NULL;
	for (u64 i = nr_slots; i-- > 0;) {
		*(void **)all_slots[i] = free_slots;
		free_slots = all_slots[i];
	}
	live = 0;
	next_id = 0;
}
