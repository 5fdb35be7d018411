/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command line's options, one table per subcommand: what getopt_long
 * parses (--opt value and --opt=value alike), what `ptelab help`, `CMD
 * --help` and `run WORKLOAD --help` print, and what the man page
 * (`ptelab help --man`) and the bash completion (`ptelab help
 * --completion`) are made of. One place to add an option.
 */
#ifndef PTELAB_CLI_OPTIONS_H
#define PTELAB_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "workloads/workload.h"

struct cli_opt {
	const char *name;    /* long name, without "--" */
	const char *arg;     /* its value's name ("SIZE"); NULL: a flag */
	const char *help;    /* what it does, one sentence */
	const char *dflt;    /* the default, as text; NULL: off / none */
	/* run: the RUN_OPT_* a workload must read for it to apply; 0: every workload */
	unsigned int applies;
	const char *values;  /* the values it takes, space separated (completion); NULL: free */
};

struct cli_cmd {
	const char *name;
	const char *synopsis; /* after "ptelab NAME" */
	const char *summary;
	const struct cli_opt *opts;
	const char *positional; /* what its positional arguments are (completion: "workloads", ...) */
};

extern const struct cli_cmd cli_cmds[];
const struct cli_cmd *cli_cmd_by_name(const char *name);

/* What ptelab says it is: "ptelab VERSION (git COMMIT)". */
const char *cli_version(void);

/*
 * Parse argv (after the subcommand's name) with getopt_long over cmd's
 * table into a new argv as the subcommand's loop reads it: the
 * positional arguments first, in order, then every option as "--name"
 * or "--name" "value", in order. Returns 0, 1 if --help or -h was given
 * (nothing else done), or -1 with one line in err (unknown option, a
 * missing value, a value given to a flag).
 */
int cli_normalize(const struct cli_cmd *cmd, int *argc, char ***argv, char *err, size_t errlen);

/* CMD --help; for run with a workload, only the options it reads, with its defaults. */
void cli_print_help(FILE *f, const struct cli_cmd *cmd, const struct workload *w);
/* ptelab help: every subcommand's synopsis and summary. */
void cli_print_overview(FILE *f);
/* The man page, ptelab.1 (troff), from the same tables. */
void cli_print_man(FILE *f);
/* A bash completion script for ptelab, from the same tables. */
void cli_print_completion(FILE *f);
/* The README's option reference (Markdown), from the same tables. */
void cli_print_markdown(FILE *f);

#endif
