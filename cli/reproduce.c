// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptelab reproduce: the published experiments at full scale, lab
 * before/after beside the published columns (data/published.tsv).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/fidelity.h"
#include "kernel/backend.h"
#include "kernel/spawn.h"

struct experiment {
	const char *name;
	const char *title;
	int (*run)(const char *out_dir, u64 size);
	/* its host CPU seconds as measured once (--jobs 1, 2026-11-26): the longest start first */
	double host_s;
};

/*
 * --out files: each written under a temporary name and renamed once it is
 * closed whole, so a file there is never cut short; the first failure is
 * kept and ends the experiment with an error (run_experiment).
 */
struct out_open {
	FILE *f;
	char tmp[4120], path[4096];
};

static struct out_open out_opened[8];
static char out_error[4300];

static void out_failed(const char *path)
{
	if (!out_error[0])
		snprintf(out_error, sizeof(out_error), "cannot write %s: %s", path,
			 errno ? strerror(errno) : "write error");
}

static FILE *out_file(const char *dir, const char *name)
{
	struct out_open *o = NULL;

	if (!dir)
		return NULL;
	for (unsigned int i = 0; i < ARRAY_SIZE(out_opened) && !o; i++)
		if (!out_opened[i].f)
			o = &out_opened[i];
	if (!o)
		return NULL;
	snprintf(o->path, sizeof(o->path), "%s/%s", dir, name);
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp%d", o->path, (int)getpid());
	o->f = fopen(o->tmp, "w");
	if (!o->f)
		out_failed(o->path);
	return o->f;
}

/*
 * SIGTERM or SIGINT (a CI job's limit, timeout(1), ^C): the --out files
 * being written are removed, nothing half-written stays, and the signal
 * then ends the process as it would have. Workers get SIGTERM when
 * reproduce dies (worker_start), so a signal to reproduce leaves no
 * process computing on.
 */
static void out_on_signal(int sig)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(out_opened); i++)
		if (out_opened[i].f)
			unlink(out_opened[i].tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void out_signals(void)
{
	signal(SIGTERM, out_on_signal);
	signal(SIGINT, out_on_signal);
}

/* In a worker just forked: it dies with its parent, and cleans up as it does. */
static void worker_start(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(1);
	out_signals();
}

static void out_close(FILE *f)
{
	for (unsigned int i = 0; f && i < ARRAY_SIZE(out_opened); i++) {
		struct out_open *o = &out_opened[i];

		if (o->f != f)
			continue;
		errno = 0;
		bool ok = !ferror(f);
		ok = !fclose(f) && ok;
		if (!ok || rename(o->tmp, o->path)) {
			out_failed(o->path);
			unlink(o->tmp);
		}
		o->f = NULL;
		return;
	}
}

/* A lab failure that ends reproduce: 2 for an error, 3 for a ptelab bug. */
static int fatal = 2;

/*
 * A run executed (r from run_spec_execute, err its line): its JSON line
 * and its finding. 0 if it ran (its invariants may still have failed:
 * o->ok), 1 if kernel code misbehaved (a finding, printed), -1 if
 * reproduce must stop (printed; see fatal).
 */
static int run_record(const struct run_spec *s, struct run_out *o, int r, const char *err,
		      FILE *jsonl, const char *exp, const char *row)
{
	if (r) {
		fprintf(stderr, "ptelab: %s%s\n", r == -2 ? "" : "error: ", err);
		fatal = r == -2 ? 3 : 2;
		return -1;
	}
	if (jsonl) {
		/* the run's object, led by which experiment and row it is */
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);

		if (m) {
			print_run_json(m, s, o);
			fclose(m);
		}
		fprintf(jsonl, "{\"experiment\": ");
		json_string(jsonl, exp);
		fprintf(jsonl, ", \"row\": ");
		json_string(jsonl, row);
		fprintf(jsonl, ", %s", text && text[0] == '{' ? text + 1 : "\"run\": null}\n");
		free(text);
	}
	if (o->finding.present) {
		fprintf(stderr, "ptelab: FINDING: %s\n", o->finding.summary);
		return 1;
	}
	return 0;
}

static int run_one(struct run_spec *s, struct run_out *o, FILE *jsonl, const char *exp,
		   const char *row)
{
	char err[512];

	fprintf(stderr, "ptelab: %s %s...\n", exp, row);
	int r = run_spec_execute(s, o, err, sizeof(err));
	return run_record(s, o, r, err, jsonl, exp, row);
}

/*
 * A row that differs from an executed one only in its cost profile: the
 * same events costed with s's profile, when nothing the run did depended
 * on the profile (not timed on the engine, whose agents advance by the
 * costs; no perf tree, built with them). Otherwise, or if that run ended
 * in a finding, it runs. The JSON line says which row it came from and
 * has no host time.
 */
static int run_derived(struct run_spec *s, struct run_out *o, const struct run_out *from,
		       const char *from_row, FILE *jsonl, const char *exp, const char *row)
{
	char err[512];

	if (from->r.sim_timed || s->perf || from->finding.present || !from->ok)
		return run_one(s, o, jsonl, exp, row);
	*o = *from;
	/* the spec made explicit as a run's would be (its JSON params say the same) */
	if (run_spec_validate(s, err, sizeof(err)) ||
	    lab_profile_load(s->profile, &o->prof, err, sizeof(err)))
		return run_record(s, o, -1, err, jsonl, exp, row);
	if (strcmp(o->prof.arch, from->prof.arch))
		return run_one(s, o, jsonl, exp, row);
	fprintf(stderr, "ptelab: %s %s (the events of %s)\n", exp, row, from_row);
	o->modelled_ns = profile_modelled_ns(&o->prof, &o->r.measured);
	o->r.host_ns = o->r.host_phase_ns = 0;
	o->r.peak_rss_kb = 0;
	snprintf(o->derived_from, sizeof(o->derived_from), "%s", from_row);
	return run_record(s, o, 0, "", jsonl, exp, row);
}

/* --jobs: how many runs of one experiment may execute at once (run_many) */
static int repro_jobs = 1;

/* What a run_many worker hands back: run_spec_execute's answer. */
struct run_answer {
	int r;
	char err[512];
	struct run_out o;
};

/*
 * An experiment's independent runs, up to repro_jobs at once, each in a
 * forked worker that executes it and leaves its answer in a temporary
 * file; then recorded in the order given (JSON lines and findings as
 * run_one would, rc[i] its return). The runs share nothing: a run is the
 * same whichever process executes it. -1 if reproduce must stop.
 */
