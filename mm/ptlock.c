// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: include/linux/mm.h (ptlock_ptr: the split PTE lock of a
 * PTE table), kernel/locking/qspinlock.c (a FIFO spinlock, waiters spin).
 */
/*
 * The split PTE lock as a lock. On the discrete-event engine (sim/),
 * where reclaimers, kswapd and vCPU threads run at once, a PTE table's
 * lock is a FIFO spinlock: a task that finds it held spins
 * (_raw_spin_lock, CPU time) until the holder lets go. That matters
 * where the holder waits for something else with it held: 6.1's
 * folio_referenced_one calls ptep_clear_flush_young_notify under the
 * lock, so a reclaimer queued there for kvm->mmu_lock keeps the table's
 * other users (reclaimers, faults) spinning behind it. Outside the
 * engine nothing runs concurrently and the lock is only counted
 * (pte_offset_map_lock's lock_acquire). The holder locking its table
 * again (the lab's walkers look a table up anew where the kernel keeps
 * its pointer) only nests.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/host.h"
#include "hw/pgtable_mem.h"
#include "mm/mm.h"
#include "sim/frames.h"
#include "sim/spinlock.h"

/* Locks by table id, in blocks that never move (a parked waiter's lock stays where it is). */
#define PTLOCK_BLOCK 1024

struct ptlock {
	struct sim_spinlock lock;
	int depth; /* the holder's nesting */
};

static struct ptlock **ptlocks;
static u32 nr_blocks;
/* how many tables each agent (by id) holds the lock of */
static u32 *held_by;
static int nr_held_by;

static void count_held(int delta)
{
	int id = sim_current_agent->id;

	if (id >= nr_held_by) {
		int n = id * 2 + 64;

		held_by = host_realloc(held_by, (size_t)n * sizeof(*held_by), "PTE table locks");
		memset(held_by + nr_held_by, 0, (size_t)(n - nr_held_by) * sizeof(*held_by));
		nr_held_by = n;
	}
	held_by[id] += (u32)delta;
}

/* Whether the running task holds a table's lock (it must not sleep then). */
bool ptlock_held_by_current(void)
{
	return sim_current_agent && sim_current_agent->id < nr_held_by &&
	       held_by[sim_current_agent->id];
}

static struct ptlock *ptlock_ptr(const struct pt_meta *meta)
{
	u32 b = meta->id / PTLOCK_BLOCK;

	if (b >= nr_blocks) {
		u32 n = b + 1 + nr_blocks;

		ptlocks = host_realloc(ptlocks, n * sizeof(*ptlocks), "PTE table locks");
		for (u32 i = nr_blocks; i < n; i++)
			ptlocks[i] = NULL;
		nr_blocks = n;
	}
	if (!ptlocks[b]) {
		ptlocks[b] = host_calloc(PTLOCK_BLOCK, sizeof(struct ptlock), "PTE table locks");
		for (u32 i = 0; i < PTLOCK_BLOCK; i++)
			sim_spin_lock_init(&ptlocks[b][i].lock, "ptlock");
	}
	return &ptlocks[b][meta->id % PTLOCK_BLOCK];
}

void ptlock_lock(const struct pt_meta *meta)
{
	struct ptlock *l;

	if (!sim_current_agent)
		return;
	l = ptlock_ptr(meta);
	if (l->lock.locked && l->lock.owner == sim_current_agent) {
		l->depth++;
		return;
	}
	sim_spin_lock(&l->lock, SIM_FRAME("_raw_spin_lock"));
	l->depth = 1;
	count_held(1);
}

/* spin_trylock: false if another task holds the lock (only on the engine). */
bool ptlock_trylock(const struct pt_meta *meta)
{
	struct ptlock *l;

	if (!sim_current_agent)
		return true;
	l = ptlock_ptr(meta);
	if (l->lock.locked && l->lock.owner == sim_current_agent) {
		l->depth++;
		return true;
	}
	if (!sim_spin_trylock(&l->lock))
		return false;
	l->depth = 1;
	count_held(1);
	return true;
}

/* spin_is_contended: another task spins on the lock (only on the engine). */
bool ptlock_contended(const struct pt_meta *meta)
{
	if (!sim_current_agent)
		return false;
	sim_sync(); /* the waiters as of now, in modelled time */
	return ptlock_ptr(meta)->lock.queue.head != NULL;
}

void ptlock_unlock(const struct pt_meta *meta)
{
	struct ptlock *l;

	if (!sim_current_agent)
		return;
	l = ptlock_ptr(meta);
	if (!l->lock.locked || l->lock.owner != sim_current_agent)
		sim_bug("pte_unmap_unlock of PTE table #%u by a task that does not hold its lock",
			meta->id);
	if (--l->depth == 0) {
		sim_spin_unlock(&l->lock);
		count_held(-1);
	}
}

/* Whether a task still holds a table's lock (a run on the engine must end with none). */
bool ptlock_any_held(void)
{
	for (u32 b = 0; b < nr_blocks; b++)
		for (u32 i = 0; ptlocks[b] && i < PTLOCK_BLOCK; i++)
			if (ptlocks[b][i].lock.locked)
				return true;
	return false;
}

/* Every lock goes (machine teardown, lab_reset: table ids start again at 0). */
void ptlock_exit(void)
{
	for (u32 b = 0; b < nr_blocks; b++)
		free(ptlocks[b]);
	free(ptlocks);
	ptlocks = NULL;
	nr_blocks = 0;
	free(held_by);
	held_by = NULL;
	nr_held_by = 0;
}
