// SPDX-License-Identifier: GPL-2.0-only
/*
 * sim/: the discrete-event engine, its queued rwlock and FIFO spinlock,
 * profile frames and the swap device. Every expected number is worked out
 * by hand in the comment above its check.
 *
 * Benchmark mode: PTELAB_BENCH=1 build/san/tests/test_sim prints coroutine
 * switches/s and lock operations/s instead of running the tests (build it
 * with -O2 and without sanitizers for numbers worth quoting).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/callgraph.h"
#include "sim/sim.h"
#include "tests/ktap.h"

static int F_WRITE, F_READ, F_SPIN, F_IO;

/* A trace of (agent id, clock) pairs, appended by agents as they go. */
struct trace_ent {
	int id;
	u64 t;
};
static struct trace_ent trace[256];
static int nr_trace;

static void trace_add(void)
{
	if (nr_trace < (int)ARRAY_SIZE(trace))
		trace[nr_trace++] = (struct trace_ent){ sim_current()->id, sim_now() };
}

static struct sim_engine *new_engine(u64 seed, size_t stack)
{
	struct sim_config cfg = { .seed = seed, .stack_size = stack };

	return sim_engine_create(&cfg);
}

/* ---- scheduling ---- */

struct stepper {
	int nr;
	u64 step;
};

static void stepper_fn(void *arg)
{
	struct stepper *s = arg;

	for (int i = 0; i < s->nr; i++) {
		trace_add();
		sim_advance(s->step);
		sim_sync();
	}
}

static void tie_fn(void *arg)
{
	sim_advance(10);
	sim_sync();
	trace_add();
}

static void test_clock_order_and_ties(void)
{
	/*
	 * A (id 0) takes 3 steps of 30 ns, B (1) 4 of 20, C (2) 2 of 50; each
	 * logs its clock before a step and syncs after it. The smallest
	 * (clock, id) always runs: A0 B0 C0 (all at 0, by id), B20, A30, B40,
	 * C50, then A and B tie at 60 and A (lower id) goes first.
	 * Switches: host->A, A->B, B->C, C->B, B->A, A->B, B->C, C->A, A->B,
	 * B(done)->A, A(done)->C, C(done)->host = 12. Makespan: C at 100.
	 */
	static const struct trace_ent want[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 0 }, { 1, 20 }, { 0, 30 },
		{ 1, 40 }, { 2, 50 }, { 0, 60 }, { 1, 60 },
	};
	struct stepper s[3] = { { 3, 30 }, { 4, 20 }, { 2, 50 } };

	for (int run = 0; run < 2; run++) {
		struct sim_engine *e = new_engine(1, 0);

		nr_trace = 0;
		sim_agent_create(e, "A", NULL, stepper_fn, &s[0]);
		sim_agent_create(e, "B", NULL, stepper_fn, &s[1]);
		sim_agent_create(e, "C", NULL, stepper_fn, &s[2]);
		EXPECT_EQ(sim_run(e), 0);
		EXPECT_EQ(nr_trace, ARRAY_SIZE(want));
		for (int i = 0; i < nr_trace && i < (int)ARRAY_SIZE(want); i++) {
			EXPECT_EQ(trace[i].id, want[i].id);
			EXPECT_EQ(trace[i].t, want[i].t);
		}
		EXPECT_EQ(sim_nr_switches(e), 12);
		EXPECT_EQ(sim_makespan(e), 100);
		EXPECT_EQ(sim_agent(e, 0)->cpu_ns, 90);
		EXPECT_EQ(sim_agent(e, 1)->clock, 80);
		sim_engine_destroy(e);
	}

	/*
	 * Two agents advance to 10 and sync: B (id 1) at 10 yields to A (id 0)
	 * at 10, so A logs first.
	 */
	struct sim_engine *e = new_engine(1, 0);

	nr_trace = 0;
	sim_agent_create(e, "A", NULL, tie_fn, NULL);
	sim_agent_create(e, "B", NULL, tie_fn, NULL);
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(nr_trace, 2);
	EXPECT(trace[0].id == 0 && trace[0].t == 10);
	EXPECT(trace[1].id == 1 && trace[1].t == 10);
	sim_engine_destroy(e);
}

/* Random think times around a shared lock: the trace depends on the seed only. */
static struct sim_rwlock rnd_lock;

static void random_fn(void *arg)
{
	for (int i = 0; i < 8; i++) {
		sim_advance(sim_random(100));
		if (sim_random(4))
			sim_read_lock(&rnd_lock, F_READ);
		else
			sim_write_lock(&rnd_lock, F_WRITE);
		trace_add();
		sim_advance(sim_random(50));
		if (rnd_lock.wlocked)
			sim_write_unlock(&rnd_lock);
		else
			sim_read_unlock(&rnd_lock);
	}
}

static int random_run(u64 seed, struct trace_ent *out)
{
	struct sim_engine *e = new_engine(seed, 0);

	nr_trace = 0;
	sim_rwlock_init(&rnd_lock, "rnd");
	for (int i = 0; i < 8; i++)
		sim_agent_create(e, "r", NULL, random_fn, NULL);
	EXPECT_EQ(sim_run(e), 0);
	sim_engine_destroy(e);
	memcpy(out, trace, nr_trace * sizeof(*out));
	return nr_trace;
}

static void test_same_seed_same_trace(void)
{
	static struct trace_ent a[256], b[256], c[256];
	int na = random_run(7, a), nb = random_run(7, b), nc = random_run(8, c);

	/* 8 agents x 8 acquisitions each */
	EXPECT_EQ(na, 64);
	EXPECT_EQ(nb, 64);
	EXPECT(!memcmp(a, b, sizeof(a[0]) * 64));
	/* another seed gives other think times, so another trace */
	EXPECT_EQ(nc, 64);
	EXPECT(memcmp(a, c, sizeof(a[0]) * 64) != 0);
}

/* ---- queued rwlock ---- */

struct locker {
	u64 at;        /* when it asks */
	bool write;
	u64 hold;
	struct sim_rwlock *l;
	u64 granted;   /* out */
};

static void locker_fn(void *arg)
{
	struct locker *k = arg;

	sim_advance(k->at);
	if (k->write)
		sim_write_lock(k->l, F_WRITE);
	else
		sim_read_lock(k->l, F_READ);
	k->granted = sim_now();
	sim_advance(k->hold);
	if (k->write)
		sim_write_unlock(k->l);
	else
		sim_read_unlock(k->l);
}

