// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/vmscan.c (folio_check_references, shrink_active_list,
 * shrink_inactive_list, shrink_folio_list), mm/memcontrol.c (memory.reclaim).
 */
/*
 * Classic LRU reclaim (shrink_active_list, shrink_inactive_list,
 * shrink_folio_list with folio_check_references) and the memcg
 * memory.reclaim entry point, which drives it or the multi-gen LRU.
 */
#include "hw/invariants.h"
#include "mm/filemap.h"
#include "mm/lru.h"
#include "mm/mmzone.h"
#include "include/sched.h"
#include "mm/reclaim.h"
#include "mm/rmap.h"
#include "mm/shmem.h"
#include "mm/swap.h"
#include "hw/phys.h"
#include "sim/frames.h"
#include "hw/perf.h"

enum folio_references folio_check_references(struct folio *folio,
					     struct reclaim_stat *rs)
{
	PERF_FUNC();
	unsigned long vm_flags;
	int referenced_ptes = folio_referenced(folio, 1, NULL, &vm_flags);
	bool referenced_folio;

	(void)rs;
	/*
	 * The supposedly reclaimable folio was found to be in a VM_LOCKED vma.
	 * Let the folio, now marked Mlocked, be moved to the unevictable list.
	 */
	if (vm_flags & VM_LOCKED)
		return FOLIOREF_ACTIVATE;
	referenced_folio = folio_test_referenced(folio);
	folio_clear_referenced(folio);
	/* the multi-gen LRU: any young reference promotes (6.x shape) */
	if (lru_gen_enabled)
		return referenced_ptes ? FOLIOREF_ACTIVATE : FOLIOREF_RECLAIM;
	if (referenced_ptes) {
		/*
		 * Every mapped folio starts with the faulting reference: only a
		 * second look that finds it used again activates it.
		 */
		folio_set_referenced(folio);
		if (referenced_folio || referenced_ptes > 1)
			return FOLIOREF_ACTIVATE;
		return FOLIOREF_KEEP;
	}
	if (referenced_folio && !folio_test_swapbacked(folio))
		return FOLIOREF_RECLAIM_CLEAN;
	return FOLIOREF_RECLAIM;
}

bool reclaim_clean_folio(struct folio *folio)
{
	PERF_FUNC();
	if (!folio_mapping(folio) || folio_test_dirty(folio) || folio_test_unevictable(folio))
		return false;
	if (folio_mapped(folio) && !try_to_unmap(folio))
		return false;
	/* writeback would be needed for a folio the unmap found dirty */
	if (folio_test_dirty(folio))
		return false;
	hw_count(EV_lock_acquire, 1); /* the mapping's i_pages lock */
	filemap_remove_folio(folio);
	return true;
}

/* Lazyfree pages reclaim discarded (the kernel's PGLAZYFREED event). */
static u64 lazyfreed_pages;

u64 vm_lazyfreed_pages(void)
{
	return lazyfreed_pages;
}

/*
 * shrink_folio_list for a lazyfree anonymous folio (MADV_FREE'd, on the
 * file LRU): try_to_unmap gives up, and makes it swap-backed again, if it
 * was redirtied; unmapped, it is freed if reclaim's isolation holds the
 * only reference left (folio_ref_freeze(folio, 1)). The lab takes that
 * isolation reference here, where it is tested, not in
 * isolate_lru_folios for every folio.
 */
static bool reclaim_lazyfree_folio(struct folio *folio)
{
	PERF_FUNC();
	u64 nr = (u64)folio_nr_pages(folio);

	if (folio_test_unevictable(folio) || folio_test_dirty(folio))
		return false;
	folio_get(folio);
	if ((folio_mapped(folio) && !try_to_unmap(folio)) || folio_ref_count(folio) != 1) {
		folios_put_refs_one(folio, 1);
		return false;
	}
	for (u64 i = 0; i < nr; i++)
		if (hw_frame_written(folio_pfn(folio) + i)) {
			hw_violation(VIOL_LOST_DIRTY, "pfn %#llx was written after MADV_FREE but its "
				     "lazyfree folio was discarded", (unsigned long long)folio_pfn(folio) + i);
			break;
		}
	lazyfreed_pages += nr;
	folios_put_refs_one(folio, 1); /* the folio is freed here */
	return true;
}

