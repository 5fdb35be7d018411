/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Machine cost profiles: a cost in ns per event, read from a data file in
 * profiles/ that cites where each number comes from. Modelled time is
 * the sum over events of count x cost.
 */
#ifndef PTELAB_HW_PROFILE_H
#define PTELAB_HW_PROFILE_H

#include <stddef.h>

#include "hw/events.h"

struct profile {
	char name[64];
	char arch[16];
	char description[200];
	char fitted_on[200];
	double cost[NR_HW_EVENTS];
};

/* Directory holding profiles/ and data/ (next to the executable). */
const char *lab_home(void);
int profile_load(const char *name, struct profile *p, char *err, size_t errlen);
double profile_modelled_ns(const struct profile *p, const struct hw_counters *c);
/* Names of the available profiles, sorted; returns how many. */
int profile_names(char names[][64], int max);
/* Entries of lab_home()/subdir named prefix*suffix, without the suffix, sorted. */
int lab_list_dir(const char *subdir, const char *prefix, const char *suffix,
		 char names[][64], int max);

#endif
