// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "hw/events.h"
#include "hw/pgtable_mem.h"

/* A free list of slots: page-table pages come and go at every munmap. */
static void *free_slots;
static u64 live;

u64 *hw_pt_alloc(int level)
{
	void *slot = free_slots;

	if (slot) {
		free_slots = *(void **)slot;
	} else if (posix_memalign(&slot, PT_SLOT_SIZE, PT_SLOT_SIZE)) {
		return NULL;
	}
	memset(slot, 0, PT_SLOT_SIZE);
	hw_pt_meta(slot)->level = level;
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
