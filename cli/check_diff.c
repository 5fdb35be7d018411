// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptelab check --diff A,B: two backends (ref, a built-in, or a kernel tree
 * with a patch: tree:PATH) on the same random sequences (the fuzz
 * workload's differential variant: no agents inside operations, every TLB
 * forgotten after each operation, so the hardware does the same on both
 * sides while the page tables agree). Compared per configuration: every
 * value the PTE ops returned, the final page tables, the event counts.
 * Returns or tables that differ are bisected to the first sequence that
 * differs alone, with a reproducer for each side. Events that differ are
 * listed (that is what a patch changes), without failing the check.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "hw/invariants.h"

static const struct {
	const char *name;
	bool hafdbs;
} diff_machines[] = { { "hafdbs", true }, { "sw-af", false } };

struct side {
	double returns, tables;
	struct hw_counters ev;
	bool ok, finding;
	char msg[320];
};

static double extra_of(const struct run_out *o, const char *name)
{
	for (int k = 0; k < o->r.nr_extra; k++)
		if (!strcmp(o->r.extra_name[k], name))
			return o->r.extra_val[k];
	return -1;
}

/* Sequences [first, first + n) on the spec's backend; -1 with err on bad input. */
static int run_side(const struct run_spec *spec, u64 first, u64 n, struct side *d, char *err,
		    size_t errlen)
{
	struct run_spec s = *spec;
	struct run_out *o = calloc(1, sizeof(*o));

	if (!o) {
		snprintf(err, errlen, "out of host memory");
		return -1;
	}
	s.p.first_sequence = first;
	s.p.iterations = n;
	s.set |= RUN_OPT_FIRST_SEQUENCE;
	if (run_spec_execute(&s, o, err, errlen)) {
		free(o);
		return -1;
	}
	memset(d, 0, sizeof(*d));
	d->returns = extra_of(o, "returns_digest");
	d->tables = extra_of(o, "tables_digest");
	d->ev = o->r.measured;
	d->ok = o->ok;
	d->finding = o->finding.present;
	if (o->finding.present)
		snprintf(d->msg, sizeof(d->msg), "%s", o->finding.summary);
	else if (o->viol.kept)
		snprintf(d->msg, sizeof(d->msg), "%s", o->viol.msg[0]);
	free(o);
	return 0;
}

static bool differ(const struct side *a, const struct side *b)
{
	return a->returns != b->returns || a->tables != b->tables;
}

struct diff_row {
	const char *machine;
	struct run_spec spec[2];
	struct side side[2];
	long first_diff;   /* first sequence whose returns/tables differ alone; -1 none */
	u64 lo, n;         /* else the smallest range found to differ */
};

/* The first sequence of [0, seqs) that differs alone (binary search over halves). */
static int bisect(struct diff_row *r, u64 seqs, char *err, size_t errlen)
{
	u64 lo = 0, n = seqs;

	while (n > 1) {
		u64 half = n / 2;
		struct side a, b;
		bool left, right;

		if (run_side(&r->spec[0], lo, half, &a, err, errlen) ||
		    run_side(&r->spec[1], lo, half, &b, err, errlen))
			return -1;
		left = differ(&a, &b);
		if (left) {
			n = half;
			continue;
		}
		if (run_side(&r->spec[0], lo + half, n - half, &a, err, errlen) ||
		    run_side(&r->spec[1], lo + half, n - half, &b, err, errlen))
			return -1;
		right = differ(&a, &b);
		if (!right)
			break; /* only together (state carried between sequences) */
		lo += half;
		n -= half;
	}
	r->lo = lo;
	r->n = n;
	r->first_diff = n == 1 ? (long)lo : -1;
	return 0;
}

