/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tiny KTAP producer: one test case per function, EXPECT macros that
 * record failures with file:line, and a closing "N passed, N failed".
 */
#ifndef PTELAB_TESTS_KTAP_H
#define PTELAB_TESTS_KTAP_H

#include <stdio.h>

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

static inline int ktap_run(const char *suite, const struct ktap_case *cases, int n)
{
	int passed = 0, failed = 0, skipped = 0;

	printf("KTAP version 1\n1..1\n");
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n", suite, n);
	for (int i = 0; i < n; i++) {
		ktap_failed_now = 0;
		ktap_skip_now = NULL;
		fflush(stdout);
		cases[i].fn();
		if (ktap_skip_now && !ktap_failed_now) {
			printf("    ok %d %s # SKIP %s\n", i + 1, cases[i].name, ktap_skip_now);
			skipped++;
			continue;
		}
		printf("    %sok %d %s\n", ktap_failed_now ? "not " : "", i + 1, cases[i].name);
		if (ktap_failed_now)
			failed++;
		else
			passed++;
	}
	printf("%sok 1 %s\n", failed ? "not " : "", suite);
	printf("# %s: %d passed, %d failed, %d skipped\n", suite, passed, failed, skipped);
	return failed ? 1 : 0;
}

#endif