static struct sim_engine *run_lockers(struct locker *k, int n, struct sim_rwlock *l)
{
	struct sim_engine *e = new_engine(1, 0);

	sim_rwlock_init(l, "mmu_lock");
	for (int i = 0; i < n; i++) {
		k[i].l = l;
		sim_agent_create(e, "locker", k[i].write ? "writer" : "reader", locker_fn, &k[i]);
	}
	EXPECT_EQ(sim_run(e), 0);
	return e;
}

/* Who wrote the lock word last: a thread by its task, across agents; others by agent. */
static struct sim_rwlock line_lock;
static int line_moves[4];

static void line_fn(void *arg)
{
	int *slot = arg;

	sim_advance((u64)(slot - line_moves) * 10); /* in creation order */
	*slot = sim_rwlock_claim_line(&line_lock) + 2 * sim_rwlock_claim_line(&line_lock);
}

static void test_rwlock_line_owner(void)
{
	struct sim_engine *e = new_engine(1, 0);
	int task;
	struct sim_agent *a;

	sim_rwlock_init(&line_lock, "line");
	EXPECT(!sim_rwlock_claim_line(&line_lock)); /* outside an agent: nothing moves */
	for (int i = 0; i < 4; i++) {
		a = sim_agent_create(e, "claimer", NULL, line_fn, &line_moves[i]);
		if (i < 2)
			a->task = &task; /* one thread: run1's agent and run2's */
	}
	EXPECT_EQ(sim_run(e), 0);
	/* first writer: nothing to fetch; the same thread again: its own line */
	EXPECT_EQ(line_moves[0], 0);
	EXPECT_EQ(line_moves[1], 0);
	/* another agent: fetched once, then its own; the next one fetches from it */
	EXPECT_EQ(line_moves[2], 1);
	EXPECT_EQ(line_moves[3], 1);
	sim_engine_destroy(e);
}

/*
 * Bounces of the lock word between two readers inside together: R1 reads
 * 0..100, R2 20..120. R1's acquire finds nobody's line; R2's finds R1's;
 * R1's release at 100 finds R2's (written at 20, though R1 may have run
 * ahead of R2 on the host); R2's release finds R1's. Three, in modelled
 * order, whichever agent the host ran first.
 */
static int bounces;
static void count_bounce(void) { bounces++; }

static void test_rwlock_bounces_in_modelled_order(void)
{
	struct locker k[] = { { .at = 0, .hold = 100 }, { .at = 20, .hold = 100 } };
	struct sim_rwlock l;
	struct sim_engine *e = new_engine(1, 0);

	sim_rwlock_init(&l, "mmu_lock");
	l.on_bounce = count_bounce;
	bounces = 0;
	for (int i = 0; i < 2; i++) {
		k[i].l = &l;
		sim_agent_create(e, "locker", "reader", locker_fn, &k[i]);
	}
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(bounces, 3);
	sim_engine_destroy(e);
}

static void test_writer_waits_for_readers_to_drain(void)
{
	/*
	 * R1 reads 0..100, R2 reads 20..120 (no writer: it enters). W asks at
	 * 50 and waits for both readers: granted at 120, waited 70, holds to
	 * 130. Read holds 100 + 100 = 200; the lock is busy 0..130.
	 */
	struct locker k[] = {
		{ .at = 0, .hold = 100 },
		{ .at = 20, .hold = 100 },
		{ .at = 50, .write = true, .hold = 10 },
	};
	struct sim_rwlock l;
	struct sim_engine *e = run_lockers(k, 3, &l);
	struct sim_lock_stat rd, wr;
	struct sim_profile p;

	EXPECT_EQ(k[0].granted, 0);
	EXPECT_EQ(k[1].granted, 20);
	EXPECT_EQ(k[2].granted, 120);
	sim_rwlock_stats(&l, 0, &rd, &wr);
	EXPECT_EQ(rd.acquired, 2);
	EXPECT_EQ(rd.contended, 0);
	EXPECT_EQ(rd.hold_ns, 200);
	EXPECT_EQ(wr.acquired, 1);
	EXPECT_EQ(wr.contended, 1);
	EXPECT_EQ(wr.wait_ns, 70);
	EXPECT_EQ(wr.hold_ns, 10);
	EXPECT_EQ(l.busy_ns, 130);
	EXPECT_EQ(sim_makespan(e), 130);
	/* W: 50 before, 70 spinning in _raw_write_lock, 10 holding: 70/130 */
	sim_profile_agent(&p, sim_agent(e, 2));
	EXPECT_EQ(p.cpu_ns, 130);
	EXPECT(sim_profile_row(&p, "_raw_write_lock") &&
	       sim_profile_row(&p, "_raw_write_lock")->self_ns == 70);
	EXPECT(fabs(sim_profile_row(&p, "_raw_write_lock")->share - 70.0 / 130.0) < 1e-12);
	sim_profile_release(&p);
	sim_engine_destroy(e);
}

static void test_readers_queue_behind_waiting_writer(void)
{
	/*
	 * R1 reads 0..100. W asks at 10 and waits for R1. R2 (20) and R3 (50)
	 * find a writer waiting and queue behind it, though only readers are
	 * inside; R4 (105) finds W holding. R1 leaves at 100: W gets it,
	 * holds to 110; then R2, R3, R4 enter together at 110.
	 * Read waits: 90 + 60 + 5 = 155, three contended.
	 */
	struct locker k[] = {
		{ .at = 0, .hold = 100 },
		{ .at = 10, .write = true, .hold = 10 },
		{ .at = 20, .hold = 50 },
		{ .at = 50, .hold = 50 },
		{ .at = 105, .hold = 5 },
	};
	struct sim_rwlock l;
	struct sim_engine *e = run_lockers(k, 5, &l);

	EXPECT_EQ(k[1].granted, 100);
	EXPECT_EQ(k[2].granted, 110);
	EXPECT_EQ(k[3].granted, 110);
	EXPECT_EQ(k[4].granted, 110);
	EXPECT_EQ(l.rd.contended, 3);
	EXPECT_EQ(l.rd.wait_ns, 155);
	EXPECT_EQ(l.rd.max_wait_ns, 90);
	EXPECT_EQ(l.wr.wait_ns, 90);
	/* R2 and R3 hold 50 from 110: the last leaves at 160 */
	EXPECT_EQ(sim_makespan(e), 160);
	sim_engine_destroy(e);
}

