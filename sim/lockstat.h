/* SPDX-License-Identifier: GPL-2.0-only */
/* What every sim/ lock records per acquisition (lock_stat-like). */
#ifndef PTELAB_SIM_LOCKSTAT_H
#define PTELAB_SIM_LOCKSTAT_H

#include "hw/types.h"

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

#endif
