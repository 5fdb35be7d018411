/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Named switches for the published changes (DESIGN.md): --without NAME
 * turns one off to get the "before" kernel. Read by arch/ and mm/.
 */
#ifndef PTELAB_ARCH_SWITCHES_H
#define PTELAB_ARCH_SWITCHES_H

#include "hw/types.h"

/*
 * X(name, ref_only, help): ref_only switches change code that only the
 * reference backend has (a kernel backend runs its tree's own contpte.c),
 * so they are refused with a kernel backend rather than silently ignored.
 * ptep_get_reread is no published change but redundant work 7.3 does
 * (arch/arm64/pgtable.c, contpte_ptep_get): on, the reference does it too;
 * --without it shows what the cheaper form of the same gather costs.
 */
#define LAB_SWITCHES(X)                                                            \
	X(contpte, false, "transparent contiguous PTEs at all (arm64)")               \
	X(zap_batch, false, "batched zap: folio_pte_batch + mmu_gather nr_pages")     \
	X(exit_clear_ptes, true, "clear whole contpte blocks without unfolding")      \
	X(fork_batch, false, "batched fork: folio_pte_batch + wrprotect_ptes per folio") \
	X(young_batch, false, "batched young test/clear over a folio's PTEs")         \
	X(ptep_get_early_exit, true, "stop gathering once young and dirty are found")  \
	X(ptep_get_reread, true, "reload the first dirty entry in the gather's young loop (7.3; off: one load fewer)")

struct lab_switches {
#define X(name, ref_only, help) bool name;
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
int lab_switch_index(const char *name); /* the same without turning it off */
const char *lab_switch_help(int i, const char **name);
/* Whether switch NAME (either spelling) changes only the reference backend. */
bool lab_switch_ref_only(const char *name);
int lab_nr_switches(void);

#endif