static void test_queued_readers_enter_together(void)
{
	/*
	 * W1 writes 0..100. R1 (10) and R2 (20) queue, W2 (30) queues behind
	 * them, R3 (40) behind W2. At 100 R1 and R2 enter together; W2 at the
	 * head waits for them: R1 leaves at 150, R2 at 180, W2 holds 180..190,
	 * then R3 enters at 190 and leaves at 195.
	 */
	struct locker k[] = {
		{ .at = 0, .write = true, .hold = 100 },
		{ .at = 10, .hold = 50 },
		{ .at = 20, .hold = 80 },
		{ .at = 30, .write = true, .hold = 10 },
		{ .at = 40, .hold = 5 },
	};
	struct sim_rwlock l;
	struct sim_engine *e = run_lockers(k, 5, &l);

	EXPECT_EQ(k[1].granted, 100);
	EXPECT_EQ(k[2].granted, 100);
	EXPECT_EQ(k[3].granted, 180);
	EXPECT_EQ(k[4].granted, 190);
	EXPECT_EQ(l.rd.contended, 3);
	EXPECT_EQ(l.wr.contended, 1);
	/* waits: R1 90, R2 80, R3 150; W2 150 */
	EXPECT_EQ(l.rd.wait_ns, 320);
	EXPECT_EQ(l.wr.wait_ns, 150);
	EXPECT_EQ(l.wr.hold_ns, 110);
	EXPECT_EQ(sim_makespan(e), 195);
	EXPECT_EQ(l.busy_ns, 195);
	sim_engine_destroy(e);
}

static struct sim_rwlock try_lock;
static int try_results[4];

static void try_holder(void *arg)
{
	sim_read_lock(&try_lock, F_READ);
	sim_advance(100);
	sim_read_unlock(&try_lock);
}

static void try_writer(void *arg)
{
	sim_advance(10);
	sim_write_lock(&try_lock, F_WRITE); /* waits for the holder until 100 */
	sim_write_unlock(&try_lock);
}

static void try_prober(void *arg)
{
	sim_advance(5);
	try_results[0] = sim_read_trylock(&try_lock);  /* only a reader inside: yes */
	try_results[1] = sim_write_trylock(&try_lock); /* a reader inside: no */
	sim_read_unlock(&try_lock);
	sim_advance(15);
	try_results[2] = sim_read_trylock(&try_lock);  /* a writer waits: no */
	sim_advance(100);
	try_results[3] = sim_write_trylock(&try_lock); /* free again at 120: yes */
	sim_write_unlock(&try_lock);
}

static void test_trylock_follows_the_queue(void)
{
	struct sim_engine *e = new_engine(1, 0);

	sim_rwlock_init(&try_lock, "try");
	sim_agent_create(e, "holder", NULL, try_holder, NULL);
	sim_agent_create(e, "writer", NULL, try_writer, NULL);
	sim_agent_create(e, "prober", NULL, try_prober, NULL);
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(try_results[0], 1);
	EXPECT_EQ(try_results[1], 0);
	EXPECT_EQ(try_results[2], 0);
	EXPECT_EQ(try_results[3], 1);
	EXPECT_EQ(try_lock.wr.acquired, 2);
	EXPECT_EQ(try_lock.rd.acquired, 2);
	sim_engine_destroy(e);
}

/* ---- spinlock ---- */

static struct sim_spinlock spin;
static int grant_order[8], nr_granted;
static u64 spin_granted[8];

static void spinner_fn(void *arg)
{
	int id = sim_current()->id;

	sim_advance((u64)(4 - id) * 10);
	sim_spin_lock(&spin, F_SPIN);
	spin_granted[id] = sim_now();
	grant_order[nr_granted++] = id;
	sim_advance(id == 4 ? 100 : 10);
	sim_spin_unlock(&spin);
}

static void test_spinlock_fifo(void)
{
	/*
	 * Agent k asks at (4 - k) * 10: 4 at 0 (holds 100), then 3, 2, 1, 0
	 * at 10, 20, 30, 40, each holding 10: granted in arrival order at 100,
	 * 110, 120, 130, each after waiting 90: 360 in all.
	 */
	struct sim_engine *e = new_engine(1, 0);

	sim_spin_lock_init(&spin, "ptl");
	nr_granted = 0;
	for (int i = 0; i < 5; i++)
		sim_agent_create(e, "spinner", NULL, spinner_fn, NULL);
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(nr_granted, 5);
	for (int i = 0; i < 5; i++)
		EXPECT_EQ(grant_order[i], 4 - i);
	EXPECT_EQ(spin_granted[3], 100);
	EXPECT_EQ(spin_granted[0], 130);
	EXPECT_EQ(spin.st.acquired, 5);
	EXPECT_EQ(spin.st.contended, 4);
	EXPECT_EQ(spin.st.wait_ns, 360);
	EXPECT_EQ(spin.st.hold_ns, 140);
	EXPECT_EQ(sim_makespan(e), 140);
	sim_engine_destroy(e);
}

static void charge_holder(void *arg)
{
	sim_frame_enter(SIM_FRAME("shrink"));
	sim_spin_lock(&spin, F_SPIN);
	sim_advance(100);
	sim_spin_unlock(&spin);
	sim_frame_exit(SIM_FRAME("shrink"));
}

static void charge_waiter(void *arg)
{
	sim_advance(10);
	sim_frame_enter(SIM_FRAME("fault"));
	sim_spin_lock(&spin, F_SPIN);
	sim_advance(20);
	sim_spin_unlock(&spin);
	sim_frame_exit(SIM_FRAME("fault"));
}

