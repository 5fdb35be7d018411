/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A queued rwlock with the semantics of the kernel's qrwlock
 * (kernel/locking/qrwlock.c), in modelled time:
 *  - a reader enters at once if no writer holds the lock and nobody
 *    waits (no writer at the head of the queue: _QW_WAITING clear);
 *  - a writer takes a free lock, else queues FIFO; at the head of the
 *    queue it waits for the readers inside to drain;
 *  - readers arriving while a writer waits or holds queue behind it, so a
 *    stream of readers cannot starve a writer;
 *  - when the head of the queue is a reader, it and the consecutive
 *    readers behind it enter together.
 * Waiting is spinning: CPU time charged to the frame the caller names
 * (`_raw_read_lock`, `_raw_write_lock`). A granted waiter's clock becomes
 * max(its clock, release time) + handoff_ns.
 */
#ifndef PTELAB_SIM_RWLOCK_H
#define PTELAB_SIM_RWLOCK_H

#include "sim/engine.h"
#include "sim/lockstat.h"

struct sim_rwlock {
	const char *name;
	u64 acquire_ns;  /* cost of the acquiring atomic, charged in the lock frame */
	u64 handoff_ns;  /* added to a waiter's clock when it is granted the lock */
	int readers;     /* inside */
	bool wlocked;
	struct sim_agent *owner; /* the writer, if an agent */
	/* who wrote the lock word last (sim_rwlock_claim_line): its task, or its id * 2 + 1; 0: nobody */
	uintptr_t line_owner;
	/*
	 * Called when an agent's acquire or release finds the line last
	 * written by another (NULL: not modelled): the caller counts the
	 * transfer's cost; an acquire pays it holding the lock, a release
	 * before letting go.
	 */
	void (*on_bounce)(void);
	struct sim_waitlist queue;
	u64 write_since;
	u64 busy_since, busy_ns; /* time with a writer or any reader inside */
	u64 rd_hold_acc;         /* sum of read unlock times - read grant times, mod 2^64 */
	struct sim_lock_stat rd, wr; /* rd.hold_ns: see sim_rwlock_stats() */
};

/* A zeroed struct sim_rwlock is a valid unlocked lock; init names it. */
void sim_rwlock_init(struct sim_rwlock *l, const char *name);

/* frame: where the wait is charged (a sim_frame id; 0: the caller's frames). */
void sim_read_lock(struct sim_rwlock *l, int frame);
void sim_read_unlock(struct sim_rwlock *l);
void sim_write_lock(struct sim_rwlock *l, int frame);
void sim_write_unlock(struct sim_rwlock *l);
/*
 * The running agent writes the lock word (the atomic of an acquire or a
 * release): true if the line must come from the CPU of the agent that
 * wrote it last - a cache-to-cache transfer. The lock's acquires and
 * releases ask it themselves and call on_bounce. Outside an agent: false.
 */
bool sim_rwlock_claim_line(struct sim_rwlock *l);
/* As read_trylock()/write_trylock(): succeed only when the lock would not wait. */
bool sim_read_trylock(struct sim_rwlock *l);
bool sim_write_trylock(struct sim_rwlock *l);

/* Statistics with the holds still in progress counted up to now. */
void sim_rwlock_stats(const struct sim_rwlock *l, u64 now, struct sim_lock_stat *rd,
		      struct sim_lock_stat *wr);

#endif
