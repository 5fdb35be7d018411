// SPDX-License-Identifier: GPL-2.0-only
/*
 * The modelled perf profile (perf.h). Frames are names registered once;
 * nodes are (caller node, frame) pairs in a fixed table, found through a
 * direct-mapped cache of those pairs (perf.h), else the caller's child
 * list (few children each; the last one hit is moved to the front).
 * Time is charged in the meter's fixed point and converted to ns only at
 * export.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hw/host.h"
#include "hw/perf.h"
#include "hw/profile.h"
#include "hw/state.h"

bool perf_on;

static const char **frame_names; /* by id - 1 */
static int nr_frames, cap_frames;

struct perf_node perf_nodes[PERF_MAX_NODES];
struct perf_child_slot perf_child_cache[PERF_CHILD_SLOTS];
static int nr_nodes;
int perf_stack[PERF_MAX_DEPTH];
int perf_depth;
int perf_lost;
u64 perf_last_acc;
static const struct profile *perf_prof;
static bool perf_blocked; /* a sim meter owns hw_cost_acc */
static char phase_name[PERF_NAME_LEN];

/*
 * A node's calls and self time only grow, and are read at export: they
 * accumulate (hw/state.h). Its links are state, and so is the time not
 * yet charged (lab/fast_forward.c digests hw_cost_acc - perf_last_acc).
 */
static void __attribute__((constructor)) perf_state(void)
{
	_Static_assert(__builtin_offsetof(struct perf_node, self) ==
		       __builtin_offsetof(struct perf_node, calls) + sizeof(u64), "calls, then self");
	for (int i = 0; i < PERF_MAX_NODES; i++)
		hw_state_register(&perf_nodes[i].calls, 2 * sizeof(u64), HW_STATE_ACCUMULATES);
	hw_state_register(&perf_last_acc, sizeof(perf_last_acc), HW_STATE_ACCUMULATES);
}

int perf_frame_id(const char *name)
{
	for (int i = 0; i < nr_frames; i++)
		if (!strcmp(frame_names[i], name))
			return i + 1;
	if (nr_frames == cap_frames) {
		cap_frames = cap_frames ? 2 * cap_frames : 128;
		frame_names = host_realloc(frame_names, cap_frames * sizeof(*frame_names), "perf frames");
	}
	/* names are the callers' literals (__func__ or a string constant) */
	frame_names[nr_frames] = name;
	return ++nr_frames;
}

void perf_enter_slow(int id)
{
	int top, *link, n;

	if (perf_lost || perf_depth == PERF_MAX_DEPTH) {
		perf_lost++;
		return;
	}
	perf_charge();
	top = perf_stack[perf_depth - 1];
	for (link = &perf_nodes[top].child; (n = *link); link = &perf_nodes[n].sibling)
		if (perf_nodes[n].frame == id)
			break;
	if (n) {
		if (link != &perf_nodes[top].child) { /* to the front: loops enter the same child */
			*link = perf_nodes[n].sibling;
			perf_nodes[n].sibling = perf_nodes[top].child;
			perf_nodes[top].child = n;
		}
	} else if (nr_nodes < PERF_MAX_NODES) {
		n = nr_nodes++;
		perf_nodes[n] = (struct perf_node){ .frame = id, .parent = top,
						    .sibling = perf_nodes[top].child };
		perf_nodes[top].child = n;
	} else {
		n = top; /* the table is full: the caller keeps the time */
	}
	perf_nodes[n].calls += n != top;
	perf_stack[perf_depth++] = n;
	*perf_child_slot(top, id) = (struct perf_child_slot){ top, id, n != top ? n : -1 };
}

void perf_exit_slow(int id)
{
	(void)id;
	if (perf_lost) {
		perf_lost--;
		return;
	}
	/* a frame entered before the phase began has no node: nothing to pop */
	if (perf_depth <= 1)
		return;
	perf_charge();
	perf_depth--;
}

void perf_attach(const struct profile *p, const char *phase)
{
	perf_prof = p;
	perf_blocked = false;
	perf_on = false;
	nr_nodes = 0;
	/* the nodes are gone: so are the slots naming them */
	memset(perf_child_cache, 0xff, sizeof(perf_child_cache));
	snprintf(phase_name, sizeof(phase_name), "%s", phase ? phase : "measured phase");
}

void perf_detach(void)
{
	perf_blocked = true;
	perf_on = false;
}

void perf_phase_begin(void)
{
	if (!perf_prof || perf_blocked)
		return;
	if (!nr_nodes) {
		perf_nodes[0] = (struct perf_node){ .frame = 0, .parent = -1 };
		nr_nodes = 1;
	}
	/* the meter: hw_count() adds each event's cost from here on */
	if (!hw_cost_on) {
		for (int i = 0; i < NR_HW_EVENTS; i++)
			hw_cost_rate[i] = (u64)llround(perf_prof->cost[i] * (double)(1ULL << HW_COST_SHIFT));
		hw_cost_on = true;
	}
	perf_nodes[0].calls++;
	perf_stack[0] = 0;
	perf_depth = 1;
	perf_lost = 0;
	perf_last_acc = hw_cost_acc;
	perf_on = true;
}

void perf_phase_end(void)
{
	if (!perf_on)
		return;
	/* frames still open (the phase ended inside a function) close here */
	while (perf_depth > 1) {
		perf_charge();
		perf_depth--;
	}
	perf_charge();
	perf_on = false;
}

/* Inclusive time: children come after their parents in the table. */
int perf_export(struct perf_node_out *out, int max)
{
	int n = nr_nodes < max ? nr_nodes : max;
	const double scale = 1.0 / (double)(1ULL << HW_COST_SHIFT);

	for (int i = 0; i < n; i++) {
		const struct perf_node *s = &perf_nodes[i];
		const char *name = i ? frame_names[s->frame - 1] : phase_name;

		snprintf(out[i].name, sizeof(out[i].name), "%s", name);
		out[i].parent = (s16)s->parent;
		out[i].calls = s->calls;
		out[i].self_ns = (double)s->self * scale;
		out[i].incl_ns = out[i].self_ns;
	}
	for (int i = n - 1; i > 0; i--)
		out[out[i].parent].incl_ns += out[i].incl_ns;
	return n;
}
