/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Call paths, like `perf report -G`: beside the per-function totals of
 * frames.h, each agent keeps a tree of the frame paths it entered (a node
 * per distinct path from the agent's entry), with calls and inclusive CPU
 * time per node. A published profile that follows one branch (kswapd ->
 * ... -> folio_referenced -> rmap_walk_file -> ...) is compared with the
 * nodes of that branch, not with a function's total over every path.
 * O(children of the current node) per enter, O(1) per exit.
 */
#ifndef PTELAB_SIM_CALLGRAPH_H
#define PTELAB_SIM_CALLGRAPH_H

#include "sim/engine.h"

/* nodes an agent keeps; paths beyond fold into the deepest kept node */
#define SIM_CG_MAX_NODES 4096

struct sim_cg_node {
	int id;            /* frame id (frames.h); 0 for the root */
	u32 parent;
	u32 first_child, next_sibling; /* 0: none (node 0 is the root, never a child) */
	u64 calls;
	u64 incl_cpu;
	u64 cpu0;          /* the agent's cpu_ns when it was entered (open nodes) */
};

/* For frames.c: the agent enters frame id under its current path, or leaves it. */
void sim_cg_enter(struct sim_agent *a, int id);
void sim_cg_exit(struct sim_agent *a);
void sim_cg_free(struct sim_agent *a);

/* A merged call graph: nodes parents first, node 0 the root (every agent's entry). */
struct sim_callgraph_node {
	const char *name;
	int parent;        /* -1 for the root */
	u64 calls;
	u64 incl_ns;       /* CPU; open frames count up to the agent's clock */
};

struct sim_callgraph {
	u64 cpu_ns;        /* the agents' CPU time: the root's inclusive time */
	int nr_nodes;
	struct sim_callgraph_node *nodes;
};

/* The paths of every agent of class cls (NULL: every agent), merged by path. */
void sim_callgraph_class(struct sim_callgraph *g, const struct sim_engine *e, const char *cls);
void sim_callgraph_release(struct sim_callgraph *g);

#endif
