/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The arm64 switches (--without NAME, lab/switches.c). contpte is the
 * kernel's CONFIG_ARM64_CONTPTE: off, a kernel backend runs its tree's
 * #else block. The others fork the reference's code only (a kernel
 * backend runs its tree's own): S2's exit optimisation and its
 * alternatives, S4's early exit, and 7.3's re-read in contpte_ptep_get,
 * which is no published change but redundant work 7.3 does (on, the
 * reference does it too; off shows what the cheaper gather costs).
 */
#ifndef PTELAB_ARM64_SWITCHES_H
#define PTELAB_ARM64_SWITCHES_H

#include "hw/types.h"

/* S2's ways of clearing a contiguous entry at exit when exit-clear-ptes is off */
enum contpte_full_mode {
	CONTPTE_FULL_NONE,   /* unfold first (no exit optimisation) */
	CONTPTE_FULL_SIMPLE, /* clear the entry alone */
	CONTPTE_FULL_ROBUST, /* clear it, stash young/dirty in the block, gather */
};

struct arm64_switches {
	bool contpte;
	bool exit_clear_ptes;
	bool ptep_get_early_exit;
	bool ptep_get_reread;
	enum contpte_full_mode full_mode;
};

extern struct arm64_switches arm64_sw;

#endif
