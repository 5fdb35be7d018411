// SPDX-License-Identifier: GPL-2.0-only
/*
 * Published figures live in data/published.tsv with their sources and are
 * only ever printed in columns labelled "published".
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define MAX_ROWS 256

struct pub {
	char exp[32], row[64], col[64], unit[16];
	double value;
	char source[1024];
};

static struct pub rows[MAX_ROWS];
static int nr_rows = -1;

static void load(void)
{
	char path[PATH_MAX + 32], line[2048];
	FILE *f;

	nr_rows = 0;
	snprintf(path, sizeof(path), "%s/data/published.tsv", lab_home());
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && nr_rows < MAX_ROWS) {
		char *fields[6], *save = NULL;
		int n = 0;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\n")] = 0;
		for (char *t = strtok_r(line, "\t", &save); t && n < 6; t = strtok_r(NULL, "\t", &save))
			fields[n++] = t;
		if (n < 6)
			continue;
		struct pub *p = &rows[nr_rows++];
		snprintf(p->exp, sizeof(p->exp), "%s", fields[0]);
		snprintf(p->row, sizeof(p->row), "%s", fields[1]);
		snprintf(p->col, sizeof(p->col), "%s", fields[2]);
		p->value = strtod(fields[3], NULL);
		snprintf(p->unit, sizeof(p->unit), "%s", fields[4]);
		snprintf(p->source, sizeof(p->source), "%s", fields[5]);
	}
	fclose(f);
}

int published_get(const char *experiment, const char *row, const char *column,
		  double *value, const char **source)
{
	if (nr_rows < 0)
		load();
	for (int i = 0; i < nr_rows; i++) {
		if (!strcmp(rows[i].exp, experiment) && !strcmp(rows[i].row, row) &&
		    !strcmp(rows[i].col, column)) {
			*value = rows[i].value;
			if (source)
				*source = rows[i].source;
			return 0;
		}
	}
	return -1;
}
