// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/vmscan.c (kswapd, kswapd_try_to_sleep, balance_pgdat,
 * wakeup_kswapd, try_to_free_pages, shrink_node), mm/page_alloc.c
 * (__setup_per_zone_wmarks).
 */
/*
 * Memory pressure: when an allocation takes free memory below the low
 * watermark kswapd is woken and reclaims until free memory is above the
 * high one; an allocation that finds it below min reclaims itself
 * (direct reclaim). Both go through shrink_node() to the classic LRU or
 * the multi-gen LRU. kswapd and the allocating tasks are sim agents
 * when a workload runs on the discrete-event engine, so what they do is
 * timed and contends (mmu_lock, the swap device) there.
 */
#include <string.h>

#include "include/sched.h"
#include "mm/lru.h"
#include "mm/mmzone.h"
#include "sim/frames.h"

struct pglist_data node_data;

void pgdat_reset(void)
{
	memset(&node_data, 0, sizeof(node_data));
	node_data.kswapd_wait.name = "kswapd_wait";
}

/*
 * min_free_kbytes = sqrt(lowmem_kbytes * 16), clamped to [128 KiB, 256 MiB]
 * (init_per_zone_wmark_min); low and high are min plus a quarter and a
 * half of it, or watermark_scale_factor (10: 0.1 %) of the zone if that
 * is more (__setup_per_zone_wmarks).
 */
void setup_per_zone_wmarks(u64 managed_pages)
{
	u64 kbytes = managed_pages * (PAGE_SIZE / 1024), min_kbytes = 1, step;

	while ((min_kbytes + 1) * (min_kbytes + 1) <= kbytes * 16)
		min_kbytes++;
	min_kbytes = min(max(min_kbytes, (u64)128), (u64)262144);
	u64 min_pages = min_kbytes / (PAGE_SIZE / 1024);

	step = max(min_pages / 4, managed_pages * 10 / 10000);
	node_data.watermark[WMARK_MIN] = min_pages;
	node_data.watermark[WMARK_LOW] = min_pages + step;
	node_data.watermark[WMARK_HIGH] = min_pages + 2 * step;
}

/* shrink_node(): one batch from the node's one lruvec, by the LRU in use. */
static u64 shrink_node(u64 nr_to_reclaim, struct reclaim_stat *rs)
{
	int frame = SIM_FRAME("shrink_node");
	struct reclaim_state reclaim_state = { .stat = rs };
	u64 r;

	sim_frame_enter(frame);
	set_task_reclaim_state(current, &reclaim_state);
	r = lru_gen_enabled ? lru_gen_shrink_lruvec(&root_lruvec, nr_to_reclaim, true, rs)
			    : shrink_lruvec_classic(nr_to_reclaim, rs);
	set_task_reclaim_state(current, NULL);
	rs->nr_reclaimed += r;
	sim_frame_exit(frame);
	return r;
}

void wakeup_kswapd(unsigned int order)
{
	(void)order;
	if (!node_data.kswapd_sleeping)
		return;
	node_data.kswapd_sleeping = false;
	sim_wake_up(&node_data.kswapd_wait, 0);
}

static bool pgdat_balanced(void)
{
	return nr_free_pages() >= high_wmark_pages(&node_data);
}

/*
 * balance_pgdat(): reclaim in SWAP_CLUSTER_MAX batches until free memory
 * is above the high watermark, or a whole pass over the LRU freed nothing
 * (kswapd_failures: it gives up and sleeps).
 */
static void balance_pgdat(void)
{
	int frame = SIM_FRAME("balance_pgdat");
	int failures = 0;

	sim_frame_enter(frame);
	node_data.kswapd_wakeups++;
	while (!pgdat_balanced() && !node_data.kswapd_should_stop) {
		u64 r = shrink_node(SWAP_CLUSTER_MAX, &node_data.kswapd_stat);

		failures = r ? 0 : failures + 1;
		if (failures >= 16) /* MAX_RECLAIM_RETRIES */
			break;
		sim_sync(); /* the free count is shared */
	}
	sim_frame_exit(frame);
}

void kswapd(void *arg)
{
	int frame = SIM_FRAME("kswapd");
	struct task_struct *tsk = current;

	(void)arg;
	tsk->flags |= PF_MEMALLOC | PF_KSWAPD;
	sim_frame_enter(frame);
	for (;;) {
		sim_sync();
		if (node_data.kswapd_should_stop)
			break;
		if (pgdat_balanced()) {
			/* kswapd_try_to_sleep: the test and the sleep with no sync between */
			node_data.kswapd_sleeping = true;
			sim_wait(&node_data.kswapd_wait, SIM_FRAME("kswapd_try_to_sleep"));
			continue;
		}
		balance_pgdat();
	}
	sim_frame_exit(frame);
}

void kswapd_stop(void)
{
	sim_sync();
	node_data.kswapd_should_stop = true;
	node_data.kswapd_sleeping = false;
	sim_wake_up(&node_data.kswapd_wait, 0);
}

u64 try_to_free_pages(unsigned int order)
{
	int frame = SIM_FRAME("try_to_free_pages");
	struct task_struct *tsk = current;
	unsigned int flags = tsk->flags;
	u64 r;

	(void)order;
	node_data.allocstall++;
	tsk->flags |= PF_MEMALLOC;
	sim_frame_enter(frame);
	r = shrink_node(SWAP_CLUSTER_MAX, &node_data.direct_stat);
	sim_frame_exit(frame);
	tsk->flags = flags;
	return r;
}
