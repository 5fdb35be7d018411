// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "arch/arch.h"
#include "arch/arm64/pgtable-hwdef.h"
#include "arch/arm64/switches.h"
#include "arch/postcond.h"
#include "hw/cpu.h"
#include "hw/events.h"
#include "hw/interleave.h"
#include "hw/invariants.h"
#include "hw/ptep_name.h"
#include "include/page.h"

#define FMT (hw_machine.fmt)

static u64 raw(const pte_t *ptep)
{
	return __atomic_load_n(&ptep->pte, __ATOMIC_RELAXED);
}

static unsigned int cont_n(void)
{
	return FMT->cont_ptes;
}

static pte_t *block_start(pte_t *ptep)
{
	return (pte_t *)ALIGN_DOWN((uintptr_t)ptep, cont_n() * sizeof(pte_t));
}

void postcond_start(struct postcond *pc, const char *op, struct mm_struct *mm,
		    unsigned long addr, pte_t *ptep, unsigned int nr, bool young_map)
{
	unsigned int n = cont_n();

	/*
	 * A batch never leaves the PTE table its caller mapped and locked:
	 * nr entries from ptep run past the table's last entry only if the
	 * caller's bound was wrong (a batch past a table's end, as 2025's
	 * core-mm batching bugs had).
	 */
	if (nr > 1 && ((uintptr_t)ptep & (PAGE_SIZE - 1)) / sizeof(pte_t) + nr > PTRS_PER_PTE)
		hw_violation(VIOL_POSTCOND, "%s(va %#lx, nr %u) runs past the end of its PTE table "
			     "(entry %lu of %d): a batch must stop at the table's end", op, addr, nr,
			     (unsigned long)(((uintptr_t)ptep & (PAGE_SIZE - 1)) / sizeof(pte_t)),
			     PTRS_PER_PTE);
	if (mm)
		hw_interleave_ctx(mm->pgd, &ptep->pte, addr);
	pc->acted = hw_interleave.acted;
	pc->op = op;
	pc->ptep = ptep;
	pc->addr = addr;
	pc->nr = nr;
	pc->hw_updates = hw_events.v[EV_hw_update];
	pc->full = false;
	pc->takes = 0;
	pc->edge_nr[0] = pc->edge_nr[1] = 0;
	pc->blk[0] = pc->blk[1] = NULL;
	pc->snap_nr = 0;
	if (young_map) {
		struct hw_gather_cache gc = { 0 };

		for (unsigned int w = 0; w < ARRAY_SIZE(pc->young_before); w++)
			pc->young_before[w] = 0;
		for (unsigned int i = 0; i < nr && i < 512; i++)
			if (hw_cont_gathered(&gc, &ptep[i].pte, false))
				pc->young_before[i / 64] |= 1ULL << (i % 64);
	}
	if (!n)
		return;
	/* the entries sharing a block with the range's first and last, outside it */
	pte_t *first = block_start(ptep), *end = ptep + nr;
	pte_t *last_end = block_start(end - 1) + n;

	pc->edge[0] = first;
	pc->edge_nr[0] = (unsigned int)(ptep - first);
	pc->edge[1] = end;
	pc->edge_nr[1] = (unsigned int)(last_end - end);
	for (int e = 0; e < 2; e++)
		memcpy(pc->edge_val[e], pc->edge[e], pc->edge_nr[e] * sizeof(u64));
	pc->blk[0] = first;
	pc->blk[1] = last_end - n != first ? last_end - n : NULL;
	for (int e = 0; e < 2; e++)
		if (pc->blk[e])
			memcpy(pc->blk_val[e], pc->blk[e], n * sizeof(u64));
	if (hw_interleave.on && hw_interleave.reader && mm) {
		hw_interleave.nr_read = 0;
		pc->snap_start = first;
		pc->snap_nr = (unsigned int)min((u64)(last_end - first), (u64)ARRAY_SIZE(pc->snap));
		for (unsigned int i = 0; i < pc->snap_nr; i++)
			pc->snap[i] = raw(&first[i]);
	}
}

