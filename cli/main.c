// SPDX-License-Identifier: GPL-2.0-only
/* The ptelab command: list, run, reproduce. */
#include <dlfcn.h>
#include <errno.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/switches.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "kernel/backend.h"
#include "kernel/build.h"
#include "kernel/spawn.h"

static int die(const char *msg)
{
	/* one line, whatever the message quotes (a newline in a path, ...) */
	fputs("ptelab: error: ", stderr);
	for (const char *c = msg; *c; c++)
		fputc(*c == '\n' || *c == '\r' ? ' ' : *c, stderr);
	fputc('\n', stderr);
	return 2;
}

static int cmd_list(void)
{
	char names[64][64];
	int n = lab_profile_names(names, 64);

	printf("workloads:\n");
	for (int i = 0; workloads[i]; i++)
	{
		printf("  %-14s %s\n", workloads[i]->name, workloads[i]->help);
		if (workloads[i]->variants)
			printf("  %-14s   --variant %s\n", "", workloads[i]->variants);
	}
	printf("profiles:\n");
	for (int i = 0; i < n; i++) {
		struct profile p;
		char err[256];

		if (!lab_profile_load(names[i], &p, err, sizeof(err)))
			printf("  %-22s %-6s %s\n", names[i], p.arch, p.description);
		else
			printf("  %-22s (unreadable: %s)\n", names[i], err);
	}
	printf("backends (--impl):\n  %-22s ptelab's reference contpte (built in)\n", "ref");
	char kernels[32][64];
	int nk = kernel_fetched(kernels, 32);
	for (int i = 0; i < nk; i++)
		printf("  %-22s the tree's dispatchers + contpte.c, fetched (built on first use)\n", kernels[i]);
	for (int i = 0; kernel_fetchable[i]; i++) {
		char name[64];
		bool have = false;

		snprintf(name, sizeof(name), "linux-%s", kernel_fetchable[i]);
		for (int k = 0; k < nk; k++)
			have |= !strcmp(kernels[k], name);
		if (!have)
			printf("  %-22s fetchable: ptelab kernels fetch %s\n", name, kernel_fetchable[i]);
	}
	printf("  %-22s the dispatchers + contpte.c of a kernel tree on disk\n", "tree:PATH");
	printf("switches (--without):\n");
	for (int i = 0; i < lab_nr_switches(); i++) {
		const char *name, *help = lab_switch_help(i, &name);
		char dashed[64];

		snprintf(dashed, sizeof(dashed), "%s", name);
		for (char *c = dashed; *c; c++)
			if (*c == '_')
				*c = '-';
		printf("  %-22s %s\n", dashed, help);
	}
	return 0;
}

/*
 * The subcommand's options through getopt_long (cli/options.c): 0 to go
 * on with argv rewritten, else the exit status (--help printed: 0).
 */
static int normalize(const char *name, int *argc, char ***argv, const struct workload *w,
		     int *done)
{
	const struct cli_cmd *cmd = cli_cmd_by_name(name);
	char err[256];
	int r = cli_normalize(cmd, argc, argv, err, sizeof(err));

	*done = r != 0;
	if (r > 0) {
		cli_print_help(stdout, cmd, w);
		return 0;
	}
	if (r < 0)
		return die(err);
	return 0;
}

static int cmd_help(int argc, char **argv)
{
	const struct cli_cmd *cmd;

	if (!argc) {
		cli_print_overview(stdout);
		return 0;
	}
	if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		cli_print_help(stdout, cli_cmd_by_name("help"), NULL);
		return 0;
	}
	if (!strcmp(argv[0], "--man")) {
		cli_print_man(stdout);
		return 0;
	}
	if (!strcmp(argv[0], "--completion")) {
		cli_print_completion(stdout);
		return 0;
	}
	if (!strcmp(argv[0], "--markdown")) {
		cli_print_markdown(stdout);
		return 0;
	}
	cmd = cli_cmd_by_name(argv[0]);
	if (!cmd) {
		char err[160];

		snprintf(err, sizeof(err), "no command '%s'; 'ptelab help' lists them", argv[0]);
		return die(err);
	}
	if (argc > 1 && !strcmp(cmd->name, "run")) {
		const struct workload *w = workload_by_name(argv[1]);

		if (!w) {
			char err[160];

			snprintf(err, sizeof(err), "unknown workload '%s'; 'ptelab list' shows them", argv[1]);
			return die(err);
		}
		cli_print_help(stdout, cmd, w);
		return 0;
	}
	cli_print_help(stdout, cmd, NULL);
	return 0;
}