static int run_many(struct run_spec *s, struct run_out *o, int *rc, int n, FILE *jsonl,
		    const char *exp, const char *const *rows, const double *host_s)
{
	int order[64];

	/* the longest first (host_s: each run's host seconds as measured once), so none starts last */
	for (int i = 0; i < n && i < (int)ARRAY_SIZE(order); i++) {
		int j = i;

		for (; j > 0 && host_s && host_s[i] > host_s[order[j - 1]]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	if (n > (int)ARRAY_SIZE(order))
		n = 0; /* never: experiments have a handful of rows */
	if (repro_jobs <= 1 || n <= 1) {
		for (int i = 0; i < n; i++)
			if ((rc[i] = run_one(&s[i], &o[i], jsonl, exp, rows[i])) < 0)
				return -1;
		return 0;
	}
	FILE **ans = calloc((size_t)n, sizeof(*ans));
	pid_t *pid = calloc((size_t)n, sizeof(*pid));
	int started = 0, running = 0, stop = 0;

	if (!ans || !pid) {
		fprintf(stderr, "ptelab: error: out of memory starting %s's runs\n", exp);
		free(ans);
		free(pid);
		return -1;
	}
	fflush(NULL);
	while (started < n || running) {
		while (!stop && running < repro_jobs && started < n) {
			int i = order[started++];

			fprintf(stderr, "ptelab: %s %s...\n", exp, rows[i]);
			/*
			 * Validated here as well: what it fills in (the profile, the
			 * defaults made explicit) is what the JSON line says ran.
			 */
			char err[512];
			if (run_spec_validate(&s[i], err, sizeof(err))) {
				fprintf(stderr, "ptelab: error: %s\n", err);
				fatal = 2;
				stop = 1;
				break;
			}
			ans[i] = tmpfile();
			pid_t parent = getpid();
			pid[i] = ans[i] ? fork() : -1;
			if (pid[i] < 0) {
				fprintf(stderr, "ptelab: error: cannot start a worker for %s %s: %s\n",
					exp, rows[i], strerror(errno));
				stop = 1;
				break;
			}
			if (pid[i] == 0) {
				static struct run_answer a;

				worker_start(parent);
				a.r = run_spec_execute(&s[i], &a.o, a.err, sizeof(a.err));
				_exit(fwrite(&a, sizeof(a), 1, ans[i]) == 1 && !fflush(ans[i]) ? 0 : 1);
			}
			running++;
		}
		if (stop && !running)
			break;
		if (running && wait(NULL) > 0)
			running--;
		else if (running)
			break;
	}
	int ret = stop ? -1 : 0;
	for (int i = 0; i < n && !ret; i++) {
		static struct run_answer a;

		rewind(ans[i]);
		if (fread(&a, sizeof(a), 1, ans[i]) != 1) {
			fprintf(stderr, "ptelab: internal error, a bug in ptelab: the worker of %s %s "
				"gave no answer\n", exp, rows[i]);
			fatal = 3;
			ret = -1;
			break;
		}
		o[i] = a.o;
		if ((rc[i] = run_record(&s[i], &o[i], a.r, a.err, jsonl, exp, rows[i])) < 0)
			ret = -1;
	}
	for (int i = 0; i < n; i++)
		if (ans[i])
			fclose(ans[i]);
	free(ans);
	free(pid);
	return ret;
}

/* Scaled runs: --size SIZE runs every experiment at SIZE / 1G of its size. */
static u64 scaled(u64 full, u64 size)
{
	u64 v = (u64)((double)full * (double)size / (double)SZ_1G);

	return v ? v : 1;
}

static const char *const s5_rows[] = { "4K", "16K", "32K", "64K", "128K",
				       "256K", "512K", "1024K", "2048K" };

/*
 * S5 was measured on mm-unstable of February 2024 (6.8 + the series), two
 * changes before 6.10: every PTE-level unmap of a large anon folio still
 * queued it for deferred split, and release_pages freed each large folio
 * alone. Both the before and after rows run that kernel.
 */
static const char *const s5_era[] = { "deferred-split-partial", "folio-batch-free" };

/*
 * A table cell as the TSV keeps it: numbers only, so any tool reads the
 * column as numbers: "" for a figure there is none of ("-" on screen),
 * no sign or percent sign around a number ("+190%" -> 190).
 */
static const char *tsv_cell(const char *s, char *buf, size_t n)
{
	size_t len;

	if (!strcmp(s, "-"))
		return "";
	snprintf(buf, n, "%s", s[0] == '+' ? s + 1 : s);
	len = strlen(buf);
	if (len && buf[len - 1] == '%')
		buf[len - 1] = 0;
	return buf;
}

static void fmt_pub(char *buf, size_t n, const char *row, const char *col)
{
	double v;

	if (published_get("S5", row, col, &v, NULL))
		snprintf(buf, n, "%s", "-");
	else
		snprintf(buf, n, "%.2f", v * 1e3);
}

/* S5: munmap of 1 GiB, per-PTE zap vs batched zap, per folio size. */
static int s5_run(const char *out_dir, u64 size)
{
	const struct workload *w = workload_by_name("munmap");
	FILE *jsonl = out_file(out_dir, "S5.jsonl");
	FILE *tsv = out_file(out_dir, "S5.tsv");
	const char *arches[] = { "x86", "arm64" };
	int failed = 0;

	for (int a = 0; a < 2; a++) {
		struct run_out o;
		char fitted[200] = "", prof[64] = "";

		printf("\nS5 munmap of %llu MiB, arch %s: modelled time (ms)%s\n",
		       (unsigned long long)(size >> 20), arches[a],
		       a != 0 ? "" : size == SZ_1G ? ", published columns from data/published.tsv"
						   : " (published figures are for 1 GiB: not shown)");
		printf("%-7s %10s %10s %8s %9s %9s | %10s %10s %8s\n", "folio", "lab-before",
		       "lab-after", "change", "rmap x", "ref x", "pub-before", "pub-after", "change");
		if (tsv && a == 0)
			fprintf(tsv, "arch\tfolio\tlab_before_ms\tlab_after_ms\tpublished_before_ms\tpublished_after_ms\n");
		for (unsigned int r = 0; r < ARRAY_SIZE(s5_rows); r++) {
			struct run_spec s;
			double t[2];
			u64 rmap[2], ref[2];

			for (int v = 0; v < 2; v++) {
				run_spec_defaults(&s, w);
				s.p.arch = arches[a];
				s.p.size = size;
				parse_size(s5_rows[r], &s.p.folio_size);
				if (v == 0)
					s.without[s.nr_without++] = "zap-batch";
				for (unsigned int e = 0; e < ARRAY_SIZE(s5_era); e++)
					s.without[s.nr_without++] = s5_era[e];
				char row[64];

				snprintf(row, sizeof(row), "%s %s %s", arches[a], s5_rows[r],
					 v ? "after" : "before");
				if (run_one(&s, &o, jsonl, "S5", row) < 0)
					return -1;
				if (!o.ok) {
					fprintf(stderr, "ptelab: S5 %s %s: invariants violated\n",
						arches[a], s5_rows[r]);
					failed = 1;
				}
				t[v] = o.modelled_ns / 1e6;
				rmap[v] = o.r.measured.v[EV_rmap_call];
				ref[v] = o.r.measured.v[EV_folio_ref_atomic];
				snprintf(fitted, sizeof(fitted), "%s", o.prof.fitted_on);
				snprintf(prof, sizeof(prof), "%s", o.prof.name);
			}
			char pb[32] = "-", pa[32] = "-", pc[32] = "-", c1[32], c2[32];
			double vb, va;
			/* published figures are for 1 GiB: beside full-scale runs only */
			if (a == 0 && size == SZ_1G) {
				fmt_pub(pb, sizeof(pb), s5_rows[r], "before");
				fmt_pub(pa, sizeof(pa), s5_rows[r], "after");
				if (!published_get("S5", s5_rows[r], "before", &vb, NULL) &&
				    !published_get("S5", s5_rows[r], "after", &va, NULL))
					snprintf(pc, sizeof(pc), "%+.0f%%", (va / vb - 1) * 100);
				fidelity_add("S5", s5_rows[r], "before", FID_TIME, t[0] / 1e3, &o.prof);
				fidelity_add("S5", s5_rows[r], "after", FID_TIME, t[1] / 1e3, &o.prof);
			}
			printf("%-7s %10.2f %10.2f %+7.0f%% %8.1fx %8.1fx | %10s %10s %8s\n",
			       s5_rows[r], t[0], t[1], (t[1] / t[0] - 1) * 100,
			       (double)rmap[0] / (double)(rmap[1] ? rmap[1] : 1),
			       (double)ref[0] / (double)(ref[1] ? ref[1] : 1), pb, pa, pc);
			if (tsv)
				fprintf(tsv, "%s\t%s\t%.4f\t%.4f\t%s\t%s\n", arches[a], s5_rows[r],
					t[0], t[1], tsv_cell(pb, c1, sizeof(c1)),
					tsv_cell(pa, c2, sizeof(c2)));
		}
		printf("profile %s; fitted on: %s\n", prof, fitted[0] ? fitted : "(nothing)");
	}
	printf("rmap x / ref x: rmap_call and folio_ref_atomic events, before / after.\n"
	       "The kernel of the experiment (mm-unstable, Feb 2024) on both sides: --without %s\n"
	       "--without %s.\n", s5_era[0], s5_era[1]);
	if (jsonl)
		out_close(jsonl);
	if (tsv)
		out_close(tsv);
	return failed ? 1 : 0;
}

/* Kernel backends join a table when their source has been fetched. */
static bool fetched(const char *impl)
{
	char names[32][64];
	int n = kernel_fetched(names, 32);

	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], impl))
			return true;
	return false;
}

