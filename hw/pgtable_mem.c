// SPDX-License-Identifier: GPL-2.0-only
#include <dlfcn.h>
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

/*
 * Under --sanitize a ptelab built without AddressSanitizer runs with its
 * runtime preloaded and only the kernel backend instrumented. Then the lab's
 * half of every slot is poisoned, so kernel code that runs past the end of
 * a table is reported ("use-after-poison") instead of silently rewriting
 * the shadow bits the checks rely on. (An instrumented ptelab reads those
 * bits itself, so there the half stays open.)
 */
#ifndef __SANITIZE_ADDRESS__
static void lab_half_poison(void *slot, bool poison)
{
	static void (*fn[2])(const volatile void *, size_t);
	static bool looked;

	if (!looked) {
		*(void **)&fn[0] = dlsym(RTLD_DEFAULT, "__asan_unpoison_memory_region");
		*(void **)&fn[1] = dlsym(RTLD_DEFAULT, "__asan_poison_memory_region");
		looked = true;
	}
	if (fn[poison])
		fn[poison]((char *)slot + PAGE_SIZE, PAGE_SIZE);
}
#else
static void lab_half_poison(void *slot, bool poison)
{
}
#endif

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
	lab_half_poison(slot, false);
	memset(slot, 0, PT_SLOT_SIZE);
	hw_pt_meta(slot)->level = level;
	hw_pt_meta(slot)->id = next_id++;
	lab_half_poison(slot, true);
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