static const char *need_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

static int parse_u64(const char *s, u64 *v)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return *end || errno == ERANGE ? -1 : 0;
}

/*
 * --sanitize: kernel backends built with AddressSanitizer need its runtime
 * loaded first; a ptelab built without it re-executes itself with the
 * compiler's libasan preloaded (only into ptelab, not into what it runs).
 */
static int ensure_asan_runtime(char **argv)
{
	struct rlimit as;

	/* ASan reserves terabytes of shadow: under ulimit -v it aborts before a line is said */
	if (!getrlimit(RLIMIT_AS, &as) && as.rlim_cur != RLIM_INFINITY)
		return die("--sanitize needs an unlimited address space (AddressSanitizer maps "
			   "terabytes of shadow memory); run it after 'ulimit -v unlimited'");
	if (dlsym(RTLD_DEFAULT, "__asan_init")) {
		if (getenv("PTELAB_ASAN_REEXEC"))
			unsetenv("LD_PRELOAD");
		kernel_backends_sanitize(true);
		return 0;
	}
	if (getenv("PTELAB_ASAN_REEXEC"))
		return die("--sanitize: the AddressSanitizer runtime did not load; "
			   "install the compiler's libasan (Debian: libasan8)");
	const char *cc = getenv("CC");
	char buf[256], *words[8], *text = NULL;
	int n = spawn_split_words(cc && *cc ? cc : "cc", buf, sizeof(buf), words, 6);
	words[n++] = "-print-file-name=libasan.so";
	words[n] = NULL;
	if (spawn_run(words, SPAWN_CAPTURE_STDOUT, &text) || !text || text[0] != '/') {
		free(text);
		return die("--sanitize needs the compiler's AddressSanitizer runtime (libasan.so), "
			   "which $CC -print-file-name=libasan.so did not find; install libasan");
	}
	text[strcspn(text, "\n")] = 0;
	setenv("LD_PRELOAD", text, 1);
	free(text);
	setenv("PTELAB_ASAN_REEXEC", "1", 1);
	/* kernel code's leaks are not findings; its memory errors are */
	setenv("ASAN_OPTIONS", "detect_leaks=0:allocator_may_return_null=1", 0);
	fflush(NULL);
	execv("/proc/self/exe", argv);
	return die("--sanitize: cannot re-execute ptelab with the AddressSanitizer runtime");
}

