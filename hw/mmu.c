// SPDX-License-Identifier: GPL-2.0-only
#include <stdatomic.h>

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

/* The entry of a block that the hardware chooses to update. */
static u64 *policy_target(u64 *ptep, u64 d)
{
	unsigned int n = FMT->cont_ptes;

	if (!n || !FMT->desc_cont(d))
		return ptep;
	u64 *first = cont_first(ptep);
	switch (hw_machine.cfg.policy) {
	case HW_POLICY_FIRST:
		return first;
	case HW_POLICY_RANDOM:
		return first + hw_random() % n;
	case HW_POLICY_ADVERSARIAL:
		return ptep == first + n - 1 ? first : first + n - 1;
	case HW_POLICY_ACCESSED:
	default:
		return ptep;
	}
}

/* An atomic descriptor update, as the hardware does it (never lost). */
static void hw_update(u64 *target, u64 (*mk)(u64))
{
	u64 old = __atomic_load_n(target, __ATOMIC_RELAXED);

	while (!__atomic_compare_exchange_n(target, &old, mk(old), false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	hw_count(EV_hw_update, 1);
}

/* A contiguous block must be programmed consistently, or TLBs misbehave. */
static bool cont_block_ok(u64 *ptep, u64 va)
{
	unsigned int n = FMT->cont_ptes;
	u64 *first = cont_first(ptep);
	u64 d0 = __atomic_load_n(first, __ATOMIC_RELAXED);
	u64 pfn0 = FMT->desc_pfn(d0);

	if (pfn0 & (n - 1))
		goto bad;
	for (unsigned int i = 0; i < n; i++) {
		u64 d = __atomic_load_n(&first[i], __ATOMIC_RELAXED);

		if (!FMT->desc_leaf(d, 3) || !FMT->desc_cont(d) ||
		    FMT->desc_pfn(d) != pfn0 + i ||
		    (d & FMT->cont_attr_mask) != (d0 & FMT->cont_attr_mask))
			goto bad;
	}
	return true;
bad:
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

		if (os == shift)
			continue;
		if (os > shift) /* one larger entry would cover the whole range */
			end = base + step;
		for (u64 a = base; a < end; a += step) {
			struct tlb_entry *e = hw_tlb_lookup(&cpu->tlb, cpu->asid, a);

			if (!e || e->shift == shift)
				continue;
			u64 want = pfn + ((a - ALIGN_DOWN(va, 1UL << shift)) >> PAGE_SHIFT);
			if (tlbe_pfn_at(e, a) != want)
				hw_violation(VIOL_TLB_CONFLICT,
					     "cpu%d va %#llx: %u-bit and %u-bit entries translate differently",
					     cpu->id, (unsigned long long)a, e->shift, shift);
			else if (!hw_machine.cfg.bbml2)
				hw_violation(VIOL_TLB_CONFLICT,
					     "cpu%d va %#llx: overlapping %u-bit and %u-bit entries without BBML2",
					     cpu->id, (unsigned long long)a, e->shift, shift);
			hw_tlb_drop(&cpu->tlb, e);
			break;
		}
	}
}

static enum hw_fault walk_and_fill(struct hw_cpu *cpu, u64 va, bool write)
{
	int level;
	u64 *ptep;
	u64 d;

	hw_count(EV_tlb_miss, 1);
	hw_count(EV_ptw, 1);
	ptep = hw_walk_slot(cpu->ttbr, va, &level);
	if (!ptep)
		return HW_FAULT_TRANSLATION;
	d = __atomic_load_n(ptep, __ATOMIC_RELAXED);
	if (!FMT->desc_leaf(d, level))
		return HW_FAULT_TRANSLATION;

	if (!FMT->desc_af(d)) {
		if (!cpu->ha)
			return HW_FAULT_ACCESS;
		hw_update(policy_target(ptep, d), FMT->mk_af);
		*hw_pt_shadow(ptep) |= SHADOW_YOUNG;
	}
	bool w = FMT->desc_writable(d);
	bool dbm = FMT->desc_dbm(d) && cpu->hd;
	if (write && !w) {
		if (!dbm)
			return HW_FAULT_PERMISSION;
		hw_update(policy_target(ptep, d), FMT->mk_dirty);
		*hw_pt_shadow(ptep) |= SHADOW_DIRTY;
		w = true;
	}

	u8 shift = level == 2 ? 21 : 12;
	if (level == 3 && FMT->cont_ptes && FMT->desc_cont(d) && cont_block_ok(ptep, va))
		shift = 16;
	u64 pfn = FMT->desc_pfn(d);
	if (level == 3) /* base frame of the (possibly 64 KiB) entry */
		pfn -= (va & ((1UL << shift) - 1)) >> PAGE_SHIFT;
	check_conflict(cpu, va, shift, pfn);
	hw_tlb_fill(&cpu->tlb, cpu->asid, va, shift, pfn,
		    (w ? TLBE_W : 0) | (dbm ? TLBE_DBM : 0), ptep);
	return HW_OK;
}

enum hw_fault hw_access(struct hw_cpu *cpu, u64 va, bool write)
{
	struct tlb_entry *e;
	enum hw_fault f;

	if (hw_machine.asid_retired[cpu->asid])
		hw_violation(VIOL_OTHER, "cpu%d accesses va %#llx with retired asid %u",
			     cpu->id, (unsigned long long)va, cpu->asid);
	hw_count(EV_mem_access, 1);
	e = hw_tlb_lookup(&cpu->tlb, cpu->asid, va);

	if (e && (!write || (e->flags & TLBE_W))) {
		hw_count(EV_tlb_hit, 1);
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
			hw_violation(VIOL_FREED_FRAME, "cpu%d %s va %#llx reaches freed pfn %#llx",
				     cpu->id, write ? "store" : "load",
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
	for (int c = 0; c < hw_machine.nr_cpus; c++)
		hw_tlb_for_each(&hw_machine.cpu[c].tlb, check_entry, &c);
}
