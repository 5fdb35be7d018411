/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Named switches for the published changes (DESIGN.md): --without NAME
 * turns one off to get the "before" kernel. The flags live with the code
 * they fork (mm/switches.h, arch/arm64/switches.h); this is their table.
 */
#ifndef PTELAB_LAB_SWITCHES_H
#define PTELAB_LAB_SWITCHES_H

#include "hw/types.h"

void lab_switches_reset(void);          /* everything on, S2 full mode NONE */
int lab_switch_off(const char *name);   /* "zap-batch" or "zap_batch"; -1 if unknown */
int lab_switch_index(const char *name); /* the same without turning it off */
const char *lab_switch_help(int i, const char **name);
/* Whether switch NAME (either spelling) changes only the reference backend. */
bool lab_switch_ref_only(const char *name);
int lab_nr_switches(void);

/*
 * Variants that are kernels (lab/variants.c): exit's S2 variants name sets
 * of switches. The run's switches: all on, --without's off, then the
 * variant's; the workload itself never changes a switch.
 */
void lab_switches_for_run(const char *workload, const char *variant,
			  const char *const *without, int nr_without);
/* Whether WORKLOAD's VARIANT is one of the lab's (sets switches). */
bool lab_variant_sets_switches(const char *workload, const char *variant);
/* Whether it forks code only the reference backend has. */
bool lab_variant_ref_only(const char *workload, const char *variant);

#endif
