// SPDX-License-Identifier: GPL-2.0-only
/*
 * reproduce's fidelity table: every published figure an experiment ran,
 * beside the lab's value, its error, and whether the profile was fitted
 * on it (its fit.on) or it is a prediction; then each published change
 * (after/before, or a cost over baseline) with its direction. The
 * experiments may run in worker processes: each records its figures as
 * lines in a file of its own, and the parent prints them all at the end,
 * in the experiments' order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/fidelity.h"

static FILE *fid_out;

void fidelity_record_to(FILE *f)
{
	fid_out = f;
}

/* Whether key is one of fit.on's space-separated figures. */
static bool fitted_on(const char *fit_on, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = fit_on; (p = strstr(p, key)); p += n)
		if ((p == fit_on || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
			return true;
	return false;
}

void fidelity_add(const char *exp, const char *row, const char *col, enum fidelity_kind kind,
		  double lab, const struct profile *prof)
{
	char key[160];
	double pub;

	if (!fid_out || published_get(exp, row, col, &pub, NULL))
		return;
	snprintf(key, sizeof(key), "%s:%s:%s", exp, row, col);
	fprintf(fid_out, "%s\t%s\t%s\t%d\t%.9g\t%.9g\t%d\t%s\n", exp, row, col, (int)kind, lab, pub,
		fitted_on(prof->fit_on, key), prof->name);
}

struct fig {
	char exp[16], row[48], col[48], prof[64];
	int kind, fitted;
	double lab, pub;
};

static double fig_error(const struct fig *f)
{
	if (f->kind == FID_PERCENT)
		return (1 + f->lab / 100) / (1 + f->pub / 100) - 1;
	if (f->kind == FID_SHARE)
		return (f->lab - f->pub) / 100; /* in points */
	return f->lab / f->pub - 1;
}

static void fmt_value(char *buf, size_t n, const struct fig *f, double v)
{
	if (f->kind == FID_TIME)
		snprintf(buf, n, "%.4g s", v);
	else if (f->kind == FID_PERCENT)
		snprintf(buf, n, "%+.1f%%", v);
	else
		snprintf(buf, n, "%.2f%%", v);
}

static int load(FILE **files, int nr_files, struct fig **out)
{
	struct fig *figs = NULL;
	int n = 0, cap = 0;
	char line[512];

	for (int i = 0; i < nr_files; i++) {
		if (!files[i])
			continue;
		rewind(files[i]);
		while (fgets(line, sizeof(line), files[i])) {
			struct fig f = { 0 };

			if (sscanf(line, "%15[^\t]\t%47[^\t]\t%47[^\t]\t%d\t%lf\t%lf\t%d\t%63[^\n]", f.exp,
				   f.row, f.col, &f.kind, &f.lab, &f.pub, &f.fitted, f.prof) != 8)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				figs = realloc(figs, (size_t)cap * sizeof(*figs));
				if (!figs)
					return -1;
			}
			figs[n++] = f;
		}
	}
	*out = figs;
	return n;
}

void fidelity_print(FILE **files, int nr_files)
{
	struct fig *figs;
	int n = load(files, nr_files, &figs), nr_pred = 0, nr_changes = 0;
	double sum = 0, worst = 0;

	if (n <= 0)
		return;
	printf("\n== fidelity: every published figure the experiments ran, beside the lab's\n\n");
	printf("%-56s %12s %12s %8s  %-10s %s\n", "figure", "lab", "published", "error", "", "profile");
	for (int i = 0; i < n; i++) {
		const struct fig *f = &figs[i];
		char key[160], lab[32], pub[32];
		double e = fig_error(f);

		snprintf(key, sizeof(key), "%s:%s:%s", f->exp, f->row, f->col);
		fmt_value(lab, sizeof(lab), f, f->lab);
		fmt_value(pub, sizeof(pub), f, f->pub);
		printf("%-56s %12s %12s %+7.1f%%  %-10s %s\n", key, lab, pub, e * 100,
		       f->fitted ? "fitted" : "prediction", f->prof);
		if (!f->fitted) {
			nr_pred++;
			sum += e < 0 ? -e : e;
			if ((e < 0 ? -e : e) > worst)
				worst = e < 0 ? -e : e;
		}
	}
	printf("\n%-56s %12s %12s %8s  %s\n", "change", "lab", "published", "error", "direction");
	for (int i = 0; i < n; i++) {
		const struct fig *a = &figs[i], *b = NULL;
		double lr, pr;
		char name[160];

		if (a->kind == FID_TIME && !strcmp(a->col, "after")) {
			for (int j = 0; j < n; j++)
				if (figs[j].kind == FID_TIME && !strcmp(figs[j].col, "before") &&
				    !strcmp(figs[j].exp, a->exp) && !strcmp(figs[j].row, a->row))
					b = &figs[j];
			if (!b)
				continue;
			lr = a->lab / b->lab;
			pr = a->pub / b->pub;
			snprintf(name, sizeof(name), "%s:%s after/before", a->exp, a->row);
		} else if (a->kind == FID_PERCENT) {
			lr = 1 + a->lab / 100;
			pr = 1 + a->pub / 100;
			snprintf(name, sizeof(name), "%s:%s:%s vs baseline", a->exp, a->row, a->col);
		} else {
			continue;
		}
		/* a change under half a percent in the lab matches a published one under two */
		bool same = (lr - 1) * (pr - 1) > 0 ||
			    ((lr > 1 ? lr - 1 : 1 - lr) < 0.005 && (pr > 1 ? pr - 1 : 1 - pr) < 0.02);
		bool fit = a->fitted && (!b || b->fitted);

		printf("%-56s %12.3f %12.3f %+7.1f%%  %s%s\n", name, lr, pr, (lr / pr - 1) * 100,
		       same ? "right" : "WRONG", fit ? " (fitted)" : "");
		nr_changes++;
	}
	if (nr_pred)
		printf("\npredictions: %d, mean |error| %.1f%%, worst %.1f%% (shares: in points); "
		       "changes: %d\n", nr_pred, 100 * sum / nr_pred, 100 * worst, nr_changes);
	free(figs);
}