/* A table row: one run, maybe compared with an earlier row ("before"). */
struct cmp_row {
	const char *label, *impl, *variant, *lru;
	const char *without; /* switch turned off for this row, or NULL */
	int base;            /* the row it is compared with; -1: none */
};

/*
 * Run every row (kernel rows only where their source is fetched);
 * configure() sets what all rows of the experiment share.
 */
static int run_rows(const char *exp, const struct workload *w, const struct cmp_row *rows,
		    int n, void (*configure)(struct run_spec *s, u64 size), u64 size,
		    FILE *jsonl, struct run_out *outs, bool *ran)
{
	static struct run_spec specs[16];
	static struct run_out got[16];
	const char *labels[16];
	int idx[16], rcs[16], m = 0, failed = 0;

	if (n > (int)ARRAY_SIZE(specs))
		n = (int)ARRAY_SIZE(specs); /* never: a table has a handful of rows */
	for (int r = 0; r < n; r++) {
		struct run_spec *s = &specs[m];

		ran[r] = false;
		if (strcmp(rows[r].impl, "ref") && !fetched(rows[r].impl))
			continue;
		run_spec_defaults(s, w);
		s->p.impl = rows[r].impl;
		if (rows[r].variant)
			s->p.variant = rows[r].variant;
		if (rows[r].lru)
			s->p.lru = rows[r].lru;
		if (rows[r].without)
			s->without[s->nr_without++] = rows[r].without;
		configure(s, size);
		labels[m] = rows[r].label;
		idx[m++] = r;
	}
	/* the rows are independent: on every core, recorded in row order */
	if (run_many(specs, got, rcs, m, jsonl, exp, labels, NULL) < 0)
		return -1;
	for (int i = 0; i < m; i++) {
		outs[idx[i]] = got[i];
		failed |= !got[i].ok;
		/* a row whose kernel code crashed has no numbers to show */
		ran[idx[i]] = rcs[i] == 0;
	}
	return failed;
}

/* "after / before" of a row against its base, or "-". */
static void fmt_rel(char *buf, size_t len, const struct cmp_row *rows,
		    const struct run_out *outs, const bool *ran, int r)
{
	int b = rows[r].base;

	if (b >= 0 && ran[b] && ran[r] && outs[b].modelled_ns > 0)
		snprintf(buf, len, "%.3f", outs[r].modelled_ns / outs[b].modelled_ns);
	else
		snprintf(buf, len, "-");
}

/*
 * S4: mlock-loop, 500 iterations, early exit in contpte_ptep_get. The
 * patch's v3 test (write+read every page inside the loop) was measured on
 * a debug kernel, its v7 scenarios (nothing touched) on a production one:
 * each row runs on the profile of the kernel it stands for.
 */
static void s4_configure(struct run_spec *s, u64 size)
{
	s->p.iterations = scaled(500, size);
	snprintf(s->profile, sizeof(s->profile), "%s",
		 s->p.variant && !strcmp(s->p.variant, "touched") ? "mobile-arm64-soc-debug" :
								     "mobile-arm64-soc");
	s->perf = true; /* its table gives contpte_ptep_get's share */
}

