// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/memory.c (__pte_alloc, free_pgtables), include/linux/mm.h
 * (pte_offset_map_lock).
 */
/*
 * Page-table pages of an mm: the walk down to the PMD and PTE levels
 * (allocating on the way for faults), the split PTE lock, and freeing
 * the tables of unmapped ranges (free_pgtables).
 */
#include "hw/pgtable_mem.h"
#include "mm/mm.h"

static inline unsigned int pt_index(unsigned long va, int level)
{
	return (va >> (39 - 9 * level)) & (PTRS_PER_PTE - 1);
}

static u64 *walk(struct mm_struct *mm, unsigned long addr, bool alloc)
{
	u64 *table = mm->pgd;

	for (int level = 0; level < 2; level++) {
		u64 *slot = &table[pt_index(addr, level)];

		if (!arch->fmt->desc_table(*slot, level)) {
			if (!alloc)
				return NULL;
			u64 *next = hw_pt_alloc(level + 1);

			mm->pgtables_bytes += PAGE_SIZE;
			*slot = arch->mk_table(next);
		}
		table = arch->fmt->table_addr(*slot);
	}
	return &table[pt_index(addr, 2)];
}

u64 *pmd_alloc_walk(struct mm_struct *mm, unsigned long addr)
{
	return walk(mm, addr, true);
}

u64 *pmd_walk(struct mm_struct *mm, unsigned long addr)
{
	return walk(mm, addr, false);
}

pte_t *pte_alloc_map(struct mm_struct *mm, u64 *pmdp)
{
	if (!*pmdp) {
		u64 *pte_table = hw_pt_alloc(3);

		mm->pgtables_bytes += PAGE_SIZE;
		*pmdp = arch->mk_table(pte_table);
	}
	if (!arch->fmt->desc_table(*pmdp, 2))
		return NULL; /* a PMD leaf */
	return (pte_t *)arch->fmt->table_addr(*pmdp);
}

pte_t *pte_offset_map(u64 *pmdp, unsigned long addr)
{
	if (!arch->fmt->desc_table(*pmdp, 2))
		return NULL;
	return (pte_t *)arch->fmt->table_addr(*pmdp) + pt_index(addr, 3);
}

/* The split PTE lock: one acquisition per table visit, as in the kernel. */
pte_t *pte_offset_map_lock(struct mm_struct *mm, u64 *pmdp, unsigned long addr,
			   spinlock_t **ptlp)
{
	pte_t *ptep = pte_offset_map(pmdp, addr);

	(void)mm;
	*ptlp = NULL;
	if (ptep) {
		hw_count(EV_lock_acquire, 1);
		*ptlp = &hw_pt_meta(&ptep->pte)->ptl_held;
		(**ptlp)++;
	}
	return ptep;
}

void pte_unmap_unlock(pte_t *ptep, spinlock_t *ptl)
{
	(void)ptep;
	(*ptl)--;
}

static bool table_empty(const u64 *table)
{
	for (int i = 0; i < PTRS_PER_PTE; i++)
		if (table[i])
			return false;
	return true;
}

/*
 * Free tables left empty under [floor, ceiling): their descriptors are
 * cleared now, the pages freed by the gather after the TLB flush, since a
 * walker may still hold them (tlb_remove_table).
 */
static bool free_level(struct mmu_gather *tlb, u64 *table, int level,
		       unsigned long base, unsigned long floor,
		       unsigned long ceiling)
{
	unsigned long span = 1UL << (39 - 9 * level);

	for (int i = 0; i < PTRS_PER_PTE; i++) {
		unsigned long start = base + i * span, end = start + span;
		u64 d = table[i];

		if (end <= floor || start >= ceiling || end < start)
			continue;
		if (!arch->fmt->desc_table(d, level))
			continue;
		u64 *next = arch->fmt->table_addr(d);
		bool empty = level + 1 == 3 ? table_empty(next)
					    : free_level(tlb, next, level + 1, start, floor, ceiling);
		/* only tables wholly inside the range may go */
		if (empty && start >= floor && end <= ceiling) {
			table[i] = 0;
			tlb->mm->pgtables_bytes -= PAGE_SIZE;
			tlb_remove_table(tlb, next, start);
		}
	}
	return table_empty(table);
}

void free_pgtables(struct mmu_gather *tlb, struct mm_struct *mm,
		   unsigned long floor, unsigned long ceiling)
{
	free_level(tlb, mm->pgd, 0, 0, floor, ceiling);
}
