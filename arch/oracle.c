// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "arch/oracle.h"
#include "hw/cpu.h"
#include "hw/invariants.h"
#include "hw/pgtable_mem.h"
#include "hw/ptep_name.h"

static unsigned int cont_n(void)
{
	return hw_machine.fmt->cont_ptes;
}

static bool is_cont(const pte_t *ptep)
{
	return cont_n() && hw_machine.fmt->desc_cont(pte_val(*ptep));
}

void oracle_set(pte_t *ptep, unsigned int nr, bool young, bool dirty)
{
	u8 bits = (young ? SHADOW_YOUNG : 0) | (dirty ? SHADOW_DIRTY : 0);

	if (!bits)
		return;
	for (unsigned int i = 0; i < nr; i++)
		*hw_pt_shadow(&ptep[i].pte) |= bits;
}

void __oracle_check_read(pte_t *ptep, pte_t pte, u8 s, const char *op)
{

	if ((s & SHADOW_YOUNG) && !hw_machine.fmt->desc_af(pte_val(pte)))
		hw_violation(VIOL_LOST_YOUNG, "%s: %s reads old", op, hw_ptep_name(&ptep->pte));
	if ((s & SHADOW_DIRTY) && !hw_machine.fmt->desc_dirty(pte_val(pte)))
		hw_violation(VIOL_LOST_DIRTY, "%s: %s reads clean", op, hw_ptep_name(&ptep->pte));
}

void __oracle_check_phantom(pte_t *ptep, pte_t pte, const char *op)
{
	const struct hw_mmu_fmt *f = hw_machine.fmt;
	struct hw_gather_cache gc = { 0 };

	if (hw_fmt_af(f, pte_val(pte)) && !hw_cont_gathered(&gc, &ptep->pte, false))
		hw_violation(VIOL_POSTCOND, "%s: %s reads young, but no entry %s is", op,
			     hw_ptep_name(&ptep->pte), is_cont(ptep) ? "of its block" : "there");
	else if (hw_fmt_dirty(f, pte_val(pte)) && !hw_cont_gathered(&gc, &ptep->pte, true))
		hw_violation(VIOL_POSTCOND, "%s: %s reads dirty, but no entry %s is", op,
			     hw_ptep_name(&ptep->pte), is_cont(ptep) ? "of its block" : "there");
}

static void widen(pte_t **ptep, unsigned int *nr)
{
	unsigned int n = cont_n();
	pte_t *first = *ptep, *end = *ptep + *nr;

	if (!n)
		return;
	if (is_cont(first))
		first = (pte_t *)ALIGN_DOWN((uintptr_t)first, n * sizeof(pte_t));
	if (is_cont(end - 1))
		end = (pte_t *)ALIGN((uintptr_t)end, n * sizeof(pte_t));
	*ptep = first;
	*nr = (unsigned int)(end - first);
}

void oracle_report(pte_t *ptep, unsigned int nr, bool young, bool dirty,
		   bool check_young, bool check_dirty, bool wide, const char *op)
{
	bool lost_young = false, lost_dirty = false;
	struct hw_gather_cache gc = { 0 }; /* one gather per block, not per entry */

	if (wide)
		widen(&ptep, &nr);
	/*
	 * State still in the table is not lost (the hardware may have set
	 * it again during the operation): only state gone from the entries
	 * must be in the report.
	 */
	/* the range lies in one table (as core-mm asks): its shadow bytes are adjacent */
	u8 *sh = hw_pt_shadow(&ptep->pte);
	bool one_table = ((uintptr_t)ptep & (PAGE_SIZE - 1)) / sizeof(pte_t) + nr <= PTRS_PER_PTE;
	u8 want = (check_young ? SHADOW_YOUNG : 0) | (check_dirty ? SHADOW_DIRTY : 0);

	for (unsigned int i = 0; i < nr; i++) {
		u8 *s = one_table ? &sh[i] : hw_pt_shadow(&ptep[i].pte);
		u64 word;

		/* eight entries with nothing this op must report, at once */
		if (one_table && i + 8 <= nr) {
			memcpy(&word, s, sizeof(word));
			if (!(word & (want * 0x0101010101010101ULL))) {
				i += 7;
				continue;
			}
		}
		if (!(*s & want))
			continue;
		if (check_young && (*s & SHADOW_YOUNG) && !hw_cont_gathered(&gc, &ptep[i].pte, false)) {
			lost_young |= !young;
			*s &= ~SHADOW_YOUNG;
		}
		if (check_dirty && (*s & SHADOW_DIRTY) && !hw_cont_gathered(&gc, &ptep[i].pte, true)) {
			lost_dirty |= !dirty;
			*s &= ~SHADOW_DIRTY;
		}
	}
	if (lost_young)
		hw_violation(VIOL_LOST_YOUNG, "%s: %u entries from %s reported old",
			     op, nr, hw_ptep_name(&ptep->pte));
	if (lost_dirty)
		hw_violation(VIOL_LOST_DIRTY, "%s: %u entries from %s reported clean",
			     op, nr, hw_ptep_name(&ptep->pte));
}

void oracle_discard(pte_t *ptep, unsigned int nr, bool young, bool dirty)
{
	u8 mask = (young ? SHADOW_YOUNG : 0) | (dirty ? SHADOW_DIRTY : 0);

	widen(&ptep, &nr);
	for (unsigned int i = 0; i < nr; i++)
		*hw_pt_shadow(&ptep[i].pte) &= ~mask;
}

static void sweep_table(u64 *table, int level)
{
	const struct hw_mmu_fmt *fmt = hw_machine.fmt;
	struct hw_gather_cache gc = { 0 }; /* one gather per block, not per entry */

	if (level < 3) {
		for (int i = 0; i < PTRS_PER_PTE; i++) {
			u64 d = table[i];

			/* an empty slot is no table: most of them, no indirect call */
			if (d && fmt->desc_table(d, level))
				sweep_table(fmt->table_addr(d), level + 1);
		}
		return;
	}
	const u8 *shadow = hw_pt_meta(table)->shadow;

	for (int i = 0; i < PTRS_PER_PTE; i++) {
		u64 d = table[i];
		u64 eight;

		/* entries owing nothing, eight at a time */
		if (!(i & 7)) {
			memcpy(&eight, &shadow[i], sizeof(eight));
			if (!eight) {
				i += 7;
				continue;
			}
		}
		u8 s = shadow[i];
		if (!s)
			continue;
		if (!fmt->desc_leaf(d, 3)) {
			hw_violation(s & SHADOW_DIRTY ? VIOL_LOST_DIRTY : VIOL_LOST_YOUNG,
				     "%s cleared without reporting its state",
				     hw_ptep_name(&table[i]));
			continue;
		}
		if ((s & SHADOW_YOUNG) && !hw_cont_gathered(&gc, &table[i], false))
			hw_violation(VIOL_LOST_YOUNG, "%s lost its access flag",
				     hw_ptep_name(&table[i]));
		if ((s & SHADOW_DIRTY) && !hw_cont_gathered(&gc, &table[i], true))
			hw_violation(VIOL_LOST_DIRTY, "%s lost its dirty state",
				     hw_ptep_name(&table[i]));
	}
}

void oracle_sweep(u64 *pgd)
{
	if (pgd)
		sweep_table(pgd, 0);
}
