/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A modelled perf profile of the measured phase: kernel-shaped code marks
 * the functions it enters (PERF_FUNC() at the top of zap_pte_range,
 * folio_referenced_one, ...; the arch API at its seam), and the modelled
 * time of every event counted while a function is innermost is its self
 * time, in the call chain it was reached by. The tree is what
 * `perf report --children` would show with call graphs; JSON "perf" folds
 * it to functions ({"self", "children"} shares), --report prints it.
 *
 * Time comes from the cost meter (hw_count() adds each event's cost to
 * hw_cost_acc): an enter or exit charges what accumulated since the last
 * one to the innermost frame, O(1). Workloads timed on the discrete-event
 * engine (sim/) drain that meter themselves and keep per-agent frames
 * instead (sim/frames.h): the tree is off for them.
 */
#ifndef PTELAB_HW_PERF_H
#define PTELAB_HW_PERF_H

#include "hw/events.h"

struct profile;

#define PERF_MAX_NODES 192 /* call-chain nodes kept; deeper or rarer ones fold into their caller */
#define PERF_NAME_LEN 40

/* One call-chain node as a run reports it (the root, index 0, is the phase). */
struct perf_node_out {
	char name[PERF_NAME_LEN];
	s16 parent;  /* index of the caller's node; -1 for the root */
	u64 calls;
	double self_ns, incl_ns; /* modelled */
};

extern bool perf_on;

/* The tree as it is built (perf.c); here so that the common steps inline. */
struct perf_node {
	int frame;   /* 0: the root */
	int parent;
	int child;   /* first child: the one entered last */
	int sibling; /* next child of the same parent */
	u64 calls;
	u64 self;    /* 2^-HW_COST_SHIFT ns */
};

#define PERF_MAX_DEPTH 256
extern struct perf_node perf_nodes[PERF_MAX_NODES];
extern int perf_stack[PERF_MAX_DEPTH];
extern int perf_depth; /* perf_stack[0] is the root while a phase runs */
extern int perf_lost;  /* frames entered past the stack's end */
extern u64 perf_last_acc;

/*
 * The child a (caller node, frame) pair was last found at, direct-mapped:
 * a caller that alternates between callees (a tree's loop calling its
 * small helpers in turn) finds each without walking its child list.
 * A slot whose caller is -1 is empty; node -1: the table was full, the
 * caller keeps the time (perf_enter_slow's fallback).
 */
#define PERF_CHILD_SLOTS 1024
struct perf_child_slot {
	int parent, frame, node;
};
extern struct perf_child_slot perf_child_cache[PERF_CHILD_SLOTS];

static inline struct perf_child_slot *perf_child_slot(int parent, int frame)
{
	return &perf_child_cache[((unsigned int)parent * 61u + (unsigned int)frame) &
				 (PERF_CHILD_SLOTS - 1)];
}

int perf_frame_id(const char *name); /* registered on first use */
void perf_enter_slow(int id);
void perf_exit_slow(int id);

/* What the meter accumulated since the last step goes to the innermost frame. */
static inline void perf_charge(void)
{
	perf_nodes[perf_stack[perf_depth - 1]].self += hw_cost_acc - perf_last_acc;
	perf_last_acc = hw_cost_acc;
}

static inline void perf_enter(int id)
{
	if (__builtin_expect(perf_on, 0)) {
		int top = perf_stack[perf_depth - 1];
		struct perf_child_slot *slot = perf_child_slot(top, id);

		/* a callee this caller entered before: most calls */
		if (slot->parent == top && slot->frame == id && slot->node > 0 && !perf_lost &&
		    perf_depth < PERF_MAX_DEPTH) {
			perf_charge();
			perf_nodes[slot->node].calls++;
			perf_stack[perf_depth++] = slot->node;
		} else {
			perf_enter_slow(id);
		}
	}
}

static inline void perf_exit(int id)
{
	if (__builtin_expect(perf_on, 0)) {
		if (!perf_lost && perf_depth > 1) {
			perf_charge();
			perf_depth--;
		} else {
			perf_exit_slow(id);
		}
	}
}

/* The id of a string, looked up once per call site. */
#define PERF_ID(name)                                                    \
	__extension__({                                                  \
		static int perf_id_;                                     \
		perf_id_ ? perf_id_ : (perf_id_ = perf_frame_id(name)); \
	})

static inline void perf_exit_cleanup(int *id)
{
	perf_exit(*id);
}

/*
 * At the top of a function: a frame named name from here to its return.
 * PERF_FUNC() names it after the enclosing function (kernel names).
 */
static inline int perf_enter_id(int id)
{
	perf_enter(id);
	return id;
}

#define PERF_FRAME(name)                                                       \
	int perf_frame_ __attribute__((cleanup(perf_exit_cleanup), unused)) =  \
		perf_enter_id(PERF_ID(name))
#define PERF_FUNC() PERF_FRAME(__func__)

/* The run's profile (its costs time the tree; NULL: no tree) and its phase's name (the root). */
void perf_attach(const struct profile *p, const char *phase);
/* A sim workload's meter took over hw_cost_acc: no tree for this run. */
void perf_detach(void);
/* Around each stretch of the measured phase (run_phase_begin/end). */
void perf_phase_begin(void);
void perf_phase_end(void);
/* The tree, nodes in creation order (parents first), times in ns; the count. */
int perf_export(struct perf_node_out *out, int max);

#endif