#define AD_YOUNG PC_TAKES_YOUNG
#define AD_DIRTY PC_TAKES_DIRTY

/* young/dirty of a raw valid entry, as pte_young()/pte_dirty() read it */
static inline unsigned int ad_of_fmt(const struct hw_mmu_fmt *f, u64 d)
{
	if (!hw_fmt_leaf3(f, d))
		return 0;
	return (hw_fmt_af(f, d) ? AD_YOUNG : 0) | (hw_fmt_dirty(f, d) ? AD_DIRTY : 0);
}

static unsigned int ad_of(u64 d)
{
	return ad_of_fmt(FMT, d);
}

/*
 * What snap[i] read as before the call: its block's young/dirty when the
 * block was whole and consistent (contpte gathers them), else its own.
 */
static unsigned int snap_ad(const struct postcond *pc, unsigned int i)
{
	/* snap_start is block-aligned, and there is a snapshot only when blocks exist */
	unsigned int n = cont_n(), j0 = i & ~(n - 1), ad = 0;

	if (!hw_fmt_cont(FMT, pc->snap[i]) || j0 + n > pc->snap_nr)
		return ad_of(pc->snap[i]);
	for (unsigned int k = 0; k < n; k++) {
		u64 d = pc->snap[j0 + k];

		if (!hw_fmt_leaf3(FMT, d) || !hw_fmt_cont(FMT, d) ||
		    hw_fmt_pfn(FMT, d) != hw_fmt_pfn(FMT, pc->snap[j0]) + k)
			return ad_of(pc->snap[i]);
		ad |= ad_of(d);
	}
	return ad;
}

/* What the op may take from the entry at snap[i]: young, dirty, or all (it replaces it). */
static unsigned int op_clears(const struct postcond *pc, unsigned int i)
{
	pte_t *p = pc->snap_start + i;

	if (pc->full || ((pc->takes & PC_TAKES_RANGE) && p >= pc->ptep && p < pc->ptep + pc->nr))
		return AD_YOUNG | AD_DIRTY;
	return pc->takes & (AD_YOUNG | AD_DIRTY);
}

/*
 * What lockless readers returned while the operation ran. A torn read is
 * one a reader that retries on an inconsistent block never returns: a
 * frame the entry never mapped, or young/dirty missing that its block
 * had all along (the writer holds them mid-update, as contpte_convert
 * does between clearing a block and setting it again).
 */
static void readers_saw(const struct postcond *pc)
{
	struct hw_interleave *il = &hw_interleave;

	if (!pc->snap_nr)
		return;
	for (int r = 0; r < il->nr_read; r++) {
		long i = (pte_t *)il->read_ptep[r] - pc->snap_start;
		u64 v = il->read_val[r], was, now;

		if (i < 0 || i >= (long)pc->snap_nr || !arch->pte_present(__pte(v)))
			continue;
		was = pc->snap[i];
		now = raw((pte_t *)il->read_ptep[r]);
		if (FMT->desc_leaf(was, 3) && FMT->desc_pfn(was) == arch->pte_pfn(__pte(v))) {
			unsigned int lack = snap_ad(pc, (unsigned int)i) & ~op_clears(pc, (unsigned int)i) &
					    ~((arch->pte_young(__pte(v)) ? AD_YOUNG : 0) |
					      (arch->pte_dirty(__pte(v)) ? AD_DIRTY : 0));

			if (!lack)
				continue;
			hw_violation(VIOL_POSTCOND, "ptep_get_lockless racing %s(va %#lx, nr %u) returned "
				     "%s for %s, whose block read %s before, and %s keeps that there",
				     pc->op, pc->addr, pc->nr, lack & AD_YOUNG ? "old" : "clean",
				     hw_ptep_name(il->read_ptep[r]), lack & AD_YOUNG ? "young" : "dirty",
				     pc->op);
			break;
		}
		if (FMT->desc_leaf(now, 3) && FMT->desc_pfn(now) == arch->pte_pfn(__pte(v)))
			continue;
		hw_violation(VIOL_POSTCOND, "ptep_get_lockless racing %s(va %#lx, nr %u) returned pte "
			     "%#llx for %s, which mapped pfn %#llx before and pfn %#llx after",
			     pc->op, pc->addr, pc->nr, (unsigned long long)v,
			     hw_ptep_name(il->read_ptep[r]),
			     (unsigned long long)(FMT->desc_leaf(was, 3) ? FMT->desc_pfn(was) : 0),
			     (unsigned long long)(FMT->desc_leaf(now, 3) ? FMT->desc_pfn(now) : 0));
		break;
	}
	il->nr_read = 0;
}

