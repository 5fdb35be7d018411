// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/vmscan.c (lru_gen: walk_pte_range, lru_gen_look_around,
 * try_to_inc_max_seq, evict_folios, the Bloom filters).
 */
/*
 * The multi-gen LRU for file folios: generations max_seq..min_seq,
 * aging by walking page tables (walk_pte_range) that promotes young
 * folios to max_seq, eviction from min_seq (sort_folio, isolate_folio,
 * evict_folios), lru_gen_look_around scanning the young PTE's neighbours,
 * and the Bloom filter through which look-around and aging tell the next
 * aging which PMD tables are worth walking.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/host.h"
#include "hw/pgtable_mem.h"
#include "mm/core.h"
#include "mm/filemap.h"
#include "mm/lru.h"
#include "include/sched.h"
#include "mm/mmu_notifier.h"
#include "mm/mmzone.h"
#include "sim/frames.h"
#include "sim/waitq.h"
#include "mm/pagewalk.h"
#include "mm/reclaim.h"
#include "mm/rmap.h"
#include "mm/swap.h"
#include "hw/perf.h"

bool lru_gen_enabled;

/* lru_gen_mm_state's wait (6.1 .. 6.3): reclaimers waiting for another's aging */
static struct sim_waitq mm_state_wait = { .name = "lru_gen_mm_state_wait" };

#define BLOOM_WORDS ((1UL << BLOOM_FILTER_SHIFT) / 64)

static inline int lru_gen_from_seq(u64 seq)
{
	return (int)(seq % MAX_NR_GENS);
}

/* page->gen: the generation the folio belongs to (+1; 0: none);
 * page->private_: the list it physically sits on (+1). They differ after
 * a promotion until sort_folio moves the folio. */
static inline int folio_lru_gen(const struct folio *folio)
{
	return (int)folio->page.gen - 1;
}

void lru_gen_init(void)
{
	struct lru_gen_folio *lrugen = &root_lruvec.lrugen;

	lru_gen_exit();
	memset(lrugen, 0, sizeof(*lrugen));
	/* a run that ended with a reclaimer asleep on it leaves none behind */
	mm_state_wait.list = (struct sim_waitlist){ NULL, NULL };
	for (int g = 0; g < MAX_NR_GENS; g++)
		lrugen->head[g] = lrugen->tail[g] = NULL_PFN;
	lrugen->max_seq = MIN_NR_GENS + 1;
	lrugen->min_seq = lrugen->max_seq - MIN_NR_GENS;
	lrugen->mm_seq = MIN_NR_GENS;
	for (int i = 0; i < 2; i++)
		lrugen->filter_seq[i] = ~0ULL;
}

void lru_gen_exit(void)
{
	struct lru_gen_folio *lrugen = &root_lruvec.lrugen;

	for (int i = 0; i < 2; i++) {
		free(lrugen->filter[i]);
		lrugen->filter[i] = NULL;
	}
}

static void list_link_head(struct lruvec *lruvec, int g, struct folio *folio)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	u32 pfn = (u32)folio_pfn(folio);
	struct page *p = &folio->page;

	lru_touch_lines(pfn, lrugen->head[g], NULL_PFN);
	p->lru_prev = NULL_PFN;
	p->lru_next = lrugen->head[g];
	if (lrugen->head[g] != NULL_PFN)
		mem_map[lrugen->head[g]].lru_prev = pfn;
	else
		lrugen->tail[g] = pfn;
	lrugen->head[g] = pfn;
	p->private_ = (u8)(g + 1);
	lrugen->nr_pages[g] += folio_nr_pages(folio);
	hw_count(EV_lru_move, 1);
}

static void list_unlink(struct lruvec *lruvec, struct folio *folio)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	struct page *p = &folio->page;
	int g = (int)p->private_ - 1;

	lru_touch_lines((u32)folio_pfn(folio), p->lru_prev, p->lru_next);
	if (p->lru_prev != NULL_PFN)
		mem_map[p->lru_prev].lru_next = p->lru_next;
	else
		lrugen->head[g] = p->lru_next;
	if (p->lru_next != NULL_PFN)
		mem_map[p->lru_next].lru_prev = p->lru_prev;
	else
		lrugen->tail[g] = p->lru_prev;
	p->lru_next = p->lru_prev = NULL_PFN;
	p->private_ = 0;
	lrugen->nr_pages[g] -= folio_nr_pages(folio);
	hw_count(EV_lru_move, 1);
}

/*
 * lru_gen_folio_seq (include/linux/mm_inline.h): where a folio joins the
 * generations. Activated ones (faulted in, or found young by reclaim)
 * one below the youngest, or the youngest if in the working set;
 * swap-backed ones not in a swap cache, and ones under writeback for
 * reclaim, likewise one below; the rest near the oldest. Never below
 * min_seq. (The lab sets no PG_workingset, PG_reclaim or PG_writeback:
 * refault distance and writeback are not modelled; shmem keeps no swap
 * cache copy, so no folio is in one.) Kernels before 6.14 placed them by
 * lru_gen_add_folio's own rule (lru_gen_add_seq_old).
 */
static u64 lru_gen_add_seq_old(const struct lruvec *lruvec, const struct folio *folio,
			       bool reclaiming)
{
	const struct lru_gen_folio *lrugen = &lruvec->lrugen;
	bool cold_but_kept = folio_test_swapbacked(folio) /* LRU_GEN_ANON && !swapcache */ ||
			     (folio_test_reclaim(folio) &&
			      (folio_test_dirty(folio) || folio_test_writeback(folio)));

	if (folio_test_active(folio))
		return lrugen->max_seq;
	if (mm_sw.lru_gen_add == LRU_GEN_ADD_6_1)
		return lrugen->min_seq + cold_but_kept;
	/* 6.7: "fix underprotected page cache" */
	if (cold_but_kept)
		return lrugen->max_seq - 1;
	if (reclaiming || lrugen->min_seq + MIN_NR_GENS >= lrugen->max_seq)
		return lrugen->min_seq;
	return lrugen->min_seq + 1;
}

u64 lru_gen_folio_seq(const struct lruvec *lruvec, const struct folio *folio, bool reclaiming)
{
	const struct lru_gen_folio *lrugen = &lruvec->lrugen;
	u64 gen;

	if (mm_sw.lru_gen_add != LRU_GEN_ADD_6_14)
		return lru_gen_add_seq_old(lruvec, folio, reclaiming);
	if (folio_test_active(folio))
		gen = MIN_NR_GENS - folio_test_workingset(folio);
	else if (reclaiming)
		gen = MAX_NR_GENS;
	else if (folio_test_swapbacked(folio) /* !folio_is_file_lru && !swapcache */ ||
		 (folio_test_reclaim(folio) &&
		  (folio_test_dirty(folio) || folio_test_writeback(folio))))
		gen = MIN_NR_GENS;
	else
		gen = MAX_NR_GENS - folio_test_workingset(folio);
	return max(lrugen->max_seq + 1 - gen, lrugen->min_seq);
}

