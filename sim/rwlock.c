// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queued rwlock (rwlock.h). The kernel's fast paths test _QW_WMASK (a
 * writer holds or one waits at the head of the queue); here that is
 * "wlocked or queue non-empty", since a waiter at the head is always a
 * writer: readers only queue behind a writer, and a reader that reaches
 * the head is granted at once.
 */
#include "sim/frames.h"
#include "sim/rwlock.h"

void sim_rwlock_init(struct sim_rwlock *l, const char *name)
{
	*l = (struct sim_rwlock){ .name = name };
}

/* The running agent writes the lock word: a bounce if another wrote it last. */
static bool write_line(struct sim_rwlock *l)
{
	if (!l->on_bounce || !sim_rwlock_claim_line(l))
		return false;
	l->on_bounce();
	return true;
}

static inline bool rwlock_idle(const struct sim_rwlock *l)
{
	return !l->readers && !l->wlocked;
}

static void take_read(struct sim_rwlock *l, u64 t)
{
	if (rwlock_idle(l))
		l->busy_since = t;
	l->readers++;
	l->rd_hold_acc -= t;
}

static void take_write(struct sim_rwlock *l, struct sim_agent *a, u64 t)
{
	if (rwlock_idle(l))
		l->busy_since = t;
	l->wlocked = true;
	l->owner = a;
	l->write_since = t;
}

/* The lock was released at t: grant the head of the queue what it can have. */
static void grant_queue(struct sim_rwlock *l, u64 t)
{
	struct sim_agent *w;

	if (rwlock_idle(l))
		l->busy_ns += t - l->busy_since;
	while ((w = l->queue.head) && !l->wlocked) {
		bool write = w->wait_flags & SIM_WAIT_WRITE;
		u64 tg = max(w->clock, t) + l->handoff_ns;

		if (write && l->readers)
			break; /* the head writer waits for the readers inside */
		sim_waitlist_pop(&l->queue);
		if (write)
			take_write(l, w, tg);
		else
			take_read(l, tg); /* and the readers right behind it */
		sim_wake(w, tg);
	}
}

/* Outside an agent nothing can wait: the lock must be available. */
static void host_check(struct sim_rwlock *l, bool write)
{
	if (l->wlocked || l->queue.head || (write && l->readers))
		sim_bug("%s_lock(%s) would wait outside an agent", write ? "write" : "read",
			l->name ? l->name : "?");
}

void sim_read_lock(struct sim_rwlock *l, int frame)
{
	struct sim_agent *a = sim_current_agent;
	bool contended;
	u64 t;

	if (!a) {
		host_check(l, false);
		take_read(l, 0);
		sim_lock_stat_acquired(&l->rd, false, 0);
		return;
	}
	sim_frame_enter(frame);
	sim_advance(l->acquire_ns);
	sim_sync();
	t = a->clock;
	contended = l->wlocked || l->queue.head;
	if (!contended) {
		take_read(l, t);
	} else {
		sim_waitlist_add(&l->queue, a, SIM_WAIT_READ);
		sim_park(l->name ? l->name : "rwlock", true);
	}
	sim_lock_stat_acquired(&l->rd, contended, a->clock - t);
	write_line(l);
	sim_frame_exit(frame);
}

void sim_write_lock(struct sim_rwlock *l, int frame)
{
	struct sim_agent *a = sim_current_agent;
	bool contended;
	u64 t;

	if (!a) {
		host_check(l, true);
		take_write(l, NULL, 0);
		sim_lock_stat_acquired(&l->wr, false, 0);
		return;
	}
	sim_frame_enter(frame);
	sim_advance(l->acquire_ns);
	sim_sync();
	t = a->clock;
	contended = !rwlock_idle(l) || l->queue.head;
	if (!contended) {
		take_write(l, a, t);
	} else {
		sim_waitlist_add(&l->queue, a, SIM_WAIT_WRITE);
		sim_park(l->name ? l->name : "rwlock", true);
	}
	sim_lock_stat_acquired(&l->wr, contended, a->clock - t);
	write_line(l);
	sim_frame_exit(frame);
}

bool sim_read_trylock(struct sim_rwlock *l)
{
	u64 t;

	sim_advance(l->acquire_ns);
	sim_sync();
	if (l->wlocked || l->queue.head)
		return false;
	t = sim_now();
	take_read(l, t);
	sim_lock_stat_acquired(&l->rd, false, 0);
	write_line(l);
	return true;
}

bool sim_write_trylock(struct sim_rwlock *l)
{
	sim_advance(l->acquire_ns);
	sim_sync();
	if (!rwlock_idle(l) || l->queue.head)
		return false;
	take_write(l, sim_current_agent, sim_now());
	sim_lock_stat_acquired(&l->wr, false, 0);
	write_line(l);
	return true;
}

void sim_read_unlock(struct sim_rwlock *l)
{
	u64 t;

	if (l->readers <= 0)
		sim_bug("read_unlock(%s) with no reader inside", l->name ? l->name : "?");
	sim_sync();
	/* after the sync: a reader inside with us, earlier in modelled time, may have written it */
	if (write_line(l))
		sim_sync();
	t = sim_now();
	l->readers--;
	l->rd_hold_acc += t;
	if (!l->readers)
		grant_queue(l, t);
}

void sim_write_unlock(struct sim_rwlock *l)
{
	u64 t;

	if (!l->wlocked)
		sim_bug("write_unlock(%s) of a lock not write-held", l->name ? l->name : "?");
	sim_sync();
	if (write_line(l))
		sim_sync();
	t = sim_now();
	l->wr.hold_ns += t - l->write_since;
	l->wlocked = false;
	l->owner = NULL;
	grant_queue(l, t);
}

bool sim_rwlock_claim_line(struct sim_rwlock *l)
{
	return sim_lock_claim_line(&l->line_owner);
}

void sim_rwlock_stats(const struct sim_rwlock *l, u64 now, struct sim_lock_stat *rd,
		      struct sim_lock_stat *wr)
{
	*rd = l->rd;
	rd->hold_ns = l->rd_hold_acc + (u64)l->readers * now;
	*wr = l->wr;
	if (l->wlocked)
		wr->hold_ns += now - l->write_since;
}
