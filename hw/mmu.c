// SPDX-License-Identifier: GPL-2.0-only
#include <stdatomic.h>

#include "hw/cache.h"
#include "hw/cpu.h"
#include "hw/events.h"
#include "hw/invariants.h"
#include "hw/pgtable_mem.h"
#include "hw/phys.h"

#define FMT (hw_machine.fmt)

static inline unsigned int pt_index(u64 va, int level)
{
	return (va >> (39 - 9 * level)) & (PTRS_PER_PTE - 1);
}

u64 *hw_walk_slot(u64 *pgd, u64 va, int *level)
{
	u64 *table = pgd;

	for (int l = 0; l < 4 && table; l++) {
		u64 *slot = &table[pt_index(va, l)];
		u64 d = __atomic_load_n(slot, __ATOMIC_RELAXED);

		if (l < 3 && FMT->desc_table(d, l)) {
			table = FMT->table_addr(d);
			continue;
		}
		*level = l;
		return slot;
	}
	*level = -1;
	return NULL;
}

static u64 *cont_first(const u64 *ptep)
{
	unsigned int n = FMT->cont_ptes;

	return (u64 *)((uintptr_t)ptep & ~(uintptr_t)(n * sizeof(u64) - 1));
}

bool hw_cont_gather_dirty(const u64 *ptep)
{
	u64 d = __atomic_load_n(ptep, __ATOMIC_RELAXED);

	if (!FMT->cont_ptes || !FMT->desc_cont(d))
		return FMT->desc_dirty(d);
	u64 *p = cont_first(ptep);
	for (unsigned int i = 0; i < FMT->cont_ptes; i++)
		if (FMT->desc_dirty(__atomic_load_n(&p[i], __ATOMIC_RELAXED)))
			return true;
	return false;
}

bool hw_cont_gather_young(const u64 *ptep)
{
	u64 d = __atomic_load_n(ptep, __ATOMIC_RELAXED);

	if (!FMT->cont_ptes || !FMT->desc_cont(d))
		return FMT->desc_af(d);
	u64 *p = cont_first(ptep);
	for (unsigned int i = 0; i < FMT->cont_ptes; i++)
		if (FMT->desc_af(__atomic_load_n(&p[i], __ATOMIC_RELAXED)))
			return true;
	return false;
}

bool hw_cont_gathered(struct hw_gather_cache *c, const u64 *ptep, bool dirty)
{
	u64 d = __atomic_load_n(ptep, __ATOMIC_RELAXED);

	if (!FMT->cont_ptes || !hw_fmt_cont(FMT, d))
		return dirty ? hw_fmt_dirty(FMT, d) : hw_fmt_af(FMT, d);
	u64 *p = cont_first(ptep);
	if (c->blk != p) {
		c->blk = p;
		c->have_young = c->have_dirty = false;
	}
	if (dirty && !c->have_dirty) {
		c->dirty = false;
		for (unsigned int i = 0; i < FMT->cont_ptes && !c->dirty; i++)
			c->dirty = hw_fmt_dirty(FMT, __atomic_load_n(&p[i], __ATOMIC_RELAXED));
		c->have_dirty = true;
	} else if (!dirty && !c->have_young) {
		u64 any = 0; /* the access flag is one bit: OR the entries */

		for (unsigned int i = 0; i < FMT->cont_ptes; i++)
			any |= __atomic_load_n(&p[i], __ATOMIC_RELAXED);
		c->young = hw_fmt_af(FMT, any);
		c->have_young = true;
	}
	return dirty ? c->dirty : c->young;
}

/*
 * The entry of a block that the hardware chooses to update: one it could
 * have taken the translation from, so a valid entry of the same block
 * (inside a kernel operation some may be cleared already).
 */
static u64 *policy_target(u64 *ptep, u64 d)
{
	unsigned int n = FMT->cont_ptes;
	u64 *t;

	if (!n || !FMT->desc_cont(d))
		return ptep;
	u64 *first = cont_first(ptep);
	switch (hw_machine.cfg.policy) {
	case HW_POLICY_FIRST:
		t = first;
		break;
	case HW_POLICY_RANDOM:
		t = first + hw_random() % n;
		break;
	case HW_POLICY_ADVERSARIAL:
		t = ptep == first + n - 1 ? first : first + n - 1;
		break;
	case HW_POLICY_ACCESSED:
	default:
		return ptep;
	}
	d = __atomic_load_n(t, __ATOMIC_RELAXED);
	return FMT->desc_leaf(d, 3) && FMT->desc_cont(d) ? t : ptep;
}

/*
 * An atomic descriptor update, as the hardware does it (never lost). It
 * fails, and the walk starts again, if the descriptor stopped being a
 * valid leaf (or lost DBM, for dirty) since the walker read it.
 */
