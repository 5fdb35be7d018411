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

/* Every switch's state, to put back after a workload changed some. */
struct lab_switch_state {
	u64 bits;
	int full_mode;
};
void lab_switches_save(struct lab_switch_state *s);
void lab_switches_restore(const struct lab_switch_state *s);

#endif