static bool hw_acted(const struct postcond *pc)
{
	return hw_events.v[EV_hw_update] != pc->hw_updates;
}

static void fail(const struct postcond *pc, const pte_t *ptep, const char *what)
{
	hw_violation(VIOL_POSTCOND, "%s(va %#lx, nr %u): %s %s", pc->op, pc->addr, pc->nr,
		     hw_ptep_name(&ptep->pte), what);
}

static inline bool block_whole(pte_t *b)
{
	const struct hw_mmu_fmt *f = FMT;
	unsigned int n = cont_n();
	bool any = false;

	for (unsigned int i = 0; i < n && !any; i++) {
		u64 d = raw(&b[i]);

		any = hw_fmt_cont(f, d) && hw_fmt_leaf3(f, d);
	}
	return !any || hw_cont_block_consistent(&b->pte);
}

/*
 * A fullmm teardown's ptep_get_and_clear_full(full=1) may leave a block
 * partly cleared and still contiguous: its caller promises to clear the
 * rest before the lazy-MMU section ends and the TLB is flushed (the
 * contract of S2's "simple" and "robust" designs). Such blocks are owed,
 * and checked at arch_leave_lazy_mmu_mode(). One owed at a time: the zap
 * goes up through a block, so a second means the first was left.
 */
static struct {
	pte_t *block;
	const char *op;
	unsigned long addr;
} owed;

static void owed_check(const char *when)
{
	if (owed.block && !block_whole(owed.block))
		hw_violation(VIOL_BAD_CONT_BLOCK, "%s(va %#lx, full) left the block at %s partly "
			     "contiguous, and %s came before it was whole again", owed.op, owed.addr,
			     hw_ptep_name(&owed.block->pte), when);
	owed.block = NULL;
}

/* lab_reset(): a previous run's owed block is not this run's */
void postcond_reset(void)
{
	owed.block = NULL;
}

void postcond_lazy_mmu_leave(void)
{
	owed_check("the end of the lazy-MMU section");
}

/*
 * A contiguous block maps one folio (contpte_try_fold and contpte_set_ptes
 * make one only inside a folio): young and dirty are gathered per block,
 * so a block across folios would age and clean them together, and a zap
 * of one would leave the other's entries contiguous.
 */
static bool one_folio(pte_t *b)
{
	u64 d = raw(b), pfn = hw_fmt_pfn(FMT, d);

	if (!hw_fmt_cont(FMT, d) || !hw_fmt_leaf3(FMT, d) || (d & PTE_SPECIAL) || pfn >= max_pfn)
		return true;
	return folio_nr_pages(pfn_folio(pfn)) >= (long)cont_n();
}

/*
 * Young and dirty come from the hardware or from the caller's pte (adds):
 * an op may spread a block's over its entries (contpte_convert, a fold)
 * but never make them up. Only the range's first and last blocks are
 * converted whole; a block the op did not change is skipped at once.
 */