static int s4_run(const char *out_dir, u64 size)
{
	/* labels "ROW COLUMN" of data/published.tsv (the kernel rows have none) */
	static const struct cmp_row rows[] = {
		{ "total before", "ref", "touched", NULL, "ptep-get-early-exit", -1 },
		{ "total after", "ref", "touched", NULL, NULL, 0 },
		{ "v7-young-dirty before", "ref", "young-dirty", NULL, "ptep-get-early-exit", -1 },
		{ "v7-young-dirty after", "ref", "young-dirty", NULL, NULL, 2 },
		{ "v7-one-young before", "ref", "one-young", NULL, "ptep-get-early-exit", -1 },
		{ "v7-one-young after", "ref", "one-young", NULL, NULL, 4 },
		{ "v7-cold before", "ref", "cold", NULL, "ptep-get-early-exit", -1 },
		{ "v7-cold after", "ref", "cold", NULL, NULL, 6 },
		{ "linux-6.12", "linux-6.12", "touched", NULL, NULL, -1 },
		{ "linux-7.3", "linux-7.3", "touched", NULL, NULL, 8 },
	};
	static struct run_out outs[ARRAY_SIZE(rows)];
	bool ran[ARRAY_SIZE(rows)], full = size == SZ_1G;
	FILE *jsonl = out_file(out_dir, "S4.jsonl");
	FILE *tsv = out_file(out_dir, "S4.tsv");
	int failed = run_rows("S4", workload_by_name("mlock-loop"), rows, ARRAY_SIZE(rows),
			      s4_configure, size, jsonl, outs, ran);

	if (failed < 0)
		return -1;
	printf("\nS4 mlock-loop, 4096 x 16 pages of 64K contpte, %llu iterations%s\n",
	       (unsigned long long)scaled(500, size), full ? "" : " (scaled run)");
	printf("%-22s %9s %9s %9s %9s %9s %9s | %9s %9s\n", "run", "modelled", "loads", "folds",
	       "gather", "ptep_get", "vs", "published", "published");
	printf("%-22s %9s %9s %9s %9s %9s %9s | %9s %9s\n", "", "s", "per get", "per get",
	       "share", "share", "before", "s", "share");
	if (tsv)
		fprintf(tsv, "run\tmodelled_s\tpte_read_per_get\tmerges_per_get\tgather_share"
			"\tcontpte_ptep_get_share\tpublished_s\tpublished_share\n");
	for (int r = 0; r < (int)ARRAY_SIZE(rows); r++) {
		const struct run_out *o = &outs[r];
		char pub[32] = "-", pubsh[32] = "-", pubfr[32] = "-", rel[32], c1[32], c2[32], prow[48];
		const char *col = strrchr(rows[r].label, ' ');
		double v;

		if (!ran[r])
			continue;
		double secs = o->modelled_ns / 1e9;
		double gets = (double)(o->r.measured.v[EV_contpte_get] ? o->r.measured.v[EV_contpte_get] : 1);
		double per_get = (double)o->r.measured.v[EV_contpte_get_read] / gets;
		double merges = (double)o->r.measured.v[EV_contpte_merge] / gets;
		double share = (o->r.measured.v[EV_contpte_get_read] * o->prof.cost[EV_pte_read] +
				o->r.measured.v[EV_contpte_merge] * o->prof.cost[EV_contpte_merge] +
				o->r.measured.v[EV_contpte_test] * o->prof.cost[EV_contpte_test]) /
			       (o->modelled_ns ? o->modelled_ns : 1);
		/* the modelled perf profile's frame (its self time: it calls nothing) */
		double fself, fchildren;

		perf_function_share(&o->r, "contpte_ptep_get", &fself, &fchildren);
		if (full && col && !strcmp(rows[r].impl, "ref")) {
			/* "total before": S4:total:before, S4:profile-before:contpte_ptep_get */
			int n = (int)(col - rows[r].label);
			char row[40];

			snprintf(row, sizeof(row), "%.*s", n, rows[r].label);
			if (!published_get("S4", row, col + 1, &v, NULL))
				snprintf(pub, sizeof(pub), "%.4g", v);
			fidelity_add("S4", row, col + 1, FID_TIME, secs, &o->prof);
			if (!strcmp(row, "total"))
				snprintf(prow, sizeof(prow), "profile-%s", col + 1);
			else
				snprintf(prow, sizeof(prow), "%s-profile-%s", row, col + 1);
			if (!published_get("S4", prow, "contpte_ptep_get", &v, NULL)) {
				snprintf(pubsh, sizeof(pubsh), "%.2f%%", v);
				snprintf(pubfr, sizeof(pubfr), "%.5f", v / 100); /* a fraction, as the lab's */
			}
			fidelity_add("S4", prow, "contpte_ptep_get", FID_SHARE, fself * 100, &o->prof);
		}
		fmt_rel(rel, sizeof(rel), rows, outs, ran, r);
		printf("%-22s %9.3f %9.2f %9.2f %8.1f%% %8.1f%% %9s | %9s %9s\n", rows[r].label, secs,
		       per_get, merges, share * 100, fself * 100, rel, pub, pubsh);
		if (tsv)
			fprintf(tsv, "%s\t%.6f\t%.3f\t%.3f\t%.5f\t%.5f\t%s\t%s\n", rows[r].label,
				secs, per_get, merges, share, fself,
				tsv_cell(pub, c1, sizeof(c1)), tsv_cell(pubfr, c2, sizeof(c2)));
	}
	printf("total: the patch's v3 test (write then read every page inside the loop), on\n"
	       "mobile-arm64-soc-debug (the debug kernel it was measured on; fitted on \"total before\"\n"
	       "only). v7-*: its v7 scenarios (only mlock/munlock in the loop; entries young and dirty,\n"
	       "one young, none), on mobile-arm64-soc (fitted on v7-young-dirty and v7-cold \"before\").\n"
	       "Every other published figure is a prediction. vs before: modelled after / before;\n"
	       "loads, folds: pte_read and contpte_merge per gather; gather share: their modelled time\n"
	       "and contpte_test's (a second bit test of an entry loaded);\n"
	       "ptep_get share: contpte_ptep_get's self share of the modelled perf profile, as perf's\n"
	       "overhead column shows it.\n");
	if (jsonl)
		out_close(jsonl);
	if (tsv)
		out_close(tsv);
	return failed;
}

/* S2: exit cost per variant relative to baseline, one node and two. */
static int s2_run(const char *out_dir, u64 size)
{
	const struct workload *w = workload_by_name("exit");
	static const char *const variants[] = { "baseline", "no-opt", "simple-full",
						"robust-full", "clear-ptes" };
	static const char *const profiles[] = { "altra-1node", "altra-2node" };
	FILE *jsonl = out_file(out_dir, "S2.jsonl");
	FILE *tsv = out_file(out_dir, "S2.tsv");
	double t[ARRAY_SIZE(variants)][2];
	bool full = size == SZ_1G;
	int failed = 0;
	static struct profile prof1; /* the one-node runs' (fidelity) */

	for (unsigned int v = 0; v < ARRAY_SIZE(variants); v++) {
		static struct run_out o, one_node;
		char row1[96];

		for (int n = 0; n < 2; n++) {
			struct run_spec s;

			run_spec_defaults(&s, w);
			s.p.variant = variants[v];
			s.p.iterations = scaled(1000, size);
			/* the 2023 kernels had no early exit in contpte_ptep_get */
			s.without[s.nr_without++] = "ptep-get-early-exit";
			snprintf(s.profile, sizeof(s.profile), "%s", profiles[n]);
			char row[96];

			snprintf(row, sizeof(row), "%s on %s", variants[v], profiles[n]);
			/* two nodes change only what TLB maintenance costs: the one-node run's events */
			int r = n ? run_derived(&s, &o, &one_node, row1, jsonl, "S2", row)
				  : run_one(&s, &o, jsonl, "S2", row);

			if (r < 0)
				return -1;
			if (!n) {
				one_node = o;
				prof1 = o.prof;
				snprintf(row1, sizeof(row1), "%s", row);
			}
			failed |= !o.ok;
			t[v][n] = o.modelled_ns;
		}
	}
	printf("\nS2 exit_mmap of %llu kernel-build-like processes%s: cost over baseline\n",
	       (unsigned long long)scaled(1000, size), full ? "" : " (scaled run)");
	printf("%-12s %14s %14s | %16s\n", "variant", "lab 1-node", "lab 2-node", "published 1-node");
	if (tsv)
		fprintf(tsv, "variant\tlab_1node_pct\tlab_2node_pct\tpublished_1node_pct\n");
	for (unsigned int v = 0; v < ARRAY_SIZE(variants); v++) {
		double p1 = (t[v][0] / t[0][0] - 1) * 100, p2 = (t[v][1] / t[0][1] - 1) * 100, pub;
		char ps[32] = "-", c1[32];

		if (v && full && !published_get("S2", variants[v], "one-node", &pub, NULL)) {
			snprintf(ps, sizeof(ps), "%+.0f%%", pub);
			fidelity_add("S2", variants[v], "one-node", FID_PERCENT, p1, &prof1);
		}
		printf("%-12s %+13.1f%% %+13.1f%% | %16s\n", variants[v], p1, p2, v ? ps : "(base)");
		if (tsv)
			fprintf(tsv, "%s\t%.2f\t%.2f\t%s\n", variants[v], p1, p2,
				tsv_cell(ps, c1, sizeof(c1)));
	}
	printf("baseline modelled: %.2f ms (1-node), %.2f ms (2-node).\n"
	       "altra-1node was fitted on no-opt, simple-full and robust-full; clear-ptes and\n"
	       "the 2-node column are predictions. The rows are the kernels measured in Dec 2023\n"
	       "(v6.7-rc1 + anonfolio-v7 with 6.7's per-PTE zap; contpte series v3, its core-mm\n"
	       "batch-clear in clear-ptes only). altra-2node is altra-1node with TLB maintenance\n"
	       "scaled (derive.scale: an assumption, not a fit).\n",
	       t[0][0] / 1e6, t[0][1] / 1e6);
	if (jsonl)
		out_close(jsonl);
	if (tsv)
		out_close(tsv);
	return failed;
}

