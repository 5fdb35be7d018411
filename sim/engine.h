/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The discrete-event engine: agents are coroutines, each with its own
 * modelled clock in ns. One agent runs at a time; the engine always
 * resumes the runnable agent with the smallest (clock, id), so a run is
 * deterministic for a seed. This is conservative synchronisation: an
 * agent advances its own clock freely (sim_advance) and calls sim_sync()
 * before it touches anything shared (locks, I/O, shared counters), where
 * it yields if another runnable agent is behind it. Blocking (a lock, an
 * I/O, a sleep) parks the agent until an event wakes it at a definite
 * time. Time an agent spends spinning on a lock is CPU time; time it
 * spends asleep (I/O, sim_sleep_until, sim_wait) is not.
 *
 * Code that is not inside an agent (setup on the host stack) may call
 * everything here: time is not modelled there (sim_now() is 0, advances
 * are dropped) and a lock that would make it wait is a bug (abort).
 */
#ifndef PTELAB_SIM_ENGINE_H
#define PTELAB_SIM_ENGINE_H

#include <stdio.h>

#include "hw/types.h"
#include "sim/ctx.h"

struct sim_engine;

struct sim_config {
	u64 seed;          /* agents' random streams (sim_random) */
	size_t stack_size; /* per agent; 0: SIM_DEFAULT_STACK */
	/*
	 * sim_sync() lets an agent run on while it is less than this many ns
	 * ahead of the earliest runnable one (0: strict order). Interactions
	 * closer together than the quantum are then ordered by who got there
	 * first in host order, not by modelled time; blocking (locks, I/O,
	 * waits) is unaffected. A speed knob for runs with many agents.
	 */
	u64 sync_quantum_ns;
};

#define SIM_DEFAULT_STACK (1024 * 1024UL)

enum sim_state { SIM_RUNNABLE, SIM_RUNNING, SIM_PARKED, SIM_DONE };

/* Per agent and frame id (frames.h): what perf --children would show. */
struct sim_frame_acc {
	u32 depth;            /* how many times the frame is on the stack */
	u64 calls;
	u64 cpu0, sleep0;     /* the agent's totals when depth went 0 -> 1 */
	u64 incl_cpu, incl_sleep;
	u64 self_cpu, self_sleep;
};

struct sim_agent {
	int id;               /* creation order; breaks clock ties */
	char *name;
	char *cls;            /* agent class for aggregated profiles ("vcpu") */
	void (*fn)(void *arg);
	void *arg;
	void *priv;           /* free for the caller */
	void *task;           /* the kernel's task_struct this agent runs as (include/sched.h's current) */
	bool no_frames;       /* profile frames not kept (nobody reads its profile): faster */
	struct sim_engine *eng;
	enum sim_state state;
	u64 clock;            /* modelled ns */
	u64 cpu_ns, sleep_ns; /* clock - start, split */
	u64 start;
	u64 rng;
	/* Waiting on a lock or wait queue (one at a time). */
	struct sim_agent *wait_next;
	unsigned int wait_flags;
	const char *wait_on;  /* what it is parked on, for deadlock reports */
	/* Profile frames (frames.c). */
	int *fstack;
	u32 fdepth, fstack_cap;
	struct sim_frame_acc *fr;
	u32 nr_fr;
	/* Call paths (callgraph.c): a tree of nodes, the current one, folded depth. */
	struct sim_cg_node *cg;
	u32 nr_cg, cap_cg, cg_cur, cg_skip;
	struct sim_ctx ctx;
};

/* FIFO of parked agents (locks, wait queues). */
struct sim_waitlist {
	struct sim_agent *head, *tail;
};

struct sim_engine *sim_engine_create(const struct sim_config *cfg);
void sim_engine_destroy(struct sim_engine *e);
/*
 * A new agent running fn(arg), runnable at the creator's clock (0 from
 * outside an agent). name and cls are copied. NULL if out of memory.
 */
struct sim_agent *sim_agent_create(struct sim_engine *e, const char *name, const char *cls,
				   void (*fn)(void *arg), void *arg);