static bool hw_update(u64 *target, int level, u64 (*mk)(u64), bool need_dbm)
{
	u64 old = __atomic_load_n(target, __ATOMIC_RELAXED);

	do {
		if (!FMT->desc_leaf(old, level) || (need_dbm && !FMT->desc_dbm(old)))
			return false;
	} while (!__atomic_compare_exchange_n(target, &old, mk(old), false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	hw_count(EV_hw_update, 1);
	return true;
}

bool hw_cont_block_consistent(const u64 *ptep)
{
	unsigned int n = FMT->cont_ptes;
	u64 *first = cont_first(ptep);
	u64 d0 = __atomic_load_n(first, __ATOMIC_RELAXED);
	u64 pfn0 = hw_fmt_pfn(FMT, d0);

	if (pfn0 & (n - 1))
		return false;
	/*
	 * Entry i must equal the first with its frame advanced by i, under the
	 * mask of frame and block attributes; when those attributes include
	 * the valid/page and contiguous bits, the first entry having them
	 * says all do. One branch-free pass (the sweeps' and postconditions'
	 * hottest loop); the frame cannot carry out of OA (pfn0 is aligned).
	 */
	u64 m = FMT->oa_mask | FMT->cont_attr_mask;
	if (!((FMT->leaf3_mask | FMT->cont_bit) & ~FMT->cont_attr_mask)) {
		u64 bad = 0;

		if (!hw_fmt_leaf3(FMT, d0) || !hw_fmt_cont(FMT, d0))
			return false;
		for (unsigned int i = 1; i < n; i++)
			bad |= (__atomic_load_n(&first[i], __ATOMIC_RELAXED) ^
				(d0 + ((u64)i << PAGE_SHIFT))) & m;
		return !bad;
	}
	for (unsigned int i = 0; i < n; i++) {
		u64 d = __atomic_load_n(&first[i], __ATOMIC_RELAXED);

		if (!hw_fmt_leaf3(FMT, d) || !hw_fmt_cont(FMT, d) ||
		    hw_fmt_pfn(FMT, d) != pfn0 + i ||
		    (d & FMT->cont_attr_mask) != (d0 & FMT->cont_attr_mask))
			return false;
	}
	return true;
}

/*
 * What a walker may meet inside a kernel operation: the valid entries of
 * the block agree (contiguous bit, frames, attributes), some may still
 * be invalid (set_ptes writes a new block one entry at a time, a zap
 * clears one at a time; until the TLBI, a cached block translation is
 * the one being built or torn down).
 */
static bool cont_block_walkable(const u64 *ptep)
{
	unsigned int n = FMT->cont_ptes;
	const u64 *first = cont_first(ptep);
	u64 d0 = __atomic_load_n(ptep, __ATOMIC_RELAXED);
	u64 pfn0 = hw_fmt_pfn(FMT, d0) - (u64)(ptep - first);

	if (pfn0 & (n - 1))
		return false;
	for (unsigned int i = 0; i < n; i++) {
		u64 d = __atomic_load_n(&first[i], __ATOMIC_RELAXED);

		if (!hw_fmt_leaf3(FMT, d))
			continue;
		if (!hw_fmt_cont(FMT, d) || hw_fmt_pfn(FMT, d) != pfn0 + i ||
		    (d & FMT->cont_walk_mask) != (d0 & FMT->cont_walk_mask))
			return false;
	}
	return true;
}

/* A contiguous block must be programmed consistently, or TLBs misbehave. */
static bool cont_block_ok(u64 *ptep, u64 va)
{
	if (cont_block_walkable(ptep))
		return true;
	hw_violation(VIOL_BAD_CONT_BLOCK, "va %#llx: contiguous block misprogrammed",
		     (unsigned long long)va);
	return false;
}

static u64 tlbe_pfn_at(const struct tlb_entry *e, u64 va)
{
	return e->pfn + ((va - e->va) >> PAGE_SHIFT);
}

/* Entries of other sizes overlapping a new one must translate the same. */
static void check_conflict(struct hw_cpu *cpu, u64 va, u8 shift, u64 pfn)
{
	static const u8 shifts[] = { 12, 16, 21 };
	u64 base = ALIGN_DOWN(va, 1UL << shift);

	for (unsigned int s = 0; s < ARRAY_SIZE(shifts); s++) {
		u8 os = shifts[s];
		u64 step = 1UL << min(os, shift);
		u64 end = base + (1UL << shift);

		/*
		 * No entry of that size: its probes could only find this size's
		 * or a larger one, which the larger size's probe at base finds
		 */
		if (os == shift || !cpu->tlb.nvalid_size[s])
			continue;
		if (os > shift) /* one larger entry would cover the whole range */
			end = base + step;
		for (u64 a = base; a < end; a += step) {
			struct tlb_entry *e = hw_tlb_lookup(&cpu->tlb, cpu->asid, a);

			if (!e || e->shift == shift)
				continue;
			u64 want = pfn + ((a - ALIGN_DOWN(va, 1UL << shift)) >> PAGE_SHIFT);
			if (tlbe_pfn_at(e, a) != want) {
				hw_violation(VIOL_TLB_CONFLICT,
					     "%s va %#llx: %u-bit and %u-bit entries translate differently",
					     hw_agent_name(cpu), (unsigned long long)a, e->shift, shift);
			} else if (!hw_machine.cfg.bbml2 && (e->flags & TLBE_KNOWN_FOLD)) {
				hw_known(KNOWN_MPROTECT_FOLD_NO_BBM,
					 "%s va %#llx: overlapping %u-bit and %u-bit entries without BBML2",
					 hw_agent_name(cpu), (unsigned long long)a, e->shift, shift);
			} else if (!hw_machine.cfg.bbml2) {
				hw_violation(VIOL_TLB_CONFLICT,
					     "%s va %#llx: overlapping %u-bit and %u-bit entries without BBML2 "
					     "(a TLB conflict abort)",
					     hw_agent_name(cpu), (unsigned long long)a, e->shift, shift);
			} else {
				/* BBML2/3: both stay; a lookup uses one, never a merge */
				continue;
			}
			hw_tlb_drop(&cpu->tlb, e);
			break;
		}
	}
}

void hw_mark_known_fold(u16 asid, u64 va, u64 len)
{
	for (int a = 0; a < hw_machine.nr_agents; a++)
		for (u64 p = va; p < va + len; p += PAGE_SIZE) {
			struct tlb_entry *e = hw_tlb_peek(&hw_machine.cpu[a].tlb, asid, p);

			if (e && e->shift == PAGE_SHIFT)
				e->flags |= TLBE_KNOWN_FOLD;
		}
}

/*
 * x86: the walker sets the accessed bit of each paging-structure entry it
 * used (a locked OR, only where it is clear), which is what MGLRU's
 * walk_pmd_range reads as pmd_young() of a table (arch_has_hw_nonleaf_pmd_young).
 */
static void mark_tables_accessed(u64 *pgd, u64 va, int leaf_level)
{
	u64 *table = pgd;

	for (int l = 0; l < leaf_level && table; l++) {
		u64 *slot = &table[pt_index(va, l)];
		u64 d = __atomic_load_n(slot, __ATOMIC_RELAXED);

		if (!FMT->desc_table(d, l))
			return;
		if (!(d & FMT->af_bit))
			__atomic_fetch_or(slot, FMT->af_bit, __ATOMIC_RELAXED);
		table = FMT->table_addr(d);
	}
}

static enum hw_fault walk_and_fill(struct hw_cpu *cpu, u64 va, bool write)
{
	int level;
	u64 *ptep;
	u64 d;

	int walks = 0;

	hw_count(EV_tlb_miss, 1);
again:
	hw_count(EV_ptw, 1);
	ptep = hw_walk_slot(cpu->ttbr, va, &level);
	if (!ptep)
		return HW_FAULT_TRANSLATION;
	/* the walker's load brings the descriptor's line into this CPU's cache */
	hw_cache_walk(cpu->id, ptep);
	d = __atomic_load_n(ptep, __ATOMIC_RELAXED);
	if (!FMT->desc_leaf(d, level))
		return HW_FAULT_TRANSLATION;

	if (!FMT->desc_af(d)) {
		if (!cpu->ha)
			return HW_FAULT_ACCESS;
		if (!hw_update(policy_target(ptep, d), level, FMT->mk_af, false))
			goto changed;
		*hw_pt_shadow(ptep) |= SHADOW_YOUNG;
	}
	bool w = FMT->desc_writable(d);
	bool dbm = FMT->desc_dbm(d) && cpu->hd;
	if (write && !w) {
		if (!dbm)
			return HW_FAULT_PERMISSION;
		if (!hw_update(policy_target(ptep, d), level, FMT->mk_dirty, true))
			goto changed;
		*hw_pt_shadow(ptep) |= SHADOW_DIRTY;
		w = true;
	}

	if (FMT->nonleaf_af)
		mark_tables_accessed(cpu->ttbr, va, level);
	u8 shift = level == 2 ? 21 : 12;
	if (level == 3 && FMT->cont_ptes && FMT->desc_cont(d) && cont_block_ok(ptep, va) &&
	    !cpu->nohint)
		shift = 16;
	u64 pfn = FMT->desc_pfn(d);
	if (level == 3) /* base frame of the (possibly 64 KiB) entry */
		pfn -= (va & ((1UL << shift) - 1)) >> PAGE_SHIFT;
	check_conflict(cpu, va, shift, pfn);
	hw_tlb_fill(&cpu->tlb, cpu->asid, va, shift, pfn,
		    (w ? TLBE_W : 0) | (dbm ? TLBE_DBM : 0), ptep);
	return HW_OK;
changed:
	/* software rewrote the descriptors meanwhile: walk again (or give up and fault) */
	if (++walks < 4)
		goto again;
	return HW_FAULT_TRANSLATION;
}

enum hw_fault hw_access(struct hw_cpu *cpu, u64 va, bool write)
{
	struct tlb_entry *e;
	enum hw_fault f;

	if (hw_machine.asid_retired[cpu->asid])
		hw_violation(VIOL_OTHER, "%s accesses va %#llx with retired asid %u",
			     hw_agent_name(cpu), (unsigned long long)va, cpu->asid);
	hw_count(EV_mem_access, 1);
	e = hw_tlb_lookup(&cpu->tlb, cpu->asid, va);

	if (e && (!write || (e->flags & TLBE_W))) {
		hw_count(EV_tlb_hit, 1);
	} else if (e && hw_machine.cfg.tlb_mode == HW_TLB_STICKY && !(e->flags & TLBE_DBM)) {
		/*
		 * A cached read-only translation may be used until it is
		 * invalidated: the store faults, however writable the
		 * descriptor has become since. (With DBM cached, the walker
		 * updates the descriptor in memory, so that case re-walks.)
		 */
		hw_count(EV_tlb_hit, 1);
		return HW_FAULT_PERMISSION;
	} else {
		/* A store through a clean entry re-walks to update dirty. */
		if (e)
			hw_tlb_drop(&cpu->tlb, e);
		f = walk_and_fill(cpu, va, write);
		if (f != HW_OK)
			return f;
		e = hw_tlb_lookup(&cpu->tlb, cpu->asid, va);
	}
	u64 pfn = tlbe_pfn_at(e, va);
	if (pfn < hw_phys.nr_frames) {
		if (hw_phys.frame[pfn] & FRAME_FREE)
			hw_violation(VIOL_FREED_FRAME, "%s %s va %#llx reaches freed pfn %#llx",
				     hw_agent_name(cpu), write ? "store" : "load",
				     (unsigned long long)va, (unsigned long long)pfn);
		if (write)
			hw_phys.frame[pfn] |= FRAME_WRITTEN;
	}
	return HW_OK;
}

/*
 * A TLB entry may lag behind its descriptor only towards less permission
 * (a cleared access flag is tolerated: Linux does not flush for it). An
 * entry for an unmapped address, another frame, or one that allows stores
 * the descriptor no longer records as dirty is stale.
 */
static void check_entry(struct tlb_entry *e, void *arg)
{
	int cpu = *(int *)arg;
	u64 *root = hw_machine.asid_root[e->asid];
	/* A 2 MiB entry is one PMD descriptor; a 64 KiB one is sixteen PTEs. */
	u64 pages = e->shift == 16 ? 1UL << (16 - PAGE_SHIFT) : 1;

	if (hw_machine.asid_retired[e->asid] ||
	    tlbe_owed_flush(&hw_machine.cpu[cpu].tlb, e, hw_machine.cpu[cpu].asid))
		return;

	for (u64 i = 0; i < pages; i++) {
		u64 va = e->va + i * PAGE_SIZE;
		int level;
		u64 *ptep = root ? hw_walk_slot(root, va, &level) : NULL;
		u64 d = ptep ? __atomic_load_n(ptep, __ATOMIC_RELAXED) : 0;
		const char *why = NULL;

		if (!ptep || !FMT->desc_leaf(d, level))
			why = "maps an unmapped address";
		else if (FMT->desc_pfn(d) != e->pfn + i)
			why = "maps another frame";
		else if ((e->flags & TLBE_W) && !FMT->desc_writable(d) &&
			 !(FMT->desc_dbm(d) && hw_cont_gather_dirty(ptep)))
			why = "allows stores the descriptor does not record as dirty";
		if (why) {
			hw_violation(VIOL_STALE_TLB, "cpu%d asid %u va %#llx %s", cpu,
				     e->asid, (unsigned long long)va, why);
			return;
		}
	}
}

void hw_check_tlbs(void)
{
	for (int c = 0; c < hw_machine.nr_agents; c++)
		hw_tlb_for_each(&hw_machine.cpu[c].tlb, check_entry, &c);
}
