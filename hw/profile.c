// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/profile.h"

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
int profile_parse(FILE *f, const char *where, const char *name, struct profile *p,
		  char *err, size_t errlen)
{
	char line[512];
	int lineno = 0;

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
				snprintf(err, errlen, "%s:%d: expected 'key = value'", where, lineno);
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
					 "cost those instead", where, lineno, key);
				return -1;
			}
			if (ev < 0 || end == val || *end || v < 0) {
				snprintf(err, errlen, "%s:%d: bad cost line '%s'", where, lineno, key);
				return -1;
			}
			p->cost[ev] = v;
		} else {
			snprintf(err, errlen, "%s:%d: unknown key '%s'", where, lineno, key);
			return -1;
		}
	}
	return 0;
}

double profile_modelled_ns(const struct profile *p, const struct hw_counters *c)
{
	double ns = 0;

	for (int i = 0; i < NR_HW_EVENTS; i++)
		ns += (double)c->v[i] * p->cost[i];
	return ns;
}
