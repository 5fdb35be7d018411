/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The task running kernel code: `current`, as in the kernel. Sequential
 * runs have one (the lab's init task); the discrete-event engine gives
 * each agent (vCPU thread, kswapd) its own and switches `current` with it.
 */
#ifndef PTELAB_INCLUDE_SCHED_H
#define PTELAB_INCLUDE_SCHED_H

struct reclaim_state;

struct task_struct {
	const char *comm;
	/* set while the task reclaims (set_task_reclaim_state) */
	struct reclaim_state *reclaim_state;
};

extern struct task_struct init_task;
extern struct task_struct *current_task;
#define current current_task

static inline void set_task_reclaim_state(struct task_struct *task,
					  struct reclaim_state *rs)
{
	task->reclaim_state = rs;
}

#endif