int cmd_check_diff(const char *pair, const char *arch_name, u64 seqs, u64 seed, u64 timeout,
		   bool timeout_set, bool json)
{
	static const char *const policies[] = { "accessed", "first", "random", "adversarial" };
	static const u64 folios[] = { 16UL << 10, SZ_64K, 256UL << 10, SZ_2M };
	static struct diff_row rows[ARRAY_SIZE(diff_machines) * 4 * 4];
	char list[4096], err[512];
	const char *names[2];
	int nr = split_impls(pair, list, sizeof(list), names, 2, err, sizeof(err));
	bool x86 = !strcmp(arch_name, "x86");
	int nr_rows = 0, bad = 0;
	struct hw_counters sum[2];

	if (nr != 2) {
		fprintf(stderr, "ptelab: error: --diff takes two backends, A,B (ref, a built-in, "
			"or tree:PATH)%s%s\n", nr < 0 ? ": " : "", nr < 0 ? err : "");
		return 2;
	}
	for (unsigned int m = 0; m < ARRAY_SIZE(diff_machines); m++)
		for (unsigned int p = 0; p < ARRAY_SIZE(policies); p++)
			for (unsigned int f = 0; f < ARRAY_SIZE(folios); f++) {
				struct diff_row *r = &rows[nr_rows];

				if (x86 && (m || p || f))
					continue;
				r->machine = diff_machines[m].name;
				for (int i = 0; i < 2; i++) {
					struct run_spec *s = &r->spec[i];

					run_spec_defaults(s, workload_by_name("fuzz"));
					s->p.impl = names[i];
					s->p.arch = arch_name;
					s->p.variant = "differential";
					s->set |= RUN_OPT_VARIANT;
					s->p.seed = seed;
					s->p.iterations = seqs;
					s->p.folio_size = x86 ? SZ_64K : folios[f];
					s->p.policy = (enum hw_cont_policy)p;
					s->p.hafdbs = diff_machines[m].hafdbs;
					s->timeout_s = (unsigned int)timeout;
					if (timeout_set)
						s->set |= RUN_SET_TIMEOUT;
					if (run_spec_validate(s, err, sizeof(err))) {
						fprintf(stderr, "ptelab: error: %s\n", err);
						return 2;
					}
				}
				nr_rows++;
			}

	memset(sum, 0, sizeof(sum));
	bool tty = isatty(2);
	time_t last = 0;

	for (int i = 0; i < nr_rows; i++) {
		struct diff_row *r = &rows[i];

		/* every configuration on a terminal, a line every 10 s in a log */
		if (tty || time(NULL) - last >= 10) {
			last = time(NULL);
			fprintf(stderr, "%scheck --diff: configuration %d of %d%s", tty ? "\r" : "",
				i + 1, nr_rows, tty ? "" : "\n");
		}
		for (int k = 0; k < 2; k++)
			if (run_side(&r->spec[k], 0, seqs, &r->side[k], err, sizeof(err))) {
				fprintf(stderr, "%sptelab: error: %s\n", tty ? "\n" : "", err);
				return 2;
			}
		for (int k = 0; k < 2; k++)
			for (int e = 0; e < NR_HW_EVENTS; e++)
				sum[k].v[e] += r->side[k].ev.v[e];
		r->first_diff = -1;
		if (!r->side[0].finding && !r->side[1].finding && differ(&r->side[0], &r->side[1]) &&
		    bisect(r, seqs, err, sizeof(err))) {
			fprintf(stderr, "%sptelab: error: %s\n", tty ? "\n" : "", err);
			return 2;
		}
	}
	if (tty)
		fprintf(stderr, "\n");

	if (!json)
		printf("A: %s\nB: %s\n\n%-8s %-12s %7s  %-8s %-8s %-8s %s\n", names[0], names[1], "machine",
		       "hw policy", "folio", "returns", "tables", "events", "first differing sequence");
	for (int i = 0; i < nr_rows; i++) {
		struct diff_row *r = &rows[i];
		const struct side *a = &r->side[0], *b = &r->side[1];
		bool same_ret = a->returns == b->returns, same_tab = a->tables == b->tables;
		bool same_ev = !memcmp(&a->ev, &b->ev, sizeof(a->ev));
		char repro[2][REPRODUCER_MAX];

		for (int k = 0; k < 2; k++) {
			struct run_spec s = r->spec[k];

			if (r->first_diff >= 0) {
				s.p.first_sequence = (u64)r->first_diff;
				s.p.iterations = 1;
				s.set |= RUN_OPT_FIRST_SEQUENCE;
			}
			run_spec_reproducer(&s, repro[k], sizeof(repro[k]));
		}
		bad |= !same_ret || !same_tab || !a->ok || !b->ok;
		if (json) {
			printf("{\"diff\": {\"a\": ");
			json_string(stdout, names[0]);
			printf(", \"b\": ");
			json_string(stdout, names[1]);
			printf(", \"machine\": \"%s\", \"policy\": \"%s\", \"folio_size\": %llu, "
			       "\"same_returns\": %s, \"same_tables\": %s, \"same_events\": %s, "
			       "\"first_differing_sequence\": ", r->machine, policies[r->spec[0].p.policy],
			       (unsigned long long)r->spec[0].p.folio_size, same_ret ? "true" : "false",
			       same_tab ? "true" : "false", same_ev ? "true" : "false");
			if (r->first_diff >= 0)
				printf("%ld", r->first_diff);
			else
				printf("null");
			printf(", \"ok\": [%s, %s], \"first\": [", a->ok ? "true" : "false",
			       b->ok ? "true" : "false");
			json_string(stdout, a->msg);
			printf(", ");
			json_string(stdout, b->msg);
			printf("], \"events\": {");
			for (int e = 0, n = 0; e < NR_HW_EVENTS; e++)
				if (a->ev.v[e] != b->ev.v[e])
					printf("%s\"%s\": [%llu, %llu]", n++ ? ", " : "", hw_event_names[e],
					       (unsigned long long)a->ev.v[e], (unsigned long long)b->ev.v[e]);
			printf("}, \"reproducers\": [");
			json_string(stdout, repro[0]);
			printf(", ");
			json_string(stdout, repro[1]);
			printf("]}}\n");
			continue;
		}
		char first[64] = "";

		if (r->first_diff >= 0)
			snprintf(first, sizeof(first), "%ld", r->first_diff);
		else if (!same_ret || !same_tab)
			snprintf(first, sizeof(first), "only sequences %llu-%llu together",
				 (unsigned long long)r->lo, (unsigned long long)(r->lo + r->n - 1));
		printf("%-8s %-12s %6lluK  %-8s %-8s %-8s %s\n", r->machine, policies[r->spec[0].p.policy],
		       (unsigned long long)(r->spec[0].p.folio_size >> 10), same_ret ? "same" : "DIFFER",
		       same_tab ? "same" : "DIFFER", same_ev ? "same" : "differ", first);
		for (int k = 0; k < 2; k++)
			if (!r->side[k].ok)
				printf("         %s: %s\n", k ? "B" : "A", r->side[k].msg);
		if (!same_ret || !same_tab)
			printf("         A: %s\n         B: %s\n", repro[0], repro[1]);
	}
	if (json) {
		printf("{\"summary\": {\"a\": ");
		json_string(stdout, names[0]);
		printf(", \"b\": ");
		json_string(stdout, names[1]);
		printf(", \"sequences\": %llu, \"events\": {", (unsigned long long)seqs);
		for (int e = 0, n = 0; e < NR_HW_EVENTS; e++)
			if (sum[0].v[e] != sum[1].v[e])
				printf("%s\"%s\": [%llu, %llu]", n++ ? ", " : "", hw_event_names[e],
				       (unsigned long long)sum[0].v[e], (unsigned long long)sum[1].v[e]);
		printf("}, \"ok\": %s}}\n", bad ? "false" : "true");
		return bad ? 1 : 0;
	}
	printf("\nevents summed over the configurations (%llu sequences each):\n", (unsigned long long)seqs);
	printf("  %-24s %14s %14s %9s\n", "event", "A", "B", "B-A");
	for (int e = 0; e < NR_HW_EVENTS; e++) {
		double x = (double)sum[0].v[e], y = (double)sum[1].v[e];

		if (sum[0].v[e] == sum[1].v[e])
			continue;
		printf("  %-24s %14llu %14llu %+8.1f%%\n", hw_event_names[e], (unsigned long long)sum[0].v[e],
		       (unsigned long long)sum[1].v[e], x ? 100.0 * (y - x) / x : 100.0);
	}
	printf("%s\n", bad ? "the backends DIFFER in what the operations return or leave in the tables "
			     "(or an invariant failed)" :
			     "same returns and page tables on every configuration");
	return bad ? 1 : 0;
}
