// SPDX-License-Identifier: GPL-2.0-only
/* Wait queues (waitq.h). */
#include "sim/frames.h"
#include "sim/waitq.h"

void sim_wait(struct sim_waitq *wq, int frame)
{
	struct sim_agent *a = sim_current_agent;

	if (!a)
		sim_bug("sim_wait(%s) outside an agent", wq->name ? wq->name : "?");
	sim_frame_enter(frame);
	sim_waitlist_add(&wq->list, a, 0);
	sim_park(wq->name ? wq->name : "waitq", false);
	sim_frame_exit(frame);
}

int sim_wake_up(struct sim_waitq *wq, int nr)
{
	u64 t = sim_now();
	struct sim_agent *w;
	int n = 0;

	while ((!nr || n < nr) && (w = sim_waitlist_pop(&wq->list))) {
		sim_wake(w, t);
		n++;
	}
	return n;
}