void lru_gen_add_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming)
{
	int g = lru_gen_from_seq(lru_gen_folio_seq(lruvec, folio, reclaiming));

	folio_clear_active(folio);
	folio->page.gen = (u8)(g + 1);
	list_link_head(lruvec, g, folio);
	folio_set_lru(folio);
}

void lru_gen_del_folio(struct lruvec *lruvec, struct folio *folio, bool reclaiming)
{
	(void)reclaiming;
	list_unlink(lruvec, folio);
	folio->page.gen = 0;
	folio_clear_lru(folio);
}

/* The MGLRU shape before 6.14's "mm/mglru: rework workingset protection". */
static bool lru_gen_before_6_14(void)
{
	return mm_sw.lru_gen_add != LRU_GEN_ADD_6_14;
}

/*
 * Promotion: the folio belongs to seq's generation from now on. One that
 * reclaim has isolated (no generation) is only marked PG_referenced
 * before 6.14, for shrink_folio_list to keep (evict_folios); from 6.14
 * the scans do not reach it (get_pfn_folio).
 */
bool folio_update_gen(struct folio *folio, u64 seq)
{
	if (!folio->page.gen) {
		if (lru_gen_before_6_14())
			folio_set_referenced(folio);
		return false;
	}
	if (folio_lru_gen(folio) == lru_gen_from_seq(seq))
		return false;
	folio->page.gen = (u8)(lru_gen_from_seq(seq) + 1);
	return true;
}

/*
 * Bloom filter: two hashes of the PMD entry, one filter per seq parity.
 * The kernel hashes its address; the lab hashes the table's id and the
 * entry's index, which name it as well and do not depend on where the
 * host put the table, so every run makes the same decisions.
 */
static void bloom_keys(const void *item, u64 key[2])
{
	const u64 *pmdp = &((const pmd_t *)item)->pmd;
	u64 name = (u64)hw_pt_meta(pmdp)->id * PTRS_PER_PTE + (u64)(pmdp - hw_pt_table(pmdp));
	u64 h = (name + 1) * 0x9E3779B97F4A7C15ULL;

	key[0] = (h >> 20) & ((1UL << BLOOM_FILTER_SHIFT) - 1);
	key[1] = (h >> 40) & ((1UL << BLOOM_FILTER_SHIFT) - 1);
}

static void reset_bloom_filter(struct lruvec *lruvec, u64 seq)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int i = (int)(seq % 2);

	if (!lrugen->filter[i])
		lrugen->filter[i] = host_calloc(BLOOM_WORDS, sizeof(u64), "the MGLRU Bloom filter");
	else
		memset(lrugen->filter[i], 0, BLOOM_WORDS * sizeof(u64));
	lrugen->filter_seq[i] = seq;
}

void update_bloom_filter(struct lruvec *lruvec, u64 seq, const void *pmd)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int i = (int)(seq % 2);
	u64 key[2];

	if (lrugen->filter_seq[i] != seq || !lrugen->filter[i])
		return;
	bloom_keys(pmd, key);
	for (int k = 0; k < 2; k++)
		lrugen->filter[i][key[k] / 64] |= 1ULL << (key[k] % 64);
}

/* No filter for this seq yet (the first aging): walk everything. */
bool test_bloom_filter(struct lruvec *lruvec, u64 seq, const void *pmd)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int i = (int)(seq % 2);
	u64 key[2];

	if (lrugen->filter_seq[i] != seq || !lrugen->filter[i])
		return true;
	bloom_keys(pmd, key);
	for (int k = 0; k < 2; k++)
		if (!(lrugen->filter[i][key[k] / 64] & (1ULL << (key[k] % 64))))
			return false;
	return true;
}

/* young PTEs average at least one per cache line of the table scanned */
static bool suitable_to_scan(int total, int young)
{
	return young * 8 >= total;
}

/*
 * The young test of one PTE run: one batched call (S1) or one per PTE
 * (the 6.x shape, each of which scans its whole contiguous block).
 */
static bool young_test(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep,
		       unsigned int nr)
{
	bool young = false;

	if (mm_sw.lru_gen_spte == LRU_GEN_SPTE_HOST) {
		/* before 6.12: the host's bits only (ptep_test_and_clear_young) */
		for (unsigned int i = 0; i < nr; i++)
			young |= ptep_test_and_clear_young(vma, addr + i * PAGE_SIZE, ptep + i);
		return young;
	}
	/* 7.x asks the batched op even for one entry (walk_pte_range, lru_gen_look_around) */
	if (mm_sw.young_batch)
		return test_and_clear_young_ptes_notify(vma, addr, ptep, nr);
	for (unsigned int i = 0; i < nr; i++)
		young |= ptep_clear_young_notify(vma, addr + i * PAGE_SIZE, ptep + i);
	return young;
}

/*
 * How many PTEs from ptep the same folio maps in a row (1 per PTE without
 * S1); *ptentp takes the young/dirty of the whole run, as in 7.3's
 * walk_pte_range()/lru_gen_look_around().
 */
static unsigned int run_of(struct folio *folio, unsigned long addr, pte_t *ptep,
			   pte_t *ptentp, unsigned int max_nr)
{
	if (!folio_test_large(folio) || !mm_sw.young_batch)
		return 1;
	return folio_pte_batch_flags(folio, NULL, ptep, ptentp, max_nr, FPB_MERGE_YOUNG_DIRTY);
}

/*
 * get_pfn_folio: the folio a young entry maps. From 6.14 only one on the
 * generations; before, an isolated one too (folio_update_gen marks it).
 */
static struct folio *lru_gen_folio_of(pte_t pte)
{
	u64 pfn = pte_pfn(pte);

	if (pfn >= max_pfn)
		return NULL;
	struct folio *folio = pfn_folio(pfn);
	return folio->page.gen || lru_gen_before_6_14() ? folio : NULL;
}

/*
 * What a young scan (aging walk or look-around) carries from one run of
 * entries to the next: walk_pte_range()'s and lru_gen_look_around()'s
 * locals.
 */
struct young_scan {
	u64 seq;            /* DEFINE_MAX_SEQ at the scan's start: where young folios go */
	int *batched;       /* the aging walk's count of folios it moved; NULL: look-around */
	struct folio *last; /* the young folio whose update waits for the next one (6.14+) */
	bool dirty;         /* ... and whether a young entry of it was dirty */
};

/*
 * walk_update_folio: dirt seen in the page tables goes to the folio, and
 * the folio to the scan's generation; the aging walk counts the folios it
 * moved (update_batch_size).
 */
static void walk_update_folio(struct young_scan *ys, struct folio *folio, bool dirty)
{
	if (!folio)
		return;
	if (dirty && !folio_test_dirty(folio) && !folio_test_anon(folio))
		folio_set_dirty(folio);
	if (folio_update_gen(folio, ys->seq) && ys->batched)
		(*ys->batched)++;
}