/* S1: memory.reclaim of 8 of 10 GiB of file folios, young tests batched or not. */
static void s1_configure(struct run_spec *s, u64 size)
{
	s->p.size = 10 * size;
	snprintf(s->profile, sizeof(s->profile), "arm64-server-32c");
}

static int s1_run(const char *out_dir, u64 size)
{
	static const struct cmp_row rows[] = {
		{ "mglru before", "ref", NULL, "mglru", "young-batch", -1 },
		{ "mglru after", "ref", NULL, "mglru", NULL, 0 },
		{ "classic before", "ref", NULL, "classic", "young-batch", -1 },
		{ "classic after", "ref", NULL, "classic", NULL, 2 },
		/* 6.12's kernel: its own dispatchers, and core-mm before S1 */
		{ "mglru linux-6.12", "linux-6.12", NULL, "mglru", "young-batch", -1 },
		{ "mglru linux-7.3", "linux-7.3", NULL, "mglru", NULL, 4 },
	};
	static struct run_out outs[ARRAY_SIZE(rows)];
	bool ran[ARRAY_SIZE(rows)], full = size == SZ_1G;
	FILE *jsonl = out_file(out_dir, "S1.jsonl");
	FILE *tsv = out_file(out_dir, "S1.tsv");
	int failed = run_rows("S1", workload_by_name("reclaim-file"), rows, ARRAY_SIZE(rows),
			      s1_configure, size, jsonl, outs, ran);

	if (failed < 0)
		return -1;
	printf("\nS1 reclaim of 80%% of %llu MiB of 64K file folios via memory.reclaim%s, profile arm64-server-32c\n",
	       (unsigned long long)(10 * size >> 20), full ? "" : " (scaled run)");
	printf("%-18s %11s %13s %13s %10s | %12s\n", "run", "modelled s", "young loads", "young atomics",
	       "vs before", "published s");
	if (tsv)
		fprintf(tsv, "run\tmodelled_s\tyoung_read\tyoung_atomic\treclaimed_bytes\tpublished_s\n");
	for (int r = 0; r < (int)ARRAY_SIZE(rows); r++) {
		const struct run_out *o = &outs[r];
		char pub[32] = "-", rel[32], c1[32];
		double v;

		if (!ran[r])
			continue;
		if (full && r < 2 && !published_get("S1", "mglru", r == 0 ? "before" : "after", &v, NULL)) {
			snprintf(pub, sizeof(pub), "%.3f", v);
			fidelity_add("S1", "mglru", r == 0 ? "before" : "after", FID_TIME,
				     o->modelled_ns / 1e9, &o->prof);
		}
		fmt_rel(rel, sizeof(rel), rows, outs, ran, r);
		printf("%-18s %11.3f %13llu %13llu %10s | %12s\n", rows[r].label, o->modelled_ns / 1e9,
		       (unsigned long long)o->r.measured.v[EV_young_read],
		       (unsigned long long)o->r.measured.v[EV_young_atomic], rel, pub);
		if (tsv)
			fprintf(tsv, "%s\t%.5f\t%llu\t%llu\t%.0f\t%s\n", rows[r].label, o->modelled_ns / 1e9,
				(unsigned long long)o->r.measured.v[EV_young_read],
				(unsigned long long)o->r.measured.v[EV_young_atomic], o->r.extra_val[1],
				tsv_cell(pub, c1, sizeof(c1)));
	}
	printf("arm64-server-32c was fitted on the two published MGLRU figures; the classic-LRU rows\n"
	       "and the kernel-backend rows are predictions. young loads/atomics: spent in young tests.\n");
	if (jsonl)
		out_close(jsonl);
	if (tsv)
		out_close(tsv);
	return failed;
}

/*
 * S3: max_guest_memory_test (64 vCPUs, 250 GiB guest, 256 GB host at
 * --size 1G; both memories scale with --size), run2 on the discrete-event
 * engine. x86 rows: the seed's base and the seed (v1), the base without
 * the young flush (v2), classic LRU; arm64 rows: S1 x S3 with 64K shmem
 * folios, 6.12 (per-PTE clear_young under the write lock) against 7.3
 * (one call per batch).
 */
/*
 * 64 vCPUs on 1/64 of the published memory by default: what each page
 * costs and how the agents contend does not depend on how many pages
 * there are, and a full-scale row takes minutes of host time (run
 * max-guest-memory with its defaults for the published size). Ratios
 * are compared with the published ratios; seconds scale with the size.
 */
#define S3_SCALE 64

struct s3_row {
	const char *label, *arch, *variant, *lru, *without;
	u64 folio_size;
	const char *pub_row, *pub_col; /* published figure, or NULL */
	int base;
	double host_s; /* host seconds at the default size as measured once: the longest start first */
};

/* the branch the published kswapd profiles expand: through folio_referenced */
static const char *const s3_funcs[] = {
	"evict_folios", "shrink_folio_list", "folio_referenced", "rmap_walk_file",
	"folio_referenced_one", "__mmu_notifier_clear_flush_young",
	"kvm_mmu_notifier_clear_flush_young", "_raw_write_lock", "lru_gen_look_around",
	"__mmu_notifier_test_clear_young",
};
/* kswapd's other heavy paths, whole (perf report --children) */
static const char *const s3_off_branch[] = {
	"try_to_unmap", "shmem_writeout", "rmap_walk_file", "_raw_write_lock",
};

static double s3_share(const struct run_out *o, const char *fn)
{
	for (int i = 0; i < o->r.nr_profile; i++)
		if (!strcmp(o->r.profile[i].name, fn))
			return 100 * o->r.profile[i].share;
	return 0;
}

static double s3_branch_share(const struct run_out *o, const char *fn)
{
	for (int i = 0; i < o->r.nr_branch; i++)
		if (!strcmp(o->r.branch[i].name, fn))
			return 100 * o->r.branch[i].share;
	return 0;
}

