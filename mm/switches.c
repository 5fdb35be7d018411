// SPDX-License-Identifier: GPL-2.0-only
/* Mirrors 7.3: none: ptelab's "before" switches for core-mm. */
#include "mm/switches.h"

struct mm_switches mm_sw = {
	.zap_batch = true, .fork_batch = true, .young_batch = true,
	.deferred_split_partial = true, .folio_batch_free = true, .referenced_flush = true,
	.lru_gen_7_2 = true,
	.lru_gen_stop_at_high_wmark = true,
};
