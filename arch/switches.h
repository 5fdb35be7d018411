/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Named switches for the published changes (DESIGN.md): --without NAME
 * turns one off to get the "before" kernel. Read by arch/ and mm/.
 */
#ifndef PTELAB_ARCH_SWITCHES_H
#define PTELAB_ARCH_SWITCHES_H

#include "hw/types.h"

#define LAB_SWITCHES(X)                                                         \
	X(contpte, "transparent contiguous PTEs at all (arm64)")                \
	X(zap_batch, "batched zap: folio_pte_batch + mmu_gather nr_pages")     \
	X(exit_clear_ptes, "clear whole contpte blocks without unfolding")     \
	X(fork_batch, "batched fork: folio_pte_batch + wrprotect_ptes per folio") \
	X(young_batch, "batched young test/clear over a folio's PTEs")         \
	X(ptep_get_early_exit, "stop gathering once young and dirty are found") \
	X(spte_test_clear_young, "batched secondary-MMU young under a shared lock")

struct lab_switches {
#define X(name, help) bool name;
	LAB_SWITCHES(X)
#undef X
};

extern struct lab_switches lab_sw;

/*
 * S2's ways of clearing a contiguous entry at exit when exit-clear-ptes
 * is off (reference backend only; reset to NONE by lab_switches_reset).
 */
enum contpte_full_mode {
	CONTPTE_FULL_NONE,   /* unfold first (no exit optimisation) */
	CONTPTE_FULL_SIMPLE, /* clear the entry alone */
	CONTPTE_FULL_ROBUST, /* repaint the block non-contiguous, no flush */
};
extern enum contpte_full_mode contpte_full_mode;

void lab_switches_reset(void);       /* everything on */
int lab_switch_off(const char *name); /* "zap-batch" or "zap_batch"; -1 if unknown */
const char *lab_switch_help(int i, const char **name);
int lab_nr_switches(void);

#endif