/*
 * shrink_folio_list's tail for one folio judged reclaimable: a page-cache
 * folio is dropped if clean; a shmem folio is unmapped (secondary MMUs
 * first), then written to swap if dirty (pageout -> shmem_writeout) or
 * dropped if it never held data. false: it stays.
 */
bool reclaim_folio(struct folio *folio)
{
	bool ret;

	if (folio_test_anon(folio) && !folio_test_swapbacked(folio))
		return reclaim_lazyfree_folio(folio);
	if (!folio_test_swapbacked(folio) || !folio_mapping(folio))
		return reclaim_clean_folio(folio);
	if (folio_test_unevictable(folio))
		return false;
	if (folio_mapped(folio)) {
		int frame = SIM_FRAME("try_to_unmap");

		sim_frame_enter(frame);
		ret = try_to_unmap(folio);
		sim_frame_exit(frame);
		if (!ret)
			return false;
	}
	/* __remove_mapping's folio_ref_freeze: nobody but the page cache may hold it (GUP) */
	if (folio_ref_count(folio) != 1)
		return false;
	if (!folio_test_dirty(folio)) {
		for (long i = 0; i < folio_nr_pages(folio); i++)
			if (hw_frame_written(folio_pfn(folio) + (u64)i)) {
				hw_violation(VIOL_LOST_DIRTY, "shmem pfn %#llx was written but its folio "
					     "is clean at reclaim: the data would be dropped",
					     (unsigned long long)folio_pfn(folio) + (u64)i);
				break;
			}
		hw_count(EV_lock_acquire, 1); /* the mapping's i_pages lock */
		filemap_remove_folio(folio);
		return true;
	}
	if (!total_swap_pages())
		return false;
	hw_count(EV_lock_acquire, 1);
	return shmem_writeout(folio); /* pageout() */
}

/*
 * reclaim_pages (mm/vmscan.c): MADV_PAGEOUT's isolated folios, in the
 * order they were isolated, through shrink_folio_list with their
 * references ignored; what stays goes back through folio_putback_lru.
 * Returns the folios reclaimed.
 */
unsigned long reclaim_pages(const u32 *pfns, int nr)
{
	unsigned long nr_reclaimed = 0;

	for (int i = 0; i < nr; i++) {
		struct folio *folio = pfn_folio(pfns[i]);

		if (reclaim_folio(folio))
			nr_reclaimed++;
		else
			folio_putback_lru(folio);
	}
	return nr_reclaimed;
}

/*
 * shrink_active_list: isolate nr_pages from the active list's tail under
 * the lru_lock, test (and clear) their young bits with the lock dropped,
 * then put them on the inactive list under the lock again.
 */
static void shrink_active_list(enum lru_list lru, long nr_pages, struct reclaim_stat *rs)
{
	PERF_FUNC();
	u32 list[SWAP_CLUSTER_MAX];
	struct folio *folio;
	int n = 0;

	lru_add_drain();
	lruvec_lock_irq(&root_lruvec);
	while (nr_pages > 0 && n < SWAP_CLUSTER_MAX && (folio = lru_last(&root_lruvec, lru))) {
		lru_del_folio(folio);
		hw_count(EV_lru_isolate, 1);
		list[n++] = (u32)folio_pfn(folio);
		nr_pages -= folio_nr_pages(folio);
		rs->nr_scanned += (u64)folio_nr_pages(folio);
	}
	lruvec_unlock_irq(&root_lruvec);
	for (int i = 0; i < n; i++) {
		unsigned long vm_flags;

		folio = (struct folio *)&mem_map[list[i]];
		/* the young bits are tested (and cleared) on the way down */
		folio_referenced(folio, 0, NULL, &vm_flags);
		folio_clear_active(folio);
	}
	/* the lru_lock again for move_folios_to_lru, after the references were tested */
	if (!n)
		return;
	lruvec_lock_irq(&root_lruvec);
	for (int i = 0; i < n; i++) {
		folio_add_lru_locked((struct folio *)&mem_map[list[i]]);
		hw_count(EV_lru_putback, 1);
	}
	lruvec_unlock_irq(&root_lruvec);
}