static double s3_result(const struct run_out *o, const char *name)
{
	for (int i = 0; i < o->r.nr_extra; i++)
		if (!strcmp(o->r.extra_name[i], name))
			return o->r.extra_val[i];
	return 0;
}

static int s3_run(const char *out_dir, u64 size)
{
	static const struct s3_row rows[] = {
		{ "mglru before", "x86", "v1", "mglru", "spte-test-clear-young", SZ_4K, "mglru", "before", -1, 2.6 },
		{ "mglru after", "x86", "v1", "mglru", NULL, SZ_4K, "mglru", "after", 0, 2.0 },
		{ "v2 before", "x86", "v2", "mglru", "spte-test-clear-young", SZ_4K, "v2", "before", -1, 2.0 },
		{ "v2 after", "x86", "v2", "mglru", NULL, SZ_4K, "v2", "after", 2, 2.4 },
		{ "classic before", "x86", "v1", "classic", "spte-test-clear-young", SZ_4K, "classic", "before", -1, 3.0 },
		{ "arm64 6.12 64K", "arm64", "6.12", "mglru", NULL, SZ_64K, NULL, NULL, -1, 1.8 },
		{ "arm64 7.3 64K", "arm64", "7.3", "mglru", NULL, SZ_64K, NULL, NULL, 5, 0.8 },
	};
	double host_s[ARRAY_SIZE(rows)];
	static struct run_out outs[ARRAY_SIZE(rows)];
	static struct run_spec specs[ARRAY_SIZE(rows)];
	const char *labels[ARRAY_SIZE(rows)];
	int rcs[ARRAY_SIZE(rows)];
	bool ran[ARRAY_SIZE(rows)];
	const struct workload *w = workload_by_name("max-guest-memory");
	FILE *jsonl = out_file(out_dir, "S3.jsonl");
	FILE *tsv = out_file(out_dir, "S3.tsv");
	int failed = 0;

	/* the rows are independent: on every core (the arm64 6.12 row alone is half of S3) */
	for (int r = 0; r < (int)ARRAY_SIZE(rows); r++) {
		struct run_spec s;

		run_spec_defaults(&s, w);
		s.p.arch = rows[r].arch;
		s.p.variant = rows[r].variant;
		s.p.lru = rows[r].lru;
		s.p.folio_size = rows[r].folio_size;
		s.p.size = ALIGN_DOWN(scaled(250ULL << 30, size) / S3_SCALE, SZ_2M);
		s.p.host_memory = ALIGN_DOWN(scaled(256000000000ULL, size) / S3_SCALE, SZ_2M);
		s.timeout_s = 0;
		if (rows[r].without)
			s.without[s.nr_without++] = rows[r].without;
		specs[r] = s;
		labels[r] = rows[r].label;
		host_s[r] = rows[r].host_s;
	}
	if (run_many(specs, outs, rcs, (int)ARRAY_SIZE(rows), jsonl, "S3", labels, host_s) < 0)
		return -1;
	for (int r = 0; r < (int)ARRAY_SIZE(rows); r++) {
		failed |= !outs[r].ok;
		ran[r] = rcs[r] == 0;
	}
	printf("\nS3 max_guest_memory_test, 64 vCPUs, %llu MiB guest on a %llu MB host (1/%d of the "
	       "published size%s): run2\n",
	       (unsigned long long)(scaled(250ULL << 30, size) / S3_SCALE >> 20),
	       (unsigned long long)(scaled(256000000000ULL, size) / S3_SCALE / 1000000), S3_SCALE,
	       size == SZ_1G ? "" : ", scaled further by --size");
	/* seconds at the published size: run2 grows linearly with it */
	double full = (double)S3_SCALE * (double)SZ_1G / (double)size;

	printf("%-16s %10s %9s %11s %10s %10s %10s %9s | %9s %12s\n", "run", "modelled s",
	       "x full s", "write locks", "flush IPIs", "swap-ins", "retries", "vs before", "pub ratio",
	       "pub s (full)");
	if (tsv)
		fprintf(tsv, "run\tmodelled_s\tx_full_s\tmmu_lock_write\tflush_ipis\tswap_ins\t"
			     "fault_retries\tpublished_s\n");
	for (int r = 0; r < (int)ARRAY_SIZE(rows); r++) {
		const struct run_out *o = &outs[r];
		char pub[32] = "-", rel[32] = "-", prel[32] = "-", c1[32];
		double v, vb;
		int b = rows[r].base;

		if (!ran[r])
			continue;
		if (rows[r].pub_row && !published_get("S3", rows[r].pub_row, rows[r].pub_col, &v, NULL)) {
			snprintf(pub, sizeof(pub), "%.0f", v);
			if (size == SZ_1G)
				fidelity_add("S3", rows[r].pub_row, rows[r].pub_col, FID_TIME,
					     o->modelled_ns / 1e9 * full, &o->prof);
			if (b >= 0 && !published_get("S3", rows[b].pub_row, rows[b].pub_col, &vb, NULL))
				snprintf(prel, sizeof(prel), "%.3f", v / vb);
		}
		if (b >= 0 && ran[b] && outs[b].modelled_ns > 0)
			snprintf(rel, sizeof(rel), "%.3f", o->modelled_ns / outs[b].modelled_ns);
		printf("%-16s %10.2f %9.1f %11.0f %10.0f %10.0f %10.0f %9s | %9s %12s%s\n",
		       rows[r].label, o->modelled_ns / 1e9, o->modelled_ns / 1e9 * full,
		       s3_result(o, "mmu_lock_write"), s3_result(o, "flush_ipis"),
		       s3_result(o, "swap_ins"), s3_result(o, "fault_retries"), rel, prel, pub,
		       r == 0 ? "  (fitted)" : "");
		if (tsv)
			fprintf(tsv, "%s\t%.4f\t%.1f\t%.0f\t%.0f\t%.0f\t%.0f\t%s\n", rows[r].label,
				o->modelled_ns / 1e9, o->modelled_ns / 1e9 * full,
				s3_result(o, "mmu_lock_write"),
				s3_result(o, "flush_ipis"), s3_result(o, "swap_ins"),
				s3_result(o, "fault_retries"), tsv_cell(pub, c1, sizeof(c1)));
	}
	/* v1's rows (0, 1) and v2's (2, 3), each against its own published profile */
	for (int v = 0; v < 2; v++) {
		const char *pre = v ? "kswapd-v2-" : "kswapd-";
		const struct run_out *ob = &outs[2 * v], *oa = &outs[2 * v + 1];
		char rb[32], ra[32];

		if (!ran[2 * v] || !ran[2 * v + 1])
			continue;
		snprintf(rb, sizeof(rb), "%sbefore", pre);
		snprintf(ra, sizeof(ra), "%safter", pre);
		printf("\n%s kswapd, share of its CPU time on the call paths through folio_referenced\n"
		       "(%%; perf report -G's branch, as the published profiles show it)\n",
		       v ? "v2" : "v1");
		printf("%-36s %8s %8s | %10s %10s\n", "function", "before", "after", "pub before",
		       "pub after");
		for (unsigned int i = 0; i < ARRAY_SIZE(s3_funcs); i++) {
			const char *fn = s3_funcs[i];
			char pb[16] = "-", pa[16] = "-";
			double x;

			/* v2's base asks KVM with clear_young, not clear_flush_young */
			if (v && strstr(fn, "clear_flush_young"))
				fn = strstr(fn, "kvm_") ? "kvm_mmu_notifier_clear_young"
							: "__mmu_notifier_clear_young";
			if (!published_get("S3", rb, fn, &x, NULL))
				snprintf(pb, sizeof(pb), "%.2f", x);
			if (!published_get("S3", ra, fn, &x, NULL))
				snprintf(pa, sizeof(pa), "%.2f", x);
			if (size == SZ_1G) {
				fidelity_add("S3", rb, fn, FID_SHARE, s3_branch_share(ob, fn), &ob->prof);
				fidelity_add("S3", ra, fn, FID_SHARE, s3_branch_share(oa, fn), &oa->prof);
			}
			printf("%-36s %8.2f %8.2f | %10s %10s\n", fn, s3_branch_share(ob, fn),
			       s3_branch_share(oa, fn), pb, pa);
		}
		printf("off that branch, whole (%%, perf report --children; not published)\n");
		for (unsigned int i = 0; i < ARRAY_SIZE(s3_off_branch); i++)
			printf("%-36s %8.2f %8.2f |\n", s3_off_branch[i], s3_share(ob, s3_off_branch[i]),
			       s3_share(oa, s3_off_branch[i]));
	}
	printf("x full s: run2 at the published size (modelled s x %.0f). %s fitted on: %s.\n"
	       "Every other S3 number is a prediction; the classic row and the arm64 rows (%s: %s)\n"
	       "have no published figure.\n", full, ran[0] ? outs[0].prof.name : "x86-kvm-host",
	       ran[0] ? outs[0].prof.fitted_on : "?", ran[5] ? outs[5].prof.name : "arm64-kvm-host",
	       ran[5] ? outs[5].prof.fitted_on : "?");
	if (jsonl)
		out_close(jsonl);
	if (tsv)
		out_close(tsv);
	return failed;
}