/*
 * Run until no agent is runnable. Returns the number of agents that did
 * not finish (parked forever: a deadlock, see sim_engine_report_stuck).
 */
int sim_run(struct sim_engine *e);
/* One line per unfinished agent: name, class, clock and what it waits on. */
void sim_engine_report_stuck(const struct sim_engine *e, FILE *f);

/*
 * Work done since the last call, in ns: the engine calls it before it
 * reads or switches the running agent's clock and charges the result to
 * that agent, so hardware events counted elsewhere become modelled time.
 * Called once at sim_run() start with the result dropped (setup work).
 */
void sim_set_cost_hook(struct sim_engine *e, u64 (*cost_since)(void *ctx), void *ctx);
/*
 * The same from a fixed-point accumulator of 2^-shift ns that the caller
 * adds to (hw_cost_acc): the engine drains it inline, keeping the
 * fractions, with no call per read. Replaces any hook.
 */
void sim_set_cost_counter(struct sim_engine *e, u64 *acc, unsigned int shift);

int sim_nr_agents(const struct sim_engine *e);
struct sim_agent *sim_agent(const struct sim_engine *e, int id);
u64 sim_makespan(const struct sim_engine *e);   /* latest clock of a finished agent */
u64 sim_nr_switches(const struct sim_engine *e); /* coroutine switches so far */

/* --- From inside an agent --- */
extern struct sim_agent *sim_current_agent;

static inline struct sim_agent *sim_current(void)
{
	return sim_current_agent;
}

/* The running agent's clock, with pending hook cost charged. */
u64 sim_now(void);
/* CPU work: the clock moves on, charged to the frames on the stack. No switch. */
void sim_advance(u64 ns);
/* CPU work charged to frame (frames.h) as a leaf: enter, advance, exit;
 * frame 0: to the frames on the stack, as sim_advance. */
void sim_charge(int frame, u64 ns);
/* Interaction point: let every runnable agent with an earlier clock run first. */
void sim_sync(void);
/*
 * cond_resched(): let every runnable agent whose clock is not later than
 * ours run first, even at an equal clock (where sim_sync lets the lower
 * id run on). A loop that may find nothing to do and cost no modelled
 * time calls it, so it cannot keep the agent it waits for from running.
 */
void sim_yield(void);
/*
 * For a retry loop that went round without costing modelled time, waiting
 * for what another CPU does next: spin (CPU time) until the earliest
 * runnable agent's clock and let it run. Without it such a loop would
 * repeat forever at one instant.
 */
void sim_spin_to_next(void);
/* Sleep (not CPU time) until modelled time t; a no-op sync if t has passed. */
void sim_sleep_until(u64 t);
/* A number in [0, n) from the running agent's own stream (seeded by cfg.seed, id). */
u64 sim_random(u64 n);

/*
 * Parking, for blocking primitives (locks, wait queues). The caller has
 * synced and queued the agent somewhere its waker finds it. sim_park()
 * returns once sim_wake() made it runnable; the clock jump is charged as
 * CPU time (spin) or sleep. sim_wake() makes a parked agent runnable at
 * max(its clock, t).
 */
void sim_park(const char *on, bool spin);
void sim_wake(struct sim_agent *a, u64 t);

static inline void sim_waitlist_add(struct sim_waitlist *l, struct sim_agent *a, unsigned int flags)
{
	a->wait_next = NULL;
	a->wait_flags = flags;
	if (l->tail)
		l->tail->wait_next = a;
	else
		l->head = a;
	l->tail = a;
}

static inline struct sim_agent *sim_waitlist_pop(struct sim_waitlist *l)
{
	struct sim_agent *a = l->head;

	if (a) {
		l->head = a->wait_next;
		if (!l->head)
			l->tail = NULL;
		a->wait_next = NULL;
	}
	return a;
}

/* Abort with a message naming the running agent (misuse of the engine). */
__attribute__((noreturn, format(printf, 1, 2))) void sim_bug(const char *fmt, ...);

#endif
