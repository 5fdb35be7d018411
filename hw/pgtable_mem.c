// SPDX-License-Identifier: GPL-2.0-only
#include <dlfcn.h>
#include <string.h>

#include "hw/cache.h"
#include "hw/events.h"
#include "hw/host.h"
#include "hw/invariants.h"
#include "hw/pgtable_mem.h"

/*
 * Page-table pages come and go at every munmap, so freed tables go on a
 * free list and are reused. Chunks are never given back: a machine reset
 * makes every table of every chunk free again (tables a failed run left
 * behind included) and hands them out in the same order as the first
 * time, without touching the ones not needed. The host memory is a
 * cache, invisible to a run: a table is zeroed when handed out and
 * nothing in the lab depends on its address (hashes use the table's id,
 * numbered per machine).
 */
unsigned int hw_pt_stride_shift;
static void *free_slots;
static u64 live;    /* tables handed out and not freed, this machine */
static u32 next_id; /* ids of this machine's tables, in allocation order */
static void **chunks;
static u64 nr_chunks, max_chunks;
static u64 cur_chunk;      /* the chunk tables are carved from next */
static unsigned int cur_pos; /* and the position in it */

/*
 * Under --sanitize a ptelab built without AddressSanitizer runs with its
 * runtime preloaded and only the kernel backend instrumented. Then every
 * table is followed by a poisoned guard page, so kernel code that runs
 * past the end of a table is reported ("use-after-poison") instead of
 * silently rewriting the next table. (An instrumented ptelab, or one
 * without the runtime, packs tables back to back.)
 */
static void (*asan_poison)(const volatile void *, size_t);

static void pt_choose_stride(void)
{
#ifndef __SANITIZE_ADDRESS__
	*(void **)&asan_poison = dlsym(RTLD_DEFAULT, "__asan_poison_memory_region");
#endif
	hw_pt_stride_shift = asan_poison ? PAGE_SHIFT + 1 : PAGE_SHIFT;
}

/* The positions before this one hold the chunk's metas. */
static unsigned int pt_first_pos(void)
{
	size_t header = (PT_CHUNK_SIZE >> hw_pt_stride_shift) * sizeof(struct pt_meta);

	return (unsigned int)((header + (1UL << hw_pt_stride_shift) - 1) >> hw_pt_stride_shift);
}

static void *pt_carve(void)
{
	if (cur_chunk == nr_chunks) {
		void *chunk = host_aligned_alloc(PT_CHUNK_SIZE, PT_CHUNK_SIZE, "page-table pages");

		if (nr_chunks == max_chunks) {
			max_chunks = max_chunks ? 2 * max_chunks : 16;
			chunks = host_realloc(chunks, max_chunks * sizeof(*chunks), "page-table pages");
		}
		chunks[nr_chunks++] = chunk;
		if (asan_poison)
			for (unsigned int i = pt_first_pos(); i < PT_CHUNK_SIZE >> hw_pt_stride_shift; i++)
				asan_poison((char *)chunk + ((size_t)i << hw_pt_stride_shift) + PAGE_SIZE,
					    PAGE_SIZE);
		cur_pos = pt_first_pos();
	}
	void *table = (char *)chunks[cur_chunk] + ((size_t)cur_pos << hw_pt_stride_shift);

	if (++cur_pos == PT_CHUNK_SIZE >> hw_pt_stride_shift) {
		cur_chunk++;
		cur_pos = pt_first_pos();
	}
	return table;
}

u64 *hw_pt_alloc(int level)
{
	void *slot = free_slots;
	struct pt_meta *meta;

	if (!hw_pt_stride_shift)
		pt_choose_stride();
	if (slot)
		free_slots = *(void **)slot;
	else
		slot = pt_carve();
	memset(slot, 0, PAGE_SIZE);
	meta = hw_pt_meta(slot);
	memset(meta, 0, sizeof(*meta));
	meta->level = level;
	meta->id = next_id++;
	live++;
	hw_count(EV_pt_alloc, 1);
	return slot;
}

void hw_pt_free(u64 *table)
{
	const struct pt_meta *meta = hw_pt_meta(table);

	/* the kernel frees a table only once nobody holds its lock */
	if (meta->level == 3 && meta->ptl_held)
		hw_violation(VIOL_OTHER, "PTE table #%u freed while its lock is held", meta->id);
	*(void **)table = free_slots;
	free_slots = table;
	live--;
	hw_count(EV_pt_free, 1);
	/* its host lines may name another table next (hw/cache.h) */
	hw_cache_switch();
}

u64 hw_pt_live(void)
{
	return live;
}

void hw_pt_reset(void)
{
	free_slots = NULL;
	cur_chunk = 0;
	cur_pos = hw_pt_stride_shift ? pt_first_pos() : 0;
	live = 0;
	next_id = 0;
	hw_cache_switch(); /* table ids start again */
}