/*
 * shrink_inactive_list: isolate up to SWAP_CLUSTER_MAX pages from the
 * inactive list's tail under the lru_lock (isolate_lru_folios), judge
 * them with the lock dropped (shrink_folio_list), and put back what
 * stays under the lock again (move_folios_to_lru).
 */
static u64 shrink_inactive_list(enum lru_list lru, long nr_to_scan, struct reclaim_stat *rs,
				long *nr_isolated)
{
	PERF_FUNC();
	int frame = SIM_FRAME("shrink_folio_list");
	u32 list[SWAP_CLUSTER_MAX];
	u64 reclaimed = 0;
	long isolated = 0;
	struct folio *folio;
	int n = 0, kept = 0;

	lru_add_drain();
	lruvec_lock_irq(&root_lruvec);
	while (isolated < nr_to_scan && n < SWAP_CLUSTER_MAX && (folio = lru_last(&root_lruvec, lru))) {
		long nr = folio_nr_pages(folio);

		lru_del_folio(folio);
		hw_count(EV_lru_isolate, 1);
		list[n++] = (u32)folio_pfn(folio);
		isolated += nr;
		rs->nr_scanned += (u64)nr;
	}
	lruvec_unlock_irq(&root_lruvec);
	if (nr_isolated)
		*nr_isolated += isolated;
	for (int i = 0; i < n; i++) {
		folio = (struct folio *)&mem_map[list[i]];
		/* read the size now: a reclaimed folio's head page says nothing once freed */
		long nr = folio_nr_pages(folio);

		sim_frame_enter(frame);
		/* folio_trylock: one still being read in (read ahead) is kept */
		if (folio_readahead_busy(folio)) {
			list[kept++] = list[i];
			rs->nr_kept += (u64)nr;
			sim_frame_exit(frame);
			continue;
		}
		switch (folio_check_references(folio, rs)) {
		case FOLIOREF_ACTIVATE:
			folio_set_active(folio);
			list[kept++] = list[i];
			rs->nr_activated += (u64)nr;
			break;
		case FOLIOREF_KEEP:
			list[kept++] = list[i];
			rs->nr_kept += (u64)nr;
			break;
		default:
			if (reclaim_folio(folio)) {
				reclaimed += (u64)nr;
			} else {
				list[kept++] = list[i];
				rs->nr_kept += (u64)nr;
			}
		}
		sim_frame_exit(frame);
	}
	/* the lru_lock again for move_folios_to_lru, after shrink_folio_list */
	if (n) {
		lruvec_lock_irq(&root_lruvec);
		for (int i = 0; i < kept; i++) {
			folio_add_lru_locked((struct folio *)&mem_map[list[i]]);
			hw_count(EV_lru_putback, 1);
		}
		lruvec_unlock_irq(&root_lruvec);
	}
	return reclaimed;
}

/*
 * inactive_is_low: the inactive list may be 1/sqrt(10 * GB) of the active
 * one (int_sqrt(10 * gb), 1 under 1 GB): 3 at 1 GB, 6 at 4 GB, 50 at
 * 250 GB. Only then is the active list aged (may_deactivate).
 */
static bool inactive_is_low(enum lru_list inactive)
{
	long nr_inactive = root_lruvec.nr_pages[inactive];
	long nr_active = root_lruvec.nr_pages[inactive + 1];
	u64 gb = (u64)(nr_inactive + nr_active) >> (30 - PAGE_SHIFT), ratio = 1;

	if (gb)
		while ((ratio + 1) * (ratio + 1) <= 10 * gb)
			ratio++;
	return (u64)nr_inactive * ratio < (u64)nr_active;
}

/* One LRU type (anon: shmem's swap-backed folios; file): its inactive list first. */
static u64 shrink_list_type(enum lru_list inactive, u64 nr_to_reclaim, struct reclaim_stat *rs)
{
	enum lru_list active = inactive + 1;
	u64 reclaimed = 0, scanned = rs->nr_scanned;

	while (reclaimed < nr_to_reclaim) {
		if (inactive_is_low(inactive))
			shrink_active_list(active, SWAP_CLUSTER_MAX, rs);
		if (!lru_last(&root_lruvec, inactive))
			break;
		u64 r = shrink_inactive_list(inactive, SWAP_CLUSTER_MAX, rs, NULL);

		reclaimed += r;
		/*
		 * nothing reclaimable left: every page of both lists looked at
		 * four times since this call began (folios that keep being
		 * activated, mlocked or referenced ones, would cycle between
		 * the lists for ever; the kernel's priority loop is bounded too)
		 */
		if (!r && rs->nr_scanned - scanned > 4 * (u64)(root_lruvec.nr_pages[inactive] +
								root_lruvec.nr_pages[active]) + 1024)
			break;
	}
	return reclaimed;
}