/*
 * A young folio's update: from 6.14 (7.2 and 7.3 have it, 6.12 not) once
 * the scan reaches the next young folio or its end (young_scan_done), a
 * folio's young runs counted once; before, at once, run by run.
 */
static void young_scan_folio(struct young_scan *ys, struct folio *folio, pte_t ptent)
{
	if (mm_sw.lru_gen_add != LRU_GEN_ADD_6_14) {
		walk_update_folio(ys, folio, pte_dirty(ptent));
		return;
	}
	if (ys->last != folio) {
		walk_update_folio(ys, ys->last, ys->dirty);
		ys->last = folio;
		ys->dirty = false;
	}
	if (pte_dirty(ptent))
		ys->dirty = true;
}

static void young_scan_done(struct young_scan *ys)
{
	walk_update_folio(ys, ys->last, ys->dirty);
	ys->last = NULL;
}

/*
 * One step of a young scan (look-around or aging walk): read the entry;
 * a present, young one mapping an LRU folio gets its run tested and, if
 * still young, the folio goes to the scan's generation. Returns how many
 * entries the step covered; *young how many of them were young.
 */
static unsigned int age_pte_run(struct young_scan *ys, struct vm_area_struct *vma,
				unsigned long addr, pte_t *ptep, unsigned long end,
				unsigned int *young, bool spte_young)
{
	pte_t ptent = ptep_get(ptep);
	struct folio *folio;
	unsigned int nr;
	bool notify = mm_sw.lru_gen_spte == LRU_GEN_SPTE_NOTIFY;

	*young = 0;
	/*
	 * get_pte_pfn: only present entries, and only young ones unless a
	 * secondary MMU may hold the young bit (6.12+), or (the seed) it
	 * was just found young there
	 */
	if (!pte_present(ptent) ||
	    (!pte_young(ptent) && !spte_young && !(notify && mm_has_notifiers(vma->vm_mm))))
		return 1;
	folio = lru_gen_folio_of(ptent);
	if (!folio)
		return 1;
	nr = run_of(folio, addr, ptep, &ptent, (unsigned int)((end - addr) >> PAGE_SHIFT));
	if (young_test(vma, addr, ptep, nr) || spte_young) {
		young_scan_folio(ys, folio, ptent);
		*young = nr;
	}
	return nr;
}

/*
 * The seed (v1): the secondary MMUs' young bits of [start, end), at most
 * MIN_LRU_BATCH entries, in one mmu_notifier_test_clear_young() asking
 * test-and-clear for every entry; bit i of the result is the entry at
 * start + i pages. A subscriber without the fast path falls back to one
 * clear_young over the range, which says only "something was young":
 * every entry counts as young then.
 */
static u64 spte_young_window(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	unsigned int n = (unsigned int)((end - start) >> PAGE_SHIFT), i;
	unsigned long bitmap = n == 64 ? ~0UL : (1UL << n) - 1;
	u64 young = 0;

	if (!mm_sw.spte_test_clear_young || mm_sw.lru_gen_spte != LRU_GEN_SPTE_HOST ||
	    !mm_has_notifiers(mm))
		return 0;
	if (mmu_notifier_test_clear_young(mm, start, end, true, &bitmap))
		return n == 64 ? ~0ULL : (1ULL << n) - 1;
	/* addr's bit is (end - addr) / PAGE_SIZE - 1: a young entry's 1 became 0 */
	for (i = 0; i < n; i++)
		if (!(bitmap & (1UL << (n - 1 - i))))
			young |= 1ULL << i;
	return young;
}

static bool spte_window_on(void)
{
	return mm_sw.spte_test_clear_young && mm_sw.lru_gen_spte == LRU_GEN_SPTE_HOST;
}

/*
 * The seed's should_look_around() (v1; v2 the same in effect): the page
 * is tested and cleared in the secondary MMUs (falling back to
 * clear_young where there is no fast path) and in the host. Returns
 * whether the folio was young; *look says whether to scan the window:
 * the host's entry was young, or the secondary's was and the fast path
 * (which can also answer for the neighbours) found it so.
 */
static bool should_look_around(struct vm_area_struct *vma, unsigned long addr, pte_t *pte,
			       unsigned int nr, bool *look)
{
	unsigned long old = 1; /* test and clear; reads 0 if young in the fast path */
	bool young = mmu_notifier_test_clear_young(vma->vm_mm, addr, addr + PAGE_SIZE, true, &old);

	if (!old)
		young = true;
	if (young_test(vma, addr, pte, nr)) {
		*look = true;
		return true;
	}
	*look = !old;
	return young;
}

/*
 * The rmap walker found the young entries [pvmw->pte, + nr) of a folio
 * (with the seed: an entry of a folio to test first): test-and-clear them
 * (and the secondary MMU's) and, while the PTL is held anyway, age the
 * young neighbours within MIN_LRU_BATCH entries, so the next aging need
 * not walk this table (the Bloom filter feedback). Returns whether the
 * folio was young.
 */
bool lru_gen_look_around(struct page_vma_mapped_walk *pvmw, unsigned int nr)
{
	PERF_FUNC();
	struct vm_area_struct *vma = pvmw->vma;
	struct lruvec *lruvec = folio_lruvec(pfn_folio(pvmw->pfn));
	struct reclaim_state *rstate = current->reclaim_state;
	pte_t *pte = pvmw->pte;
	unsigned long addr = pvmw->address;
	unsigned long start, end;
	int young = (int)nr, i = 0;
	int frame = SIM_FRAME("lru_gen_look_around");
	bool seed = spte_window_on() && mm_has_notifiers(vma->vm_mm);
	bool folio_young = true, look = true;
	u64 spte = 0;

	sim_frame_enter(frame);
	/*
	 * Before the seed the caller tested the host bit. The seed's
	 * should_look_around() tests and clears the page in both MMUs first
	 * and looks around only if the host's entry was young, or the
	 * secondary's was and the lockless fast path said so.
	 */
	if (seed) {
		folio_young = should_look_around(vma, addr, pte, nr, &look);
		if (!look) {
			sim_frame_exit(frame);
			return folio_young;
		}
	} else if (!young_test(vma, addr, pte, nr)) {
		sim_frame_exit(frame);
		return false;
	}
	/* another task waits for this table: the neighbours can wait for the next scan */
	if (pvmw->ptl && pte_lock_contended(pvmw->ptl)) {
		sim_frame_exit(frame);
		return folio_young;
	}
	start = max(addr & PMD_MASK, vma->vm_start);
	end = min(addr | ~PMD_MASK, vma->vm_end - 1) + 1;
	if (end - start == PAGE_SIZE && !seed) {
		sim_frame_exit(frame);
		return true;
	}
	if (end - start > MIN_LRU_BATCH * PAGE_SIZE) {
		if (addr - start < MIN_LRU_BATCH * PAGE_SIZE / 2)
			end = start + MIN_LRU_BATCH * PAGE_SIZE;
		else if (end - addr < MIN_LRU_BATCH * PAGE_SIZE / 2)
			start = end - MIN_LRU_BATCH * PAGE_SIZE;
		else {
			start = addr - MIN_LRU_BATCH * PAGE_SIZE / 2;
			end = addr + MIN_LRU_BATCH * PAGE_SIZE / 2;
		}
	}
	unsigned long folio_addr = addr, folio_end = addr + nr * PAGE_SIZE;
	struct young_scan ys = { .seq = lruvec->lrugen.max_seq };

	if (seed) {
		/* the page itself was counted by should_look_around() */
		spte = spte_young_window(vma->vm_mm, start, end);
		young = 0;
	}
	pte -= (addr - start) / PAGE_SIZE;
	for (addr = start; addr != end; i += (int)nr, pte += nr, addr += nr * PAGE_SIZE) {
		unsigned int y;

		nr = age_pte_run(&ys, vma, addr, pte, end, &y,
				 seed && (spte >> ((addr - start) >> PAGE_SHIFT) & 1));
		if (seed && y && addr >= folio_addr && addr < folio_end)
			folio_young = true;
		else if (rstate && rstate->stat)
			rstate->stat->nr_look_around_young += y;
		young += (int)y;
	}
	young_scan_done(&ys);
	/* feedback from rmap walkers to page table walkers */
	if (suitable_to_scan(i, young))
		update_bloom_filter(lruvec, lruvec->lrugen.max_seq, pvmw->pmd);
	sim_frame_exit(frame);
	return folio_young;
}