static const struct experiment experiments[] = {
	{ "S1", "batched young test/clear in reclaim (memory.reclaim 8 of 10 GiB)", s1_run, 5.6 },
	{ "S2", "exit() cost with contpte (kernel-build process population)", s2_run, 3.9 },
	{ "S5", "batched zap of PTE-mapped large folios (munmap 1 GiB)", s5_run, 2.2 },
	{ "S4", "early exit in contpte_ptep_get (mlock loop)", s4_run, 20.6 },
	{ "S3", "secondary-MMU aging through mmu_notifier (max_guest_memory_test, run2)", s3_run, 14.6 },
};

/* One experiment, its header and tables on stdout: its run()'s return. */
static int run_experiment(const struct experiment *e, const char *out_dir, u64 size)
{
	int r;

	printf("== %s: %s\n", e->name, e->title);
	r = e->run(out_dir, size);
	if (out_error[0] && r >= 0) {
		fprintf(stderr, "ptelab: error: %s: %s's --out files are not all written\n", out_error,
			e->name);
		fatal = 2;
		return -1;
	}
	return r;
}

/*
 * The selected experiments on `jobs` forked workers, the longest first,
 * each one's stdout kept in a temporary file and printed in the order
 * given as soon as it and those before it are done (progress and
 * findings go to stderr as they happen). Their runs are independent
 * (kernel backends build under per-process names): the output is what one
 * process would print. 0/1 as run() ORed, or fatal.
 */
static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * What is left, in seconds: each running experiment's expected time less
 * what it has run, and the ones not started, spread over the workers
 * (never less than the longest one running).
 */
static double left_s(const unsigned int *sel, int n, const int *order, int started,
		     const bool *done, const double *started_at, double now, double s_per_w,
		     int jobs)
{
	double sum = 0, longest = 0;

	for (int k = 0; k < n; k++) {
		int i = order[k];
		double left = experiments[sel[i]].host_s * s_per_w;

		if (done[i])
			continue;
		if (k < started)
			left = left > now - started_at[i] ? left - (now - started_at[i]) : 0;
		sum += left;
		if (k < started && left > longest)
			longest = left;
	}
	return sum / jobs > longest ? sum / jobs : longest;
}

static int run_parallel(const unsigned int *sel, int n, int jobs, const char *out_dir, u64 size)
{
	FILE *outs[ARRAY_SIZE(experiments)] = { NULL }, *fids[ARRAY_SIZE(experiments)] = { NULL };
	pid_t pids[ARRAY_SIZE(experiments)];
	int status[ARRAY_SIZE(experiments)], order[ARRAY_SIZE(experiments)];
	bool done[ARRAY_SIZE(experiments)] = { false };
	int started = 0, running = 0, printed = 0, finished = 0, rc = 0, bad = 0;
	double t0 = wall_s(), started_at[ARRAY_SIZE(experiments)], took = 0, took_w = 0;

	for (int i = 0; i < n; i++)
		order[i] = i;
	/* longest first: the last one to start should be short */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && experiments[sel[order[j]]].host_s >
					 experiments[sel[order[j - 1]]].host_s; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	fflush(NULL);
	while (printed < n) {
		while (running < jobs && started < n) {
			int i = order[started++];

			outs[i] = tmpfile();
			fids[i] = tmpfile();
			if (!outs[i] || !fids[i]) {
				fprintf(stderr, "ptelab: error: cannot create a temporary file: %s\n",
					strerror(errno));
				return 2;
			}
			started_at[i] = wall_s();
			pid_t parent = getpid();
			pids[i] = fork();
			if (pids[i] < 0) {
				fprintf(stderr, "ptelab: error: cannot fork: %s\n", strerror(errno));
				return 2;
			}
			if (pids[i] == 0) {
				int r;

				worker_start(parent);
				dup2(fileno(outs[i]), 1);
				fidelity_record_to(fids[i]);
				r = run_experiment(&experiments[sel[i]], out_dir, size);
				fflush(NULL);
				_exit(r < 0 ? 100 + fatal : r ? 1 : 0);
			}
			running++;
		}
		int st;
		pid_t pid = wait(&st);

		if (pid < 0)
			break;
		for (int i = 0; i < n; i++)
			if (!done[i] && pids[i] == pid && outs[i]) {
				double now = wall_s(), el = now - t0;

				done[i] = true;
				status[i] = st;
				running--;
				/* seconds per unit of host_s, from those done, as this machine runs them now */
				took += now - started_at[i];
				took_w += experiments[sel[i]].host_s;
				fprintf(stderr, "ptelab: [%d/%d] %s done, %.0f s", ++finished, n,
					experiments[sel[i]].name, el);
				if (finished < n && took_w > 0)
					fprintf(stderr, "; about %.0f s to go",
						left_s(sel, n, order, started, done, started_at, now,
						       took / took_w, jobs));
				fputc('\n', stderr);
			}
		/* what is done, in order */
		for (; printed < n && done[printed]; printed++) {
			char buf[8192];
			size_t k;
			int i = printed;

			rewind(outs[i]);
			while ((k = fread(buf, 1, sizeof(buf), outs[i])) > 0)
				fwrite(buf, 1, k, stdout);
			fclose(outs[i]);
			fflush(stdout);
			if (!WIFEXITED(status[i])) {
				fprintf(stderr, "ptelab: internal error, a bug in ptelab: the worker of %s died "
					"(signal %d)\n", experiments[sel[i]].name,
					WIFSIGNALED(status[i]) ? WTERMSIG(status[i]) : 0);
				bad = bad ? bad : 3;
			} else if (WEXITSTATUS(status[i]) >= 100) {
				bad = bad ? bad : WEXITSTATUS(status[i]) - 100;
			} else {
				rc |= WEXITSTATUS(status[i]);
			}
		}
	}
	if (!bad)
		fidelity_print(fids, n);
	for (int i = 0; i < n; i++)
		if (fids[i])
			fclose(fids[i]);
	return bad ? bad : rc;
}