static void test_wait_charged_to_lock_frame(void)
{
	/*
	 * acquire_ns 5, handoff_ns 3. The holder (class kswapd) pays 5 at 0,
	 * holds 5..105. The waiter (class vcpu) asks at 10, pays 5, spins from
	 * 15, is granted at 105 + 3 = 108 (wait 93), holds 20 to 128. Its
	 * _raw_spin_lock frame: 5 + 93 = 98 ns of CPU time, share 98/128;
	 * "fault" includes it: 98 + 20 = 118.
	 */
	struct sim_engine *e = new_engine(1, 0);
	struct sim_profile p;
	const struct sim_frame_row *r;

	sim_spin_lock_init(&spin, "lru_lock");
	spin.acquire_ns = 5;
	spin.handoff_ns = 3;
	sim_agent_create(e, "kswapd0", "kswapd", charge_holder, NULL);
	sim_agent_create(e, "vcpu0", "vcpu", charge_waiter, NULL);
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(spin.st.wait_ns, 93);
	EXPECT_EQ(spin.st.hold_ns, 120);

	sim_profile_class(&p, e, "vcpu");
	EXPECT_EQ(p.nr_agents, 1);
	EXPECT_EQ(p.cpu_ns, 128);
	EXPECT_EQ(p.sleep_ns, 0); /* spinning is not sleeping */
	r = sim_profile_row(&p, "_raw_spin_lock");
	EXPECT(r && r->self_ns == 98 && r->incl_ns == 98);
	EXPECT(r && r->share == 98.0 / 128.0);
	r = sim_profile_row(&p, "fault");
	EXPECT(r && r->incl_ns == 118 && r->self_ns == 20);
	EXPECT(!sim_profile_row(&p, "shrink"));
	sim_profile_release(&p);

	sim_profile_class(&p, e, "kswapd");
	r = sim_profile_row(&p, "shrink");
	EXPECT(r && r->incl_ns == 105 && r->self_ns == 100);
	r = sim_profile_row(&p, "_raw_spin_lock");
	EXPECT(r && r->self_ns == 5);
	sim_profile_release(&p);
	sim_engine_destroy(e);
}

static int spin_bounces;

static void count_spin_bounce(void)
{
	spin_bounces++;
	sim_advance(7); /* the transfer's cost, paid holding the lock */
}

static void bounce_twice(void *arg)
{
	for (int i = 0; i < 2; i++) {
		sim_spin_lock(&spin, 0);
		sim_advance(10);
		sim_spin_unlock(&spin);
	}
}

static void test_spinlock_word_bounces(void)
{
	/*
	 * A (id 0) locks at 0 and again at 10: its own line, no bounce until
	 * B, which asked at 0 and queued behind A's first hold, is granted
	 * at 10 and fetches the word (bounce, +7), releases at 27 - its own
	 * write again, no bounce. A's second lock at 10 queued behind B; A
	 * is granted at 27 and fetches the line back (bounce, +7), holds to
	 * 44; B's second acquire at 27 queues behind A and fetches at 44
	 * (+7), releases at 61. Four acquisitions alternating between two
	 * CPUs: three transfers (the first ever acquire has no last writer).
	 */
	struct sim_engine *e = new_engine(1, 0);

	sim_spin_lock_init(&spin, "lru_lock");
	spin.on_bounce = count_spin_bounce;
	spin_bounces = 0;
	sim_agent_create(e, "a", "reclaim", bounce_twice, NULL);
	sim_agent_create(e, "b", "reclaim", bounce_twice, NULL);
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(spin_bounces, 3);
	EXPECT_EQ(spin.st.acquired, 4);
	EXPECT_EQ(spin.st.contended, 3);
	EXPECT_EQ(sim_agent(e, 0)->clock, 44);
	EXPECT_EQ(sim_agent(e, 1)->clock, 61);
	sim_engine_destroy(e);

	/* one CPU alone never fetches the line from another */
	e = new_engine(1, 0);
	sim_spin_lock_init(&spin, "lru_lock");
	spin.on_bounce = count_spin_bounce;
	spin_bounces = 0;
	sim_agent_create(e, "a", "reclaim", bounce_twice, NULL);
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(spin_bounces, 0);
	EXPECT_EQ(sim_agent(e, 0)->clock, 20);
	sim_engine_destroy(e);
}

static bool yield_flag;
static int yield_spins;

/* Retries at no cost until the other agent has run: only a yield lets it. */
static void yield_spinner(void *arg)
{
	(void)arg;
	while (!yield_flag && yield_spins < 1000) {
		yield_spins++;
		sim_sync();
		if (!yield_flag)
			sim_yield();
	}
}

static void yield_setter(void *arg)
{
	(void)arg;
	yield_flag = true;
}

static void test_yield_runs_equal_clocks(void)
{
	/*
	 * Both agents at clock 0: sim_sync lets the lower id (the spinner)
	 * run on, so without sim_yield it would spin its 1000 times; the
	 * yield hands over to the setter at once.
	 */
	struct sim_engine *e = new_engine(1, 0);

	yield_flag = false;
	yield_spins = 0;
	sim_agent_create(e, "spinner", "kswapd", yield_spinner, NULL);
	sim_agent_create(e, "setter", "reclaim", yield_setter, NULL);
	EXPECT_EQ(sim_run(e), 0);
	EXPECT(yield_flag);
	EXPECT_EQ(yield_spins, 1);
	sim_engine_destroy(e);
}

/* ---- frames ---- */

static void frames_recursive(void *arg)
{
	int f = SIM_FRAME("F"), g = SIM_FRAME("G");

	sim_frame_enter(f);
	sim_advance(10);
	sim_frame_enter(g);
	sim_advance(20);
	sim_frame_enter(f); /* F again, inside G inside F */
	sim_advance(30);
	sim_frame_exit(f);
	sim_advance(5);
	sim_frame_exit(g);
	sim_advance(7);
	sim_frame_exit(f);
	sim_advance(3);
}

static void frames_flat(void *arg)
{
	sim_frame_enter(SIM_FRAME("G"));
	sim_advance(100);
	sim_frame_exit(SIM_FRAME("G"));
}

static void frames_sleeper(void *arg)
{
	sim_frame_enter(SIM_FRAME("schedule_timeout"));
	sim_sleep_until(500);
	sim_frame_exit(SIM_FRAME("schedule_timeout"));
}

