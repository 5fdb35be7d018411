// SPDX-License-Identifier: GPL-2.0-only
/*
 * The discrete-event engine (engine.h): a min-heap of runnable agents by
 * (clock, id), and direct agent-to-agent switches, so a yield costs one
 * coroutine switch rather than two through a scheduler loop. The host
 * stack (sim_run) only gets control back when nothing is runnable.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/cache.h"
#include "hw/host.h"
#include "hw/random.h"
#include "sim/engine.h"
#include "sim/frames.h"

/*
 * A heap slot carries its agent's key: a runnable agent's clock does not
 * move while it waits, and sifting then compares without touching the
 * agents (one cache line per slot pair instead of one per agent).
 */
struct heap_ent {
	u64 clock;
	int id;
	struct sim_agent *a;
};

struct sim_engine {
	struct sim_config cfg;
	struct sim_agent **agents;
	int nr_agents, cap_agents;
	struct heap_ent *heap;   /* runnable, by (clock, id); capacity cap_agents */
	int heap_n;
	struct sim_ctx host;     /* the stack sim_run() was called on */
	u64 (*cost_since)(void *ctx);
	void *cost_ctx;
	u64 *cost_acc;            /* sim_set_cost_counter() */
	unsigned int cost_shift;
	u64 cost_owed;            /* its fraction of a ns not yet charged */
	u64 nr_switches;
	u64 makespan;
	int nr_done;
	bool running;
};

struct sim_agent *sim_current_agent;

void sim_bug(const char *fmt, ...)
{
	struct sim_agent *a = sim_current_agent;
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "ptelab: sim: bug in agent %s: ", a ? a->name : "(none: host stack)");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static inline bool ent_before(const struct heap_ent *x, const struct heap_ent *y)
{
	return x->clock < y->clock || (x->clock == y->clock && x->id < y->id);
}

static inline struct heap_ent ent_of(struct sim_agent *a)
{
	return (struct heap_ent){ .clock = a->clock, .id = a->id, .a = a };
}