/* Whether a reclaimer sleeps on mm_state_wait now (wq_has_sleeper). */
static bool mm_state_has_sleeper(void)
{
	return mm_state_wait.list.head != NULL;
}

/*
 * One PTE table's share of an aging walk: its young entries' folios go to
 * max_seq. Returns whether the table is worth walking at the next aging
 * (its young entries average one per cache line, or, 7.2+, it was locked
 * and not walked now).
 */
static bool walk_pte_range(pmd_t *pmdp, unsigned long start, unsigned long end,
			   struct mm_walk *args)
{
	PERF_FUNC();
	struct lru_gen_mm_walk *walk = args->private;
	struct vm_area_struct *vma = args->vma;
	struct young_scan ys = { .seq = walk->lruvec->lrugen.max_seq, .batched = &walk->batched };
	spinlock_t *ptl;
	pte_t *table = pte_offset_map_trylock(args->mm, pmdp, start, &ptl), *ptep = table;
	int total = 0, young = 0;
	unsigned int nr;

	/* spin_trylock: a table another task has locked is not waited for */
	if (!table)
		return mm_sw.lru_gen_7_2; /* 7.2+: scanned at the next aging */

	unsigned long window = start;
	u64 spte = 0;

	for (unsigned long addr = start; addr != end; ptep += nr, addr += nr * PAGE_SIZE) {
		unsigned int y;

		/* the seed: the secondary MMUs are asked MIN_LRU_BATCH entries at a time */
		if (spte_window_on() && (addr == start || addr - window >= MIN_LRU_BATCH * PAGE_SIZE)) {
			window = addr;
			spte = spte_young_window(vma->vm_mm, window,
						 min(end, window + MIN_LRU_BATCH * PAGE_SIZE));
		}
		u64 bit = (addr - window) >> PAGE_SHIFT;

		nr = age_pte_run(&ys, vma, addr, ptep, end, &y, bit < 64 && (spte >> bit & 1));
		total += (int)nr;
		young += (int)y;
	}
	young_scan_done(&ys);
	pte_unmap_unlock(table, ptl);
	walk->mm_stats[MM_LEAF_TOTAL] += (unsigned long)total;
	walk->mm_stats[MM_LEAF_YOUNG] += (unsigned long)young;
	return suitable_to_scan(total, young);
}

/*
 * The tree's walk_pte_range (mm/core.h), unless a switch or an S3 variant
 * asks for a walk the tree does not have (--without young-batch, the
 * 6.1 .. 6.11 host-only young bits, the seed's secondary-MMU window, 6.x's
 * dropped locked tables): those are the twin's.
 */
static bool tree_walk_pte_range(void)
{
	return mm_core && mm_core->walk_pte_range && mm_sw.young_batch &&
	       mm_sw.lru_gen_spte == LRU_GEN_SPTE_NOTIFY && !spte_window_on() && mm_sw.lru_gen_7_2;
}

/* walk_pmd_range (7.3): a table the Bloom filter allows is scanned */
static int walk_pmd_entry(pmd_t *pmdp, unsigned long addr, unsigned long next, struct mm_walk *walk)
{
	struct lru_gen_mm_walk *mm_walk = walk->private;
	struct lruvec *lruvec = mm_walk->lruvec;

	if (!pmd_table(*pmdp))
		return 0;
	/*
	 * should_clear_pmd_young (x86): a table no CPU walked through since
	 * the last aging has no young PTEs the host set; it is skipped, and
	 * the bit of one that is walked is cleared for the next aging. Not,
	 * from 6.12, where a secondary MMU maps the mm ("!mm_has_notifiers"):
	 * a guest's accesses never set it. (force_scan, a new mm's first
	 * walk, is not modelled: the first walk finds the bits the
	 * populating left.)
	 */
	if (arch_has_hw_nonleaf_pmd_young() &&
	    !(mm_sw.lru_gen_spte == LRU_GEN_SPTE_NOTIFY && mm_has_notifiers(walk->mm))) {
		if (!pmd_young(*pmdp))
			return 0;
		pmdp_test_and_clear_young(walk->vma, addr, pmdp);
	}
	if (!test_bloom_filter(lruvec, mm_walk->seq, pmdp)) {
		mm_walk->rs->nr_bloom_skipped++;
		return 0;
	}
	mm_walk->mm_stats[MM_NONLEAF_FOUND]++;

	unsigned long walked = mm_walk->mm_stats[MM_LEAF_TOTAL];
	bool again = tree_walk_pte_range() ? mm_core->walk_pte_range(pmdp, addr, next, walk)
					   : walk_pte_range(pmdp, addr, next, walk);

	mm_walk->rs->nr_walk_ptes += mm_walk->mm_stats[MM_LEAF_TOTAL] - walked;
	if (again) {
		/* carry over to the next generation */
		mm_walk->mm_stats[MM_NONLEAF_ADDED]++;
		update_bloom_filter(lruvec, mm_walk->seq + 1, pmdp);
	}
	return 0;
}

static const struct mm_walk_ops lru_gen_walk_ops = {
	.pmd_entry = walk_pmd_entry,
};

/*
 * walk_mm: every PMD of the mm's VMAs the Bloom filter allows is walked.
 * The walk goes PUD by PUD (walk_pud_range), and between two it
 * may stop. 6.4+: once it has promoted MAX_LRU_BATCH folios it looks up,
 * and stops if another reclaimer has made the generation meanwhile
 * ("another thread might have called inc_max_seq()"). 6.1: it stops as
 * soon as a reclaimer waits for the aging ("a racy check to curtail the
 * waiting time"). (need_resched(), the other reason to look up, is not
 * modelled.)
 */
