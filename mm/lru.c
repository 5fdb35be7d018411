// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: include/linux/mm_inline.h (lruvec_add_folio, lruvec_del_folio),
 * mm/swap.c (folio_add_lru).
 */
#include "hw/phys.h"
#include "mm/lru.h"
#include "mm/mm.h"
#include "mm/reclaim.h"
#include "include/sched.h"
#include "sim/frames.h"

struct lruvec root_lruvec;

/* Tasks whose batch holds folios (lru_add_drain_all's for_each_online_cpu). */
static struct task_struct *lru_add_pending;

static void lru_lock_bounce(void)
{
	hw_count(EV_lru_lock_bounce, 1);
}

void lruvec_init(struct lruvec *lruvec)
{
	for (int l = 0; l < NR_LRU_LISTS; l++) {
		lruvec->head[l] = lruvec->tail[l] = NULL_PFN;
		lruvec->nr_pages[l] = 0;
	}
	lruvec->add_batch = 0;
	sim_spin_lock_init(&lruvec->lru_lock, "lru_lock");
	/* a new machine: no task has a batch (max-guest-memory's tasks were drained and freed) */
	lru_add_pending = NULL;
	init_task.lru_add_nr = 0;
	lruvec->lru_lock.on_bounce = lru_lock_bounce;
}

/*
 * The acquiring atomic is lock_acquire, charged with any wait to
 * _raw_spin_lock_irq, the frame perf shows. Outside the engine nothing
 * runs at once and the lock is only counted.
 */
void lruvec_lock_irq(struct lruvec *lruvec)
{
	struct sim_spinlock *l = &lruvec->lru_lock;
	int frame = SIM_FRAME("_raw_spin_lock_irq");

	if (!sim_current_agent) {
		hw_count(EV_lock_acquire, 1);
		return;
	}
	if (l->locked && l->owner == sim_current_agent)
		sim_bug("lru_lock taken again by the task holding it");
	sim_frame_enter(frame);
	hw_count(EV_lock_acquire, 1);
	sim_spin_lock(l, 0);
	sim_frame_exit(frame);
}

void lruvec_unlock_irq(struct lruvec *lruvec)
{
	if (sim_current_agent)
		sim_spin_unlock(&lruvec->lru_lock);
}

enum lru_list folio_lru_list(const struct folio *folio)
{
	if (folio_test_unevictable(folio))
		return LRU_UNEVICTABLE;
	return (folio_test_swapbacked(folio) ? LRU_INACTIVE_ANON : LRU_INACTIVE_FILE) +
	       (folio_test_active(folio) ? 1 : 0);
}

static void link(struct lruvec *lruvec, struct folio *folio, bool tail)
{
	enum lru_list lru = folio_lru_list(folio);
	u32 pfn = (u32)folio_pfn(folio);
	struct page *p = &folio->page;

	lru_touch_lines(pfn, tail ? lruvec->tail[lru] : lruvec->head[lru], NULL_PFN);
	if (tail) {
		p->lru_next = NULL_PFN;
		p->lru_prev = lruvec->tail[lru];
		if (lruvec->tail[lru] != NULL_PFN)
			mem_map[lruvec->tail[lru]].lru_next = pfn;
		else
			lruvec->head[lru] = pfn;
		lruvec->tail[lru] = pfn;
	} else {
		p->lru_prev = NULL_PFN;
		p->lru_next = lruvec->head[lru];
		if (lruvec->head[lru] != NULL_PFN)
			mem_map[lruvec->head[lru]].lru_prev = pfn;
		else
			lruvec->tail[lru] = pfn;
		lruvec->head[lru] = pfn;
	}
	lruvec->nr_pages[lru] += folio_nr_pages(folio);
	folio_set_lru(folio);
	hw_count(EV_lru_move, 1);
}

void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio)
{
	link(lruvec, folio, false);
}

void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio)
{
	link(lruvec, folio, true);
}

void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);
	struct page *p = &folio->page;

	lru_touch_lines((u32)folio_pfn(folio), p->lru_prev, p->lru_next);
	if (p->lru_prev != NULL_PFN)
		mem_map[p->lru_prev].lru_next = p->lru_next;
	else
		lruvec->head[lru] = p->lru_next;
	if (p->lru_next != NULL_PFN)
		mem_map[p->lru_next].lru_prev = p->lru_prev;
	else
		lruvec->tail[lru] = p->lru_prev;
	p->lru_next = p->lru_prev = NULL_PFN;
	lruvec->nr_pages[lru] -= folio_nr_pages(folio);
	folio_clear_lru(folio);
	hw_count(EV_lru_move, 1);
}

struct folio *lru_first(struct lruvec *lruvec, enum lru_list lru)
{
	return lruvec->head[lru] == NULL_PFN ? NULL : (struct folio *)&mem_map[lruvec->head[lru]];
}

struct folio *lru_last(struct lruvec *lruvec, enum lru_list lru)
{
	return lruvec->tail[lru] == NULL_PFN ? NULL : (struct folio *)&mem_map[lruvec->tail[lru]];
}

struct folio *lru_prev(struct folio *folio)
{
	u32 prev = folio->page.lru_prev;

	return prev == NULL_PFN ? NULL : (struct folio *)&mem_map[prev];
}

/*
 * folio_batch_move_lru(lru_add): the batch onto the LRU under one
 * acquisition of the lock, then the batch's references dropped.
 */