static void heap_sift_down(struct sim_engine *e, int i, struct heap_ent x)
{
	struct heap_ent *h = e->heap;
	int n = e->heap_n;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && ent_before(&h[c + 1], &h[c]))
			c++;
		if (!ent_before(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

static void heap_push(struct sim_engine *e, struct sim_agent *a)
{
	struct heap_ent *h = e->heap, x = ent_of(a);
	int i = e->heap_n++;

	while (i > 0) {
		int p = (i - 1) / 2;

		if (!ent_before(&x, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static struct sim_agent *heap_pop(struct sim_engine *e)
{
	struct sim_agent *top = e->heap[0].a;

	if (--e->heap_n)
		heap_sift_down(e, 0, e->heap[e->heap_n]);
	return top;
}

/* Push a and pop the minimum in one sift (a yield). */
static struct sim_agent *heap_replace_top(struct sim_engine *e, struct sim_agent *a)
{
	struct sim_agent *top = e->heap[0].a;

	heap_sift_down(e, 0, ent_of(a));
	return top;
}

/* Charge the hook's pending cost to a, which is running. */
static inline void collect(struct sim_agent *a)
{
	struct sim_engine *e = a->eng;

	if (e->cost_acc) {
		u64 v = *e->cost_acc, ns;

		if (!v)
			return;
		*e->cost_acc = 0;
		v += e->cost_owed;
		ns = v >> e->cost_shift;
		e->cost_owed = v & ((1ULL << e->cost_shift) - 1);
		if (ns) {
			a->clock += ns;
			sim_account(a, ns, false);
		}
	} else if (e->cost_since) {
		u64 ns = e->cost_since(e->cost_ctx);

		if (ns) {
			a->clock += ns;
			sim_account(a, ns, false);
		}
	}
}

/* Software runs as another agent (or the host) now: on another CPU's cache. */
static inline void set_current(struct sim_agent *a)
{
	sim_current_agent = a;
	hw_cache_switch();
}

/* The next agent to run after the running one stopped, or NULL: the host. */
static struct sim_ctx *pick_next(struct sim_engine *e)
{
	struct sim_agent *n;

	e->nr_switches++;
	if (!e->heap_n) {
		set_current(NULL);
		return &e->host;
	}
	n = heap_pop(e);
	n->state = SIM_RUNNING;
	set_current(n);
	return &n->ctx;
}

/* a (running, collected) hands the CPU to the earliest runnable agent. */
static inline void switch_to_top(struct sim_engine *e, struct sim_agent *a)
{
	struct sim_agent *n = heap_replace_top(e, a);

	a->state = SIM_RUNNABLE;
	n->state = SIM_RUNNING;
	set_current(n);
	e->nr_switches++;
	sim_ctx_switch(&a->ctx, &n->ctx);
}

/* a (running, collected) lets an earlier runnable agent go first. */
static inline void sync_collected(struct sim_agent *a)
{
	struct sim_engine *e = a->eng;
	struct heap_ent me = ent_of(a);

	if (!e->heap_n || !ent_before(&e->heap[0], &me))
		return;
	/* within the quantum of the earliest runnable agent: run on */
	if (e->cfg.sync_quantum_ns && e->heap[0].clock + e->cfg.sync_quantum_ns > a->clock)
		return;
	switch_to_top(e, a);
}

static void agent_entry(void)
{
	struct sim_agent *a;
	struct sim_engine *e;

	sim_ctx_entered();
	a = sim_current_agent;
	e = a->eng;
	a->fn(a->arg);
	collect(a);
	sim_frames_close_all(a);
	a->state = SIM_DONE;
	e->nr_done++;
	if (a->clock > e->makespan)
		e->makespan = a->clock;
	sim_ctx_exit_to(&a->ctx, pick_next(e));
}

struct sim_engine *sim_engine_create(const struct sim_config *cfg)
{
	struct sim_engine *e = host_calloc(1, sizeof(*e), "sim engine");

	if (cfg)
		e->cfg = *cfg;
	if (!e->cfg.stack_size)
		e->cfg.stack_size = SIM_DEFAULT_STACK;
	return e;
}

void sim_engine_destroy(struct sim_engine *e)
{
	if (!e)
		return;
	if (e->running)
		sim_bug("sim_engine_destroy() of a running engine");
	for (int i = 0; i < e->nr_agents; i++) {
		struct sim_agent *a = e->agents[i];

		sim_ctx_free(&a->ctx);
		sim_frames_free(a);
		free(a->name);
		free(a->cls);
		free(a);
	}
	sim_ctx_free(&e->host);
	free(e->agents);
	free(e->heap);
	free(e);
}

struct sim_agent *sim_agent_create(struct sim_engine *e, const char *name, const char *cls,
				   void (*fn)(void *arg), void *arg)
{
	struct sim_agent *cur = sim_current_agent;
	struct sim_agent *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (sim_ctx_init(&a->ctx, e->cfg.stack_size, agent_entry)) {
		free(a);
		return NULL;
	}
	if (e->nr_agents == e->cap_agents) {
		e->cap_agents = e->cap_agents ? 2 * e->cap_agents : 16;
		e->agents = host_realloc(e->agents, e->cap_agents * sizeof(*e->agents), "sim agents");
		e->heap = host_realloc(e->heap, e->cap_agents * sizeof(*e->heap), "sim heap");
	}
	a->id = e->nr_agents;
	a->name = strdup(name);
	a->cls = strdup(cls ? cls : name);
	if (!a->name || !a->cls)
		host_oom("sim agent name", strlen(name));
	a->fn = fn;
	a->arg = arg;
	a->eng = e;
	a->clock = a->start = cur && cur->eng == e ? sim_now() : 0;
	a->rng = xorshift_seed(e->cfg.seed * 0x100000001B3ULL + (u64)a->id);
	a->state = SIM_RUNNABLE;
	e->agents[e->nr_agents++] = a;
	heap_push(e, a);
	return a;
}

int sim_run(struct sim_engine *e)
{
	if (sim_current_agent || e->running)
		sim_bug("sim_run() inside a run");
	/* setup work is nobody's time */
	if (e->cost_acc)
		*e->cost_acc = 0;
	else if (e->cost_since)
		(void)e->cost_since(e->cost_ctx);
	e->running = true;
	while (e->heap_n) {
		struct sim_agent *n = heap_pop(e);

		n->state = SIM_RUNNING;
		set_current(n);
		e->nr_switches++;
		sim_ctx_switch(&e->host, &n->ctx);
	}
	e->running = false;
	set_current(NULL);
	return e->nr_agents - e->nr_done;
}

void sim_engine_report_stuck(const struct sim_engine *e, FILE *f)
{
	for (int i = 0; i < e->nr_agents; i++) {
		const struct sim_agent *a = e->agents[i];

		if (a->state != SIM_DONE)
			fprintf(f, "sim: agent %s (%s, id %d) stuck at %llu ns waiting on %s\n",
				a->name, a->cls, a->id, (unsigned long long)a->clock,
				a->wait_on ? a->wait_on : "nothing");
	}
}

void sim_set_cost_hook(struct sim_engine *e, u64 (*cost_since)(void *ctx), void *ctx)
{
	e->cost_since = cost_since;
	e->cost_ctx = ctx;
	e->cost_acc = NULL;
}

void sim_set_cost_counter(struct sim_engine *e, u64 *acc, unsigned int shift)
{
	e->cost_acc = acc;
	e->cost_shift = shift;
	e->cost_owed = 0;
	e->cost_since = NULL;
}

int sim_nr_agents(const struct sim_engine *e)
{
	return e->nr_agents;
}

struct sim_agent *sim_agent(const struct sim_engine *e, int id)
{
	return id >= 0 && id < e->nr_agents ? e->agents[id] : NULL;
}

u64 sim_makespan(const struct sim_engine *e)
{
	return e->makespan;
}

u64 sim_nr_switches(const struct sim_engine *e)
{
	return e->nr_switches;
}

u64 sim_now(void)
{
	struct sim_agent *a = sim_current_agent;

	if (!a)
		return 0;
	collect(a);
	return a->clock;
}

void sim_advance(u64 ns)
{
	struct sim_agent *a = sim_current_agent;

	if (!a)
		return;
	a->clock += ns;
	sim_account(a, ns, false);
}

void sim_charge(int frame, u64 ns)
{
	sim_frame_enter(frame);
	sim_advance(ns);
	sim_frame_exit(frame);
}

void sim_sync(void)
{
	struct sim_agent *a = sim_current_agent;

	if (!a)
		return;
	collect(a);
	sync_collected(a);
}

void sim_yield(void)
{
	struct sim_agent *a = sim_current_agent;

	if (!a)
		return;
	collect(a);
	if (a->eng->heap_n && a->eng->heap[0].clock <= a->clock)
		switch_to_top(a->eng, a);
}

void sim_spin_to_next(void)
{
	struct sim_agent *a = sim_current_agent;
	struct sim_engine *e;

	if (!a)
		return;
	collect(a);
	e = a->eng;
	if (e->heap_n && e->heap[0].clock > a->clock) {
		sim_account(a, e->heap[0].clock - a->clock, false);
		a->clock = e->heap[0].clock;
	}
	sim_yield();
}

void sim_sleep_until(u64 t)
{
	struct sim_agent *a = sim_current_agent;

	if (!a)
		return;
	collect(a);
	/* The wake-up time is known now: charge the sleep and queue as runnable at t. */
	if (t > a->clock) {
		sim_account(a, t - a->clock, true);
		a->clock = t;
	}
	sync_collected(a);
}

u64 sim_random(u64 n)
{
	struct sim_agent *a = sim_current_agent;

	if (!a)
		sim_bug("sim_random() outside an agent");
	return xorshift_rnd(&a->rng, n);
}

void sim_park(const char *on, bool spin)
{
	struct sim_agent *a = sim_current_agent;
	u64 before;

	if (!a)
		sim_bug("parking on %s outside an agent", on);
	collect(a);
	before = a->clock;
	a->state = SIM_PARKED;
	a->wait_on = on;
	sim_ctx_switch(&a->ctx, pick_next(a->eng));
	a->wait_on = NULL;
	sim_account(a, a->clock - before, !spin);
}

void sim_wake(struct sim_agent *a, u64 t)
{
	if (a->state != SIM_PARKED)
		sim_bug("waking agent %s, which is not parked", a->name);
	if (t > a->clock)
		a->clock = t;
	a->state = SIM_RUNNABLE;
	heap_push(a->eng, a);
}
