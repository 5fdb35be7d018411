/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Machine cost profiles: a cost in ns per event, read from a data file
 * that cites where each number comes from (the caller opens it). Modelled
 * time is the sum over events of count x cost.
 */
#ifndef PTELAB_HW_PROFILE_H
#define PTELAB_HW_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "hw/events.h"

struct profile {
	char name[64];
	char arch[16];
	char description[200];
	char fitted_on[1024];
	char fit_on[1024];      /* fit.on: the published figures the fit used (space-separated keys) */
	double cost[NR_HW_EVENTS];
	/* each CPU's data cache (hw/cache.h): size 0, no cache model */
	unsigned int cache_kb, cache_ways;
	/* a swap device, if the profile has one (0: none) */
	double swap_latency_ns, swap_bandwidth_mbps, swap_depth;
};

/*
 * Read a profile from f (opened by the caller); where
 * names it in error messages ("where:LINE: ..."), name is its default name.
 */
int profile_parse(FILE *f, const char *where, const char *name, struct profile *p,
		  char *err, size_t errlen);
double profile_modelled_ns(const struct profile *p, const struct hw_counters *c);

/*
 * Modelled time as it is spent: the cost of the events counted since the
 * last call. Shaped as the discrete-event engine's cost hook
 * (sim_set_cost_hook(e, profile_meter_cost_since, &meter)), so what a
 * sim agent counts becomes its clock; fractions of a ns carry over.
 */
struct profile_meter {
	const struct profile *p;
	struct hw_counters seen;
	u64 owed;            /* fixed point, 2^-HW_COST_SHIFT ns */
};

void profile_meter_init(struct profile_meter *m, const struct profile *p);
u64 profile_meter_cost_since(void *meter);

#endif
