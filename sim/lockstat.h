/* SPDX-License-Identifier: GPL-2.0-only */
/* What every sim/ lock records per acquisition (lock_stat-like). */
#ifndef PTELAB_SIM_LOCKSTAT_H
#define PTELAB_SIM_LOCKSTAT_H

#include <stdint.h>

#include "hw/types.h"
#include "sim/engine.h"

struct sim_lock_stat {
	u64 acquired;    /* acquisitions */
	u64 contended;   /* ... that had to wait */
	u64 wait_ns;     /* modelled time spent waiting (spinning: CPU time) */
	u64 max_wait_ns;
	u64 hold_ns;     /* sum over holders of the time held */
};

/* Flags a parked agent carries in wait_flags. */
#define SIM_WAIT_READ 1u
#define SIM_WAIT_WRITE 2u

static inline void sim_lock_stat_acquired(struct sim_lock_stat *s, bool contended, u64 wait)
{
	s->acquired++;
	s->contended += contended;
	s->wait_ns += wait;
	if (wait > s->max_wait_ns)
		s->max_wait_ns = wait;
}

/*
 * The running agent writes a lock word whose last writer is *owner:
 * true if the line must come from that writer's CPU (a cache-to-cache
 * transfer). A writer is named by its task when it has one (a thread
 * keeps its CPU from one agent to the next: run1's and run2's vCPU
 * threads), else by its agent's id: never by an address a later agent
 * could reuse. Outside an agent: false.
 */
static inline bool sim_lock_claim_line(uintptr_t *owner)
{
	struct sim_agent *a = sim_current_agent;
	uintptr_t last = *owner;

	if (!a)
		return false;
	*owner = a->task ? (uintptr_t)a->task : (uintptr_t)a->id * 2 + 1;
	return last && last != *owner;
}

#endif