static void no_phantom(const struct postcond *pc, unsigned int adds)
{
	const struct hw_mmu_fmt *f = FMT;
	unsigned int n = cont_n();

	if (hw_acted(pc))
		return;
	for (int e = 0; e < 2; e++) {
		pte_t *b = pc->blk[e];
		unsigned int had = adds;

		if (!b || !memcmp(pc->blk_val[e], b, n * sizeof(u64)))
			continue;
		/* per-entry checks on hot paths: the format read once (S2's exit clears every block) */
		for (unsigned int j = 0; j < n; j++)
			had |= ad_of_fmt(f, pc->blk_val[e][j]);
		if (had == (AD_YOUNG | AD_DIRTY))
			continue; /* nothing can be made up */
		for (unsigned int j = 0; j < n; j++) {
			unsigned int made = ad_of_fmt(f, raw(&b[j])) & ~had;

			if (!made)
				continue;
			fail(pc, &b[j], made & AD_YOUNG ?
			     "reads young, but no entry of its block was young before the call" :
			     "reads dirty, but no entry of its block was dirty before the call");
			return;
		}
	}
}

/*
 * Whatever an op wrote: the blocks it touched are whole or not contiguous
 * at all and each maps one folio, the entries beside the range still map
 * their frames, and no young or dirty was made up beyond what the
 * caller's pte adds.
 */
static void blocks_whole(const struct postcond *pc, unsigned int adds)
{
	unsigned int n = cont_n();

	readers_saw(pc);
	if (!n)
		return;
	no_phantom(pc, adds);
	for (pte_t *b = block_start(pc->ptep); b < pc->ptep + pc->nr; b += n) {
		if (block_whole(b)) {
			if (b == owed.block)
				owed.block = NULL;
			if (!one_folio(b))
				hw_violation(VIOL_BAD_CONT_BLOCK, "%s(va %#lx, nr %u) left the block at %s "
					     "contiguous across folios", pc->op, pc->addr, pc->nr,
					     hw_ptep_name(&b->pte));
			continue;
		}
		if (pc->full && pc->nr == 1) {
			if (owed.block != b)
				owed_check("a full clear of another block");
			owed.block = b;
			owed.op = pc->op;
			owed.addr = pc->addr;
			continue;
		}
		hw_violation(VIOL_BAD_CONT_BLOCK, "%s(va %#lx, nr %u) left the block at %s "
			     "partly contiguous or inconsistent", pc->op, pc->addr, pc->nr,
			     hw_ptep_name(&b->pte));
	}
	for (int e = 0; e < 2; e++) {
		/* most often untouched (one thread runs the simulation: a plain compare) */
		if (!memcmp(pc->edge_val[e], pc->edge[e], pc->edge_nr[e] * sizeof(u64)))
			continue;
		for (unsigned int i = 0; i < pc->edge_nr[e]; i++) {
			u64 was = pc->edge_val[e][i], now = raw(&pc->edge[e][i]);

			if (now == was)
				continue;
			if (FMT->desc_leaf(was, 3) &&
			    (!FMT->desc_leaf(now, 3) || FMT->desc_pfn(now) != FMT->desc_pfn(was)))
				fail(pc, &pc->edge[e][i], "is outside the range but lost its mapping");
		}
	}
}

/* No agent's TLB holds va (after an op that returned young and flushed). */
static bool not_cached(const struct postcond *pc, struct mm_struct *mm, u64 va,
		       const char *where)
{
	for (int a = 0; a < hw_machine.nr_agents; a++) {
		if (hw_tlb_peek(&hw_machine.cpu[a].tlb, mm->context.asid, va)) {
			hw_violation(VIOL_STALE_TLB, "%s(va %#lx, nr %u) returned young but %s "
				     "still caches va %#llx%s", pc->op, pc->addr, pc->nr,
				     hw_agent_name(&hw_machine.cpu[a]), (unsigned long long)va,
				     where);
			return false;
		}
	}
	return true;
}

