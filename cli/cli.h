/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PTELAB_CLI_CLI_H
#define PTELAB_CLI_CLI_H

#include <stdio.h>

#include "hw/profile.h"
#include "workloads/workload.h"

#define MAX_WITHOUT 8

struct run_spec {
	const struct workload *w;
	struct run_params p;
	char profile[64];
	int nr_without;
	const char *without[MAX_WITHOUT];
};

struct run_out {
	struct run_result r;
	struct profile prof;
	double modelled_ns;
	bool ok; /* invariants */
};

/* Bytes from "4096", "64K", "2M", "1G"; -1 if malformed. */
int parse_size(const char *s, u64 *out);
void run_spec_defaults(struct run_spec *s, const struct workload *w);
/* Validates and runs; -1 with a one-line reason in err. */
int run_spec_execute(const struct run_spec *s, struct run_out *o, char *err,
		     size_t errlen);
void print_run_json(FILE *f, const struct run_spec *s, const struct run_out *o);
void print_run_table(FILE *f, const struct run_spec *s, const struct run_out *o);

void print_side_by_side(FILE *f, const struct run_spec *s, const char *const *impls,
			const struct run_out *outs, int n);

int cmd_reproduce(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* Published figures (data/published.tsv), shown only as "published". */
int published_get(const char *experiment, const char *row, const char *column,
		  double *value, const char **source);

#endif