static void test_frames_inclusive_and_self(void)
{
	/*
	 * Agent 0: F{10 G{20 F{30} 5} 7} 3 = 75 ns. F is on the stack for
	 * 10+20+30+5+7 = 72 (once, though entered twice), on top for
	 * 10+30+7 = 47; G for 20+30+5 = 55, on top 20+5 = 25.
	 * Agent 1 (same class): G{100}. The class: G 155 incl / 125 self,
	 * F 72 / 47, CPU 175, so G's share is 155/175 and G sorts first.
	 * Agent 2 sleeps to 500 in schedule_timeout: sleep, not CPU.
	 */
	struct sim_engine *e = new_engine(1, 0);
	struct sim_profile p;
	const struct sim_frame_row *r;

	sim_agent_create(e, "k0", "k", frames_recursive, NULL);
	sim_agent_create(e, "k1", "k", frames_flat, NULL);
	sim_agent_create(e, "s", "s", frames_sleeper, NULL);
	EXPECT_EQ(sim_run(e), 0);

	sim_profile_agent(&p, sim_agent(e, 0));
	EXPECT_EQ(p.cpu_ns, 75);
	r = sim_profile_row(&p, "F");
	EXPECT(r && r->incl_ns == 72 && r->self_ns == 47 && r->calls == 2);
	EXPECT(r && fabs(r->share - 0.96) < 1e-12);
	r = sim_profile_row(&p, "G");
	EXPECT(r && r->incl_ns == 55 && r->self_ns == 25 && r->calls == 1);
	sim_profile_release(&p);

	sim_profile_class(&p, e, "k");
	EXPECT_EQ(p.nr_agents, 2);
	EXPECT_EQ(p.cpu_ns, 175);
	EXPECT_EQ(p.nr_rows, 2);
	EXPECT(!strcmp(p.rows[0].name, "G") && p.rows[0].incl_ns == 155 && p.rows[0].self_ns == 125);
	EXPECT(!strcmp(p.rows[1].name, "F") && p.rows[1].incl_ns == 72 && p.rows[1].self_ns == 47);
	EXPECT(fabs(p.rows[0].share - 155.0 / 175.0) < 1e-12);
	sim_profile_release(&p);

	sim_profile_agent(&p, sim_agent(e, 2));
	EXPECT_EQ(p.cpu_ns, 0);
	EXPECT_EQ(p.sleep_ns, 500);
	r = sim_profile_row(&p, "schedule_timeout");
	EXPECT(r && r->incl_sleep_ns == 500 && r->self_sleep_ns == 500 && r->incl_ns == 0);
	sim_profile_release(&p);
	EXPECT_EQ(sim_makespan(e), 500);
	sim_engine_destroy(e);
}

/* ---- swap device ---- */

static struct sim_swapdev dev;
static u64 io_done[4];

static void io_fn(void *arg)
{
	io_done[sim_current()->id] = sim_io(&dev, 1000, F_IO);
}

static struct sim_engine *run_io(u32 depth)
{
	struct sim_engine *e = new_engine(1, 0);

	/* 10 us latency, 1 GB/s: 1000 bytes transfer in 1000 ns */
	EXPECT_EQ(sim_swapdev_init(&dev, "swap", 10000, 1000000000, depth), 0);
	for (int i = 0; i < 4; i++)
		sim_agent_create(e, "io", "io", io_fn, NULL);
	EXPECT_EQ(sim_run(e), 0);
	return e;
}

static void test_swapdev_depth_1(void)
{
	/*
	 * Four requests at 0, one in service at a time: each takes
	 * 10000 + 1000, so they complete at 11000, 22000, 33000, 44000 after
	 * waiting 0, 11000, 22000, 33000 for the slot (66000 in all). The
	 * device is busy 0..44000. The agents sleep; they use no CPU.
	 */
	struct sim_engine *e = run_io(1);
	struct sim_profile p;
	const struct sim_frame_row *r;

	for (int i = 0; i < 4; i++)
		EXPECT_EQ(io_done[i], 11000 * (i + 1));
	EXPECT_EQ(dev.requests, 4);
	EXPECT_EQ(dev.bytes, 4000);
	EXPECT_EQ(dev.queue_wait_ns, 66000);
	EXPECT_EQ(dev.max_queue_wait_ns, 33000);
	EXPECT_EQ(dev.busy_ns, 44000);
	EXPECT_EQ(dev.transfer_ns, 4000);
	sim_profile_class(&p, e, "io");
	EXPECT_EQ(p.cpu_ns, 0);
	EXPECT_EQ(p.sleep_ns, 11000 + 22000 + 33000 + 44000);
	r = sim_profile_row(&p, "io_schedule");
	EXPECT(r && r->incl_sleep_ns == 110000 && r->incl_ns == 0);
	sim_profile_release(&p);
	sim_swapdev_release(&dev);
	sim_engine_destroy(e);
}

static void test_swapdev_depth_n(void)
{
	/*
	 * Depth 2: requests 0 and 1 start at 0; their latencies overlap but
	 * the channel is shared: 0 transfers 10000..11000, 1 11000..12000.
	 * Request 2 gets 0's slot at 11000, transfers 21000..22000; request 3
	 * gets 1's slot at 12000, waits for the channel, 22000..23000.
	 * Slot waits 0 + 0 + 11000 + 12000; busy 0..23000.
	 */
	struct sim_engine *e = run_io(2);
	static const u64 want2[] = { 11000, 12000, 22000, 23000 };

	for (int i = 0; i < 4; i++)
		EXPECT_EQ(io_done[i], want2[i]);
	EXPECT_EQ(dev.queue_wait_ns, 23000);
	EXPECT_EQ(dev.busy_ns, 23000);
	EXPECT_EQ(sim_makespan(e), 23000);
	sim_swapdev_release(&dev);
	sim_engine_destroy(e);

	/*
	 * Depth 4: no slot wait; only the channel serialises the transfers:
	 * 11000, 12000, 13000, 14000.
	 */
	e = run_io(4);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(io_done[i], 11000 + 1000 * i);
	EXPECT_EQ(dev.queue_wait_ns, 0);
	EXPECT_EQ(dev.busy_ns, 14000);
	sim_swapdev_release(&dev);
	sim_engine_destroy(e);
}

/* ---- cost hook, sleeping, wait queues, deadlock ---- */

static u64 work, work_seen;

static u64 work_cost(void *ctx)
{
	u64 d = work - work_seen;

	work_seen = work;
	return d * *(u64 *)ctx;
}

static void hook_a(void *arg)
{
	sim_frame_enter(SIM_FRAME("X"));
	work += 3;
	sim_sync(); /* 3 x 7 charged to A in X; then B (at 0) runs */
	sim_frame_exit(SIM_FRAME("X"));
	work += 2;  /* charged when A finishes */
}

static void hook_b(void *arg)
{
	work += 1;
}

