// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "arch/arm64/switches.h"
#include "lab/switches.h"
#include "mm/switches.h"

/*
 * ref_only: the switch forks code only the reference backend has (a
 * kernel backend runs its tree's own), so it is refused with a kernel
 * backend rather than silently ignored.
 */
static const struct {
	const char *name;
	bool *flag;
	bool ref_only;
	const char *help;
} table[] = {
	{ "contpte", &arm64_sw.contpte, false, "transparent contiguous PTEs at all (arm64)" },
	{ "zap_batch", &mm_sw.zap_batch, false, "batched zap: folio_pte_batch + mmu_gather nr_pages" },
	{ "exit_clear_ptes", &arm64_sw.exit_clear_ptes, true,
	  "clear whole contpte blocks without unfolding" },
	{ "fork_batch", &mm_sw.fork_batch, false, "batched fork: folio_pte_batch + wrprotect_ptes per folio" },
	{ "young_batch", &mm_sw.young_batch, false, "batched young test/clear over a folio's PTEs" },
	{ "mprotect_batch", &mm_sw.mprotect_batch, false,
	  "batched mprotect: a folio's PTEs per modify_prot_start/commit_ptes (6.17; off: per PTE)" },
	{ "mremap_batch", &mm_sw.mremap_batch, false,
	  "batched mremap: a folio's PTEs moved per get_and_clear_ptes/set_ptes (6.17; off: per PTE)" },
	{ "unmap_batch", &mm_sw.unmap_batch, false,
	  "batched reclaim unmap: a folio's PTEs per get_and_clear_ptes in try_to_unmap_one "
	  "(lazyfree 6.15, file folios 7.1; off: per PTE, each flushed alone)" },
	{ "deferred_split_partial", &mm_sw.deferred_split_partial, false,
	  "queue only partly mapped large folios for deferred split (6.10; off: 6.9, every PTE unmap queues)" },
	{ "folio_batch_free", &mm_sw.folio_batch_free, false,
	  "free large folios in folio batches (6.10; off: 6.9 release_pages frees each alone)" },
	{ "ptep_get_early_exit", &arm64_sw.ptep_get_early_exit, true,
	  "stop gathering once young and dirty are found" },
	{ "ptep_get_reread", &arm64_sw.ptep_get_reread, true,
	  "reload the first dirty entry in the gather's young loop (7.3; off: one load fewer)" },
	{ "spte_test_clear_young", &mm_sw.spte_test_clear_young, false,
	  "S3 seed: secondary-MMU young bits in batches of 64 by a lockless test_clear_young "
	  "(max-guest-memory variants v1, v2)" },
};

void lab_switches_reset(void)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(table); i++)
		*table[i].flag = true;
	arm64_sw.full_mode = CONTPTE_FULL_NONE;
	mm_sw.lru_gen_spte = LRU_GEN_SPTE_NOTIFY;
	mm_sw.lru_gen_add = LRU_GEN_ADD_6_14;
	mm_sw.referenced_flush = true;
	mm_sw.lru_gen_7_2 = true;
	mm_sw.lru_gen_aging_6_1 = false;
	mm_sw.lru_gen_stop_at_high_wmark = true;
	mm_sw.zap_clear_ptes_v3 = false;
	mm_sw.wp_reuse_large = true;
}

int lab_nr_switches(void)
{
	return (int)ARRAY_SIZE(table);
}

const char *lab_switch_help(int i, const char **name)
{
	*name = table[i].name;
	return table[i].help;
}

/* Accept the command-line spelling with dashes. */
int lab_switch_index(const char *name)
{
	char buf[64];
	size_t n = strlen(name);

	if (n >= sizeof(buf))
		return -1;
	for (size_t i = 0; i <= n; i++)
		buf[i] = name[i] == '-' ? '_' : name[i];
	for (unsigned int i = 0; i < ARRAY_SIZE(table); i++)
		if (!strcmp(buf, table[i].name))
			return (int)i;
	return -1;
}

int lab_switch_off(const char *name)
{
	int i = lab_switch_index(name);

	if (i >= 0)
		*table[i].flag = false;
	return i;
}

bool lab_switch_ref_only(const char *name)
{
	int i = lab_switch_index(name);

	return i >= 0 && table[i].ref_only;
}