void postcond_young_cleared(const struct postcond *pc, struct mm_struct *mm, bool young,
			    bool flushed)
{
	blocks_whole(pc, 0);
	if (!hw_acted(pc)) {
		struct hw_gather_cache gc = { 0 };

		for (unsigned int i = 0; i < pc->nr; i++) {
			if (hw_cont_gathered(&gc, &pc->ptep[i].pte, false)) {
				fail(pc, &pc->ptep[i], "still reads young");
				break;
			}
		}
	}
	/*
	 * arm64 flushes what was young (x86 does not flush for young at
	 * all): the next access must walk and set the flag again.
	 */
	if (!flushed || !young || !cont_n() || !mm || hw_interleave.acted != pc->acted)
		return;
	for (unsigned int i = 0; i < pc->nr && i < 512; i++) {
		if ((pc->young_before[i / 64] & (1ULL << (i % 64))) &&
		    !not_cached(pc, mm, pc->addr + (u64)i * PAGE_SIZE, ""))
			return;
	}
	/*
	 * A contiguous block at an edge was made old as a whole (the folio's
	 * young is one bit): its pages outside the range must go from the
	 * TLBs too, or accesses through them set no flag. Only a TLB that
	 * caches the block's pages apart (+nohint) can still hold them.
	 */
	struct hw_gather_cache gc = { 0 };

	for (int e = 0; e < 2; e++) {
		unsigned int in = e ? pc->nr - 1 : 0;

		if (!pc->edge_nr[e] || in >= 512 || !hw_fmt_cont(FMT, pc->edge_val[e][0]) ||
		    !(pc->young_before[in / 64] & (1ULL << (in % 64))) ||
		    hw_cont_gathered(&gc, &pc->ptep[in].pte, false))
			continue;
		u64 va = e ? pc->addr + (u64)pc->nr * PAGE_SIZE :
			     pc->addr - (u64)pc->edge_nr[0] * PAGE_SIZE;

		for (unsigned int k = 0; k < pc->edge_nr[e]; k++, va += PAGE_SIZE)
			if (!not_cached(pc, mm, va, " (in the block it made old)"))
				return;
	}
}

void postcond_young_dirty_cleared(const struct postcond *pc, cydp_t flags)
{
	struct hw_gather_cache gc = { 0 };

	blocks_whole(pc, 0);
	if (hw_acted(pc))
		return;
	for (unsigned int i = 0; i < pc->nr; i++) {
		const u64 *p = &pc->ptep[i].pte;

		if ((flags & CYDP_CLEAR_YOUNG) && hw_cont_gathered(&gc, p, false)) {
			fail(pc, &pc->ptep[i], "still reads young");
			return;
		}
		if ((flags & CYDP_CLEAR_DIRTY) && hw_cont_gathered(&gc, p, true)) {
			fail(pc, &pc->ptep[i], "still reads dirty");
			return;
		}
	}
}

void postcond_wrprotected(const struct postcond *pc)
{
	blocks_whole(pc, 0);
	for (unsigned int i = 0; i < pc->nr; i++) {
		u64 d = raw(&pc->ptep[i]);

		if (FMT->desc_leaf(d, 3) && arch->pte_write(__pte(d))) {
			fail(pc, &pc->ptep[i], "is still writable");
			return;
		}
	}
}

/* a valid entry, young and dirty aside, as contpte compares them */
static u64 settled(u64 d)
{
	return pte_val(arch->pte_mkold(arch->pte_mkclean(__pte(d))));
}

/*
 * Transparent contpte (arm64, 6.9+): set_ptes() of a range makes every
 * block it covers whole, at an aligned frame, contiguous (contpte_set_ptes);
 * setting a block's last entry folds the block when one folio covers it
 * and its entries map consecutive frames alike (contpte_try_fold). Neither
 * is needed for correctness, so a tree that never folds passes every other
 * check while contpte does nothing: that is what this catches.
 */