static void test_cost_hook_charges_the_running_agent(void)
{
	/*
	 * 7 ns per unit of work. 100 units of setup before sim_run are
	 * nobody's. A: 3 units in X (21 ns), switches to B, 2 more at the end:
	 * clock 35, X self 21. B: 1 unit, 7 ns, though it ran between A's
	 * two pieces of work.
	 */
	u64 ns_per_unit = 7;
	struct sim_engine *e = new_engine(1, 0);
	struct sim_profile p;

	work = 100;
	work_seen = 0;
	sim_set_cost_hook(e, work_cost, &ns_per_unit);
	sim_agent_create(e, "A", NULL, hook_a, NULL);
	sim_agent_create(e, "B", NULL, hook_b, NULL);
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(sim_agent(e, 0)->clock, 35);
	EXPECT_EQ(sim_agent(e, 1)->clock, 7);
	sim_profile_agent(&p, sim_agent(e, 0));
	EXPECT(sim_profile_row(&p, "X") && sim_profile_row(&p, "X")->self_ns == 21);
	sim_profile_release(&p);
	sim_engine_destroy(e);
}

static struct sim_waitq wq = { .name = "kswapd_wait" };
static int wq_flag, wq_woken;
static u64 wq_woke_at;

static void waker_fn(void *arg)
{
	sim_sleep_until(500);
	sim_sync();
	wq_flag = 1;
	wq_woken = sim_wake_up(&wq, 0);
	sim_advance(10);
}

static void sleeper_fn(void *arg)
{
	sim_sync();
	if (!wq_flag)
		sim_wait(&wq, SIM_FRAME("kswapd_try_to_sleep"));
	wq_woke_at = sim_now();
	sim_advance(5);
}

static void test_wait_queue_and_sleep(void)
{
	/*
	 * The waker sleeps 0..500, sets the flag and wakes the sleeper, which
	 * went to sleep at 0 and runs from 500: 500 ns asleep, 5 of CPU.
	 */
	struct sim_engine *e = new_engine(1, 0);

	wq_flag = 0;
	sim_agent_create(e, "waker", NULL, waker_fn, NULL);
	sim_agent_create(e, "sleeper", NULL, sleeper_fn, NULL);
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(wq_woken, 1);
	EXPECT_EQ(wq_woke_at, 500);
	EXPECT_EQ(sim_agent(e, 1)->sleep_ns, 500);
	EXPECT_EQ(sim_agent(e, 1)->cpu_ns, 5);
	EXPECT_EQ(sim_agent(e, 0)->sleep_ns, 500);
	EXPECT_EQ(sim_agent(e, 0)->cpu_ns, 10);
	sim_engine_destroy(e);
}

static void leaker_fn(void *arg)
{
	sim_spin_lock(&spin, F_SPIN); /* and never unlocks */
}

static void test_deadlock_is_reported(void)
{
	struct sim_engine *e = new_engine(1, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	sim_spin_lock_init(&spin, "leaked");
	sim_agent_create(e, "leaker", NULL, leaker_fn, NULL);
	sim_agent_create(e, "victim", NULL, leaker_fn, NULL);
	EXPECT_EQ(sim_run(e), 1);
	EXPECT_EQ(sim_agent(e, 1)->state, SIM_PARKED);
	f = open_memstream(&buf, &len);
	sim_engine_report_stuck(e, f);
	fclose(f);
	EXPECT(strstr(buf, "victim") && strstr(buf, "leaked"));
	free(buf);
	sim_engine_destroy(e);
}

/* ---- scale and conservation ---- */

static struct sim_rwlock big;

static void round_trip_fn(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		sim_write_lock(&big, F_WRITE);
		sim_advance(10);
		sim_write_unlock(&big);
		sim_advance(90);
	}
}

static void test_1000_agents_1000_round_trips(void)
{
	/*
	 * 1000 agents each take the write lock 1000 times, hold 10, think 90.
	 * The lock is the bottleneck (1000 x 10 ns per round against 90 ns
	 * away) and FIFO, so grants go round-robin 0..999, grant g at 10 g.
	 * Round 0: agent k waits 10 k (sum 10 x 499500 = 4995000). Later
	 * rounds: agent k asks 100 ns after its last grant and is granted
	 * 10000 after it, so waits 9900: 999 x 1000 x 9900 = 9890100000.
	 * Only the very first acquisition is uncontended. The lock is held
	 * without a gap 0..10^7 (holds sum to 10^7, not more than the
	 * makespan); the last agent unlocks at 10^7 and thinks 90 more.
	 */
	struct sim_engine *e = new_engine(1, 128 * 1024);
	u64 cpu = 0;
	struct sim_profile p;

	sim_rwlock_init(&big, "mmu_lock");
	for (int i = 0; i < 1000; i++)
		sim_agent_create(e, "vcpu", "vcpu", round_trip_fn, NULL);
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(big.wr.acquired, 1000000);
	EXPECT_EQ(big.wr.contended, 999999);
	EXPECT_EQ(big.wr.wait_ns, 9895095000ULL);
	EXPECT_EQ(big.wr.hold_ns, 10000000);
	EXPECT_EQ(big.busy_ns, 10000000);
	EXPECT_EQ(sim_makespan(e), 10000090);
	EXPECT(big.wr.hold_ns <= sim_makespan(e));
	/* Every agent's time is its own work plus its spinning, nothing else. */
	for (int i = 0; i < 1000; i++) {
		cpu += sim_agent(e, i)->cpu_ns;
		EXPECT_EQ(sim_agent(e, i)->sleep_ns, 0);
	}
	EXPECT_EQ(cpu, 1000ULL * 1000 * 100 + big.wr.wait_ns);
	sim_profile_class(&p, e, "vcpu");
	EXPECT(sim_profile_row(&p, "_raw_write_lock") &&
	       sim_profile_row(&p, "_raw_write_lock")->self_ns == big.wr.wait_ns);
	sim_profile_release(&p);
	sim_engine_destroy(e);
}

/* ---- stacks ---- */

static int recurse(int n)
{
	volatile char buf[1024];

	buf[0] = (char)n;
	if (n == 0)
		return buf[0];
	return recurse(n - 1) + buf[0];
}

static void overflow_fn(void *arg)
{
	*(int *)arg = recurse(256); /* over 256 KiB of frames on a 64 KiB stack */
}

static void idle_fn(void *arg)
{
}

