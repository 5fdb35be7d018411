// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptelab check: random sequences against every hardware policy for the
 * contiguous-block updates and several folio sizes, on one or more
 * backends (a kernel tree with a patch: --impl tree:PATH). Exit 1 if any
 * invariant was violated.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/invariants.h"

#define CHECK_CONFIGS 16

int cmd_check(int argc, char **argv)
{
	static const char *const policies[] = { "accessed", "first", "random", "adversarial" };
	static const u64 folios[] = { 16UL << 10, SZ_64K, 256UL << 10, SZ_2M };
	static struct run_spec specs[MAX_IMPLS * CHECK_CONFIGS];
	const char *impls = "ref", *arch_name = "arm64";
	u64 seqs = 32, seed = 1, timeout = DEFAULT_TIMEOUT_S;
	bool timeout_set = false;
	bool json = false;
	int bad = 0, nr_specs = 0;
	char err[512];

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!strcmp(a, "--json")) {
			json = true;
			continue;
		}
		if (!strcmp(a, "--sanitize"))
			continue; /* handled in main */
		if (!v || strncmp(a, "--", 2)) {
			fprintf(stderr, "ptelab: error: check takes --impl, --arch, --sequences, --seed, "
					"--timeout, --sanitize, --json\n");
			return 2;
		}
		i++;
		if (!strcmp(a, "--impl")) {
			impls = v;
		} else if (!strcmp(a, "--arch")) {
			arch_name = v;
		} else if (!strcmp(a, "--sequences") || !strcmp(a, "--seed") || !strcmp(a, "--timeout")) {
			u64 n;

			errno = 0;
			n = strtoull(v, &end, 10);
			if (*end || !*v || !isdigit((unsigned char)*v) || errno == ERANGE ||
			    (!strcmp(a, "--sequences") && n < 1) ||
			    (!strcmp(a, "--timeout") && n > 7 * 24 * 3600)) {
				fprintf(stderr, "ptelab: error: %s takes %s\n", a,
					!strcmp(a, "--sequences") ? "a positive number" :
					!strcmp(a, "--seed") ? "a non-negative number" :
					"seconds, 0 for none (at most a week)");
				return 2;
			}
			if (!strcmp(a, "--sequences"))
				seqs = n;
			else if (!strcmp(a, "--seed"))
				seed = n;
			else
				timeout = n, timeout_set = true;
		} else {
			fprintf(stderr, "ptelab: error: unknown option '%s' for check\n", a);
			return 2;
		}
	}

	char list[4096];
	const char *names[MAX_IMPLS];
	int nr = split_impls(impls, list, sizeof(list), names, MAX_IMPLS, err, sizeof(err));
	bool x86 = !strcmp(arch_name, "x86");

	if (nr < 0) {
		fprintf(stderr, "ptelab: error: %s\n", err);
		return 2;
	}
	/* every configuration is checked (and every backend built) first */
	for (int i = 0; i < nr; i++) {
		for (unsigned int p = 0; p < ARRAY_SIZE(policies); p++) {
			for (unsigned int f = 0; f < ARRAY_SIZE(folios); f++) {
				struct run_spec *s = &specs[nr_specs++];

				run_spec_defaults(s, workload_by_name("fuzz"));
				s->p.impl = names[i];
				s->p.arch = arch_name;
				s->p.iterations = seqs;
				s->p.seed = seed;
				s->p.folio_size = folios[f];
				s->p.policy = (enum hw_cont_policy)p;
				s->timeout_s = (unsigned int)timeout;
				if (timeout_set)
					s->set |= RUN_SET_TIMEOUT;
				if (run_spec_validate(s, err, sizeof(err))) {
					fprintf(stderr, "ptelab: error: %s\n", err);
					return 2;
				}
				/* one folio size and policy is enough without contiguous blocks */
				if (x86)
					break;
			}
			if (x86)
				break;
		}
	}
	if (!json)
		printf("%-24s %-12s %8s %10s %s\n", "impl", "hw policy", "folio", "violations", "first one");
	for (int i = 0; i < nr_specs; i++) {
		struct run_spec *s = &specs[i];
		struct run_out o;
		int r = run_spec_execute(s, &o, err, sizeof(err));

		if (r) {
			fprintf(stderr, "ptelab: %s%s\n", r == -2 ? "" : "error: ", err);
			return r == -2 ? 3 : 2;
		}
		bad |= !o.ok;
		if (o.finding.present)
			fprintf(stderr, "ptelab: FINDING: %s\n", o.finding.summary);
		if (json) {
			print_run_json(stdout, s, &o);
			fflush(stdout);
			continue;
		}
		char count[24];

		if (o.finding.present)
			snprintf(count, sizeof(count), "%s", o.finding.kind);
		else
			snprintf(count, sizeof(count), "%llu", (unsigned long long)o.viol.total);
		printf("%-24.24s %-12s %7lluK %10s %s\n", s->p.impl, policies[s->p.policy],
		       (unsigned long long)(s->p.folio_size >> 10), count,
		       o.finding.present ? o.finding.summary : o.viol.kept ? o.viol.msg[0] : "");
		if (o.finding.present) {
			char repro[REPRODUCER_MAX];

			run_spec_reproducer(s, repro, sizeof(repro));
			printf("%-24s reproduce: %s\n", "", repro);
		}
		fflush(stdout);
	}
	if (!json)
		printf("%s\n", bad ? "invariants VIOLATED" : "all invariants held");
	return bad ? 1 : 0;
}
