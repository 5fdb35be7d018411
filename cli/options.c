// SPDX-License-Identifier: GPL-2.0-only
/* The option tables of every subcommand and what is made of them (cli/options.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "hw/types.h"

#if __has_include("build/version.h")
#include "build/version.h" /* made by the Makefile */
#endif
#ifndef PTELAB_VERSION
#define PTELAB_VERSION "0.0"
#endif
#ifndef PTELAB_COMMIT
#define PTELAB_COMMIT "unknown"
#endif

#define POLICIES "accessed first random adversarial"

static const struct cli_opt run_opts[] = {
	{ "arch", "ARCH", "the simulated machine's architecture", "arm64", 0, "arm64 x86" },
	{ "impl", "IMPL[,IMPL]...", "the PTE code to run: ref (built in), linux-X.Y (a fetched "
	  "kernel), tree:PATH (a kernel tree), git:PATH@REV (a revision of a kernel repository); "
	  "several side by side, the first the baseline", "ref", 0, NULL },
	{ "profile", "NAME", "the machine cost profile ('ptelab list' shows them)",
	  "the workload's for --arch", 0, NULL },
	{ "size", "SIZE", "memory the workload maps (4096, 64K, 2M, 1G; at most 64G)", "per workload",
	  RUN_OPT_SIZE, NULL },
	{ "folio-size", "SIZE", "large folio size (a power of two from 4K to 2M)", "per workload",
	  RUN_OPT_FOLIO_SIZE, "4K 16K 32K 64K 128K 256K 512K 1M 2M" },
	{ "pmd-mapped", NULL, "map 2M folios with PMD leaves instead of PTEs", NULL,
	  RUN_OPT_PMD_MAPPED, NULL },
	{ "without", "NAME", "turn a kernel change off (repeatable; 'ptelab list' shows the "
	  "switches)", NULL, 0, NULL },
	{ "variant", "NAME", "the workload's variant ('ptelab list' shows them)", "the first listed",
	  RUN_OPT_VARIANT, NULL },
	{ "lru", "LRU", "the reclaim LRU", "mglru", RUN_OPT_LRU, "mglru classic" },
	{ "reclaim", "SIZE", "memory reclaim asks for", "80% of --size", RUN_OPT_RECLAIM, NULL },
	{ "iterations", "N", "repetitions (sequences, processes, ...: the workload says)",
	  "per workload", RUN_OPT_ITERATIONS, NULL },
	{ "first-sequence", "N", "start at sequence N of the seed (a reproducer of one sequence)",
	  "0", RUN_OPT_FIRST_SEQUENCE, NULL },
	{ "minimise", NULL, "shrink a failing sequence to the operations that still fail", NULL,
	  RUN_OPT_MINIMISE, NULL },
	{ "interleave", "N", "other agents act at one raw PTE access, TLBI or DSB in N inside "
	  "kernel operations (0: never)", "0", RUN_OPT_INTERLEAVE, NULL },
	{ "vcpus", "N", "vCPU threads", "per workload", RUN_OPT_VCPUS, NULL },
	{ "host-memory", "SIZE", "the host's RAM", "per workload", RUN_OPT_HOST_MEMORY, NULL },
	{ "cpus", "N", "simulated CPUs (1 to 64)", "2", 0, NULL },
	{ "seed", "N", "the seed of every random choice; the same seed gives the same run", "1", 0,
	  NULL },
	{ "hw-policy", "POLICY", "which entry of a contiguous block the hardware sets A/D in",
	  "accessed", 0, POLICIES },
	{ "tlb-entries", "N", "entries of each CPU's TLB (16 to 1048576)", "1280", 0, NULL },
	{ "tlb", "MODE", "rewalk: a store through a read-only TLB entry walks again; sticky: "
	  "cached entries fault until invalidated", "rewalk", 0, "rewalk sticky" },
	{ "tlbi-range", NULL, "the CPUs have FEAT_TLBIRANGE (TLBI by range)", NULL, 0, NULL },
	{ "no-hafdbs", NULL, "the CPUs do not manage access and dirty flags in hardware "
	  "(software faults set them)", NULL, 0, NULL },
	{ "walkers", "AGENT=CAPS,...", "per-agent hardware A/D (cpu1=none,smmu=ha; caps hafdbs, ha, "
	  "none; +nohint: its TLB ignores the contiguous hint, caching 4K entries)", NULL, 0, NULL },
	{ "bbml2", NULL, "the CPUs have FEAT_BBML2 (the kernel's BBML2 paths run)", NULL, 0, NULL },
	{ "timeout", "SECONDS", "kill a run that takes longer, as a finding (0: never)",
	  "900, plus 0.2 per iteration", 0, NULL },
	{ "core", "CORE", "whose core-mm code a kernel backend runs: tree (its tree's "
	  "zap_pte_range, copy_pte_range, change_pte_range, move_ptes, mlock_pte_range, "
	  "folio_referenced_one, try_to_unmap_one, walk_pte_range, lru_gen_look_around and "
	  "madvise's madvise_free_pte_range and madvise_cold_or_pageout_pte_range, and "
	  "mm/mmu_gather.c; "
	  "a --without switch or variant that changes one runs ptelab's twin of it) or ref "
	  "(ptelab's twin calling the tree's arch code)", "tree", 0, "tree ref" },
	{ "sanitize", NULL, "build kernel backends with AddressSanitizer", NULL, 0, NULL },
	{ "json", NULL, "print JSON lines instead of a table", NULL, 0, NULL },
	{ "report", NULL, "after the table, the modelled perf profile: functions by children "
	  "share and the call graph (JSON always has it as \"perf\")", NULL, 0, NULL },
	{ "no-perf", NULL, "keep no modelled perf profile (JSON perf null): the simulation runs "
	  "faster, as reproduce runs every experiment but S4", NULL, 0, NULL },
	{ 0 }
};