/*
 * shrink_lruvec: the anon lists (only shmem is swap-backed in the lab's
 * workloads, and only when there is swap), then the file lists. The
 * kernel splits the work by swappiness (get_scan_count); the lab's
 * workloads fill one type, so the split does not arise.
 */
u64 shrink_lruvec_classic(u64 nr_to_reclaim, struct reclaim_stat *rs)
{
	PERF_FUNC();
	u64 reclaimed = 0;

	if (total_swap_pages())
		reclaimed += shrink_list_type(LRU_INACTIVE_ANON, nr_to_reclaim, rs);
	if (reclaimed < nr_to_reclaim)
		reclaimed += shrink_list_type(LRU_INACTIVE_FILE, nr_to_reclaim - reclaimed, rs);
	return reclaimed;
}


/*
 * get_scan_count's balance for root reclaim, with the lab's one LRU type
 * populated: how much of each list's size >> priority a pass scans, in
 * 1/200ths. Without swap only file is scanned. At priority 0 both are
 * scanned whole (SCAN_EQUAL). Anon alone (the file LRU is tiny: file +
 * free under the high watermark) while its inactive list is not low; file
 * alone while its inactive list is not low and holds something at this
 * priority (cache_trim_mode). Otherwise SCAN_FRACT by swappiness (60):
 * anon 60, file 140; the recent-reclaim costs that tilt it are not
 * modelled (no lru_note_cost), nor refaults (no workingset shadows).
 */
static void get_scan_count(struct scan_control *sc, const bool deactivate[NR_LRU_LISTS],
			   long fraction[2])
{
	const long swappiness = 60;
	long file = root_lruvec.nr_pages[LRU_INACTIVE_FILE] + root_lruvec.nr_pages[LRU_ACTIVE_FILE];

	fraction[0] = fraction[1] = 200;
	if (!total_swap_pages()) {
		fraction[0] = 0;                          /* SCAN_FILE */
		return;
	}
	if (!sc->priority)
		return;                                   /* SCAN_EQUAL */
	sim_sync(); /* the free count is shared */
	if ((u64)file + nr_free_pages() <= node_data.watermark[WMARK_HIGH] &&
	    !deactivate[LRU_ACTIVE_ANON] &&
	    root_lruvec.nr_pages[LRU_INACTIVE_ANON] >> sc->priority) {
		fraction[1] = 0;                          /* SCAN_ANON */
		return;
	}
	if (root_lruvec.nr_pages[LRU_INACTIVE_FILE] >> sc->priority &&
	    !deactivate[LRU_ACTIVE_FILE]) {
		fraction[0] = 0;                          /* cache_trim_mode: SCAN_FILE */
		return;
	}
	fraction[0] = swappiness;                         /* SCAN_FRACT */
	fraction[1] = 200 - swappiness;
}

/*
 * shrink_lruvec for root reclaim (kswapd, an allocation) at
 * sc->priority: get_scan_count's target for each list, scanned
 * SWAP_CLUSTER_MAX at a time, an active list only while its inactive one
 * is low (may_deactivate, judged once per pass; or all of them once
 * force_deactivate). The pass ends once it has sc->nr_to_reclaim, except
 * direct reclaim at DEF_PRIORITY, which scans its whole targets
 * (proportional_reclaim). Then the anon active list is aged a batch if
 * its inactive list is low.
 */
