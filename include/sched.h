/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The task running kernel code: `current`, as in the kernel. Sequential
 * runs have one (the lab's init task); the discrete-event engine gives
 * each agent (vCPU thread, kswapd) its own and switches `current` with it.
 */
#ifndef PTELAB_INCLUDE_SCHED_H
#define PTELAB_INCLUDE_SCHED_H

#include "include/pagevec.h"
#include "sim/engine.h"

struct reclaim_state;

#define PF_MEMALLOC 0x00000800  /* reclaiming: allocations may not reclaim again */
#define PF_KSWAPD 0x00020000    /* I am kswapd */

struct task_struct {
	const char *comm;
	unsigned int flags;     /* PF_* */
	/* set while the task reclaims (set_task_reclaim_state) */
	struct reclaim_state *reclaim_state;
	/* in handle_mm_fault of a VMA with recency (lru_gen_enter_fault) */
	bool in_lru_fault;
	/*
	 * cpu_fbatches.lru_add: folios waiting to go onto the LRU, by pfn
	 * (the lab's tasks keep their CPUs, so the per-CPU batch is the
	 * task's). Only on the discrete-event engine (mm/lru.c).
	 */
	unsigned int lru_add_nr;
	u32 lru_add[PAGEVEC_SIZE];
	struct task_struct *lru_add_next; /* on mm/lru.c's list of tasks with a batch */
};

extern struct task_struct init_task;
extern struct task_struct *current_task;

/* The running sim agent's task (vCPU thread, kswapd), else the sequential one. */
static inline struct task_struct *get_current(void)
{
	struct sim_agent *a = sim_current_agent;

	return a && a->task ? (struct task_struct *)a->task : current_task;
}
#define current get_current()

static inline bool current_is_kswapd(void)
{
	return current->flags & PF_KSWAPD;
}

static inline void set_task_reclaim_state(struct task_struct *task,
					  struct reclaim_state *rs)
{
	task->reclaim_state = rs;
}

/* MGLRU: folios added to the LRU inside a page fault are hot (mm/memory.c) */
static inline bool lru_gen_in_fault(void)
{
	return current->in_lru_fault;
}

#endif
