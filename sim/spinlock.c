// SPDX-License-Identifier: GPL-2.0-only
/* FIFO spinlock (spinlock.h). */
#include "sim/frames.h"
#include "sim/spinlock.h"

void sim_spin_lock_init(struct sim_spinlock *l, const char *name)
{
	*l = (struct sim_spinlock){ .name = name };
}

/* The running agent writes the lock word: a bounce if another wrote it last. */
static bool write_line(struct sim_spinlock *l)
{
	if (!l->on_bounce || !sim_lock_claim_line(&l->line_owner))
		return false;
	l->on_bounce();
	return true;
}

static void take(struct sim_spinlock *l, struct sim_agent *a, u64 t)
{
	l->locked = true;
	l->owner = a;
	l->since = t;
}

void sim_spin_lock(struct sim_spinlock *l, int frame)
{
	struct sim_agent *a = sim_current_agent;
	bool contended;
	u64 t;

	if (!a) {
		if (l->locked)
			sim_bug("spin_lock(%s) would wait outside an agent", l->name ? l->name : "?");
		take(l, NULL, 0);
		sim_lock_stat_acquired(&l->st, false, 0);
		return;
	}
	sim_frame_enter(frame);
	sim_advance(l->acquire_ns);
	sim_sync();
	t = a->clock;
	contended = l->locked;
	if (!contended) {
		take(l, a, t);
	} else {
		sim_waitlist_add(&l->queue, a, SIM_WAIT_WRITE);
		sim_park(l->name ? l->name : "spinlock", true);
	}
	sim_lock_stat_acquired(&l->st, contended, a->clock - t);
	write_line(l);
	sim_frame_exit(frame);
}

bool sim_spin_trylock(struct sim_spinlock *l)
{
	sim_advance(l->acquire_ns);
	sim_sync();
	if (l->locked)
		return false;
	take(l, sim_current_agent, sim_now());
	sim_lock_stat_acquired(&l->st, false, 0);
	write_line(l);
	return true;
}

void sim_spin_unlock(struct sim_spinlock *l)
{
	struct sim_agent *w;
	u64 t;

	if (!l->locked)
		sim_bug("spin_unlock(%s) of an unlocked lock", l->name ? l->name : "?");
	sim_sync(); /* the holder wrote the word when it took it: the release is no transfer */
	t = sim_now();
	l->st.hold_ns += t - l->since;
	l->locked = false;
	l->owner = NULL;
	w = sim_waitlist_pop(&l->queue);
	if (w) {
		u64 tg = max(w->clock, t) + l->handoff_ns;

		take(l, w, tg);
		sim_wake(w, tg);
	}
}