u64 shrink_lruvec_classic_root(struct scan_control *sc)
{
	PERF_FUNC();
	struct reclaim_stat *rs = sc->stat;
	bool proportional = !current_is_kswapd() && sc->priority == DEF_PRIORITY;
	bool deactivate[NR_LRU_LISTS] = { false };
	long nr[NR_LRU_LISTS] = { 0 }, fraction[2], isolated = 0;
	u64 reclaimed = 0;

	for (enum lru_list in = LRU_INACTIVE_ANON; in <= LRU_INACTIVE_FILE; in += 2)
		deactivate[in + 1] = sc->force_deactivate || inactive_is_low(in);
	get_scan_count(sc, deactivate, fraction);
	for (enum lru_list lru = LRU_INACTIVE_ANON; lru <= LRU_ACTIVE_FILE; lru++)
		nr[lru] = (root_lruvec.nr_pages[lru] >> sc->priority) * fraction[lru >= LRU_INACTIVE_FILE] / 200;
	while (nr[LRU_INACTIVE_ANON] || nr[LRU_ACTIVE_FILE] || nr[LRU_INACTIVE_FILE]) {
		for (enum lru_list lru = LRU_INACTIVE_ANON; lru <= LRU_ACTIVE_FILE; lru++) {
			long n = min(nr[lru], (long)SWAP_CLUSTER_MAX);

			if (!n)
				continue;
			nr[lru] -= n;
			if (lru == LRU_ACTIVE_ANON || lru == LRU_ACTIVE_FILE) {
				if (deactivate[lru])
					shrink_active_list(lru, n, rs);
				else
					sc->skipped_deactivate = true;
			} else {
				reclaimed += shrink_inactive_list(lru, n, rs, &isolated);
			}
		}
		if (reclaimed < sc->nr_to_reclaim || proportional)
			continue;
		break; /* one type only: nothing to scale back */
	}
	/* shrink_folio_list's count: what the inactive lists gave up, not the aging */
	sc->nr_scanned += (u64)isolated;
	age_active_anon(rs);
	return reclaimed;
}

void age_active_anon(struct reclaim_stat *rs)
{
	if (total_swap_pages() && inactive_is_low(LRU_INACTIVE_ANON))
		shrink_active_list(LRU_ACTIVE_ANON, SWAP_CLUSTER_MAX, rs);
}

/*
 * memory.reclaim: try_to_free_mem_cgroup_pages asking at most
 * SWAP_CLUSTER_MAX pages at a time until the request is met, giving up
 * after @retries passes that freed nothing (the kernel's nr_retries,
 * MAX_RECLAIM_RETRIES; fewer stands for a writer interrupted by a signal,
 * memory_reclaim's signal_pending() exit). Reclaim judges whole isolation
 * batches (SWAP_CLUSTER_MAX pages classic, MIN_LRU_BATCH multi-gen), so
 * the overshoot is less than one batch and one folio.
 */
u64 memory_reclaim_retries(u64 bytes, struct reclaim_stat *rs, int retries)
{
	PERF_FUNC();
	u64 target = bytes >> PAGE_SHIFT, reclaimed = 0;
	u64 removed = filemap_removed_pages() + lazyfreed_pages;
	struct lru_gen_mm_walk walk = { .lruvec = &root_lruvec, .rs = rs };
	struct reclaim_state reclaim_state = { .stat = rs, .mm_walk = &walk };

	set_task_reclaim_state(current, &reclaim_state);
	while (reclaimed < target) {
		u64 want = min(target - reclaimed, (u64)SWAP_CLUSTER_MAX);
		u64 r = lru_gen_enabled ? lru_gen_shrink_lruvec(&root_lruvec, want, rs)
					: shrink_lruvec_classic(want, rs);

		reclaimed += r;
		if (!r && --retries == 0)
			break;
	}
	set_task_reclaim_state(current, NULL);
	rs->nr_reclaimed += reclaimed;
	/* what reclaim says it freed must be what left the page cache */
	removed = filemap_removed_pages() + lazyfreed_pages - removed;
	if (removed != reclaimed)
		hw_violation(VIOL_OTHER, "memory.reclaim reported %llu pages but %llu left the page cache "
			     "or were lazily freed",
			     (unsigned long long)reclaimed, (unsigned long long)removed);
	return reclaimed;
}

u64 memory_reclaim(u64 bytes, struct reclaim_stat *rs)
{
	return memory_reclaim_retries(bytes, rs, MAX_RECLAIM_RETRIES);
}