static const struct cli_opt check_opts[] = {
	{ "impl", "IMPL[,IMPL]...", "the backends to check", "ref", 0, NULL },
	{ "arch", "ARCH", "the simulated machine's architecture", "arm64", 0, "arm64 x86" },
	{ "sequences", "N", "random sequences per configuration", "8", 0, NULL },
	{ "seed", "N", "the seed of the first sequence", "1", 0, NULL },
	{ "time", "SECONDS", "no new work after this long (alone: as many sequences as fit)", NULL,
	  0, NULL },
	{ "jobs", "N", "worker processes", "every core", 0, NULL },
	{ "shard", "K/N", "run only the K-th of N shares of the work", "1/1", 0, NULL },
	{ "explore", NULL, "every interleaving point of small scenarios instead of random "
	  "sequences", NULL, 0, NULL },
	{ "diff", "A,B", "run the same sequences on two backends and compare returns, tables and "
	  "events", NULL, 0, NULL },
	{ "timeout", "SECONDS", "kill a unit that takes longer, as a finding (0: never)", "900", 0,
	  NULL },
	{ "core", "CORE", "whose core-mm code a kernel backend runs: tree or ref", "tree", 0,
	  "tree ref" },
	{ "sanitize", NULL, "build kernel backends with AddressSanitizer", NULL, 0, NULL },
	{ "first", NULL, "stop at the first failing configuration: no new work is started, its "
	  "sequence is not minimised, the rows not run say so (for mutation sweeps and bisects; "
	  "a clean verdict still runs everything)", NULL, 0, NULL },
	{ "bisect", NULL, "exit as git bisect run expects: 0 clean, 1 violated, 125 (skip) for a "
	  "tree that does not build or extract or an incomplete verdict, 255 (stop) otherwise",
	  NULL, 0, NULL },
	{ "json", NULL, "print JSON lines instead of a table", NULL, 0, NULL },
	{ 0 }
};

static const struct cli_opt reproduce_opts[] = {
	{ "out", "DIR", "also write JSON lines, TSV tables and plots there", NULL, 0, NULL },
	{ "size", "SIZE", "the scale (a multiple of 2M up to 4G; 1G is the published scale)", "1G",
	  0, NULL },
	{ "jobs", "N", "worker processes", "every core", 0, NULL },
	{ 0 }
};

static const struct cli_opt fetch_opts[] = {
	{ "allow-unverified", NULL, "accept a package whose checksum cannot be verified", NULL, 0,
	  NULL },
	{ 0 }
};

static const struct cli_opt host_opts[] = {
	{ "size", "SIZE", "anonymous memory mapped and written (a multiple of 2M)", "1G", 0, NULL },
	{ "folio-size", "SIZE[,SIZE]...", "the folio sizes to measure, each set by its mTHP knob",
	  "4K and every size the kernel offers up to 2M", 0, NULL },
	{ "repeat", "N", "repetitions per folio size; the best is reported", "5", 0, NULL },
	{ "pmd-mapped", NULL, "keep 2M folios PMD-mapped (default: split to PTEs, as in S5)", NULL,
	  0, NULL },
	{ "keep-setting", NULL, "leave the mTHP knobs as they are (rows say which folios the kernel "
	  "gave)", NULL, 0, NULL },
	{ "json", NULL, "print one JSON object per folio size", NULL, 0, NULL },
	{ 0 }
};