static void test_stack_overflow_faults(void)
{
	int status = 0;
	pid_t pid;

	/* Below every stack: an inaccessible guard, SIM_STACK_GUARD long. */
	struct sim_engine *e = new_engine(1, 64 * 1024);
	struct sim_agent *a = sim_agent_create(e, "a", NULL, idle_fn, NULL);
	unsigned long lo, hi, want = (unsigned long)a->ctx.map;
	bool guard = false, stack = false;
	char line[512], perms[8];
	FILE *maps = fopen("/proc/self/maps", "r");

	while (maps && fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3)
			continue;
		if (lo == want)
			guard = !strcmp(perms, "---p") && hi - lo == SIM_STACK_GUARD;
		if (lo <= want + SIM_STACK_GUARD && want + SIM_STACK_GUARD < hi)
			stack = !strncmp(perms, "rw", 2) && hi >= (unsigned long)a->ctx.stack_lo + 64 * 1024;
	}
	if (maps)
		fclose(maps);
	EXPECT(guard);
	EXPECT(stack);
	sim_engine_destroy(e);

	/*
	 * The agents created after "deep" get the mappings just below its
	 * stack (mmap allocates top-down): without a guard, its overflow
	 * would scribble over their stacks and return. It must fault.
	 */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct sim_engine *ce = new_engine(1, 64 * 1024);
		int r = 0;

		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		sim_agent_create(ce, "deep", NULL, overflow_fn, &r);
		for (int i = 0; i < 8; i++)
			sim_agent_create(ce, "below", NULL, idle_fn, NULL);
		sim_run(ce);
		_exit(42); /* only if the overflow went unnoticed */
	}
	EXPECT(pid > 0);
	waitpid(pid, &status, 0);
	/* killed by SIGSEGV, or ASan's report of it (exit 1): not 42 */
	EXPECT(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 42 &&
				       WEXITSTATUS(status) != 0));
}

static void test_ucontext_switches_run_the_same(void)
{
	/*
	 * With a shadow stack active every switch is swapcontext(): the same
	 * runs, with the same numbers, come out of that path.
	 */
	bool was = sim_ctx_uses_ucontext();

	printf("    # ASan, if present, warns once that it does not fully support swapcontext\n");
	fflush(stdout);
	sim_ctx_use_ucontext(true);
	test_clock_order_and_ties();
	test_queued_readers_enter_together();
	test_wait_queue_and_sleep();
	test_deadlock_is_reported();
	sim_ctx_use_ucontext(was);
}

/* ---- benchmark ---- */

static double secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void pingpong_fn(void *arg)
{
	long n = *(long *)arg;

	for (long i = 0; i < n; i++) {
		sim_advance(1);
		sim_sync();
	}
}

static void bench_switches(int agents, long per_agent)
{
	struct sim_engine *e = new_engine(1, 0);
	double t0;
	u64 n;

	for (int i = 0; i < agents; i++)
		sim_agent_create(e, "p", NULL, pingpong_fn, &per_agent);
	t0 = secs();
	sim_run(e);
	t0 = secs() - t0;
	n = sim_nr_switches(e);
	printf("# bench: %s, %d agents: %llu switches in %.3f s: %.2f M switches/s\n",
	       sim_ctx_uses_ucontext() ? "swapcontext" : "_setjmp/_longjmp", agents,
	       (unsigned long long)n, t0, n / t0 / 1e6);
	sim_engine_destroy(e);
}

static void bench_rw_fn(void *arg)
{
	for (int i = 0; i < 20000; i++) {
		if (sim_random(10)) {
			sim_read_lock(&big, F_READ);
			sim_advance(50);
			sim_read_unlock(&big);
		} else {
			sim_write_lock(&big, F_WRITE);
			sim_advance(50);
			sim_write_unlock(&big);
		}
		sim_advance(200 + sim_random(200));
	}
}

static void bench_locks(const char *what, int agents, void (*fn)(void *))
{
	struct sim_engine *e = new_engine(1, 128 * 1024);
	double t0;
	u64 ops;

	sim_rwlock_init(&big, "mmu_lock");
	for (int i = 0; i < agents; i++)
		sim_agent_create(e, "vcpu", "vcpu", fn, NULL);
	t0 = secs();
	sim_run(e);
	t0 = secs() - t0;
	ops = big.rd.acquired + big.wr.acquired;
	printf("# bench: %s, %d agents: %llu lock+unlock pairs in %.3f s: %.2f M pairs/s "
	       "(%.2f M switches/s, %llu contended)\n",
	       what, agents, (unsigned long long)ops, t0, ops / t0 / 1e6,
	       sim_nr_switches(e) / t0 / 1e6,
	       (unsigned long long)(big.rd.contended + big.wr.contended));
	sim_engine_destroy(e);
}

static void bench(void)
{
	bench_switches(2, 5000000);
	bench_switches(64, 100000);
	sim_ctx_use_ucontext(true);
	bench_switches(2, 500000);
	sim_ctx_use_ucontext(false);
	bench_locks("write lock, 10 held / 90 away", 1000, round_trip_fn);
	bench_locks("90% read lock, 50 held / 200-400 away", 64, bench_rw_fn);
}

static void callgraph_paths(void *arg)
{
	int f = SIM_FRAME("F"), g = SIM_FRAME("G"), h = SIM_FRAME("H");

	/* F{10 G{20 F{30} 5} 7} then H{4 G{6}} then F{1 G{2}} */
	frames_recursive(arg);
	sim_frame_enter(h);
	sim_advance(4);
	sim_frame_enter(g);
	sim_advance(6);
	sim_frame_exit(g);
	sim_frame_exit(h);
	sim_frame_enter(f);
	sim_advance(1);
	sim_frame_enter(g);
	sim_advance(2);
	sim_frame_exit(g);
	sim_frame_exit(f);
}

static int cg_node(const struct sim_callgraph *g, const char *path)
{
	/* "F/G/F": the node of that path from the root, or -1 */
	char buf[64], *tok, *save;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		int c;

		for (c = 1; c < g->nr_nodes; c++)
			if (g->nodes[c].parent == n && !strcmp(g->nodes[c].name, tok))
				break;
		if (c == g->nr_nodes)
			return -1;
		n = c;
	}
	return n;
}