static int cmd_run(int argc, char **argv)
{
	struct run_spec spec;
	char err[512];
	bool json = false, report = false;
	const struct workload *w;

	int done, rc0;

	/* the workload (the first word not an option) names the help wanted */
	w = argc > 0 && argv[0][0] != '-' ? workload_by_name(argv[0]) : NULL;
	rc0 = normalize("run", &argc, &argv, w, &done);
	if (done)
		return rc0;
	if (argc < 1 || argv[0][0] == '-')
		return die("run needs a workload name; 'ptelab list' shows them, "
			   "'ptelab run --help' the options");
	w = workload_by_name(argv[0]);
	if (!w) {
		snprintf(err, sizeof(err), "unknown workload '%s'; 'ptelab list' shows them", argv[0]);
		return die(err);
	}
	run_spec_defaults(&spec, w);
	spec.perf = true; /* a run of its own: its profile is wanted (--no-perf: not) */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		u64 n;

		if (!strcmp(a, "--json")) {
			json = true;
			continue;
		}
		if (!strcmp(a, "--report")) {
			report = true;
			continue;
		}
		if (!strcmp(a, "--no-perf")) {
			spec.perf = false;
			continue;
		}
		if (!strcmp(a, "--sanitize"))
			continue; /* handled before anything else (main) */
		if (!strcmp(a, "--pmd-mapped")) {
			spec.p.pmd_mapped = true;
			spec.set |= RUN_OPT_PMD_MAPPED;
			continue;
		}
		if (!strcmp(a, "--minimise")) {
			spec.p.minimise = true;
			spec.set |= RUN_OPT_MINIMISE;
			continue;
		}
		if (!strcmp(a, "--tlbi-range")) {
			spec.p.tlbi_range = true;
			continue;
		}
		if (!strcmp(a, "--no-hafdbs")) {
			spec.p.hafdbs = false;
			continue;
		}
		if (!strcmp(a, "--bbml2")) {
			spec.p.bbml2 = true;
			continue;
		}
		if (strncmp(a, "--", 2)) {
			snprintf(err, sizeof(err), "unexpected argument '%s'", a);
			return die(err);
		}
		v = need_arg(argc, argv, &i);
		if (!v) {
			snprintf(err, sizeof(err), "%s needs a value", a);
			return die(err);
		}
		if (!strcmp(a, "--arch")) {
			spec.p.arch = v;
		} else if (!strcmp(a, "--core")) {
			continue; /* handled before anything else (main) */
		} else if (!strcmp(a, "--impl")) {
			spec.p.impl = v;
		} else if (!strcmp(a, "--profile")) {
			if (strlen(v) >= sizeof(spec.profile))
				return die("--profile name is too long; 'ptelab list' shows the profiles");
			snprintf(spec.profile, sizeof(spec.profile), "%s", v);
			spec.set |= RUN_SET_PROFILE;
		} else if (!strcmp(a, "--size") || !strcmp(a, "--folio-size")) {
			int r = parse_size(v, &n);

			if (r == -2) {
				snprintf(err, sizeof(err), "size '%s' for %s is too large (more than 16 EiB); "
					 "use at most 64G", v, a);
				return die(err);
			}
			if (r) {
				snprintf(err, sizeof(err),
					 "malformed size '%s' for %s; use a number with K, M, G or T, e.g. 64K", v, a);
				return die(err);
			}
			if (!strcmp(a, "--size")) {
				spec.p.size = n;
				spec.set |= RUN_OPT_SIZE;
			} else {
				spec.p.folio_size = n;
				spec.set |= RUN_OPT_FOLIO_SIZE;
			}
		} else if (!strcmp(a, "--without")) {
			if (spec.nr_without == MAX_WITHOUT)
				return die("too many --without switches");
			spec.without[spec.nr_without++] = v;
		} else if (!strcmp(a, "--cpus")) {
			if (parse_u64(v, &n) || n < 1 || n > 64)
				return die("--cpus takes a number from 1 to 64");
			spec.p.nr_cpus = (int)n;
		} else if (!strcmp(a, "--iterations")) {
			if (parse_u64(v, &n) || n < 1)
				return die("--iterations takes a positive number");
			spec.p.iterations = n;
			spec.set |= RUN_OPT_ITERATIONS;
		} else if (!strcmp(a, "--lru")) {
			if (strcmp(v, "mglru") && strcmp(v, "classic"))
				return die("--lru takes mglru or classic");
			spec.p.lru = v;
			spec.set |= RUN_OPT_LRU;
		} else if (!strcmp(a, "--reclaim")) {
			if (parse_size(v, &n)) {
				snprintf(err, sizeof(err), "malformed or too large size '%s' for --reclaim; e.g. 8G", v);
				return die(err);
			}
			spec.p.reclaim = n;
			spec.set |= RUN_OPT_RECLAIM;
		} else if (!strcmp(a, "--vcpus")) {
			if (parse_u64(v, &n) || n < 1 || n > 1024)
				return die("--vcpus takes a number from 1 to 1024");
			spec.p.nr_vcpus = (int)n;
			spec.set |= RUN_OPT_VCPUS;
		} else if (!strcmp(a, "--host-memory")) {
			if (parse_size(v, &n)) {
				snprintf(err, sizeof(err), "malformed or too large size '%s' for --host-memory; e.g. 256G", v);
				return die(err);
			}
			spec.p.host_memory = n;
			spec.set |= RUN_OPT_HOST_MEMORY;
		} else if (!strcmp(a, "--variant")) {
			spec.p.variant = v;
			spec.set |= RUN_OPT_VARIANT;
		} else if (!strcmp(a, "--seed")) {
			if (parse_u64(v, &n))
				return die("--seed takes a non-negative number");
			spec.p.seed = n;
		} else if (!strcmp(a, "--timeout")) {
			if (parse_u64(v, &n) || n > 7 * 24 * 3600)
				return die("--timeout takes seconds, 0 for none (at most a week)");
			spec.timeout_s = (unsigned int)n;
			spec.set |= RUN_SET_TIMEOUT;
		} else if (!strcmp(a, "--tlb-entries")) {
			if (parse_u64(v, &n) || n < 16 || n > (1 << 20))
				return die("--tlb-entries takes a number from 16 to 1048576");
			spec.p.tlb_entries = (u32)n;
		} else if (!strcmp(a, "--interleave")) {
			if (parse_u64(v, &n) || n > 1000000)
				return die("--interleave takes N from 0 (off) to 1000000: other agents act at "
					   "one raw PTE access, TLBI or DSB in N inside kernel operations");
			spec.p.interleave = (u32)n;
			spec.set |= RUN_OPT_INTERLEAVE;
		} else if (!strcmp(a, "--first-sequence")) {
			if (parse_u64(v, &n))
				return die("--first-sequence takes a non-negative number (sequences "
					   "N, N+1, ... of the run's seed are run)");
			spec.p.first_sequence = n;
			spec.set |= RUN_OPT_FIRST_SEQUENCE;
		} else if (!strcmp(a, "--walkers")) {
			spec.p.walkers = v;
		} else if (!strcmp(a, "--tlb")) {
			if (strcmp(v, "rewalk") && strcmp(v, "sticky"))
				return die("--tlb takes rewalk (a store through a read-only entry walks again) "
					   "or sticky (cached entries fault until invalidated)");
			spec.p.tlb_sticky = !strcmp(v, "sticky");
		} else if (!strcmp(a, "--hw-policy")) {
			static const char *const pol[] = { "accessed", "first", "random", "adversarial" };
			int k;

			for (k = 0; k < 4 && strcmp(v, pol[k]); k++)
				;
			if (k == 4)
				return die("--hw-policy takes accessed, first, random or adversarial");
			spec.p.policy = (enum hw_cont_policy)k;
		} else {
			snprintf(err, sizeof(err), "unknown option '%s'; see 'ptelab --help'", a);
			return die(err);
		}
	}

	if (report && !spec.perf)
		return die("--report prints the perf profile that --no-perf turns off; give one of them");
	/* --impl a,b,c: the same workload on several backends, side by side */
	char impls[4096];
	const char *names[MAX_IMPLS];
	int nr = split_impls(spec.p.impl, impls, sizeof(impls), names, MAX_IMPLS, err, sizeof(err));
	static struct run_spec specs[MAX_IMPLS];
	static struct run_out outs[MAX_IMPLS];
	int rc = 0;

	if (nr < 0)
		return die(err);
	/* everything is checked (and every backend built) before anything runs */
	for (int i = 0; i < nr; i++) {
		specs[i] = spec;
		specs[i].p.impl = names[i];
		if (run_spec_validate(&specs[i], err, sizeof(err)))
			return die(err);
	}
	for (int i = 0; i < nr; i++) {
		int r = run_spec_execute(&specs[i], &outs[i], err, sizeof(err));

		if (r == -2) {
			fprintf(stderr, "ptelab: %s\n", err);
			return 3;
		}
		if (r)
			return die(err);
		if (outs[i].finding.present) {
			fprintf(stderr, "ptelab: FINDING: %s\n", outs[i].finding.summary);
			rc = 1;
		} else if (!outs[i].ok) {
			rc = 1;
		}
		if (json) {
			print_run_json(stdout, &specs[i], &outs[i]);
			fflush(stdout);
		} else if (nr == 1) {
			print_run_table(stdout, &specs[i], &outs[i]);
		}
	}
	if (!json && nr > 1)
		print_side_by_side(stdout, &specs[0], names, outs, nr);
	/* JSON carries the profile in "perf"; the table prints it on request */
	for (int i = 0; report && !json && i < nr; i++) {
		if (nr > 1)
			printf("\n== %s", names[i]);
		print_perf_report(stdout, &outs[i].r);
	}
	return rc;
}