static void lru_add_move_batch(struct task_struct *tsk)
{
	unsigned int nr = tsk->lru_add_nr;
	struct folio *batch[PAGEVEC_SIZE];

	if (!nr)
		return;
	/* the batch is ours from here: the task may add again while we wait for the lock */
	for (unsigned int i = 0; i < nr; i++)
		batch[i] = (struct folio *)&mem_map[tsk->lru_add[i]];
	tsk->lru_add_nr = 0;
	for (struct task_struct **pp = &lru_add_pending; *pp; pp = &(*pp)->lru_add_next)
		if (*pp == tsk) {
			*pp = tsk->lru_add_next;
			break;
		}
	lruvec_lock_irq(&root_lruvec);
	for (unsigned int i = 0; i < nr; i++)
		folio_add_lru_locked(batch[i]);
	lruvec_unlock_irq(&root_lruvec);
	folios_put(batch, nr);
}

void lru_add_drain(void)
{
	lru_add_move_batch(current);
}

/*
 * lru_add_drain_all: every task's batch, from outside the engine once
 * its agents are done (a task's struct must not go before its batch).
 */
void lru_add_drain_all(void)
{
	while (lru_add_pending)
		lru_add_move_batch(lru_add_pending);
}

/*
 * folio_add_lru: a new folio waits in the CPU's batch, holding a
 * reference, and the batch goes onto the LRU when it is full or the
 * folio is large (folio_batch_add_and_move), or when reclaim drains it.
 * Outside the engine (one task) the lab links at once and counts the
 * lock once per PAGEVEC_SIZE folios, as the batches would.
 */
void folio_add_lru(struct folio *folio)
{
	/* see the comment in lru_gen_folio_seq(): a folio faulted in is hot */
	if (lru_gen_enabled && !folio_test_unevictable(folio) && lru_gen_in_fault() &&
	    !(current->flags & PF_MEMALLOC))
		folio_set_active(folio);
	if (sim_current_agent) {
		struct task_struct *tsk = current;

		folio_get(folio);
		if (!tsk->lru_add_nr) {
			tsk->lru_add_next = lru_add_pending;
			lru_add_pending = tsk;
		}
		tsk->lru_add[tsk->lru_add_nr++] = (u32)folio_pfn(folio);
		if (tsk->lru_add_nr == PAGEVEC_SIZE || folio_test_large(folio))
			lru_add_move_batch(tsk);
		return;
	}
	if (root_lruvec.add_batch++ % PAGEVEC_SIZE == 0)
		hw_count(EV_lock_acquire, 1);
	folio_add_lru_locked(folio);
}

/* A folio faulted into a VM_LOCKED VMA goes straight to unevictable. */
void folio_add_lru_vma(struct folio *folio, struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_LOCKED) {
		folio_set_mlocked(folio);
		folio_set_unevictable(folio);
	}
	folio_add_lru(folio);
}

/* Evictable folios sit on the multi-gen LRU when it is on. */
void lru_del_folio(struct folio *folio)
{
	if (folio->page.gen)
		lru_gen_del_folio(folio_lruvec(folio), folio, false);
	else
		lruvec_del_folio(&root_lruvec, folio);
}

/* Add with the lruvec lock already held by the caller's batch. */
void folio_add_lru_locked(struct folio *folio)
{
	if (lru_gen_enabled && !folio_test_unevictable(folio))
		lru_gen_add_folio(folio_lruvec(folio), folio, false);
	else
		lruvec_add_folio(&root_lruvec, folio);
}

/*
 * folio_mark_lazyfree (mm/swap.c, lru_lazyfree): an anonymous folio on
 * the LRU stops being swap-backed and moves to the inactive file list,
 * where reclaim may discard it; one off the LRU is left as it is. The
 * kernel defers the move to a per-CPU batch; the lab moves it at once.
 * The lab's record of the folio's written frames is cleared either way:
 * from here on, data written before the call may be dropped (the call's
 * contract), data written after it may not (mm/madvise.c lazyfree_settle).
 */
void folio_mark_lazyfree(struct folio *folio)
{
	hw_frame_clean(folio_pfn(folio), (u64)folio_nr_pages(folio));
	if (!folio_test_anon(folio) || !folio_test_swapbacked(folio) ||
	    folio_test_unevictable(folio) || !folio_test_lru(folio))
		return;
	lru_del_folio(folio);
	folio_clear_active(folio);
	folio_clear_referenced(folio);
	folio_clear_swapbacked(folio);
	folio_add_lru_locked(folio);
}

/*
 * folio_deactivate (mm/swap.c, lru_deactivate): off the active list, the
 * referenced hint dropped; under MGLRU back into the generations as a
 * cold folio. The kernel defers the move to a per-CPU batch; the lab
 * moves it at once.
 */
void folio_deactivate(struct folio *folio)
{
	if (!folio_test_lru(folio) || folio_test_unevictable(folio) ||
	    (!folio_test_active(folio) && !lru_gen_enabled))
		return;
	lru_del_folio(folio);
	folio_clear_active(folio);
	folio_clear_referenced(folio);
	folio_add_lru_locked(folio);
}

/*
 * folio_isolate_lru (mm/vmscan.c): off the LRU under the lruvec lock for
 * a caller that reclaims it itself (MADV_PAGEOUT). The kernel takes a
 * reference for the isolation; the lab's reclaim counts none but a
 * lazyfree folio's (mm/vmscan.c reclaim_lazyfree_folio), as its LRU
 * scans do.
 */
bool folio_isolate_lru(struct folio *folio)
{
	if (!folio_test_lru(folio))
		return false;
	lruvec_lock_irq(&root_lruvec);
	lru_del_folio(folio);
	hw_count(EV_lru_isolate, 1);
	lruvec_unlock_irq(&root_lruvec);
	return true;
}
