// SPDX-License-Identifier: GPL-2.0-only
/*
 * A run's modelled perf profile (hw/perf.h) as JSON and as text, like
 * `perf report --children`: per function its self share (time while it
 * was innermost) and its children share (time while it was anywhere on
 * the stack, counted once under recursion), of the root's time -- the
 * measured phase's modelled time, or for a sim workload every agent's
 * CPU time.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

struct perf_fn {
	const char *name;
	double self, children;
	u64 calls;
};

/* Is an ancestor of node i (the root excluded) named like it? */
static bool under_itself(const struct run_result *r, int i)
{
	for (int a = r->perf[i].parent; a > 0; a = r->perf[a].parent)
		if (!strcmp(r->perf[a].name, r->perf[i].name))
			return true;
	return false;
}

/* The tree folded to functions, largest children share first; the count. */
static int perf_fold(const struct run_result *r, struct perf_fn *fn)
{
	int n = 0;

	for (int i = 1; i < r->nr_perf; i++) {
		const struct perf_node_out *p = &r->perf[i];
		int k;

		for (k = 0; k < n && strcmp(fn[k].name, p->name); k++)
			;
		if (k == n)
			fn[n++] = (struct perf_fn){ .name = p->name };
		fn[k].self += p->self_ns;
		fn[k].calls += p->calls;
		if (!under_itself(r, i))
			fn[k].children += p->incl_ns;
	}
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && fn[j].children > fn[j - 1].children; j--) {
			struct perf_fn t = fn[j];

			fn[j] = fn[j - 1];
			fn[j - 1] = t;
		}
	return n;
}

static double perf_total(const struct run_result *r)
{
	return r->nr_perf ? r->perf[0].incl_ns : 0;
}

static double share(double ns, double total)
{
	return total > 0 ? ns / total : 0;
}

void json_perf(FILE *f, const struct run_result *r)
{
	struct perf_fn fn[PERF_MAX_NODES];
	double total = perf_total(r);
	int n;

	if (!r->nr_perf) {
		fprintf(f, ", \"perf\": null");
		return;
	}
	n = perf_fold(r, fn);
	fprintf(f, ", \"perf\": {");
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_string(f, fn[i].name);
		fprintf(f, ": {\"self\": %.9g, \"children\": %.9g, \"calls\": %llu}",
			share(fn[i].self, total), share(fn[i].children, total),
			(unsigned long long)fn[i].calls);
	}
	/* the tree itself: parents before children, shares of the root */
	fprintf(f, "}, \"perf_tree\": {\"root\": ");
	json_string(f, r->perf[0].name);
	fprintf(f, ", \"total_ns\": %.17g, \"flat\": %s, \"nodes\": [", total,
		r->perf_flat ? "true" : "false");
	for (int i = 0; i < r->nr_perf; i++) {
		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		json_string(f, r->perf[i].name);
		fprintf(f, ", \"parent\": %d, \"calls\": %llu, \"self\": %.9g, \"children\": %.9g}",
			r->perf[i].parent, (unsigned long long)r->perf[i].calls,
			share(r->perf[i].self_ns, total), share(r->perf[i].incl_ns, total));
	}
	fprintf(f, "]}");
}

/* Callees of node i, largest first, down to min of the total. */
static void tree_print(FILE *f, const struct run_result *r, int i, int depth, double total)
{
	int kids[PERF_MAX_NODES], nk = 0;

	for (int k = i + 1; k < r->nr_perf; k++)
		if (r->perf[k].parent == i)
			kids[nk++] = k;
	for (int a = 1; a < nk; a++)
		for (int b = a; b > 0 && r->perf[kids[b]].incl_ns > r->perf[kids[b - 1]].incl_ns; b--) {
			int t = kids[b];

			kids[b] = kids[b - 1];
			kids[b - 1] = t;
		}
	for (int a = 0; a < nk; a++) {
		const struct perf_node_out *p = &r->perf[kids[a]];

		if (share(p->incl_ns, total) < 0.0005)
			continue;
		fprintf(f, "  %7.2f%%  %7.2f%%  %10llu  %*s%s\n", 100 * share(p->incl_ns, total),
			100 * share(p->self_ns, total), (unsigned long long)p->calls, 2 * depth, "",
			p->name);
		tree_print(f, r, kids[a], depth + 1, total);
	}
}

void print_perf_report(FILE *f, const struct run_result *r)
{
	struct perf_fn fn[PERF_MAX_NODES];
	double total = perf_total(r);
	int n;

	if (!r->nr_perf) {
		fprintf(f, "\nno modelled perf profile for this run\n");
		return;
	}
	fprintf(f, "\nmodelled perf profile of %s (%.3f ms%s), like perf report --children:\n",
		r->perf[0].name, total / 1e6,
		r->perf_flat ? ", CPU time of every agent" : "");
	fprintf(f, "  %8s  %8s  %10s  %s\n", "Children", "Self", "Calls", "Symbol");
	n = perf_fold(r, fn);
	for (int i = 0; i < n; i++)
		if (share(fn[i].children, total) >= 0.0005)
			fprintf(f, "  %7.2f%%  %7.2f%%  %10llu  %s\n", 100 * share(fn[i].children, total),
				100 * share(fn[i].self, total), (unsigned long long)fn[i].calls,
				fn[i].name);
	if (r->perf_flat)
		return;
	fprintf(f, "\ncall graph (callees under their callers; %.2f%% self in %s itself):\n",
		100 * share(r->perf[0].self_ns, total), r->perf[0].name);
	fprintf(f, "  %8s  %8s  %10s  %s\n", "Children", "Self", "Calls", "Symbol");
	tree_print(f, r, 0, 0, total);
}

/* fn's shares of the run's modelled perf profile; false if it never ran. */
bool perf_function_share(const struct run_result *r, const char *fn, double *self, double *children)
{
	struct perf_fn f[PERF_MAX_NODES];
	int n = perf_fold(r, f);

	for (int i = 0; i < n; i++)
		if (!strcmp(f[i].name, fn)) {
			*self = share(f[i].self, perf_total(r));
			*children = share(f[i].children, perf_total(r));
			return true;
		}
	*self = *children = 0;
	return false;
}