static void blocks_contiguous(const struct postcond *pc, pte_t pte)
{
	unsigned int n = cont_n();
	u64 mask = n - 1, pfn = arch->pte_pfn(pte);

	if (!n || !arm64_sw.contpte || !hw_fmt_leaf3(FMT, pte_val(pte)) ||
	    hw_fmt_leaf3(FMT, raw(pc->ptep)) == false)
		return;
	if (pc->nr > 1) {
		for (unsigned int i = 0; i < pc->nr; i++) {
			u64 va = pc->addr + (u64)i * PAGE_SIZE;

			if (((va >> PAGE_SHIFT) & mask) || ((pfn + i) & mask) || i + n > pc->nr)
				continue;
			for (unsigned int j = 0; j < n; j++) {
				if (!hw_fmt_cont(FMT, raw(&pc->ptep[i + j]))) {
					fail(pc, &pc->ptep[i + j], "is not contiguous, though the range "
					     "covers its whole block at an aligned frame");
					return;
				}
			}
		}
		return;
	}
	if (((pc->addr >> PAGE_SHIFT) & mask) != mask || (pfn & mask) != mask ||
	    hw_fmt_cont(FMT, raw(pc->ptep)) || (pte_val(pte) & PTE_SPECIAL))
		return;
	struct folio *folio = pfn_folio(pfn);
	u64 first = pfn - mask, fpfn = folio_pfn(folio);

	if (fpfn > first || fpfn + folio_nr_pages(folio) < first + n)
		return;
	pte_t *b = block_start(pc->ptep);
	u64 want = settled(raw(pc->ptep));

	for (unsigned int j = 0; j < n; j++) {
		u64 d = raw(&b[j]);

		if (!hw_fmt_leaf3(FMT, d) ||
		    settled(d) != pte_val(arch->pfn_pte(first + j, arch->pte_pgprot(__pte(want)))))
			return;
	}
	fail(pc, pc->ptep, "completed a block one folio maps alike, at consecutive frames, "
	     "but the block was not folded");
}

void postcond_set(const struct postcond *pc, pte_t pte)
{
	struct hw_gather_cache gc = { 0 };
	bool young = arch->pte_young(pte), dirty = arch->pte_dirty(pte);
	bool write = arch->pte_write(pte);
	u64 pfn = arch->pte_pfn(pte);

	blocks_whole(pc, arch->pte_present(pte) ? (young ? AD_YOUNG : 0) | (dirty ? AD_DIRTY : 0) : 0);
	if (!arch->pte_present(pte)) {
		if (raw(pc->ptep) != pte_val(pte))
			fail(pc, pc->ptep, "is not the non-present entry asked for");
		return;
	}
	for (unsigned int i = 0; i < pc->nr; i++) {
		const pte_t *p = &pc->ptep[i];
		u64 d = raw(p);

		if (!hw_fmt_leaf3(FMT, d) || hw_fmt_pfn(FMT, d) != pfn + i)
			fail(pc, p, "does not map the frame asked for");
		else if (arch->pte_write(__pte(d)) != write)
			fail(pc, p, write ? "is not writable as asked" :
					    "is writable though not asked");
		else if ((young && !hw_cont_gathered(&gc, &p->pte, false)) ||
			 (dirty && !hw_cont_gathered(&gc, &p->pte, true)))
			fail(pc, p, "does not read young/dirty as asked");
		else
			continue;
		return;
	}
	blocks_contiguous(pc, pte);
}

void postcond_cleared(const struct postcond *pc)
{
	blocks_whole(pc, 0);
	for (unsigned int i = 0; i < pc->nr; i++) {
		if (raw(&pc->ptep[i])) {
			fail(pc, &pc->ptep[i], "was not cleared");
			return;
		}
	}
}

void postcond_access_flags(const struct postcond *pc, pte_t entry, int dirty)
{
	u64 d = raw(pc->ptep);

	blocks_whole(pc, (arch->pte_young(entry) ? AD_YOUNG : 0) |
			 (arch->pte_dirty(entry) ? AD_DIRTY : 0));
	if (!cont_n())
		return;
	/* a walker that reads this descriptor alone must not fault again */
	if (hw_machine.walker_no_ha && arch->pte_young(entry) && !FMT->desc_af(d))
		fail(pc, pc->ptep, "lacks the access flag itself (a walker without HA faults again)");
	else if (hw_machine.walker_no_hd && dirty && arch->pte_write(entry) &&
		 !FMT->desc_writable(d))
		fail(pc, pc->ptep, "is still read-only itself (a walker without HD faults again)");
}