static void walk_mm_ranges(struct mm_struct *mm, struct lru_gen_mm_walk *mm_walk)
{
	const unsigned long pud_size = 1UL << PUD_SHIFT;

	for (struct vm_area_struct *vma = mm->mmap; vma; vma = vma->vm_next) {
		for (unsigned long addr = vma->vm_start; addr < vma->vm_end;) {
			unsigned long next = min(ALIGN_DOWN(addr, pud_size) + pud_size, vma->vm_end);

			walk_page_range(mm, addr, next, &lru_gen_walk_ops, mm_walk);
			addr = next;
			if (addr == vma->vm_end && !vma->vm_next)
				return; /* walked to the end */
			if (mm_sw.lru_gen_aging_6_1) {
				sim_sync();
				if (mm_state_has_sleeper())
					goto stopped;
			} else if (mm_walk->batched >= MAX_LRU_BATCH) {
				/* walk_mm: reset_batch_size under the lru_lock */
				lruvec_lock_irq(mm_walk->lruvec);
				mm_walk->batched = 0;
				lruvec_unlock_irq(mm_walk->lruvec);
				if (mm_walk->seq != mm_walk->lruvec->lrugen.max_seq)
					goto stopped;
			}
		}
	}
	return;
stopped:
	mm_walk->rs->nr_walks_stopped++;
}

static void walk_mm(struct mm_struct *mm, struct lru_gen_mm_walk *mm_walk)
{
	PERF_FUNC();
	mm->lru_gen_walks++;
	mm_walk->batched = 0;
	walk_mm_ranges(mm, mm_walk);
	/* walk_mm: the folios the walk promoted are accounted under the lru_lock (reset_batch_size) */
	if (mm_walk->batched) {
		lruvec_lock_irq(mm_walk->lruvec);
		mm_walk->batched = 0;
		lruvec_unlock_irq(mm_walk->lruvec);
	}
	mm->lru_gen_walks--;
}

bool lru_gen_walk_on(const struct mm_struct *mm)
{
	return mm->lru_gen_walks > 0;
}

/* min_seq moves up over generations left empty (never below MIN_NR_GENS). */
static bool try_to_inc_min_seq(struct lruvec *lruvec)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	u64 seq = lrugen->min_seq;

	while (lrugen->max_seq - lrugen->min_seq + 1 > MIN_NR_GENS &&
	       lrugen->head[lru_gen_from_seq(lrugen->min_seq)] == NULL_PFN)
		lrugen->min_seq++;
	return lrugen->min_seq != seq;
}

/* The oldest generation's folios move up one when all gens are in use. */
static void inc_min_seq(struct lruvec *lruvec)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int old = lru_gen_from_seq(lrugen->min_seq);
	u64 seq = lrugen->min_seq + 1;

	while (lrugen->tail[old] != NULL_PFN) {
		struct folio *folio = (struct folio *)&mem_map[lrugen->tail[old]];

		list_unlink(lruvec, folio);
		if (folio_lru_gen(folio) == old)
			folio->page.gen = (u8)(lru_gen_from_seq(seq) + 1);
		list_link_head(lruvec, folio_lru_gen(folio), folio);
	}
	lrugen->min_seq = seq;
}

/*
 * iterate_mm_list: hand the walker the next mm of this iteration over
 * mm_list. 6.4+: a walker whose seq is stale (the iteration for it has
 * ended) gets none; the one that finds the list exhausted ends the
 * iteration (mm_seq = seq) and returns true: it, not the walkers still on
 * their mms, increments max_seq. So each mm is walked once per seq however
 * many reclaimers need aging at once, and the second one does not wait
 * for the first's walk. 6.1 .. 6.3 (iterate_mm_list with nr_walkers): the
 * iteration ends when the last mm is handed out, and the walker that
 * finishes last (nr_walkers back to 0) returns true; one that came too
 * late returns false.
 */
static bool iterate_mm_list_6_1(struct lru_gen_mm_walk *walk, struct mm_struct **iter)
{
	struct lru_gen_folio *lrugen = &walk->lruvec->lrugen;
	struct mm_struct *mm = NULL;
	bool first = false, last = true;

	hw_count(EV_lock_acquire, 1); /* mm_list->lock */
	if (walk->seq <= lrugen->mm_seq) {
		if (!*iter)
			last = false;
	} else {
		if (!lrugen->mm_walkers) {
			lrugen->mm_head = mm_list;
			first = true;
		}
		if (lrugen->mm_head) {
			mm = lrugen->mm_head;
			lrugen->mm_head = mm->next_mm;
		}
		if (!lrugen->mm_head)
			lrugen->mm_seq++;
	}
	if (*iter && !mm)
		lrugen->mm_walkers--;
	if (!*iter && mm)
		lrugen->mm_walkers++;
	if (lrugen->mm_walkers)
		last = false;
	if (mm && first)
		reset_bloom_filter(walk->lruvec, walk->seq + 1);
	*iter = mm;
	return last;
}

static bool iterate_mm_list(struct lru_gen_mm_walk *walk, struct mm_struct **iter)
{
	struct lru_gen_folio *lrugen = &walk->lruvec->lrugen;
	struct mm_struct *mm = NULL;
	bool first = false, last = false;

	if (mm_sw.lru_gen_aging_6_1)
		return iterate_mm_list_6_1(walk, iter);
	hw_count(EV_lock_acquire, 1); /* mm_list->lock */
	if (walk->seq > lrugen->mm_seq) {
		first = !lrugen->mm_head;
		lrugen->mm_head = lrugen->mm_head ? lrugen->mm_head->next_mm : mm_list;
		if (!lrugen->mm_head) {
			lrugen->mm_seq++;
			last = true;
		}
		mm = lrugen->mm_head;
	}
	/* the next aging's filter starts empty; look-around and this walk fill it */
	if (mm && first)
		reset_bloom_filter(walk->lruvec, walk->seq + 1);
	*iter = mm;
	return last;
}

/* inc_max_seq: a new youngest generation, unless another walker made it already */
static bool inc_max_seq(struct lruvec *lruvec, u64 seq)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;

	if (seq < lrugen->max_seq)
		return false;
	if (lrugen->max_seq - lrugen->min_seq + 1 == MAX_NR_GENS)
		inc_min_seq(lruvec);
	lrugen->max_seq++;
	return true;
}