/*
 * ptelab fit is Python (tools/fit.py: numpy/scipy least squares over the
 * lab's event counts); it runs this very binary for the lab runs.
 */
static int cmd_fit(int argc, char **argv)
{
	static char script[4200], self[4096];
	char **args = calloc((size_t)argc + 3, sizeof(char *));
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (!args)
		return die("out of memory");
	snprintf(script, sizeof(script), "%s/tools/fit.py", lab_home());
	if (access(script, R_OK)) {
		fprintf(stderr, "ptelab: error: %s is missing; fit needs ptelab's tools/ directory "
			"(set PTELAB_HOME to the tree or install prefix)\n", script);
		return 2;
	}
	if (n > 0) {
		self[n] = 0;
		setenv("PTELAB_BIN", self, 0);
	}
	setenv("PTELAB_HOME", lab_home(), 0);
	args[0] = "python3";
	args[1] = script;
	for (int i = 0; i < argc; i++)
		args[i + 2] = argv[i];
	fflush(NULL);
	execvp("python3", args);
	fprintf(stderr, "ptelab: error: cannot run python3 (%s); ptelab fit needs Python 3 with numpy "
		"and scipy (pip install -r tools/requirements-fit.txt)\n", strerror(errno));
	return 2;
}

static int ptelab_main(int argc, char **argv)
{
	int done, rc;

	/* for JSON "command": the words as a shell would take them back */
	snprintf(cli_command_line, sizeof(cli_command_line), "ptelab");
	for (int i = 1; i < argc; i++)
		cli_shell_word(cli_command_line, sizeof(cli_command_line), argv[i]);
	if (argc < 2) {
		cli_print_overview(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cli_print_overview(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return cmd_help(argc - 2, argv + 2);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("%s\n", cli_version());
		return 0;
	}
	/* --sanitize first: it may re-execute ptelab with the ASan runtime */
	if (!strcmp(argv[1], "run") || !strcmp(argv[1], "check"))
		for (int i = 2; i < argc; i++)
			if (!strcmp(argv[i], "--sanitize") && ensure_asan_runtime(argv))
				return 2;
	/* --core before any backend is loaded: whose core-mm code kernel backends run */
	if (!strcmp(argv[1], "run") || !strcmp(argv[1], "check"))
		for (int i = 2; i + 1 < argc; i++)
			if (!strcmp(argv[i], "--core")) {
				if (strcmp(argv[i + 1], "tree") && strcmp(argv[i + 1], "ref")) {
					char err[256];

					snprintf(err, sizeof(err), "unknown --core '%s'; use tree (a kernel "
						 "backend runs its tree's core-mm code, the default) or ref "
						 "(ptelab's twin calls the tree's arch code)", argv[i + 1]);
					return die(err);
				}
				kernel_backends_core(!strcmp(argv[i + 1], "tree"));
			}
	if (!strcmp(argv[1], "list")) {
		int n = argc - 2;
		char **av = argv + 2;

		rc = normalize("list", &n, &av, NULL, &done);
		if (done)
			return rc;
		if (n)
			return die("list takes no arguments");
		return cmd_list();
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(argv[1], "kernels")) {
		bool unverified = false;
		int nv = 0, n = argc - 2;
		char **av = argv + 2; /* after normalize: "fetch", the versions, then options */

		rc = normalize("kernels", &n, &av, NULL, &done);
		if (done)
			return rc;
		if (n < 1 || strcmp(av[0], "fetch"))
			return die("usage: ptelab kernels fetch [--allow-unverified] VERSION... (e.g. 7.3)");
		for (int i = 1; i < n; i++) {
			if (!strcmp(av[i], "--allow-unverified"))
				unverified = true;
			else if (av[i][0] == '-')
				return die("kernels fetch takes --allow-unverified and versions, e.g. 7.3");
			else
				nv++;
		}
		if (!nv)
			return die("usage: ptelab kernels fetch [--allow-unverified] VERSION... (e.g. 7.3)");
		for (int i = 1; i < n; i++)
			if (av[i][0] != '-' && kernel_fetch(av[i], unverified))
				return 2;
		return 0;
	}
	if (!strcmp(argv[1], "host")) {
		int n = argc - 2;
		char **av = argv + 2;

		rc = normalize("host", &n, &av, NULL, &done);
		if (done)
			return rc;
		return cmd_host(n, av);
	}
	if (!strcmp(argv[1], "fit")) {
		int n = argc - 2;
		char **av = argv + 2;

		rc = normalize("fit", &n, &av, NULL, &done);
		if (done)
			return rc;
		return cmd_fit(n, av);
	}
	if (!strcmp(argv[1], "reproduce") || !strcmp(argv[1], "check")) {
		int n = argc - 2;
		char **av = argv + 2;

		rc = normalize(argv[1], &n, &av, NULL, &done);
		if (done)
			return rc;
		return !strcmp(argv[1], "check") ? cmd_check(n, av) : cmd_reproduce(n, av);
	}
	fprintf(stderr, "ptelab: error: unknown command '%s'; 'ptelab help' lists them\n", argv[1]);
	return 2;
}

int main(int argc, char **argv)
{
	int rc = ptelab_main(argc, argv);

	/* the results went out whole, or the exit status says they did not */
	if (fflush(stdout) || ferror(stdout) || fclose(stdout)) {
		fprintf(stderr, "ptelab: error: cannot write the results to standard output: %s\n",
			errno ? strerror(errno) : "write error");
		return 2;
	}
	return rc;
}
