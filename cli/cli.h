/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PTELAB_CLI_CLI_H
#define PTELAB_CLI_CLI_H

#include <stdio.h>

#include "hw/invariants.h"
#include "hw/profile.h"
#include "lab/paths.h"
#include "workloads/workload.h"

#define MAX_WITHOUT 8
/* Backends in one `--impl a,b,c` (kernel/backend.c loads at most 16). */
#define MAX_IMPLS 16
/* --profile was given (maybe empty): a machine option, not a RUN_OPT_ */
#define RUN_SET_PROFILE (1u << 16)
/* --timeout was given; else the watchdog grows with --iterations */
#define RUN_SET_TIMEOUT (1u << 17)
/*
 * The watchdog's default: generous for every full-scale published run
 * (the longest, S4, takes seconds), plus 0.2 s per iteration asked for.
 */
#define DEFAULT_TIMEOUT_S 900

struct run_spec {
	const struct workload *w;
	struct run_params p;
	char profile[64];
	int nr_without;
	const char *without[MAX_WITHOUT];
	unsigned int set;       /* RUN_OPT_* (and RUN_SET_*) given on the command line */
	unsigned int timeout_s; /* the child is killed after this; 0: never */
	bool perf;              /* keep the modelled perf profile (hw/perf.h): costs time */
};

/*
 * Kernel code that crashed, hung or exited instead of returning: a
 * finding about the backend, located in its source where possible.
 */
struct run_finding {
	bool present;
	bool in_kernel;       /* located in a kernel backend's code */
	char kind[16];        /* crash, timeout, exit, sanitizer, lost */
	char signal[16];      /* SIGSEGV, ... ("" if none) */
	bool has_addr;
	unsigned long fault_addr;
	int exit_status;
	char function[128];   /* innermost kernel function, or innermost function */
	char file[256];
	int line;
	char inner[320];      /* "fn (file:line)" of the innermost frame when not the kernel's */
	char sanitizer[320];  /* a sanitizer's one-line summary */
	char summary[768];    /* one line saying all of it */
};

struct run_out {
	struct run_result r;
	struct profile prof;
	double modelled_ns;
	bool ok; /* invariants held and no finding */
	struct hw_violations viol; /* what the run's invariant checks found */
	struct run_finding finding;
	/*
	 * Not simulated: the events of this row of an experiment, costed
	 * with another profile (reproduce, where only the profile differs
	 * and nothing the simulation does depends on it); "" when it ran.
	 */
	char derived_from[96];
};

/* Bytes from "4096", "64K", "2M", "1G", "1T"; -1 if malformed, -2 if over 64 bits. */
int parse_size(const char *s, u64 *out);
void run_spec_defaults(struct run_spec *s, const struct workload *w);
/*
 * Checks everything that can be checked without running, loads the
 * backend, and fills in what the workload will use (defaults made
 * explicit, so JSON params say what ran). -1 with one line in err.
 */
int run_spec_validate(struct run_spec *s, char *err, size_t errlen);
/*
 * Validates, then runs in a child process (kernel/isolate.h). 0 with *o
 * filled — a crash or hang of kernel code is o->finding, not an error —
 * or -1 with a one-line reason in err (bad input, host out of memory).
 */
int run_spec_execute(struct run_spec *s, struct run_out *o, char *err, size_t errlen);
/*
 * The version of the JSON shapes run, reproduce and check print (README,
 * "Reading the JSON"): raised when a key changes meaning or goes away,
 * not when one is added.
 */
#define PTELAB_JSON_SCHEMA 1
void print_run_json(FILE *f, const struct run_spec *s, const struct run_out *o);
/* str as a JSON string, quoted and escaped */
void json_string(FILE *f, const char *str);
/* text's lines as a JSON array of strings */
void json_lines(FILE *f, const char *text);
void print_run_table(FILE *f, const struct run_spec *s, const struct run_out *o);
/* The modelled perf profile (cli/perf_report.c): JSON "perf" and "perf_tree", or text. */
void json_perf(FILE *f, const struct run_result *r);
void print_perf_report(FILE *f, const struct run_result *r);
/* fn's self and children shares of r's modelled profile; false (0, 0) if never entered */
bool perf_function_share(const struct run_result *r, const char *fn, double *self, double *children);
/* The command line that reruns exactly this run, shell-quoted. */
#define REPRODUCER_MAX 16384 /* a tree path is at most PATH_MAX (4096), quoted */
void run_spec_reproducer(const struct run_spec *s, char *buf, size_t len);
/* Appends " WORD" to buf, single-quoted (a ' as '\'') unless plainly safe for a shell. */
void cli_shell_word(char *buf, size_t len, const char *w);
/* A finding as lines for a terminal (stdout) or a log. */
void print_finding(FILE *f, const struct run_spec *s, const struct run_out *o);

void print_side_by_side(FILE *f, const struct run_spec *s, const char *const *impls,
			const struct run_out *outs, int n);

/* "a,b,c" into names (pointing into buf); -1 with err if empty or too many. */
int split_impls(const char *list, char *buf, size_t buflen, const char **names, int max,
		char *err, size_t errlen);

/* the command line ptelab was started with, shell-quoted (JSON "command") */
extern char cli_command_line[8192];

int cmd_reproduce(int argc, char **argv);
/* check --diff A,B (cli/check_diff.c), the options check parsed */
int cmd_check_diff(const char *pair, const char *arch_name, u64 seqs, u64 seed, u64 timeout,
		   bool timeout_set, bool json);
int cmd_check(int argc, char **argv);
/* ptelab host WORKLOAD: the workload's shape on the running kernel (cli/host.c) */
int cmd_host(int argc, char **argv);

/* Published figures (data/published.tsv), shown only as "published". */
int published_get(const char *experiment, const char *row, const char *column,
		  double *value, const char **source);

#endif