static void test_callgraph_keeps_paths(void)
{
	/*
	 * Agent 0 (class k): F{10 G{20 F{30} 5} 7} 3, H{4 G{6}}, F{1 G{2}}:
	 * 88 ns of CPU. Paths: F (two calls: 72 + 3 = 75 incl), F/G (two:
	 * 55 + 2 = 57), F/G/F (30), H (10), H/G (6). G's total over every
	 * path is 57 + 6 = 63 (frames.h); under F alone it is 57. Agent 1
	 * (same class): G{100}: the merged graph adds a root child G (100),
	 * distinct from F/G. Agent 2 (class s) is left out of class k.
	 */
	struct sim_engine *e = new_engine(1, 0);
	struct sim_callgraph g;
	int n;

	sim_agent_create(e, "k0", "k", callgraph_paths, NULL);
	sim_agent_create(e, "k1", "k", frames_flat, NULL);
	sim_agent_create(e, "s", "s", frames_sleeper, NULL);
	EXPECT_EQ(sim_run(e), 0);
	sim_callgraph_class(&g, e, "k");
	EXPECT_EQ(g.cpu_ns, 188);
	EXPECT(g.nr_nodes == 7 && g.nodes[0].parent == -1 && g.nodes[0].incl_ns == 188);
	for (int i = 1; i < g.nr_nodes; i++)
		EXPECT(g.nodes[i].parent >= 0 && g.nodes[i].parent < i);
	n = cg_node(&g, "F");
	EXPECT(n > 0 && g.nodes[n].calls == 2 && g.nodes[n].incl_ns == 75);
	n = cg_node(&g, "F/G");
	EXPECT(n > 0 && g.nodes[n].calls == 2 && g.nodes[n].incl_ns == 57);
	n = cg_node(&g, "F/G/F");
	EXPECT(n > 0 && g.nodes[n].calls == 1 && g.nodes[n].incl_ns == 30);
	n = cg_node(&g, "H/G");
	EXPECT(n > 0 && g.nodes[n].calls == 1 && g.nodes[n].incl_ns == 6);
	n = cg_node(&g, "G");
	EXPECT(n > 0 && g.nodes[n].calls == 1 && g.nodes[n].incl_ns == 100);
	EXPECT_EQ(cg_node(&g, "schedule_timeout"), -1);
	sim_callgraph_release(&g);
	sim_engine_destroy(e);
}

static void callgraph_many(void *arg)
{
	char name[32];

	/* 5000 distinct callees of the root, 1 ns each; the last with a callee of its own */
	for (int i = 0; i < 5000; i++) {
		int id;

		snprintf(name, sizeof(name), "cg%d", i);
		id = sim_frame_id(name);
		sim_frame_enter(id);
		sim_advance(1);
		if (i == 4999) {
			sim_frame_enter(SIM_FRAME("F"));
			sim_advance(1);
			sim_frame_exit(SIM_FRAME("F"));
		}
		sim_frame_exit(id);
	}
	/* after the folded ones the agent is back at the root: a known path still counts */
	sim_frame_enter(SIM_FRAME("cg0"));
	sim_advance(2);
	sim_frame_exit(SIM_FRAME("cg0"));
}

static void test_callgraph_folds_beyond_its_limit(void)
{
	/*
	 * The tree keeps SIM_CG_MAX_NODES nodes (the root and 4095 callees);
	 * the other 905 callees, and F under the last, fold into the root:
	 * their time is the root's self. cg0 was kept: two calls, 1 + 2 ns.
	 */
	struct sim_engine *e = new_engine(1, 0);
	struct sim_callgraph g;
	u64 kids = 0;
	int n;

	sim_agent_create(e, "m", "m", callgraph_many, NULL);
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(sim_agent(e, 0)->nr_cg, SIM_CG_MAX_NODES);
	EXPECT_EQ(sim_agent(e, 0)->cg_cur, 0);
	EXPECT_EQ(sim_agent(e, 0)->cg_skip, 0);
	sim_callgraph_class(&g, e, "m");
	EXPECT_EQ(g.nr_nodes, SIM_CG_MAX_NODES);
	EXPECT_EQ(g.cpu_ns, 5003);
	for (int i = 1; i < g.nr_nodes; i++)
		kids += g.nodes[i].parent == 0 ? g.nodes[i].incl_ns : 0;
	EXPECT_EQ(kids, 4095 + 2);
	n = cg_node(&g, "cg0");
	EXPECT(n > 0 && g.nodes[n].calls == 2 && g.nodes[n].incl_ns == 3);
	EXPECT_EQ(cg_node(&g, "cg4999"), -1);
	EXPECT_EQ(cg_node(&g, "cg4999/F"), -1);
	sim_callgraph_release(&g);
	sim_engine_destroy(e);
}

static const struct ktap_case cases[] = {
	{ "clock_order_and_ties", test_clock_order_and_ties },
	{ "same_seed_same_trace", test_same_seed_same_trace },
	{ "rwlock_line_owner", test_rwlock_line_owner },
	{ "rwlock_bounces_in_modelled_order", test_rwlock_bounces_in_modelled_order },
	{ "writer_waits_for_readers_to_drain", test_writer_waits_for_readers_to_drain },
	{ "readers_queue_behind_waiting_writer", test_readers_queue_behind_waiting_writer },
	{ "queued_readers_enter_together", test_queued_readers_enter_together },
	{ "trylock_follows_the_queue", test_trylock_follows_the_queue },
	{ "spinlock_fifo", test_spinlock_fifo },
	{ "wait_charged_to_lock_frame", test_wait_charged_to_lock_frame },
	{ "spinlock_word_bounces", test_spinlock_word_bounces },
	{ "yield_runs_equal_clocks", test_yield_runs_equal_clocks },
	{ "frames_inclusive_and_self", test_frames_inclusive_and_self },
	{ "callgraph_keeps_paths", test_callgraph_keeps_paths },
	{ "callgraph_folds_beyond_its_limit", test_callgraph_folds_beyond_its_limit },
	{ "swapdev_depth_1", test_swapdev_depth_1 },
	{ "swapdev_depth_n", test_swapdev_depth_n },
	{ "cost_hook_charges_the_running_agent", test_cost_hook_charges_the_running_agent },
	{ "wait_queue_and_sleep", test_wait_queue_and_sleep },
	{ "deadlock_is_reported", test_deadlock_is_reported },
	{ "1000_agents_1000_round_trips", test_1000_agents_1000_round_trips },
	{ "stack_overflow_faults", test_stack_overflow_faults },
	{ "ucontext_switches_run_the_same", test_ucontext_switches_run_the_same },
};

int main(int argc, char **argv)
{
	F_WRITE = sim_frame_id("_raw_write_lock");
	F_READ = sim_frame_id("_raw_read_lock");
	F_SPIN = sim_frame_id("_raw_spin_lock");
	F_IO = sim_frame_id("io_schedule");
	if (getenv("PTELAB_BENCH") && !strcmp(getenv("PTELAB_BENCH"), "1")) {
		bench();
		return 0;
	}
	return ktap_main(argc, argv, "sim", cases, (int)ARRAY_SIZE(cases));
}
