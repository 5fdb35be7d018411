// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/cache.h"
#include "hw/perf.h"
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
 * description, fitted_on, cost.EVENT (ns per event), swap.*, and for
 * tools/fit.py: fit.free, fit.on, range.EVENT = LO HI, derive.from and
 * derive.scale. Every event but the count-only ones needs a cost: a
 * profile written before an event existed fails here, naming it, instead
 * of costing it 0 in silence.
 */
int profile_parse(FILE *f, const char *where, const char *name, struct profile *p,
		  char *err, size_t errlen)
{
	char line[2048]; /* a derived profile's fitted_on quotes its base's */
	char seen[128][64];  /* the keys so far: each may be given once */
	int lineno = 0, nr_seen = 0;
	bool costed[NR_HW_EVENTS] = { false };

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *eq, *key, *val;
		size_t len = strlen(line);

		lineno++;
		/*
		 * A control byte, or a NUL (fgets stopped short of a full buffer
		 * with no newline before the end of the file): not a profile.
		 */
		for (size_t i = 0; i <= len; i++) {
			unsigned char c = (unsigned char)line[i];
			bool nul = i == len && !memchr(line, '\n', len) && !feof(f) &&
				   len + 1 < sizeof(line);

			if (nul || (i < len && ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
						c == 0x7f))) {
				snprintf(err, errlen, "%s:%d: not a text file (byte 0x%02x); a profile is "
					 "lines of 'key = value'", where, lineno, nul ? 0 : c);
				return -1;
			}
		}
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%d: line longer than %zu characters", where, lineno,
				 sizeof(line) - 2);
			return -1;
		}
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
		for (int i = 0; i < nr_seen; i++)
			if (!strcmp(seen[i], key)) {
				snprintf(err, errlen, "%s:%d: '%s' is given twice; keep one", where, lineno,
					 key);
				return -1;
			}
		if (nr_seen < (int)(sizeof(seen) / sizeof(seen[0])))
			snprintf(seen[nr_seen++], sizeof(seen[0]), "%s", key);
		if (!strcmp(key, "name")) {
			/* the file's name is how it is asked for: the two must agree */
			if (strcmp(val, name)) {
				snprintf(err, errlen, "%s:%d: name = %s, but the file is %s's; make them "
					 "the same", where, lineno, val, name);
				return -1;
			}
			snprintf(p->name, sizeof(p->name), "%s", val);
		}
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
			if (ev == EV_cache_hit) {
				snprintf(err, errlen, "%s:%d: a cache hit costs what its access's own event "
					 "costs (hw/cache.h); set cost.cache_miss for a miss's extra", where,
					 lineno);
				return -1;
			}
			if (ev < 0 || end == val || *end || !(v >= 0 && v <= 1e9)) {
				snprintf(err, errlen, "%s:%d: bad cost line '%s' (ns from 0 to 1e9)", where,
					 lineno, key);
				return -1;
			}
			p->cost[ev] = v;
			costed[ev] = true;
		} else if (!strcmp(key, "fit.on")) {
			/* tools/fit.py's: the figures it fitted on (reproduce marks them) */
			if (strlen(val) >= sizeof(p->fit_on)) {
				snprintf(err, errlen, "%s:%d: fit.on is longer than %zu characters", where,
					 lineno, sizeof(p->fit_on) - 1);
				return -1;
			}
			snprintf(p->fit_on, sizeof(p->fit_on), "%s", val);
		} else if (!strcmp(key, "fit.free") ||
			   !strcmp(key, "derive.from") || !strcmp(key, "derive.scale")) {
			/*
			 * tools/fit.py's: the costs it solves, the figures it fitted
			 * on; the profile whose costs (scaled) it writes into this one
			 */
			continue;
		} else if (!strncmp(key, "range.", 6)) {
			/* a fitted cost's stated range: tools/fit.py's bounds and prior */
			int ev = hw_event_by_name(key + 6);
			char *end;
			double lo = strtod(val, &end), hi = strtod(end, &end);

			if (ev < 0 || *trim(end) || !(lo > 0 && hi >= lo && hi <= 1e9)) {
				snprintf(err, errlen, "%s:%d: bad range line '%s' (range.EVENT = LO HI, "
					 "0 < LO <= HI ns)", where, lineno, key);
				return -1;
			}
		} else if (!strcmp(key, "cache.size_kb") || !strcmp(key, "cache.ways")) {
			/* each CPU's cache of PTE and struct page lines (hw/cache.h) */
			char *end;
			unsigned long v = strtoul(val, &end, 10);

			if (end == val || *end || v > (1UL << 20)) {
				snprintf(err, errlen, "%s:%d: bad cache line '%s' (cache.size_kb and "
					 "cache.ways take whole numbers)", where, lineno, key);
				return -1;
			}
			*(key[6] == 's' ? &p->cache_kb : &p->cache_ways) = (unsigned int)v;
		} else if (!strncmp(key, "swap.", 5)) {
			/* the machine's swap device (sim/swapdev.h), for workloads that swap */
			char *end;
			double v = strtod(val, &end);
			double *field = !strcmp(key, "swap.latency_ns") ? &p->swap_latency_ns :
					!strcmp(key, "swap.bandwidth_mbps") ? &p->swap_bandwidth_mbps :
					!strcmp(key, "swap.depth") ? &p->swap_depth : NULL;

			if (!field || end == val || *end || v <= 0) {
				snprintf(err, errlen, "%s:%d: bad swap line '%s' (swap.latency_ns, "
					 "swap.bandwidth_mbps, swap.depth take positive numbers)",
					 where, lineno, key);
				return -1;
			}
			*field = v;
		} else {
			snprintf(err, errlen, "%s:%d: unknown key '%s'", where, lineno, key);
			return -1;
		}
	}
	if (!hw_cache_geometry_ok(p->cache_kb, p->cache_ways)) {
		snprintf(err, errlen, "%s: cache.size_kb = %u in %u ways is not a power-of-two number "
			 "of sets of 64-byte lines (1 to 64 ways)", where, p->cache_kb, p->cache_ways);
		return -1;
	}
	for (int ev = 0; ev < NR_HW_EVENTS; ev++) {
		/* a miss costs only where there is a cache to miss */
		if (ev == EV_cache_miss && !p->cache_kb)
			continue;
		if (!costed[ev] && !hw_event_is_count_only(ev)) {
			snprintf(err, errlen, "%s: no cost for event '%s'; add 'cost.%s = NS' "
				 "with a comment naming its source", where, hw_event_names[ev],
				 hw_event_names[ev]);
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

void profile_meter_init(struct profile_meter *m, const struct profile *p)
{
	perf_detach(); /* hw_cost_acc is this meter's now (hw/perf.h) */
	m->p = p;
	hw_events_snapshot(&m->seen);
	m->owed = 0;
	/* hw_count() accumulates the cost from now on */
	for (int i = 0; i < NR_HW_EVENTS; i++)
		hw_cost_rate[i] = (u64)llround(p->cost[i] * (double)(1ULL << HW_COST_SHIFT));
	hw_cost_acc = 0;
	hw_cost_on = true;
}

u64 profile_meter_cost_since(void *meter)
{
	struct profile_meter *m = meter;
	u64 ns;

	m->owed += hw_cost_acc;
	hw_cost_acc = 0;
	ns = m->owed >> HW_COST_SHIFT;
	m->owed &= (1ULL << HW_COST_SHIFT) - 1;
	return ns;
}
