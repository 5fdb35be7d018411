// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptelab check: random sequences against every hardware policy for the
 * contiguous-block updates and several folio sizes, on one or more
 * backends (a kernel tree with a patch: --impl tree:PATH). Exit 1 if any
 * invariant was violated.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "hw/invariants.h"

int cmd_check(int argc, char **argv)
{
	static const char *const policies[] = { "accessed", "first", "random", "adversarial" };
	static const u64 folios[] = { 16UL << 10, SZ_64K, 256UL << 10, SZ_2M };
	const char *impls = "ref", *arch_name = "arm64";
	u64 seqs = 32, seed = 1;
	bool json = false;
	int bad = 0;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!strcmp(a, "--json")) {
			json = true;
			continue;
		}
		if (!v || strncmp(a, "--", 2)) {
			fprintf(stderr, "ptelab: error: check takes --impl, --arch, --sequences, --seed, --json\n");
			return 2;
		}
		i++;
		if (!strcmp(a, "--impl")) {
			impls = v;
		} else if (!strcmp(a, "--arch")) {
			arch_name = v;
		} else if (!strcmp(a, "--sequences")) {
			seqs = strtoull(v, &end, 10);
			if (*end || !*v || *v == '-' || seqs < 1 || seqs > 10000) {
				fprintf(stderr, "ptelab: error: --sequences takes a number from 1 to 10000\n");
				return 2;
			}
		} else if (!strcmp(a, "--seed")) {
			seed = strtoull(v, &end, 10);
			if (*end || !*v || *v == '-') {
				fprintf(stderr, "ptelab: error: --seed takes a non-negative number\n");
				return 2;
			}
		} else {
			fprintf(stderr, "ptelab: error: unknown option '%s' for check\n", a);
			return 2;
		}
	}

	char list[512], *save = NULL;
	snprintf(list, sizeof(list), "%s", impls);
	if (!json)
		printf("%-24s %-12s %8s %10s %s\n", "impl", "hw policy", "folio", "violations", "first one");
	for (char *impl = strtok_r(list, ",", &save); impl; impl = strtok_r(NULL, ",", &save)) {
		for (unsigned int p = 0; p < ARRAY_SIZE(policies); p++) {
			for (unsigned int f = 0; f < ARRAY_SIZE(folios); f++) {
				struct run_spec s;
				struct run_out o;
				char err[512];

				run_spec_defaults(&s, workload_by_name("fuzz"));
				s.p.impl = impl;
				s.p.arch = arch_name;
				s.p.iterations = seqs;
				s.p.seed = seed;
				s.p.folio_size = folios[f];
				s.p.policy = (enum hw_cont_policy)p;
				if (run_spec_execute(&s, &o, err, sizeof(err))) {
					fprintf(stderr, "ptelab: error: %s\n", err);
					return 2;
				}
				bad |= !o.ok;
				if (json) {
					print_run_json(stdout, &s, &o);
					continue;
				}
				printf("%-24.24s %-12s %7lluK %10llu %s\n", impl, policies[p],
				       (unsigned long long)(folios[f] >> 10),
				       (unsigned long long)hw_violations.total,
				       hw_violations.kept ? hw_violations.msg[0] : "");
				if (!strcmp(arch_name, "x86"))
					break; /* one folio size is enough without contiguous blocks */
			}
			if (!strcmp(arch_name, "x86"))
				break;
		}
	}
	if (!json)
		printf("%s\n", bad ? "invariants VIOLATED" : "all invariants held");
	return bad ? 1 : 0;
}