int cmd_reproduce(int argc, char **argv)
{
	const char *out_dir = NULL;
	const char *want[16];
	int nr_want = 0, rc = 0;
	u64 size = SZ_1G;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--out") || !strcmp(argv[i], "--size") || !strcmp(argv[i], "--jobs")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "ptelab: error: %s needs a value\n", argv[i]);
				return 2;
			}
		}
		if (!strcmp(argv[i], "--out")) {
			out_dir = argv[++i];
		} else if (!strcmp(argv[i], "--jobs")) {
			char *end;

			errno = 0;
			jobs = strtol(argv[++i], &end, 10);
			if (*end || end == argv[i] || errno || jobs < 1 || jobs > 1024) {
				fprintf(stderr, "ptelab: error: --jobs takes a number of worker processes "
						"from 1 to 1024 (default: every core)\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--size")) {
			if (parse_size(argv[++i], &size) || size % SZ_2M || size > 4 * SZ_1G) {
				fprintf(stderr, "ptelab: error: --size must be a multiple of 2M up to 4G, e.g. 64M "
						"(1G is the published scale)\n");
				return 2;
			}
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "ptelab: error: unknown option '%s' for reproduce\n", argv[i]);
			return 2;
		} else if (nr_want < (int)ARRAY_SIZE(want)) {
			want[nr_want++] = argv[i];
		} else {
			fprintf(stderr, "ptelab: error: too many experiments named\n");
			return 2;
		}
	}
	for (int i = 0; i < nr_want; i++) {
		bool found = false;

		for (unsigned int e = 0; e < ARRAY_SIZE(experiments); e++)
			found |= !strcasecmp(want[i], experiments[e].name);
		if (!found) {
			fprintf(stderr, "ptelab: error: unknown experiment '%s'; available: S1, S2, S3, S4, S5\n", want[i]);
			return 2;
		}
	}
	if (out_dir) {
		struct stat st;
		char probe[4096];
		FILE *f;

		if (!*out_dir || (mkdir(out_dir, 0777) && errno != EEXIST)) {
			fprintf(stderr, "ptelab: error: cannot create --out directory '%s': %s\n", out_dir,
				strerror(*out_dir ? errno : ENOENT));
			return 2;
		}
		if (stat(out_dir, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "ptelab: error: --out '%s' exists and is not a directory; "
					"name a directory\n", out_dir);
			return 2;
		}
		snprintf(probe, sizeof(probe), "%s/.ptelab-probe", out_dir);
		f = fopen(probe, "w");
		if (!f) {
			fprintf(stderr, "ptelab: error: cannot write into --out directory '%s': %s\n",
				out_dir, strerror(errno));
			return 2;
		}
		fclose(f);
		unlink(probe);
	}
	unsigned int sel[ARRAY_SIZE(experiments)];
	int nr_sel = 0;

	for (unsigned int e = 0; e < ARRAY_SIZE(experiments); e++) {
		bool run = nr_want == 0;

		for (int i = 0; i < nr_want; i++)
			run |= !strcasecmp(want[i], experiments[e].name);
		if (run)
			sel[nr_sel++] = e;
	}
	repro_jobs = (int)jobs;
	out_signals();
	/* say once what a newcomer's first run leaves out, and how to add it */
	if (!fetched("linux-6.12") || !fetched("linux-7.3"))
		fprintf(stderr, "ptelab: note: the kernel-backend rows (linux-6.12, linux-7.3) are left "
			"out until their sources are fetched: 'ptelab kernels fetch 6.12 7.3' (about "
			"160 MB each, once)\n");
	if (jobs > 1 && nr_sel > 1) {
		rc = run_parallel(sel, nr_sel, (int)jobs, out_dir, size);
		if (rc > 1)
			return rc;
	} else {
		double t0 = wall_s(), total_w = 0, done_w = 0;
		FILE *fid = tmpfile(); /* NULL: no fidelity table, the experiments still run */

		fidelity_record_to(fid);

		for (int i = 0; i < nr_sel; i++)
			total_w += experiments[sel[i]].host_s;
		for (int i = 0; i < nr_sel; i++) {
			int r = run_experiment(&experiments[sel[i]], out_dir, size);
			double el = wall_s() - t0;

			if (r < 0)
				return fatal;
			rc |= r;
			done_w += experiments[sel[i]].host_s;
			if (nr_sel > 1) {
				fflush(stdout);
				fprintf(stderr, "ptelab: [%d/%d] %s done, %.0f s", i + 1, nr_sel,
					experiments[sel[i]].name, el);
				if (i + 1 < nr_sel)
					fprintf(stderr, "; about %.0f s to go", el * (total_w - done_w) / done_w);
				fputc('\n', stderr);
			}
		}
		fidelity_record_to(NULL);
		if (fid) {
			fidelity_print(&fid, 1);
			fclose(fid);
		}
	}
	if (out_dir) {
		char script[4096];
		char *argv_plot[] = { "python3", script, "--if-any", (char *)out_dir, NULL };
		char *argv_report[] = { "python3", script, (char *)out_dir, NULL };
		int r;

		/* plots are optional: they need python3, the tables do not */
		snprintf(script, sizeof(script), "%s/tools/plot.py", lab_home());
		r = spawn_run(argv_plot, SPAWN_STDOUT_TO_STDERR, NULL);
		if (r < 0) {
			fprintf(stderr, "ptelab: plots skipped: python3 is not installed\n");
		} else if (r) {
			fprintf(stderr, "ptelab: error: tools/plot.py failed (exit %d, above): the plots "
				"in %s are not all written\n", r, out_dir);
			rc = 2;
		}
		/* REPORT.md: provenance, tables, residuals, plots, sources */
		snprintf(script, sizeof(script), "%s/tools/report.py", lab_home());
		r = spawn_run(argv_report, SPAWN_STDOUT_TO_STDERR, NULL);
		if (r > 0) {
			fprintf(stderr, "ptelab: error: REPORT.md not written: tools/report.py failed "
				"(exit %d, above)\n", r);
			rc = 2;
		}
	}
	return rc;
}
