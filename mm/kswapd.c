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

static bool pgdat_balanced(void)
{
	return nr_free_pages() >= high_wmark_pages(&node_data);
}

/*
 * kswapd_failures back to 0 after a shrink_node that freed r pages, by
 * era: 7.2+ only if that balanced the node (kswapd_try_clear_hopeless:
 * direct reclaim's progress alone does not make kswapd useful again);
 * MGLRU 6.3 .. 6.11 always ("kswapd should never fail"; the lab's
 * variants there are S3's v1 and v2); otherwise on any progress.
 */
static void clear_kswapd_failures(u64 r)
{
	bool mglru_never_fails = lru_gen_enabled && !mm_sw.lru_gen_stop_at_high_wmark;

	if (mglru_never_fails) {
		node_data.kswapd_failures = 0;
		return;
	}
	if (!r)
		return;
	if (mm_sw.lru_gen_7_2) {
		sim_sync(); /* the free count is shared */
		if (!pgdat_balanced())
			return;
	}
	node_data.kswapd_failures = 0;
}

/* shrink_node(): one pass over the node's one lruvec at sc->priority, by the LRU in use. */
static void shrink_node(struct scan_control *sc)
{
	int frame = SIM_FRAME("shrink_node");
	struct reclaim_stat *rs = sc->stat;
	struct lru_gen_mm_walk walk = { .lruvec = &root_lruvec, .rs = rs };
	struct reclaim_state reclaim_state = { .stat = rs, .mm_walk = &walk };
	u64 r;

	sim_frame_enter(frame);
	set_task_reclaim_state(current, &reclaim_state);
	/* every pass pays shrink_slab and its bookkeeping, whatever the LRU gives */
	hw_count(EV_shrink_slab, 1);
	if (lru_gen_enabled) {
		r = lru_gen_shrink_node(sc);
	} else {
		r = shrink_lruvec_classic_root(sc);
		sc->nr_reclaimed += r;
	}
	set_task_reclaim_state(current, NULL);
	rs->nr_reclaimed += r;
	sim_yield(); /* shrink_node_memcgs' cond_resched() */
	clear_kswapd_failures(r);
	sim_frame_exit(frame);
}

/* kswapd that failed MAX_RECLAIM_RETRIES times in a row is not woken (pgdat_is_hopeless) */
static bool pgdat_is_hopeless(void)
{
	return node_data.kswapd_failures >= MAX_RECLAIM_RETRIES;
}

void wakeup_kswapd(unsigned int order)
{
	(void)order;
	if (!node_data.kswapd_sleeping || pgdat_is_hopeless())
		return;
	node_data.kswapd_sleeping = false;
	sim_wake_up(&node_data.kswapd_wait, 0);
}

/*
 * kswapd_shrink_node(): a pass asks for the high watermark's worth;
 * true if it looked at as many pages (then the priority need not rise).
 */
static bool kswapd_shrink_node(struct scan_control *sc)
{
	sc->nr_to_reclaim = max(high_wmark_pages(&node_data), (u64)SWAP_CLUSTER_MAX);
	shrink_node(sc);
	return sc->nr_scanned >= sc->nr_to_reclaim;
}

/*
 * balance_pgdat(): passes at DEF_PRIORITY and down (one more each time a
 * pass looked at fewer pages than it wanted or freed none) until free
 * memory is above the high watermark; a balance_pgdat that went down to
 * priority 1 and freed nothing is a failure.
 */
static void balance_pgdat(void)
{
	int frame = SIM_FRAME("balance_pgdat");
	struct scan_control sc = { .priority = DEF_PRIORITY, .stat = &node_data.kswapd_stat };
	bool balanced = false;

	sim_frame_enter(frame);
	node_data.kswapd_wakeups++;
	do {
		u64 nr_reclaimed = sc.nr_reclaimed;
		bool raise_priority = true;

		sim_sync(); /* the free count is shared */
		if (pgdat_balanced()) {
			balanced = true;
			break;
		}
		/*
		 * kswapd_age_node: the classic LRU's inactive anon balance;
		 * MGLRU (6.3+) ages in the eviction path instead, its
		 * lru_gen_age_node checks only min_ttl (not modelled)
		 */
		if (!lru_gen_enabled)
			age_active_anon(sc.stat);
		sc.nr_scanned = 0;
		if (kswapd_shrink_node(&sc))
			raise_priority = false;
		if (node_data.kswapd_should_stop)
			break;
		if (raise_priority || sc.nr_reclaimed == nr_reclaimed)
			sc.priority--;
	} while (sc.priority >= 1);
	if (!balanced && !sc.nr_reclaimed)
		node_data.kswapd_failures++;
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
		if (pgdat_balanced() || pgdat_is_hopeless()) {
			/* kswapd_try_to_sleep: the test and the sleep with no sync between */
			node_data.kswapd_sleeping = true;
			sim_wait(&node_data.kswapd_wait, SIM_FRAME("kswapd_try_to_sleep"));
			continue;
		}
		u64 t = sim_now();

		balance_pgdat();
		/* passes that cost nothing (a profile without their costs) must not stop the clock */
		if (sim_now() == t)
			sim_spin_to_next();
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
	struct scan_control sc = {
		.nr_to_reclaim = SWAP_CLUSTER_MAX,
		.priority = DEF_PRIORITY,
		.stat = &node_data.direct_stat,
	};

	(void)order;
	node_data.allocstall++;
	tsk->flags |= PF_MEMALLOC;
	sim_frame_enter(frame);
	/* do_try_to_free_pages: passes at falling priority until one has enough */
retry:
	do {
		sc.nr_scanned = 0;
		shrink_node(&sc);
		if (sc.nr_reclaimed >= sc.nr_to_reclaim)
			break;
	} while (--sc.priority >= 0);
	/* nothing at all, and an active list was left alone: once more, deactivating it */
	if (!sc.nr_reclaimed && sc.skipped_deactivate) {
		sc.priority = DEF_PRIORITY;
		sc.force_deactivate = true;
		sc.skipped_deactivate = false;
		goto retry;
	}
	sim_frame_exit(frame);
	tsk->flags = flags;
	return sc.nr_reclaimed;
}