bool try_to_inc_max_seq(struct lruvec *lruvec, u64 seq, int priority, struct reclaim_stat *rs)
{
	PERF_FUNC();
	struct lru_gen_mm_walk mm_walk = { .lruvec = lruvec, .rs = rs, .seq = seq };
	int frame = SIM_FRAME("try_to_inc_max_seq");
	struct mm_struct *mm = NULL;
	bool success;

	/* see the comment in iterate_mm_list() */
	if (seq <= lruvec->lrugen.mm_seq && !mm_sw.lru_gen_aging_6_1)
		return false;
	sim_frame_enter(frame);
	do {
		sim_sync(); /* mm_list->lock: the iteration is shared */
		success = iterate_mm_list(&mm_walk, &mm);
		if (mm)
			walk_mm(mm, &mm_walk);
	} while (mm);
	if (success) {
		lruvec_lock_irq(lruvec); /* inc_max_seq's */
		success = inc_max_seq(lruvec, seq);
		lruvec_unlock_irq(lruvec);
	}
	if (success) {
		rs->nr_aging++;
		/* 6.1: "either this sees any waiters or they will see updated max_seq" */
		sim_wake_up(&mm_state_wait, 0);
	} else {
		success = false;
		/*
		 * 6.1: another walker ages; one that is having trouble
		 * reclaiming (at DEF_PRIORITY - 2 or below) waits for it.
		 */
		if (mm_sw.lru_gen_aging_6_1 && priority <= DEF_PRIORITY - 2)
			for (sim_sync(); seq >= lruvec->lrugen.max_seq; sim_sync())
				sim_wait(&mm_state_wait, SIM_FRAME("lru_gen_mm_state_wait"));
	}
	sim_frame_exit(frame);
	return success;
}

/*
 * lru_gen_del_mm: a walk standing on the leaving mm steps back to its
 * predecessor; 6.1: where the iteration continues moves on past it, and
 * if that was the last mm, the iteration ends.
 */
void lru_gen_del_mm(struct mm_struct *mm)
{
	struct lru_gen_folio *lrugen = &root_lruvec.lrugen;
	struct mm_struct *prev = NULL;

	if (lrugen->mm_head != mm)
		return;
	if (mm_sw.lru_gen_aging_6_1) {
		lrugen->mm_head = mm->next_mm;
		if (!lrugen->mm_head)
			lrugen->mm_seq++;
		return;
	}
	for (struct mm_struct *m = mm_list; m && m != mm; m = m->next_mm)
		prev = m;
	lrugen->mm_head = prev;
}

/*
 * evict_folios' putback (move_folios_to_lru): "don't add rejected folios
 * to the oldest generation" - one that would land on min_seq is marked
 * active instead. Before 6.14 every rejected folio was (after one retry
 * for the clean, unmapped ones: lru_gen_retry_folio), its LRU_REFS_FLAGS
 * cleared, and active went to max_seq.
 */
static void lru_gen_putback_folio(struct lruvec *lruvec, struct folio *folio)
{
	hw_count(EV_lru_putback, 1); /* move_folios_to_lru: folio_set_lru, the isolation's ref dropped */
	if (mm_sw.lru_gen_add == LRU_GEN_ADD_6_14) {
		if (lru_gen_folio_seq(lruvec, folio, false) == lruvec->lrugen.min_seq)
			folio_set_active(folio);
	} else {
		/* set_mask_bits(LRU_REFS_MASK | LRU_REFS_FLAGS, BIT(PG_active)) */
		folio_clear_referenced(folio);
		folio_clear_workingset(folio);
		folio_set_active(folio);
	}
	lru_gen_add_folio(lruvec, folio, false);
}

/*
 * 6.2 .. 6.13: a folio shrink_folio_list rejected that nothing keeps
 * (not active, referenced, mapped, locked, dirty or under writeback) goes
 * through it once more ("retry folios written back while isolated"):
 * the lab retries it at once.
 */
static bool lru_gen_retry_folio(const struct folio *folio)
{
	return mm_sw.lru_gen_add != LRU_GEN_ADD_6_14 && !folio_test_active(folio) &&
	       !folio_test_referenced(folio) && !folio_mapped(folio) &&
	       !folio_test_locked(folio) && !folio_test_dirty(folio) &&
	       !folio_test_writeback(folio);
}

/*
 * scan_folios (under the lru_lock): folios from the oldest generation's
 * tail. A folio promoted since (its gen differs) is only moved
 * (sort_folio); the others are isolated, until MIN_LRU_BATCH pages are or
 * remaining folios were looked at (7.2+ hands evict_folios
 * min(nr_to_scan, MIN_LRU_BATCH); MAX_LRU_BATCH before). An
 * empty oldest generation is retired on the way (evict_folios'
 * try_to_inc_min_seq); with only MIN_NR_GENS generations left the batch
 * ends (they need aging). Returns how many folios went to list[];
 * *nr_scanned counts the pages looked at.
 */
static int scan_folios(struct lruvec *lruvec, struct reclaim_stat *rs, int remaining, u32 *list,
		       int *nr_scanned)
{
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int n = 0;
	long isolated = 0;

	*nr_scanned = 0;
	while (isolated < MIN_LRU_BATCH && remaining) {
		int g = lru_gen_from_seq(lrugen->min_seq);
		struct folio *folio;

		/* the youngest MIN_NR_GENS generations are not evicted from: they need aging first */
		if (lrugen->max_seq - lrugen->min_seq + 1 <= MIN_NR_GENS)
			break;
		if (lrugen->tail[g] == NULL_PFN) {
			u64 before = lrugen->min_seq;

			try_to_inc_min_seq(lruvec);
			if (lrugen->min_seq == before)
				break; /* needs aging */
			continue;
		}
		folio = (struct folio *)&mem_map[lrugen->tail[g]];
		long nr = folio_nr_pages(folio);

		remaining--;
		*nr_scanned += (int)nr;
		rs->nr_scanned += (u64)nr;
		/* sort_folio: promoted, or not reclaimable here */
		if (folio_lru_gen(folio) != g || folio_test_unevictable(folio) ||
		    (folio_test_dirty(folio) && !folio_test_swapbacked(folio))) {
			list_unlink(lruvec, folio);
			list_link_head(lruvec, folio_lru_gen(folio), folio);
			rs->nr_promoted += (u64)nr;
			continue;
		}
		/* isolate_folio */
		lru_gen_del_folio(lruvec, folio, true);
		hw_count(EV_lru_isolate, 1);
		list[n++] = (u32)folio_pfn(folio);
		isolated += nr;
	}
	/* 6.x: a batch that isolated nothing before its limit scanned nothing */
	if (!mm_sw.lru_gen_7_2 && !isolated && remaining)
		*nr_scanned = 0;
	return n;
}

/*
 * evict_folios: isolate a batch under the lru_lock (scan_folios), drop
 * the lock and judge the batch (shrink_folio_list: references, then
 * unmap and free or write out), then take the lock again to put back
 * what stays (move_folios_to_lru). Concurrent reclaimers work on
 * different batches: a folio isolated here is off every list until then.
 */
