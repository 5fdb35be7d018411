/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lab's one node (include/linux/mmzone.h, 7.3): its watermarks and
 * kswapd. Watermarks of 0 (every workload but those that set them) mean
 * allocations never wake kswapd nor reclaim directly.
 */
#ifndef PTELAB_MM_MMZONE_H
#define PTELAB_MM_MMZONE_H

#include "mm/reclaim.h"
#include "sim/waitq.h"

enum zone_watermarks {
	WMARK_MIN,
	WMARK_LOW,
	WMARK_HIGH,
	NR_WMARK
};

struct pglist_data {
	/* the lab's one node spans every page frame (pgdat_end_pfn() is max_pfn) */
	unsigned long node_start_pfn;
	int node_id;
	u64 watermark[NR_WMARK];   /* free pages; all 0: no reclaim on allocation */
	struct sim_waitq kswapd_wait;
	bool kswapd_sleeping;      /* in kswapd_try_to_sleep(), to be woken */
	bool kswapd_should_stop;   /* kthread_should_stop() */
	/* what reclaim did, by whom */
	struct reclaim_stat kswapd_stat, direct_stat;
	u64 kswapd_wakeups;        /* pageoutrun */
	int kswapd_failures;       /* balance_pgdat passes in a row that freed nothing */
	u64 allocstall;            /* allocations that entered direct reclaim */
	u64 alloc_fail;            /* allocations that failed after reclaim */
};

extern struct pglist_data node_data;
#define NODE_DATA(nid) (&node_data)

static inline u64 high_wmark_pages(const struct pglist_data *pgdat)
{
	return pgdat->watermark[WMARK_HIGH];
}

/* Node state back to no watermarks, no kswapd (machine setup). */
void pgdat_reset(void);
/* init_per_zone_wmark_min / __setup_per_zone_wmarks for a zone of managed pages. */
void setup_per_zone_wmarks(u64 managed_pages);

/* wakeup_kswapd(): free memory fell below the low watermark. */
void wakeup_kswapd(unsigned int order);
/* The kswapd kthread's body, as a sim agent's function (arg: unused). */
void kswapd(void *arg);
/* kthread_stop(): kswapd finishes its pass and returns. */
void kswapd_stop(void);
/* Direct reclaim by the allocating task (__alloc_pages_direct_reclaim). */
u64 try_to_free_pages(unsigned int order);

#endif