static const struct cli_opt fit_opts[] = {
	{ "on", "FIGURE[,FIGURE]...", "the figures to fit on: EXP:ROW:COLUMN of data/published.tsv "
	  "or host:ROW of --host", "the profile's fit.on", 0, NULL },
	{ "free", "COST[,COST]...", "the costs to solve (each needs a range.COST line)",
	  "the profile's fit.free", 0, NULL },
	{ "host", "FILE", "host measurements (ptelab host ... --json) to fit on or judge", NULL, 0,
	  NULL },
	{ "size", "SIZE", "the lab runs' scale (1G is the published scale)", "1G", 0, NULL },
	{ "write", NULL, "write the fitted costs and fit.on into the profile", NULL, 0, NULL },
	{ "out", "FILE", "write the fitted profile there instead", NULL, 0, NULL },
	{ "jobs", "N", "lab runs at once", "every core", 0, NULL },
	{ "report", NULL, "no fit: the residual of every published figure, for PROFILE or every "
	  "profile", NULL, 0, NULL },
	{ 0 }
};

static const struct cli_opt no_opts[] = { { 0 } };

const struct cli_cmd cli_cmds[] = {
	{ "list", "", "list workloads, profiles, backends and switches", no_opts, NULL },
	{ "run", "WORKLOAD [OPTION]...", "run one workload and print its events, results and "
	  "invariants", run_opts, "workloads" },
	{ "reproduce", "[EXPERIMENT]... [OPTION]...", "run the published experiments (S1 .. S5) and "
	  "show them beside the published figures", reproduce_opts, "experiments" },
	{ "check", "[OPTION]...", "hunt for lost young/dirty bits, stale TLB entries and broken "
	  "blocks in a backend", check_opts, NULL },
	{ "host", "WORKLOAD [OPTION]...", "run munmap, madvise or fork on the running kernel per "
	  "mTHP folio size and time it", host_opts, "host-workloads" },
	{ "fit", "[PROFILE] [OPTION]...", "fit a profile's costs on published or host figures and "
	  "print the residual of every figure", fit_opts, "profiles" },
	{ "kernels", "fetch [--allow-unverified] VERSION...", "fetch Debian's linux-source "
	  "package of a kernel version (6.12, 7.2, 7.3)", fetch_opts, "fetch" },
	{ "help", "[COMMAND [WORKLOAD]]", "say what a command and its options do", no_opts,
	  "commands" },
	{ 0 }
};

static const struct {
	const char *name, *help;
} env_vars[] = {
	{ "PTELAB_HOME", "where profiles/, data/ and build/kernels/ are (default: found from the "
	  "binary's own location)" },
	{ "CC", "the compiler kernel backends are built with (default: cc)" },
	{ 0 }
};