static u64 evict_folios(struct lruvec *lruvec, struct scan_control *sc, int nr_to_scan,
			int *nr_scanned)
{
	PERF_FUNC();
	struct reclaim_stat *rs = sc->stat;
	int frame = SIM_FRAME("shrink_folio_list");
	u32 list[MIN_LRU_BATCH];
	u64 reclaimed = 0;
	int n, kept = 0;

	lruvec_lock_irq(lruvec);
	n = scan_folios(lruvec, rs, nr_to_scan, list, nr_scanned);
	/*
	 * The generation the batch emptied is retired before the putback
	 * (7.2+: if it scanned anything). 6.x: that counts as progress, but
	 * none is reported once only MIN_NR_GENS generations are left (they
	 * need aging).
	 */
	if (!mm_sw.lru_gen_7_2) {
		if (try_to_inc_min_seq(lruvec))
			(*nr_scanned)++;
		if (lruvec->lrugen.max_seq - lruvec->lrugen.min_seq + 1 <= MIN_NR_GENS)
			*nr_scanned = 0;
	} else if (*nr_scanned) {
		try_to_inc_min_seq(lruvec);
	}
	lruvec_unlock_irq(lruvec);
	for (int i = 0; i < n; i++) {
		struct folio *folio = (struct folio *)&mem_map[list[i]];
		/*
		 * Read the size now: once reclaim_clean_folio() has freed the
		 * folio, the buddy allocator may have merged it into a larger
		 * free block and its head page says nothing about this folio.
		 */
		long nr = folio_nr_pages(folio);

		sim_frame_enter(frame);
		/* folio_trylock: one still being read in (read ahead) is kept */
		if (folio_readahead_busy(folio)) {
			list[kept++] = list[i];
			rs->nr_kept += (u64)nr;
			sim_frame_exit(frame);
			continue;
		}
		sc->nr_scanned += (u64)nr; /* shrink_folio_list counts what it locked */
		/* before 6.14: "folio_update_gen() tried to promote this page?": kept, no rmap walk */
		if (lru_gen_before_6_14() && folio_mapped(folio) && folio_test_referenced(folio)) {
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
			break;
		default:
			if (reclaim_folio(folio) || /* the folio is gone */
			    (lru_gen_retry_folio(folio) && reclaim_folio(folio))) {
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
		lruvec_lock_irq(lruvec);
		for (int i = 0; i < kept; i++)
			lru_gen_putback_folio(lruvec, (struct folio *)&mem_map[list[i]]);
		lruvec_unlock_irq(lruvec);
	}
	sc->nr_reclaimed += reclaimed;
	return reclaimed;
}

/* One eviction batch; what it looked at and freed counts in sc. */
static u64 evict_batch(struct lruvec *lruvec, struct scan_control *sc, int nr_to_scan, int *delta)
{
	int frame = SIM_FRAME("evict_folios");
	u64 r;

	sim_frame_enter(frame);
	r = evict_folios(lruvec, sc, nr_to_scan, delta);
	sim_frame_exit(frame);
	return r;
}

/*
 * Cgroup reclaim (memory.reclaim) after an aging attempt, by era:
 * 6.3 .. 7.1 stop scanning the lruvec (get_nr_to_scan's -1 or 0); 7.2+
 * go on (the rotation of try_to_shrink_lruvec is root reclaim's).
 * memory.reclaim's priorities are not modelled: it reclaims as at
 * priority 0, one pass over the LRU at most.
 */
u64 lru_gen_shrink_lruvec(struct lruvec *lruvec, u64 nr_to_reclaim, struct reclaim_stat *rs)
{
	PERF_FUNC();
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	int batch = mm_sw.lru_gen_7_2 ? MIN_LRU_BATCH : MAX_LRU_BATCH;
	bool stop = !mm_sw.lru_gen_7_2;
	struct scan_control sc = { .stat = rs };
	u64 reclaimed = 0, total = 0, lru_size = 0;
	int idle = 0;

	/* get_nr_to_scan's bound at priority 0: what the LRU holds */
	for (int g = 0; g < MAX_NR_GENS; g++)
		lru_size += (u64)lrugen->nr_pages[g];
	while (reclaimed < nr_to_reclaim && idle < 2 * MAX_NR_GENS && total <= lru_size) {
		/* should_run_aging: only MIN_NR_GENS generations left */
		if (lrugen->max_seq - lrugen->min_seq + 1 <= MIN_NR_GENS) {
			try_to_inc_max_seq(lruvec, lrugen->max_seq, 0, rs);
			if (stop)
				break;
		}
		int scanned;
		u64 r = evict_batch(lruvec, &sc, batch, &scanned);

		reclaimed += r;
		total += (u64)scanned;
		/*
		 * A batch that scanned folios (even if it activated them all)
		 * goes on evicting; aging runs only when two generations are
		 * left or the oldest has nothing to scan.
		 */
		if (scanned) {
			idle = 0;
		} else {
			idle++;
			try_to_inc_min_seq(lruvec);
			if (lrugen->max_seq - lrugen->min_seq + 1 > MIN_NR_GENS &&
			    lrugen->head[lru_gen_from_seq(lrugen->min_seq)] == NULL_PFN)
				continue;
			try_to_inc_max_seq(lruvec, lrugen->max_seq, 0, rs);
			if (stop)
				break;
		}
	}
	return reclaimed;
}

/*
 * Root reclaim: kswapd's balance_pgdat and an allocation's
 * do_try_to_free_pages call shrink_node at falling priorities (DEF_PRIORITY
 * first); a pass may look at the LRU's size >> priority folios. Whether
 * and when a pass ages, and when it stops, is by era below.
 */

/* The pages on the LRU; *young: in max_seq's generation, *old: in max_seq - MIN_NR_GENS's. */
static u64 lru_gen_size(const struct lruvec *lruvec, u64 *young, u64 *old)
{
	const struct lru_gen_folio *lrugen = &lruvec->lrugen;
	u64 total = 0;

	*young = *old = 0;
	for (u64 seq = lrugen->min_seq; seq <= lrugen->max_seq; seq++) {
		long nr = lrugen->nr_pages[lru_gen_from_seq(seq)];
		u64 size = nr > 0 ? (u64)nr : 0;

		total += size;
		if (seq == lrugen->max_seq)
			*young += size;
		else if (seq + MIN_NR_GENS == lrugen->max_seq)
			*old += size;
	}
	return total;
}

/*
 * should_run_aging, 6.1 .. 7.1: age when the lruvec is out of cold
 * folios (MIN_NR_GENS generations left) or, with MIN_NR_GENS + 1, when
 * they are out of balance: the youngest holds over 1/MIN_NR_GENS of the
 * folios or the oldest under 1/(MIN_NR_GENS + 2). *total: the folios.
 */
static bool should_run_aging_6x(const struct lruvec *lruvec, u64 *total)
{
	const struct lru_gen_folio *lrugen = &lruvec->lrugen;
	u64 young, old;

	*total = lru_gen_size(lruvec, &young, &old);
	if (lrugen->min_seq + MIN_NR_GENS > lrugen->max_seq)
		return true;
	if (lrugen->min_seq + MIN_NR_GENS < lrugen->max_seq)
		return false;
	return young * MIN_NR_GENS > *total || old * (MIN_NR_GENS + 2) < *total;
}

/* Free memory at or above a watermark (zone_watermark_ok, one zone). */
static bool free_above(u64 mark)
{
	sim_sync(); /* the free count is shared */
	return nr_free_pages() >= mark;
}

/*
 * 6.3 .. 7.1 get_nr_to_scan: at DEF_PRIORITY, or when the generations
 * need no aging, scan; otherwise age and stop scanning this lruvec ("low
 * on cold folios"): -1 if this reclaimer made the generation, 0 if not.
 */
static long get_nr_to_scan_6_4(struct lruvec *lruvec, struct scan_control *sc)
{
	u64 max_seq = lruvec->lrugen.max_seq, total;
	bool success = should_run_aging_6x(lruvec, &total);

	/* whether this lruvec is completely out of cold folios */
	if (lruvec->lrugen.min_seq + MIN_NR_GENS > max_seq)
		total = 0;
	/* try to get away with not aging at the default priority */
	if (!success || sc->priority == DEF_PRIORITY)
		return (long)(total >> sc->priority);
	/* stop scanning this lruvec as it's low on cold folios */
	return try_to_inc_max_seq(lruvec, max_seq, sc->priority, sc->stat) ? -1 : 0;
}

/*
 * should_abort_scan, 6.3+: the reclaimer has what it wanted; 6.7+ kswapd
 * also stops once free memory is MIN_LRU_BATCH above the high watermark.
 */
static bool should_abort_scan(struct scan_control *sc)
{
	if (sc->nr_reclaimed >= sc->nr_to_reclaim)
		return true;
	if (!current_is_kswapd() || !mm_sw.lru_gen_stop_at_high_wmark)
		return false;
	/* kswapd should abort if all eligible zones are safe */
	return free_above(node_data.watermark[WMARK_HIGH] + MIN_LRU_BATCH);
}

/* 6.3 .. 7.1 try_to_shrink_lruvec (S3's v1 and v2 bases) */
static u64 try_to_shrink_lruvec_6_4(struct lruvec *lruvec, struct scan_control *sc)
{
	u64 reclaimed = 0, scanned = 0;

	for (;;) {
		long nr_to_scan = get_nr_to_scan_6_4(lruvec, sc);
		int delta;

		if (nr_to_scan <= 0)
			break;
		reclaimed += evict_batch(lruvec, sc, MAX_LRU_BATCH, &delta);
		if (!delta)
			break;
		scanned += (u64)delta;
		if (scanned >= (u64)nr_to_scan)
			break;
		if (should_abort_scan(sc))
			break;
	}
	return reclaimed;
}

/*
 * 7.2+ should_run_aging: age when eviction is not possible any more or,
 * below DEF_PRIORITY, when MIN_NR_GENS + 1 generations are left.
 */
static bool should_run_aging(const struct lruvec *lruvec, const struct scan_control *sc)
{
	const struct lru_gen_folio *lrugen = &lruvec->lrugen;

	/* have to run aging, since eviction is not possible anymore */
	if (lrugen->min_seq + MIN_NR_GENS > lrugen->max_seq)
		return true;
	/* try to avoid aging, do gentle reclaim at the default priority */
	if (sc->priority == DEF_PRIORITY)
		return false;
	/* better to run aging even though eviction is still possible */
	return lrugen->min_seq + MIN_NR_GENS == lrugen->max_seq;
}

/*
 * 7.2+ try_to_shrink_lruvec: the pass's nr_to_scan is fixed up front and
 * handed out MIN_LRU_BATCH at a time; a pass that aged evicts one batch
 * and stops (root reclaim "needs rotation when low on cold folio").
 */
static u64 try_to_shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	u64 young, old, reclaimed = 0;
	long nr_to_scan = (long)(lru_gen_size(lruvec, &young, &old) >> sc->priority);
	bool should_age = false;

	while (nr_to_scan > 0) {
		int delta;

		if (should_run_aging(lruvec, sc)) {
			try_to_inc_max_seq(lruvec, lruvec->lrugen.max_seq, sc->priority, sc->stat);
			should_age = true;
		}
		reclaimed += evict_batch(lruvec, sc, (int)min(nr_to_scan, (long)MIN_LRU_BATCH),
					 &delta);
		if (!delta)
			break;
		if (should_abort_scan(sc))
			break;
		if (should_age)
			break;
		nr_to_scan -= delta;
	}
	return reclaimed;
}

/* fls_long: the position of the highest bit set, 0 for none */
static int fls_u64(u64 x)
{
	int n = 0;

	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

/*
 * set_initial_priority (6.3+, with lru_gen_shrink_node): start kswapd at
 * the priority whose pass would free nr_to_reclaim if what it looks at is
 * as reclaimable as the LRU's inactive share (MGLRU: all but the two
 * youngest generations). Before 6.7 that share was halved
 * (MEMCG_NR_GENS) and the priority went down to 0; the lab's later
 * variants (6.12+) have 6.11's floor of DEF_PRIORITY / 2.
 */
static void set_initial_priority(struct scan_control *sc)
{
	const struct lru_gen_folio *lrugen = &root_lruvec.lrugen;
	u64 reclaimable = 0;
	int priority;

	if (sc->priority != DEF_PRIORITY || sc->nr_to_reclaim < MIN_LRU_BATCH)
		return;
	for (u64 seq = lrugen->min_seq; seq + 1 < lrugen->max_seq; seq++) {
		long nr = lrugen->nr_pages[lru_gen_from_seq(seq)];

		reclaimable += nr > 0 ? (u64)nr : 0;
	}
	if (!mm_sw.lru_gen_stop_at_high_wmark)
		reclaimable /= 2; /* MEMCG_NR_GENS */
	/* round down reclaimable and round up sc->nr_to_reclaim */
	priority = fls_u64(reclaimable) - 1 - fls_u64(sc->nr_to_reclaim - 1);
	priority = max(priority, mm_sw.lru_gen_stop_at_high_wmark ? DEF_PRIORITY / 2 : 0);
	sc->priority = min(priority, DEF_PRIORITY); /* clamp */
}

/*
 * lru_gen_shrink_node (6.3+): the node's one lruvec (shrink_one), kswapd
 * counting this pass's reclaim only.
 */
u64 lru_gen_shrink_node(struct scan_control *sc)
{
	PERF_FUNC();
	bool per_pass = current_is_kswapd();
	u64 before = sc->nr_reclaimed, r;

	lru_add_drain(); /* this CPU's batches onto the LRU first */
	set_initial_priority(sc);
	if (per_pass)
		sc->nr_reclaimed = 0;
	if (!mm_sw.lru_gen_7_2)
		r = try_to_shrink_lruvec_6_4(&root_lruvec, sc);
	else
		r = try_to_shrink_lruvec(&root_lruvec, sc);
	if (per_pass)
		sc->nr_reclaimed += before;
	return r;
}
