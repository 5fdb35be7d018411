// SPDX-License-Identifier: GPL-2.0-only
/* Mirrors 7.3: init/init_task.c — the task sequential runs execute as. */
#include "include/sched.h"

struct task_struct init_task = { .comm = "ptelab" };
struct task_struct *current_task = &init_task;
