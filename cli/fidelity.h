/* SPDX-License-Identifier: GPL-2.0-only */
/* reproduce's fidelity table (cli/fidelity.c). */
#ifndef PTELAB_CLI_FIDELITY_H
#define PTELAB_CLI_FIDELITY_H

#include <stdio.h>

#include "hw/profile.h"

/* How a figure's error is measured (tools/figures.py's kinds). */
enum fidelity_kind {
	FID_TIME,    /* seconds: lab / published - 1 */
	FID_PERCENT, /* a cost over baseline in %: on 1 + p / 100 */
	FID_SHARE,   /* a share of a profile in %: the difference, in points */
};

/* This process records its figures to f (NULL: it records none). */
void fidelity_record_to(FILE *f);
/*
 * The lab's value of published figure exp:row:col (in the published
 * unit), run with prof; nothing if the figure is not published.
 */
void fidelity_add(const char *exp, const char *row, const char *col, enum fidelity_kind kind,
		  double lab, const struct profile *prof);
/* The table of every figure recorded in files[0..n), in that order. */
void fidelity_print(FILE **files, int nr_files);

#endif
