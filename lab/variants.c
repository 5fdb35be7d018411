// SPDX-License-Identifier: GPL-2.0-only
/*
 * Variants that are kernels: a workload's --variant that names a set of
 * switches rather than a different experiment. The lab sets them before
 * the run (lab_switches_for_run); the workload runs the same code for
 * each and never touches a switch. Variants not in this table are the
 * workload's own (fuzz's pte-only, reclaim-file's rehot, ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arm64/switches.h"
#include "lab/switches.h"
#include "mm/switches.h"

/* S2's kernels (Dec 2023): 6.7's per-PTE zap, release_pages and rmap */
#define S2_2023 "zap_batch", "deferred_split_partial", "folio_batch_free"

static const struct lab_variant {
	const char *workload, *name;
	const char *off[5];                  /* switches it turns off, NULL-terminated */
	enum contpte_full_mode full_mode;    /* with exit-clear-ptes off */
	enum lru_gen_spte lru_gen_spte;      /* MGLRU and secondary MMUs (S3) */
	bool referenced_no_flush;            /* folio_referenced_one: clear_young_notify (S3 v2) */
	bool zap_clear_ptes_v3;              /* zap_pte_range of contpte v3 (S2 clear-ptes) */
	enum lru_gen_add lru_gen_add;        /* MGLRU's placement of added and rejected folios (S3) */
	bool lru_gen_6x;                     /* MGLRU before 7.2 (mm_sw.lru_gen_7_2 off) */
	bool lru_gen_aging_6_1;              /* MGLRU's aging before 6.4 (mm_sw.lru_gen_aging_6_1) */
	bool lru_gen_before_6_7;             /* MGLRU root reclaim before 6.7 (mm_sw.lru_gen_stop_at_high_wmark off) */
} variants[] = {
	/* exit: the kernel since 6.10 is every switch on */
	{ "exit", "7.3", { NULL } },
	/*
	 * S2's rows, measured in Dec 2023 on v6.7-rc1 + anonfolio-v7 (64K
	 * anonymous folios; any PTE unmap of one queues it for deferred
	 * split): the baseline without contpte, then R. Roberts' contpte
	 * series v3 without an exit optimisation, with the two ways of using
	 * ptep_get_and_clear_full's full flag, and whole (its patches 02 and
	 * 15: core-mm batch-clear, arm64 clear_ptes). Only clear-ptes changed
	 * core-mm's zap; the others ran 6.7's.
	 */
	{ "exit", "baseline", { "contpte", S2_2023 } },
	{ "exit", "no-opt", { "exit_clear_ptes", S2_2023 } },
	{ "exit", "simple-full", { "exit_clear_ptes", S2_2023 }, CONTPTE_FULL_SIMPLE },
	{ "exit", "robust-full", { "exit_clear_ptes", S2_2023 }, CONTPTE_FULL_ROBUST },
	{ "exit", "clear-ptes", { S2_2023 }, .zap_clear_ptes_v3 = true },
	/*
	 * S3 (max-guest-memory): core-mm of the seed's base (mm-unstable of
	 * Feb 2023, 6.3-rc1's MGLRU: per-PTE, host-only scans), of
	 * 6.12/6.15 (clear_young_notify per PTE) and of 7.3 (per batch),
	 * each with its MGLRU placement rule. The
	 * KVM side is the workload's (kvm_config).
	 */
	{ "max-guest-memory", "v1", { "young_batch" }, CONTPTE_FULL_NONE, LRU_GEN_SPTE_HOST,
	  .lru_gen_add = LRU_GEN_ADD_6_1, .lru_gen_6x = true, .lru_gen_aging_6_1 = true,
	  .lru_gen_before_6_7 = true },
	/* v2's base had "mm: rmap: Don't flush TLB after checking PTE young" (not merged) */
	{ "max-guest-memory", "v2", { "young_batch" }, CONTPTE_FULL_NONE, LRU_GEN_SPTE_HOST, true,
	  .lru_gen_add = LRU_GEN_ADD_6_1, .lru_gen_6x = true, .lru_gen_before_6_7 = true },
	{ "max-guest-memory", "6.12", { "young_batch" }, CONTPTE_FULL_NONE, LRU_GEN_SPTE_NOTIFY,
	  .lru_gen_add = LRU_GEN_ADD_6_7, .lru_gen_6x = true },
	{ "max-guest-memory", "6.15", { "young_batch" }, CONTPTE_FULL_NONE, LRU_GEN_SPTE_NOTIFY,
	  .lru_gen_6x = true },
	{ "max-guest-memory", "7.3", { NULL }, CONTPTE_FULL_NONE, LRU_GEN_SPTE_NOTIFY },
};

static const struct lab_variant *lookup(const char *workload, const char *variant)
{
	if (!workload || !variant)
		return NULL;
	for (unsigned int i = 0; i < ARRAY_SIZE(variants); i++)
		if (!strcmp(variants[i].workload, workload) && !strcmp(variants[i].name, variant))
			return &variants[i];
	return NULL;
}

bool lab_variant_sets_switches(const char *workload, const char *variant)
{
	return lookup(workload, variant) != NULL;
}

/* A full mode, or a ref-only switch turned off, forks only the reference's code. */
bool lab_variant_ref_only(const char *workload, const char *variant)
{
	const struct lab_variant *v = lookup(workload, variant);

	if (!v)
		return false;
	for (const char *const *off = v->off; *off; off++)
		if (lab_switch_ref_only(*off))
			return true;
	return v->full_mode != CONTPTE_FULL_NONE;
}

void lab_switches_for_run(const char *workload, const char *variant,
			  const char *const *without, int nr_without)
{
	const struct lab_variant *v = lookup(workload, variant);

	lab_switches_reset();
	for (int i = 0; i < nr_without; i++)
		lab_switch_off(without[i]);
	if (!v)
		return;
	for (const char *const *off = v->off; *off; off++)
		if (lab_switch_off(*off) < 0) {
			/* ptelab's own table is wrong: never run a half-set kernel */
			fprintf(stderr, "ptelab: bug: variant %s of %s turns off an unknown switch %s\n",
				variant, workload, *off);
			abort();
		}
	arm64_sw.full_mode = v->full_mode;
	mm_sw.lru_gen_spte = v->lru_gen_spte;
	mm_sw.lru_gen_add = v->lru_gen_add;
	mm_sw.lru_gen_7_2 = !v->lru_gen_6x;
	mm_sw.lru_gen_aging_6_1 = v->lru_gen_aging_6_1;
	mm_sw.lru_gen_stop_at_high_wmark = !v->lru_gen_before_6_7;
	mm_sw.referenced_flush = !v->referenced_no_flush;
	mm_sw.zap_clear_ptes_v3 = v->zap_clear_ptes_v3;
}
