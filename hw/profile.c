// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw/profile.h"

const char *lab_home(void)
{
	static char home[PATH_MAX];

	if (home[0])
		return home;
	const char *env = getenv("PTELAB_HOME");
	if (env && *env) {
		snprintf(home, sizeof(home), "%s", env);
		return home;
	}
	ssize_t n = readlink("/proc/self/exe", home, sizeof(home) - 1);
	if (n <= 0) {
		strcpy(home, ".");
		return home;
	}
	home[n] = 0;
	char *slash = strrchr(home, '/');
	if (slash)
		*slash = 0;
	/* test binaries live in build/san/tests: walk up to the tree */
	for (int up = 0; up < 4; up++) {
		char probe[PATH_MAX + 16];

		snprintf(probe, sizeof(probe), "%s/profiles", home);
		if (!access(probe, R_OK))
			return home;
		slash = strrchr(home, '/');
		if (!slash)
			break;
		*slash = 0;
	}
	strcpy(home, ".");
	return home;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/*
 * Format: "key = value" lines, '#' starts a comment. Keys: name, arch,
 * description, fitted_on, and cost.EVENT (ns per event).
 */
int profile_load(const char *name, struct profile *p, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], line[512];
	FILE *f;
	int lineno = 0;

	for (const char *c = name; *c; c++) {
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_') {
			snprintf(err, errlen, "bad profile name '%s'; 'ptelab list' shows the profiles", name);
			return -1;
		}
	}
	snprintf(path, sizeof(path), "%s/profiles/%s.prof", lab_home(), name);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "unknown profile '%s'; 'ptelab list' shows the profiles", name);
		return -1;
	}
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *eq, *key, *val;

		lineno++;
		if (hash)
			*hash = 0;
		eq = strchr(line, '=');
		if (!eq) {
			if (*trim(line)) {
				snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
				fclose(f);
				return -1;
			}
			continue;
		}
		*eq = 0;
		key = trim(line);
		val = trim(eq + 1);
		if (!strcmp(key, "name"))
			snprintf(p->name, sizeof(p->name), "%s", val);
		else if (!strcmp(key, "arch"))
			snprintf(p->arch, sizeof(p->arch), "%s", val);
		else if (!strcmp(key, "description"))
			snprintf(p->description, sizeof(p->description), "%s", val);
		else if (!strcmp(key, "fitted_on"))
			snprintf(p->fitted_on, sizeof(p->fitted_on), "%s", val);
		else if (!strncmp(key, "cost.", 5)) {
			int ev = hw_event_by_name(key + 5);
			char *end;
			double v = strtod(val, &end);

			if (ev >= 0 && hw_event_is_attribution(ev)) {
				snprintf(err, errlen, "%s:%d: %s counts loads already in pte_read/pte_atomic; "
					 "cost those instead", path, lineno, key);
				fclose(f);
				return -1;
			}
			if (ev < 0 || end == val || *end || v < 0) {
				snprintf(err, errlen, "%s:%d: bad cost line '%s'", path, lineno, key);
				fclose(f);
				return -1;
			}
			p->cost[ev] = v;
		} else {
			snprintf(err, errlen, "%s:%d: unknown key '%s'", path, lineno, key);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

double profile_modelled_ns(const struct profile *p, const struct hw_counters *c)
{
	double ns = 0;

	for (int i = 0; i < NR_HW_EVENTS; i++)
		ns += (double)c->v[i] * p->cost[i];
	return ns;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

int lab_list_dir(const char *subdir, const char *prefix, const char *suffix,
		 char names[][64], int max)
{
	char path[PATH_MAX + 64];
	size_t plen = strlen(prefix), slen = strlen(suffix);
	struct dirent *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s", lab_home(), subdir);
	DIR *dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < max) {
		size_t len = strlen(d->d_name);

		if (len <= plen + slen || len - slen >= 64 || strncmp(d->d_name, prefix, plen) ||
		    strcmp(d->d_name + len - slen, suffix))
			continue;
		memcpy(names[n], d->d_name, len - slen);
		names[n++][len - slen] = 0;
	}
	closedir(dir);
	qsort(names, n, 64, cmp);
	return n;
}

int profile_names(char names[][64], int max)
{
	return lab_list_dir("profiles", "", ".prof", names, max);
}
