// SPDX-License-Identifier: GPL-2.0-only
/*
 * Profile frames (frames.h). Each agent keeps a stack of frame ids and,
 * per id, how deep the frame is on it: self time goes to the top of the
 * stack as it is charged (sim_account), inclusive time is the difference
 * of the agent's running totals between the outermost enter and its exit,
 * so recursion counts once and both operations are O(1).
 */
#include <stdlib.h>
#include <string.h>

#include "hw/host.h"
#include "sim/callgraph.h"
#include "sim/frames.h"

/* Process-wide name registry: ids are stable for the life of the process. */
static char **frame_names;
static int nr_frame_names, cap_frame_names;

int sim_frame_id(const char *name)
{
	for (int i = 0; i < nr_frame_names; i++)
		if (!strcmp(frame_names[i], name))
			return i + 1;
	if (nr_frame_names == cap_frame_names) {
		cap_frame_names = cap_frame_names ? 2 * cap_frame_names : 64;
		frame_names = host_realloc(frame_names, cap_frame_names * sizeof(*frame_names),
					   "sim frame names");
	}
	frame_names[nr_frame_names] = strdup(name);
	if (!frame_names[nr_frame_names])
		host_oom("sim frame name", strlen(name));
	return ++nr_frame_names;
}

const char *sim_frame_name(int id)
{
	return id >= 1 && id <= nr_frame_names ? frame_names[id - 1] : "?";
}

int sim_nr_frame_ids(void)
{
	return nr_frame_names;
}

void __sim_frame_enter(struct sim_agent *a, int id)
{
	struct sim_frame_acc *f;

	(void)sim_now(); /* work done before the call belongs to the caller's frames */
	if ((u32)id >= a->nr_fr) {
		u32 n = max((u32)id + 1, 2 * a->nr_fr);

		a->fr = host_realloc(a->fr, n * sizeof(*a->fr), "sim frames");
		memset(a->fr + a->nr_fr, 0, (n - a->nr_fr) * sizeof(*a->fr));
		a->nr_fr = n;
	}
	if (a->fdepth == a->fstack_cap) {
		a->fstack_cap = a->fstack_cap ? 2 * a->fstack_cap : 32;
		a->fstack = host_realloc(a->fstack, a->fstack_cap * sizeof(*a->fstack), "sim frame stack");
	}
	a->fstack[a->fdepth++] = id;
	sim_cg_enter(a, id);
	f = &a->fr[id];
	f->calls++;
	if (f->depth++ == 0) {
		f->cpu0 = a->cpu_ns;
		f->sleep0 = a->sleep_ns;
	}
}

static void frame_pop(struct sim_agent *a)
{
	struct sim_frame_acc *f = &a->fr[a->fstack[--a->fdepth]];

	sim_cg_exit(a);
	if (--f->depth == 0) {
		f->incl_cpu += a->cpu_ns - f->cpu0;
		f->incl_sleep += a->sleep_ns - f->sleep0;
	}
}

void __sim_frame_exit(struct sim_agent *a, int id)
{
	(void)sim_now();
	if (!a->fdepth || a->fstack[a->fdepth - 1] != id)
		sim_bug("sim_frame_exit(%s) but the innermost frame is %s", sim_frame_name(id),
			a->fdepth ? sim_frame_name(a->fstack[a->fdepth - 1]) : "none");
	frame_pop(a);
}

void sim_frames_close_all(struct sim_agent *a)
{
	while (a->fdepth)
		frame_pop(a);
}

void sim_frames_free(struct sim_agent *a)
{
	free(a->fr);
	free(a->fstack);
	sim_cg_free(a);
	a->fr = NULL;
	a->fstack = NULL;
	a->nr_fr = a->fdepth = a->fstack_cap = 0;
}

/* Add a's frames into rows indexed by id (rows has sim_nr_frame_ids() + 1). */
static void profile_add(struct sim_profile *p, struct sim_frame_row *rows, const struct sim_agent *a)
{
	p->nr_agents++;
	p->cpu_ns += a->cpu_ns;
	p->sleep_ns += a->sleep_ns;
	for (u32 id = 1; id < a->nr_fr; id++) {
		const struct sim_frame_acc *f = &a->fr[id];
		struct sim_frame_row *r = &rows[id];

		if (!f->calls)
			continue;
		r->calls += f->calls;
		r->incl_ns += f->incl_cpu + (f->depth ? a->cpu_ns - f->cpu0 : 0);
		r->incl_sleep_ns += f->incl_sleep + (f->depth ? a->sleep_ns - f->sleep0 : 0);
		r->self_ns += f->self_cpu;
		r->self_sleep_ns += f->self_sleep;
	}
}

static int row_cmp(const void *x, const void *y)
{
	const struct sim_frame_row *a = x, *b = y;

	if (a->incl_ns != b->incl_ns)
		return a->incl_ns > b->incl_ns ? -1 : 1;
	return a->id - b->id;
}

/* Keep the frames that were entered, with names and shares, sorted. */
static void profile_finish(struct sim_profile *p, struct sim_frame_row *rows, int n)
{
	int k = 0;

	for (int id = 1; id < n; id++) {
		if (!rows[id].calls)
			continue;
		rows[k] = rows[id];
		rows[k].id = id;
		rows[k].name = sim_frame_name(id);
		rows[k].share = p->cpu_ns ? (double)rows[k].incl_ns / (double)p->cpu_ns : 0.0;
		k++;
	}
	qsort(rows, k, sizeof(*rows), row_cmp);
	p->rows = rows;
	p->nr_rows = k;
}

static struct sim_frame_row *profile_start(struct sim_profile *p, int *n)
{
	memset(p, 0, sizeof(*p));
	*n = sim_nr_frame_ids() + 1;
	return host_calloc(*n, sizeof(struct sim_frame_row), "sim profile");
}

void sim_profile_agent(struct sim_profile *p, const struct sim_agent *a)
{
	int n;
	struct sim_frame_row *rows = profile_start(p, &n);

	profile_add(p, rows, a);
	profile_finish(p, rows, n);
}

void sim_profile_class(struct sim_profile *p, const struct sim_engine *e, const char *cls)
{
	int n;
	struct sim_frame_row *rows = profile_start(p, &n);

	for (int i = 0; i < sim_nr_agents(e); i++) {
		const struct sim_agent *a = sim_agent(e, i);

		if (!cls || !strcmp(a->cls, cls))
			profile_add(p, rows, a);
	}
	profile_finish(p, rows, n);
}

const struct sim_frame_row *sim_profile_row(const struct sim_profile *p, const char *name)
{
	for (int i = 0; i < p->nr_rows; i++)
		if (!strcmp(p->rows[i].name, name))
			return &p->rows[i];
	return NULL;
}

void sim_profile_release(struct sim_profile *p)
{
	free(p->rows);
	memset(p, 0, sizeof(*p));
}
