/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Wait queues (wait_event/wake_up shaped): an agent sleeps until another
 * wakes it; it then runs at max(its clock, the waker's clock). As with
 * prepare_to_wait(), the sleeper syncs and tests its condition, then calls
 * sim_wait() with no sync in between, so a wake-up cannot be lost; the
 * waker syncs before it changes the condition (sim_wake_up does not).
 */
#ifndef PTELAB_SIM_WAITQ_H
#define PTELAB_SIM_WAITQ_H

#include "sim/engine.h"

struct sim_waitq {
	const char *name;
	struct sim_waitlist list;
};

/* Sleep (not CPU time) until woken; charged to frame (0: the caller's frames). */
void sim_wait(struct sim_waitq *wq, int frame);
/* Wake up to nr sleepers in FIFO order (nr 0: all); returns how many. */
int sim_wake_up(struct sim_waitq *wq, int nr);

#endif