const struct cli_cmd *cli_cmd_by_name(const char *name)
{
	for (const struct cli_cmd *c = cli_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

char cli_command_line[8192];

const char *cli_version(void)
{
	return "ptelab " PTELAB_VERSION " (git " PTELAB_COMMIT ")";
}

static int nr_opts(const struct cli_opt *o)
{
	int n = 0;

	while (o[n].name)
		n++;
	return n;
}

/* getopt_long's value for option i: clear of 1 (a positional), '?', ':' and 'h' */
#define OPT_VAL 256

int cli_normalize(const struct cli_cmd *cmd, int *argc, char ***argvp, char *err, size_t errlen)
{
	static char canon[64][48]; /* "--name", the spelling the subcommands compare */
	int n = nr_opts(cmd->opts), nr_out = 0, nr_pos = 0, ret = 0;
	struct option lopts[64];
	char **argv = *argvp;
	/* "--opt=value" becomes two words: room for twice as many */
	char **out = calloc(2 * (size_t)*argc + 1, sizeof(char *)), **pos, **gargv;

	pos = calloc((size_t)*argc + 1, sizeof(char *));
	gargv = calloc((size_t)*argc + 2, sizeof(char *));
	if (!out || !pos || !gargv) {
		snprintf(err, errlen, "out of memory parsing the command line");
		ret = -1;
		goto out;
	}

	if (n + 2 > (int)ARRAY_SIZE(lopts)) {
		snprintf(err, errlen, "too many options for %s", cmd->name);
		ret = -1;
		goto out;
	}
	for (int i = 0; i < n; i++)
		lopts[i] = (struct option){ cmd->opts[i].name,
					    cmd->opts[i].arg ? required_argument : no_argument, NULL,
					    OPT_VAL + i };
	lopts[n] = (struct option){ "help", no_argument, NULL, 'h' };
	lopts[n + 1] = (struct option){ 0 };
	/* getopt_long wants the program name first; it permutes its own copy */
	gargv[0] = (char *)"ptelab";
	for (int i = 0; i < *argc; i++)
		gargv[i + 1] = argv[i];
	gargv[*argc + 1] = NULL;
	optind = 0; /* a full reinitialisation (GNU): parse from the start */
	opterr = 0;
	for (;;) {
		int idx = -1, c = getopt_long(*argc + 1, gargv, "-:h", lopts, &idx);

		if (c == -1)
			break;
		if (c == 'h') {
			ret = 1;
			goto out;
		}
		if (c == 1) { /* a positional argument, in order ("-" at the start of optstring) */
			pos[nr_pos++] = optarg;
			continue;
		}
		if (c == '?' || c == ':') {
			const char *bad = gargv[optind - 1];
			char name[64];

			/* "--size=1G" to a flag, "--bogus", "-x": say which, and where help is */
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(bad, "="), bad);
			if (c == ':')
				snprintf(err, errlen, "%s needs a value; see 'ptelab %s --help'", name,
					 cmd->name);
			else if (optopt >= OPT_VAL && optopt < OPT_VAL + n && strchr(bad, '='))
				snprintf(err, errlen, "%s takes no value; see 'ptelab %s --help'", name,
					 cmd->name);
			else
				snprintf(err, errlen, "unknown option '%s' for %s; see 'ptelab %s --help'",
					 name, cmd->name, cmd->name);
			ret = -1;
			goto out;
		}
		/* the option's canonical spelling, then its value if it takes one */
		c -= OPT_VAL;
		snprintf(canon[c], sizeof(canon[c]), "--%s", cmd->opts[c].name);
		out[nr_out++] = canon[c];
		if (cmd->opts[c].arg)
			out[nr_out++] = optarg;
	}
	/* what getopt_long left after "--" is positional too */
	while (optind < *argc + 1)
		pos[nr_pos++] = gargv[optind++];
	/* the new argv: positionals, then options; lives as long as the process */
	static char **keep; /* (reachable, so no leak is reported) */
	free(keep);
	argv = keep = calloc((size_t)(nr_pos + nr_out) + 1, sizeof(char *));
	if (!argv) {
		snprintf(err, errlen, "out of memory parsing the command line");
		ret = -1;
		goto out;
	}
	for (int i = 0; i < nr_pos; i++)
		argv[i] = pos[i];
	for (int i = 0; i < nr_out; i++)
		argv[nr_pos + i] = out[i];
	*argc = nr_pos + nr_out;
	*argvp = argv;
out:
	free(out);
	free(pos);
	free(gargv);
	return ret;
}

static void size_text(char *buf, size_t len, u64 v)
{
	static const char units[] = "KMGT";
	int u = -1;

	/* a decimal size (256 GB, as a machine is sold) reads better as one */
	if (v && v % 1000000000 == 0 && v % (1UL << 30)) {
		snprintf(buf, len, "%llu (%llu GB)", (unsigned long long)v,
			 (unsigned long long)(v / 1000000000));
		return;
	}

	while (u < 3 && v && !(v % 1024)) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
}

/* A run option's default for this workload, where the workload sets it. */
static const char *workload_default(const struct cli_opt *o, const struct workload *w, char *buf,
				    size_t len)
{
	if (w && o->applies == RUN_OPT_VARIANT && w->variants) {
		snprintf(buf, len, "%.*s", (int)strcspn(w->variants, "|"), w->variants);
		return buf;
	}
	if (!w || !o->dflt || strcmp(o->dflt, "per workload"))
		return o->dflt;
	if (o->applies == RUN_OPT_SIZE)
		size_text(buf, len, w->default_size);
	else if (o->applies == RUN_OPT_FOLIO_SIZE)
		size_text(buf, len, w->default_folio_size);
	else if (o->applies == RUN_OPT_HOST_MEMORY)
		size_text(buf, len, w->default_host_memory);
	else if (o->applies == RUN_OPT_VCPUS)
		snprintf(buf, len, "%d", w->default_vcpus);
	else if (o->applies == RUN_OPT_ITERATIONS)
		snprintf(buf, len, "%llu %s", (unsigned long long)w->default_iterations,
			 w->iterations_are ? w->iterations_are : "");
	else
		return o->dflt;
	return buf;
}

static bool applies(const struct cli_opt *o, const struct workload *w)
{
	return !w || !o->applies || (w->opts & o->applies);
}

/* text after a left column of `indent`, wrapped at 80 columns */
static void wrapped(FILE *f, int indent, const char *text)
{
	int col = indent;

	while (*text) {
		int n = (int)strcspn(text, " ");

		if (col > indent && col + 1 + n > 80) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", n, text);
		col += n;
		text += n;
		while (*text == ' ')
			text++;
	}
	fputc('\n', f);
}

void cli_print_help(FILE *f, const struct cli_cmd *cmd, const struct workload *w)
{
	char buf[64];

	if (w) {
		fprintf(f, "usage: ptelab run %s [OPTION]...\n", w->name);
		wrapped(f, 0, w->help);
		fprintf(f, "measured: %s\n", w->measured ? w->measured : "the whole run");
	} else {
		fprintf(f, "usage: ptelab %s %s\n", cmd->name, cmd->synopsis);
		wrapped(f, 0, cmd->summary);
	}
	if (w && w->variants)
		fprintf(f, "variants: %s\n", w->variants);
	if (!cmd->opts[0].name)
		return;
	fprintf(f, "\noptions%s:\n", w ? " (those this workload reads)" : "");
	for (const struct cli_opt *o = cmd->opts; o->name; o++) {
		char left[64], text[512];
		const char *d = workload_default(o, w, buf, sizeof(buf));
		int n;

		if (!applies(o, w))
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		n = snprintf(text, sizeof(text), "%s", o->help);
		if (o->values)
			n += snprintf(text + n, sizeof(text) - (size_t)n, " [%s]", o->values);
		if (d)
			snprintf(text + n, sizeof(text) - (size_t)n, " (default: %s)", d);
		if (strlen(left) > 24) {
			fprintf(f, "  %s\n%*s", left, 28, "");
		} else {
			fprintf(f, "  %-24s  ", left);
		}
		wrapped(f, 28, text);
	}
	fprintf(f, "  %-24s  %s\n", "--help, -h", "this text");
	if (!strcmp(cmd->name, "run") && !w)
		fprintf(f, "\nNot every workload reads every option: 'ptelab run WORKLOAD --help'\n"
			   "lists a workload's own, with its defaults.\n");
}

void cli_print_overview(FILE *f)
{
	fprintf(f, "%s: the kernel's arm64 contiguous-PTE and large-folio\n"
		   "page-table batching on a simulated MMU\n\n", cli_version());
	for (const struct cli_cmd *c = cli_cmds; c->name; c++) {
		fprintf(f, "  ptelab %s%s%s\n      ", c->name, *c->synopsis ? " " : "", c->synopsis);
		wrapped(f, 6, c->summary);
	}
	fprintf(f, "  ptelab --version\n\n'ptelab help COMMAND' or 'ptelab COMMAND --help': its "
		   "options\nenvironment:\n");
	for (int i = 0; env_vars[i].name; i++) {
		fprintf(f, "  %-12s  ", env_vars[i].name);
		wrapped(f, 16, env_vars[i].help);
	}
}

/* troff escapes: a leading dot or quote, and backslashes, hyphens in option names */
static void man_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

void cli_print_man(FILE *f)
{
	fprintf(f, ".TH PTELAB 1 \"\" \"%s\" \"User Commands\"\n", cli_version());
	fprintf(f, ".SH NAME\nptelab \\- a userspace laboratory for the kernel's arm64 contiguous-PTE "
		   "and large-folio page-table batching\n.SH SYNOPSIS\n");
	for (const struct cli_cmd *c = cli_cmds; c->name; c++) {
		fprintf(f, ".B ptelab %s\n", c->name);
		if (*c->synopsis) {
			man_text(f, c->synopsis);
			fputc('\n', f);
		}
		fputs(".br\n", f);
	}
	fputs(".B ptelab \\-\\-version\n.SH COMMANDS\n", f);
	for (const struct cli_cmd *c = cli_cmds; c->name; c++) {
		fprintf(f, ".SS %s\n", c->name);
		man_text(f, c->summary);
		fputs(".\n", f);
		for (const struct cli_opt *o = c->opts; o->name; o++) {
			fputs(".TP\n.B \\-\\-", f);
			man_text(f, o->name);
			if (o->arg) {
				fputs(" \\fI", f);
				man_text(f, o->arg);
				fputs("\\fR", f);
			}
			fputc('\n', f);
			man_text(f, o->help);
			if (o->values) {
				fputs(" (", f);
				man_text(f, o->values);
				fputs(")", f);
			}
			if (o->dflt) {
				fputs(". Default: ", f);
				man_text(f, o->dflt);
			}
			fputs(".\n", f);
		}
	}
	fputs(".SH ENVIRONMENT\n", f);
	for (int i = 0; env_vars[i].name; i++) {
		fprintf(f, ".TP\n.B %s\n", env_vars[i].name);
		man_text(f, env_vars[i].help);
		fputs(".\n", f);
	}
	fputs(".SH EXIT STATUS\n0: ran and every invariant held; 1: a violation or a finding; "
	      "2: bad input (one line on stderr says what); 3: a bug in ptelab itself.\n", f);
}

static void words(FILE *f, const struct cli_opt *opts, bool with_values)
{
	for (const struct cli_opt *o = opts; o->name; o++)
		fprintf(f, " --%s", o->name);
	(void)with_values;
	fputs(" --help", f);
}

void cli_print_completion(FILE *f)
{
	fputs("# bash completion for ptelab, generated by `ptelab help --completion`\n"
	      "# SPDX-License-Identifier: GPL-2.0-only\n"
	      "_ptelab()\n{\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	      "\tlocal cmd=${COMP_WORDS[1]}\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen -W \"", f);
	for (const struct cli_cmd *c = cli_cmds; c->name; c++)
		fprintf(f, "%s ", c->name);
	fputs("--version\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase \"$prev\" in\n", f);
	/* an option with a fixed set of values completes them */
	for (const struct cli_cmd *c = cli_cmds; c->name; c++)
		for (const struct cli_opt *o = c->opts; o->name; o++)
			if (o->values)
				fprintf(f, "\t--%s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return;;\n",
					o->name, o->values);
	fputs("\t--out) COMPREPLY=($(compgen -d -- \"$cur\")); return;;\n"
	      "\tesac\n\tcase \"$cmd\" in\n", f);
	for (const struct cli_cmd *c = cli_cmds; c->name; c++) {
		fprintf(f, "\t%s) COMPREPLY=($(compgen -W \"", c->name);
		words(f, c->opts, false);
		if (c->positional && !strcmp(c->positional, "workloads"))
			for (int i = 0; workloads[i]; i++)
				fprintf(f, " %s", workloads[i]->name);
		else if (c->positional && !strcmp(c->positional, "experiments"))
			fputs(" S1 S2 S3 S4 S5", f);
		else if (c->positional && !strcmp(c->positional, "host-workloads"))
			fputs(" munmap madvise fork", f);
		else if (c->positional && !strcmp(c->positional, "fetch"))
			fputs(" fetch 6.12 7.2 7.3", f);
		else if (c->positional && !strcmp(c->positional, "commands"))
			for (const struct cli_cmd *d = cli_cmds; d->name; d++)
				fprintf(f, " %s", d->name);
		fputs("\" -- \"$cur\"));;\n", f);
	}
	fputs("\tesac\n}\ncomplete -F _ptelab ptelab\n", f);
}

void cli_print_markdown(FILE *f)
{
	for (const struct cli_cmd *c = cli_cmds; c->name; c++) {
		if (!c->opts[0].name)
			continue;
		fprintf(f, "`ptelab %s %s`: %s\n\n| option | what | default |\n|---|---|---|\n", c->name,
			c->synopsis, c->summary);
		for (const struct cli_opt *o = c->opts; o->name; o++)
			fprintf(f, "| `--%s%s%s` | %s%s%s%s | %s |\n", o->name, o->arg ? " " : "",
				o->arg ? o->arg : "", o->help, o->values ? " (" : "",
				o->values ? o->values : "", o->values ? ")" : "", o->dflt ? o->dflt : "");
		fputc('\n', f);
	}
	fputs("| environment | what |\n|---|---|\n", f);
	for (int i = 0; env_vars[i].name; i++)
		fprintf(f, "| `%s` | %s |\n", env_vars[i].name, env_vars[i].help);
}
