/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny KTAP producer: one test case per function, EXPECT macros that
 * record failures with file:line, each case isolated in a child process,
 * and a closing "N passed, N failed, N skipped".
 */
#ifndef PTELAB_TESTS_KTAP_H
#define PTELAB_TESTS_KTAP_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct ktap_case {
	const char *name;
	void (*fn)(void);
};

static int ktap_failed_now;
static const char *ktap_skip_now; /* set by a case to report # SKIP */

#define EXPECT(cond)                                                              \
	do {                                                                      \
		if (!(cond)) {                                                    \
			printf("    # %s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
			ktap_failed_now = 1;                                      \
		}                                                                 \
	} while (0)

#define EXPECT_EQ(a, b)                                                          \
	do {                                                                     \
		long long _a = (long long)(a), _b = (long long)(b);              \
		if (_a != _b) {                                                  \
			printf("    # %s:%d: expected %s == %s (%lld vs %lld)\n", \
			       __FILE__, __LINE__, #a, #b, _a, _b);              \
			ktap_failed_now = 1;                                     \
		}                                                                \
	} while (0)

/*
 * Each case runs in its own child process, so a crash or an abort is
 * "not ok" for that case alone and the others still run (the child's
 * state changes do not leak into the next case either). Arguments name
 * the cases to run (the others are reported "# SKIP not selected"); none:
 * all. Output: a KTAP document as KUnit prints one, then the plain
 * "N passed, N failed, N skipped" line.
 */
static inline int ktap_run_case(const struct ktap_case *c, char *skip, size_t skiplen)
{
	int fds[2], st;
	pid_t pid;

	skip[0] = 0;
	fflush(stdout);
	if (pipe(fds) || (pid = fork()) < 0) { /* no process to spare: run it here */
		ktap_failed_now = 0;
		ktap_skip_now = NULL;
		c->fn();
		if (ktap_skip_now && !ktap_failed_now)
			snprintf(skip, skiplen, "%s", ktap_skip_now);
		return ktap_failed_now;
	}
	if (pid == 0) {
		close(fds[0]);
		ktap_failed_now = 0;
		ktap_skip_now = NULL;
		alarm(600); /* a hung case fails, the rest still run */
		c->fn();
		/* the skip reason goes back to the parent, which reports the case */
		if (ktap_skip_now && !ktap_failed_now &&
		    write(fds[1], ktap_skip_now, strlen(ktap_skip_now)) < 0)
			ktap_failed_now = 1;
		fflush(stdout);
		_exit(ktap_failed_now);
	}
	close(fds[1]);
	ssize_t got = read(fds[0], skip, skiplen - 1);

	skip[got > 0 ? got : 0] = 0;
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0)
		;
	if (WIFSIGNALED(st)) {
		printf("    # %s: crashed (signal %d: %s)\n", c->name, WTERMSIG(st),
		       strsignal(WTERMSIG(st)));
		skip[0] = 0;
		return 1;
	}
	return !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}

static inline bool ktap_selected(int argc, char **argv, const char *name)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

static inline int ktap_main(int argc, char **argv, const char *suite,
			    const struct ktap_case *cases, int n)
{
	int passed = 0, failed = 0, skipped = 0;

	for (int i = 1; i < argc; i++) {
		int known = 0;

		for (int k = 0; k < n; k++)
			known |= !strcmp(argv[i], cases[k].name);
		if (!known) {
			fprintf(stderr, "%s: no case '%s'; the cases are:", suite, argv[i]);
			for (int k = 0; k < n; k++)
				fprintf(stderr, " %s", cases[k].name);
			fputc('\n', stderr);
			return 2;
		}
	}
	printf("KTAP version 1\n1..1\n");
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n", suite, n);
	for (int i = 0; i < n; i++) {
		char skip[256];
		int bad;

		if (!ktap_selected(argc, argv, cases[i].name)) {
			printf("    ok %d %s # SKIP not selected\n", i + 1, cases[i].name);
			skipped++;
			continue;
		}
		bad = ktap_run_case(&cases[i], skip, sizeof(skip));
		if (skip[0] && !bad) {
			printf("    ok %d %s # SKIP %s\n", i + 1, cases[i].name, skip);
			skipped++;
			continue;
		}
		printf("    %sok %d %s\n", bad ? "not " : "", i + 1, cases[i].name);
		if (bad)
			failed++;
		else
			passed++;
	}
	printf("# %s: pass:%d fail:%d skip:%d total:%d\n", suite, passed, failed, skipped, n);
	printf("%sok 1 %s\n", failed ? "not " : "", suite);
	printf("# Totals: pass:%d fail:%d skip:%d total:%d\n", passed, failed, skipped, n);
	printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

#endif
