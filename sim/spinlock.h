/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A FIFO spinlock (the kernel's queued spinlock, or a ticket lock):
 * waiters are granted in arrival order, each at max(its clock, release
 * time) + handoff_ns. Waiting is spinning, CPU time charged to the frame
 * the caller names (`_raw_spin_lock`).
 */
#ifndef PTELAB_SIM_SPINLOCK_H
#define PTELAB_SIM_SPINLOCK_H

#include "sim/engine.h"
#include "sim/lockstat.h"

struct sim_spinlock {
	const char *name;
	u64 acquire_ns;  /* cost of the acquiring atomic, charged in the lock frame */
	u64 handoff_ns;  /* added to a waiter's clock when it is granted the lock */
	bool locked;
	struct sim_agent *owner;
	struct sim_waitlist queue;
	u64 since;       /* when the current holder got it */
	/* who wrote the lock word last (sim_lock_claim_line); 0: nobody */
	uintptr_t line_owner;
	/*
	 * Called when an agent's acquire or release finds the word last
	 * written by another (NULL: not modelled): the caller counts the
	 * cache-to-cache transfer, paid holding the lock, as the rwlock's.
	 */
	void (*on_bounce)(void);
	struct sim_lock_stat st; /* st.hold_ns counts completed holds */
};

/* A zeroed struct sim_spinlock is a valid unlocked lock; init names it. */
void sim_spin_lock_init(struct sim_spinlock *l, const char *name);
void sim_spin_lock(struct sim_spinlock *l, int frame);
bool sim_spin_trylock(struct sim_spinlock *l);
void sim_spin_unlock(struct sim_spinlock *l);

#endif
