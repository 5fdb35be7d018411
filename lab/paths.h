/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lab's directory layout: where ptelab's tree is (PTELAB_HOME, else
 * next to the executable) and what lives under it: profiles/, data/,
 * build/kernels/, kernel/. Every file path is made here; the layers
 * below are given opened files or full paths.
 */
#ifndef PTELAB_LAB_PATHS_H
#define PTELAB_LAB_PATHS_H

#include <stddef.h>

struct profile;

/* Directory holding profiles/ and data/ (next to the executable). */
const char *lab_home(void);
/* where fetched kernels and built backends go: <home>/build, or the user's cache */
const char *lab_state_dir(void);
/* Entries of lab_home()/subdir named prefix*suffix, without the suffix, sorted. */
int lab_list_dir(const char *subdir, const char *prefix, const char *suffix,
		 char names[][64], int max);

/* Machine cost profile NAME from profiles/NAME.prof (hw/profile.h parses it). */
int lab_profile_load(const char *name, struct profile *p, char *err, size_t errlen);
/* Names of the available profiles, sorted; returns how many. */
int lab_profile_names(char names[][64], int max);

#endif
