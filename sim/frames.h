/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Profile frames, like `perf report --children`: kernel-shaped code calls
 * sim_frame_enter(id)/sim_frame_exit(id) around a function; a frame's
 * inclusive time is the modelled time its agent spent while the frame was
 * anywhere on its stack (counted once under recursion), its self time
 * the time spent while it was on top. CPU time and sleep are kept apart:
 * shares are of CPU time, as perf's cycles are. O(1) per enter/exit.
 *
 * Frame ids are small integers registered by name, process-wide, from 1
 * (0 means "no frame" wherever a frame is optional). Cache them:
 *	sim_frame_enter(SIM_FRAME("folio_referenced"));
 */
#ifndef PTELAB_SIM_FRAMES_H
#define PTELAB_SIM_FRAMES_H

#include "sim/engine.h"

/* The id of name, registered on first use (name is copied). */
int sim_frame_id(const char *name);
const char *sim_frame_name(int id);
int sim_nr_frame_ids(void); /* ids are 1 .. this */

/* The id of a string literal, looked up once per call site. */
#define SIM_FRAME(name)                                          \
	__extension__({                                          \
		static int sim_frame_cached_;                    \
		sim_frame_cached_ ? sim_frame_cached_            \
				  : (sim_frame_cached_ = sim_frame_id(name)); \
	})

/* No-ops outside an agent, for an agent that keeps no frames, and for id 0. */
void __sim_frame_enter(struct sim_agent *a, int id);
void __sim_frame_exit(struct sim_agent *a, int id);

/* inline: most calls are from agents that keep no frames (vCPUs), a test and no call */
static inline void sim_frame_enter(int id)
{
	struct sim_agent *a = sim_current_agent;

	if (a && !a->no_frames && id > 0)
		__sim_frame_enter(a, id);
}

static inline void sim_frame_exit(int id)
{
	struct sim_agent *a = sim_current_agent;

	if (a && !a->no_frames && id > 0)
		__sim_frame_exit(a, id);
}

struct sim_frame_row {
	int id;
	const char *name;
	u64 calls;
	u64 incl_ns, self_ns;             /* CPU */
	u64 incl_sleep_ns, self_sleep_ns; /* asleep (I/O, waits) */
	double share;                     /* incl_ns / the agents' CPU ns */
};

struct sim_profile {
	int nr_agents;
	u64 cpu_ns, sleep_ns; /* summed over the agents */
	int nr_rows;          /* frames that were entered, by incl_ns descending */
	struct sim_frame_row *rows;
};

/* One agent's profile; frames still open count up to the agent's clock. */
void sim_profile_agent(struct sim_profile *p, const struct sim_agent *a);
/* The sum over every agent of class cls (NULL: every agent). */
void sim_profile_class(struct sim_profile *p, const struct sim_engine *e, const char *cls);
/* The row of frame name, or NULL if it was never entered. */
const struct sim_frame_row *sim_profile_row(const struct sim_profile *p, const char *name);
void sim_profile_release(struct sim_profile *p);

/* For engine.c: charge ns of CPU time or sleep to a's totals and top frame. */
static inline void sim_account(struct sim_agent *a, u64 ns, bool sleep)
{
	struct sim_frame_acc *f = a->fdepth ? &a->fr[a->fstack[a->fdepth - 1]] : NULL;

	if (sleep) {
		a->sleep_ns += ns;
		if (f)
			f->self_sleep += ns;
	} else {
		a->cpu_ns += ns;
		if (f)
			f->self_cpu += ns;
	}
}

/* For engine.c: close the frames an agent left open when it finished; free. */
void sim_frames_close_all(struct sim_agent *a);
void sim_frames_free(struct sim_agent *a);

#endif
