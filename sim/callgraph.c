// SPDX-License-Identifier: GPL-2.0-only
/*
 * Call paths (callgraph.h). Each agent's tree is an array of nodes linked
 * child-to-sibling; the agent's current node follows its frame stack.
 * Merging walks each agent's tree beside the merged one.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/host.h"
#include "sim/callgraph.h"
#include "sim/frames.h"

static u32 cg_new(struct sim_agent *a, int id, u32 parent)
{
	struct sim_cg_node *n;

	if (a->nr_cg == a->cap_cg) {
		a->cap_cg = a->cap_cg ? 2 * a->cap_cg : 64;
		a->cg = host_realloc(a->cg, a->cap_cg * sizeof(*a->cg), "sim call graph");
	}
	n = &a->cg[a->nr_cg];
	*n = (struct sim_cg_node){ .id = id, .parent = parent };
	if (a->nr_cg) {
		n->next_sibling = a->cg[parent].first_child;
		a->cg[parent].first_child = a->nr_cg;
	}
	return a->nr_cg++;
}

void sim_cg_enter(struct sim_agent *a, int id)
{
	u32 c;

	if (!a->nr_cg)
		cg_new(a, 0, 0); /* the root */
	if (a->cg_skip) {
		a->cg_skip++;
		return;
	}
	for (c = a->cg[a->cg_cur].first_child; c; c = a->cg[c].next_sibling)
		if (a->cg[c].id == id)
			break;
	if (!c) {
		if (a->nr_cg == SIM_CG_MAX_NODES) {
			a->cg_skip = 1; /* folded into the current node */
			return;
		}
		c = cg_new(a, id, a->cg_cur);
	}
	a->cg[c].calls++;
	a->cg[c].cpu0 = a->cpu_ns;
	a->cg_cur = c;
}

void sim_cg_exit(struct sim_agent *a)
{
	struct sim_cg_node *n;

	if (a->cg_skip) {
		a->cg_skip--;
		return;
	}
	n = &a->cg[a->cg_cur];
	n->incl_cpu += a->cpu_ns - n->cpu0;
	a->cg_cur = n->parent;
}

void sim_cg_free(struct sim_agent *a)
{
	free(a->cg);
	a->cg = NULL;
	a->nr_cg = a->cap_cg = a->cg_cur = a->cg_skip = 0;
}

struct merge {
	struct sim_callgraph *g;
	int cap;
	int *first_child, *next_sibling; /* the merged tree's links, beside g->nodes */
	int *frame;                      /* its nodes' frame ids */
};

static int merged_child(struct merge *m, int parent, int id)
{
	int c;

	for (c = m->first_child[parent]; c >= 0; c = m->next_sibling[c])
		if (m->frame[c] == id)
			return c;
	if (m->g->nr_nodes == m->cap) {
		m->cap *= 2;
		m->g->nodes = host_realloc(m->g->nodes, m->cap * sizeof(*m->g->nodes), "call graph");
		m->first_child = host_realloc(m->first_child, m->cap * sizeof(int), "call graph");
		m->next_sibling = host_realloc(m->next_sibling, m->cap * sizeof(int), "call graph");
		m->frame = host_realloc(m->frame, m->cap * sizeof(int), "call graph");
	}
	c = m->g->nr_nodes++;
	m->g->nodes[c] = (struct sim_callgraph_node){ .name = sim_frame_name(id), .parent = parent };
	m->frame[c] = id;
	m->first_child[c] = -1;
	/* appended after the last child, so children keep the order they were first seen */
	m->next_sibling[c] = -1;
	if (m->first_child[parent] < 0) {
		m->first_child[parent] = c;
	} else {
		int s = m->first_child[parent];

		while (m->next_sibling[s] >= 0)
			s = m->next_sibling[s];
		m->next_sibling[s] = c;
	}
	return c;
}

/* Is node i of a on the agent's current path (entered and not left)? */
static bool cg_open(const struct sim_agent *a, u32 i)
{
	for (u32 n = a->cg_cur; n; n = a->cg[n].parent)
		if (n == i)
			return true;
	return false;
}

static void merge_agent(struct merge *m, const struct sim_agent *a, u32 src, int dst)
{
	/* an agent's tree lists children newest first: walk them oldest first */
	u32 kids[64], nk = 0;

	for (u32 c = a->cg[src].first_child; c; c = a->cg[c].next_sibling) {
		if (nk == 64) {
			/* more than 64 distinct callees of one path: rare; take them in any order */
			int d = merged_child(m, dst, a->cg[c].id);

			m->g->nodes[d].calls += a->cg[c].calls;
			m->g->nodes[d].incl_ns += a->cg[c].incl_cpu +
						  (cg_open(a, c) ? a->cpu_ns - a->cg[c].cpu0 : 0);
			merge_agent(m, a, c, d);
			continue;
		}
		kids[nk++] = c;
	}
	while (nk) {
		u32 c = kids[--nk];
		int d = merged_child(m, dst, a->cg[c].id);

		m->g->nodes[d].calls += a->cg[c].calls;
		m->g->nodes[d].incl_ns += a->cg[c].incl_cpu +
					  (cg_open(a, c) ? a->cpu_ns - a->cg[c].cpu0 : 0);
		merge_agent(m, a, c, d);
	}
}

void sim_callgraph_class(struct sim_callgraph *g, const struct sim_engine *e, const char *cls)
{
	struct merge m = { .g = g, .cap = 64 };

	memset(g, 0, sizeof(*g));
	g->nodes = host_calloc(m.cap, sizeof(*g->nodes), "call graph");
	m.first_child = host_calloc(m.cap, sizeof(int), "call graph");
	m.next_sibling = host_calloc(m.cap, sizeof(int), "call graph");
	m.frame = host_calloc(m.cap, sizeof(int), "call graph");
	g->nodes[0] = (struct sim_callgraph_node){ .name = "(root)", .parent = -1 };
	m.first_child[0] = m.next_sibling[0] = -1;
	g->nr_nodes = 1;
	for (int i = 0; i < sim_nr_agents(e); i++) {
		const struct sim_agent *a = sim_agent(e, i);

		if (cls && strcmp(a->cls, cls))
			continue;
		g->cpu_ns += a->cpu_ns;
		if (a->nr_cg)
			merge_agent(&m, a, 0, 0);
	}
	g->nodes[0].incl_ns = g->cpu_ns;
	free(m.first_child);
	free(m.next_sibling);
	free(m.frame);
}

void sim_callgraph_release(struct sim_callgraph *g)
{
	free(g->nodes);
	memset(g, 0, sizeof(*g));
}
