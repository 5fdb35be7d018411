// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptelab check: random sequences on several machines (walkers with and
 * without hardware access/dirty management, an SMMU, a TLB that keeps
 * read-only entries until invalidated, BBML2, other agents acting inside
 * kernel operations) against every hardware policy for the
 * contiguous-block updates and several folio sizes, on one or more
 * backends (a kernel tree with a patch: --impl tree:PATH). Exit 1 if any
 * invariant or postcondition was violated, or if the sequences never
 * called one of the PTE operations a backend exports.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/pte_op_calls.h"
#include "cli/cli.h"
#include "hw/invariants.h"

/* The machines every backend is checked on (arm64; x86 runs the first). */
static const struct check_machine {
	const char *name;
	bool hafdbs, sticky, bbml2;
	const char *walkers;
	u32 interleave;
} machines[] = {
	{ "hafdbs", true, false, false, NULL, 0 },
	{ "sticky+race", true, true, false, NULL, 8 },
	{ "mixed+smmu", true, true, false, "cpu1=none,smmu=ha", 8 },
	{ "bbml2+race", true, false, true, NULL, 8 },
	{ "sw-af+race", false, true, false, "smmu=none", 8 },
};

#define CHECK_CONFIGS (4 * 4 * ARRAY_SIZE(machines))

static int impl_of(const char *const *names, int nr, const char *impl)
{
	for (int i = 0; i < nr; i++)
		if (names[i] == impl || !strcmp(names[i], impl))
			return i;
	return 0;
}

int cmd_check(int argc, char **argv)
{
	static const char *const policies[] = { "accessed", "first", "random", "adversarial" };
	static const u64 folios[] = { 16UL << 10, SZ_64K, 256UL << 10, SZ_2M };
	static struct run_spec specs[MAX_IMPLS * CHECK_CONFIGS];
	static unsigned int machine_of[MAX_IMPLS * CHECK_CONFIGS];
	static u64 calls[MAX_IMPLS][NR_PTE_OPS][2];
	const char *impls = "ref", *arch_name = "arm64";
	u64 seqs = 8, seed = 1, timeout = DEFAULT_TIMEOUT_S;
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
		for (unsigned int m = 0; m < ARRAY_SIZE(machines); m++) {
			for (unsigned int p = 0; p < ARRAY_SIZE(policies); p++) {
				for (unsigned int f = 0; f < ARRAY_SIZE(folios); f++) {
					struct run_spec *s = &specs[nr_specs];

					machine_of[nr_specs++] = m;
					run_spec_defaults(s, workload_by_name("fuzz"));
					s->p.impl = names[i];
					s->p.arch = arch_name;
					s->p.iterations = seqs;
					s->p.seed = seed;
					s->p.folio_size = folios[f];
					s->p.policy = (enum hw_cont_policy)p;
					if (!x86) {
						s->p.hafdbs = machines[m].hafdbs;
						s->p.tlb_sticky = machines[m].sticky;
						s->p.bbml2 = machines[m].bbml2;
						s->p.walkers = machines[m].walkers;
					}
					s->p.interleave = machines[m].interleave;
					if (s->p.interleave)
						s->set |= RUN_OPT_INTERLEAVE;
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
			/* x86: the plain machine, and other CPUs acting inside operations */
			if (x86 && m == 1)
				break;
		}
	}
	if (!json)
		printf("%-24s %-12s %-12s %8s %10s %s\n", "impl", "machine", "hw policy", "folio",
		       "violations", "first one");
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
		for (int k = 0; k < o.r.nr_extra; k++)
			for (int op = 0; op < NR_PTE_OPS; op++)
				for (int c = 0; c < 2; c++)
					if (o.r.extra_name[k] == pte_op_result_keys[op][c] ||
					    !strcmp(o.r.extra_name[k], pte_op_result_keys[op][c]))
						calls[impl_of(names, nr, s->p.impl)][op][c] +=
							(u64)o.r.extra_val[k];
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
		printf("%-24.24s %-12s %-12s %7lluK %10s %s\n", s->p.impl, machines[machine_of[i]].name,
		       policies[s->p.policy],
		       (unsigned long long)(s->p.folio_size >> 10), count,
		       o.finding.present ? o.finding.summary : o.viol.kept ? o.viol.msg[0] : "");
		if (!o.ok) {
			char repro[REPRODUCER_MAX];

			run_spec_reproducer(s, repro, sizeof(repro));
			printf("%-24s reproduce: %s\n", "", repro);
		}
		fflush(stdout);
	}
	/* coverage: every exported op reached, on contiguous entries too where they exist */
	for (int i = 0; i < nr; i++) {
		bool missed = false;

		if (!json)
			printf("\n%s: calls per PTE operation (on a contiguous entry)\n", names[i]);
		for (int op = 0; op < NR_PTE_OPS; op++) {
			u64 all = calls[i][op][0], cont = calls[i][op][1];

			if (!json)
				printf("  %-28s %12llu (%llu)\n", pte_op_names[op], (unsigned long long)all,
				       (unsigned long long)cont);
			if (!all) {
				fprintf(stderr, "ptelab: %s: the sequences never called %s: check is blind "
					"to it\n", names[i], pte_op_names[op]);
				missed = true;
			}
		}
		bad |= missed;
		if (json) {
			printf("{\"coverage\": {\"impl\": ");
			json_string(stdout, names[i]);
			printf(", \"calls\": {");
			for (int op = 0; op < NR_PTE_OPS; op++)
				printf("%s\"%s\": [%llu, %llu]", op ? ", " : "", pte_op_names[op],
				       (unsigned long long)calls[i][op][0],
				       (unsigned long long)calls[i][op][1]);
			printf("}, \"all_called\": %s}}\n", missed ? "false" : "true");
		}
	}
	if (!json)
		printf("%s\n", bad ? "invariants VIOLATED (or an operation never called)" :
				      "all invariants held");
	return bad ? 1 : 0;
}
