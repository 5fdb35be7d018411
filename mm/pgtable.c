// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/memory.c (__pud_alloc, __pmd_alloc, __pte_alloc, free_pgtables,
 * free_pgd_range and its free_*_range), include/linux/mm.h
 * (pte_offset_map_lock).
 */
/*
 * Page-table pages of an mm: the walk down to the PMD and PTE levels
 * (allocating on the way for faults), the split PTE lock, and freeing
 * the tables of unmapped ranges (free_pgtables).
 */
#include <stddef.h>

#include "hw/pgtable_mem.h"
#include "mm/mm.h"
#include "hw/perf.h"

/*
 * The walk down to a PMD entry (mm/memory.c's __pud_alloc/__pmd_alloc on
 * the way when allocating, as pud_alloc/pmd_alloc do for a fault).
 */
static pmd_t *walk(struct mm_struct *mm, unsigned long addr, bool alloc)
{
	u64 *p4d = p4d_offset(pgd_offset(mm, addr), addr), *pud;

	if (p4d_none(*p4d)) {
		if (!alloc)
			return NULL;
		mm->pgtables_bytes += PAGE_SIZE;
		p4d_populate(mm, p4d, hw_pt_alloc(1));
	}
	if (p4d_bad(*p4d))
		return NULL;
	pud = pud_offset(p4d, addr);
	if (pud_none(*pud)) {
		if (!alloc)
			return NULL;
		mm->pgtables_bytes += PAGE_SIZE;
		pud_populate(mm, pud, (pmd_t *)hw_pt_alloc(2));
	}
	if (pud_bad(*pud))
		return NULL;
	return pmd_offset(pud, addr);
}

pmd_t *pmd_alloc_walk(struct mm_struct *mm, unsigned long addr)
{
	return walk(mm, addr, true);
}

pmd_t *pmd_walk(struct mm_struct *mm, unsigned long addr)
{
	return walk(mm, addr, false);
}

/* __pte_alloc: a PTE table under an empty PMD; NULL under a PMD leaf. */
pte_t *pte_alloc_map(struct mm_struct *mm, pmd_t *pmdp)
{
	if (pmd_none(*pmdp)) {
		mm->pgtables_bytes += PAGE_SIZE;
		pmd_populate(mm, pmdp, (pte_t *)hw_pt_alloc(3));
	}
	if (!pmd_table(*pmdp))
		return NULL; /* a PMD leaf */
	return (pte_t *)pmd_page_vaddr(*pmdp);
}

pte_t *pte_offset_map(pmd_t *pmdp, unsigned long addr)
{
	if (!pmd_table(*pmdp))
		return NULL;
	return pte_offset_kernel(pmdp, addr);
}

pte_t *pte_lookup(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmdp = pmd_walk(mm, addr);

	return pmdp ? pte_offset_map(pmdp, addr) : NULL;
}

static struct pt_meta *ptl_meta(spinlock_t *ptl)
{
	return (struct pt_meta *)((char *)ptl - offsetof(struct pt_meta, ptl_held));
}

/* The table's entry for addr and its lock, not taken (pte_offset_map_rw_nolock). */
pte_t *pte_offset_map_nolock(struct mm_struct *mm, pmd_t *pmdp, unsigned long addr,
			     spinlock_t **ptlp)
{
	pte_t *ptep = pte_offset_map(pmdp, addr);

	(void)mm;
	*ptlp = ptep ? &hw_pt_meta(&ptep->pte)->ptl_held : NULL;
	return ptep;
}

/* spin_lock() of a PTE table's lock: one acquisition, counted. */
void pte_spin_lock(spinlock_t *ptl)
{
	hw_count(EV_lock_acquire, 1);
	ptlock_lock(ptl_meta(ptl)); /* waits only on the engine (mm/ptlock.c) */
	(*ptl)++;
}

/* The split PTE lock: one acquisition per table visit, as in the kernel. */
pte_t *pte_offset_map_lock(struct mm_struct *mm, pmd_t *pmdp, unsigned long addr,
			   spinlock_t **ptlp)
{
	pte_t *ptep = pte_offset_map_nolock(mm, pmdp, addr, ptlp);

	if (ptep)
		pte_spin_lock(*ptlp);
	return ptep;
}

/* spin_trylock() of a PTE table's lock: counted when taken. */
bool pte_spin_trylock(spinlock_t *ptl)
{
	if (!ptlock_trylock(ptl_meta(ptl)))
		return false;
	hw_count(EV_lock_acquire, 1);
	(*ptl)++;
	return true;
}

pte_t *pte_offset_map_trylock(struct mm_struct *mm, pmd_t *pmdp, unsigned long addr,
			      spinlock_t **ptlp)
{
	pte_t *ptep = pte_offset_map_nolock(mm, pmdp, addr, ptlp);

	if (!ptep || !pte_spin_trylock(*ptlp)) {
		*ptlp = NULL;
		return NULL;
	}
	return ptep;
}

void pte_unmap_unlock(pte_t *ptep, spinlock_t *ptl)
{
	(void)ptep;
	(*ptl)--;
	ptlock_unlock(ptl_meta(ptl));
}

bool pte_lock_contended(spinlock_t *ptl)
{
	return ptlock_contended(ptl_meta(ptl));
}

static bool table_empty(const u64 *table)
{
	for (int i = 0; i < PTRS_PER_PTE; i++)
		if (table[i])
			return false;
	return true;
}

/*
 * Free tables left empty under [floor, ceiling) (free_pgd_range and its
 * free_p4d/pud/pmd_range): their entries are cleared now, the pages freed
 * by the gather after the TLB flush, since a walker may still hold them
 * (tlb_remove_table). Only tables wholly inside the range may go.
 */
static bool span_inside(unsigned long start, unsigned long end, unsigned long floor,
			unsigned long ceiling)
{
	return start >= floor && end <= ceiling;
}

static bool span_outside(unsigned long start, unsigned long end, unsigned long floor,
			 unsigned long ceiling)
{
	return end <= floor || start >= ceiling || end < start;
}

/* The slots of a table at base (entries of 1 << shift bytes) that meet [floor, ceiling). */
static int first_slot(unsigned long base, unsigned int shift, unsigned long floor)
{
	return floor <= base ? 0 : (int)min((floor - base) >> shift, (unsigned long)PTRS_PER_PTE);
}

static int last_slot(unsigned long base, unsigned int shift, unsigned long ceiling)
{
	if (!ceiling || ceiling - 1 < base)
		return -1;
	return (int)min((ceiling - 1 - base) >> shift, (unsigned long)PTRS_PER_PTE - 1);
}

static void free_pte_range(struct mmu_gather *tlb, pmd_t *pmd, unsigned long addr)
{
	u64 *table = (u64 *)pmd_page_vaddr(*pmd);

	pmd_clear(pmd);
	tlb->mm->pgtables_bytes -= PAGE_SIZE;
	tlb_remove_table(tlb, table, addr);
}

static bool free_pmd_range(struct mmu_gather *tlb, pmd_t *pmds, unsigned long base,
			   unsigned long floor, unsigned long ceiling)
{
	for (int i = first_slot(base, PMD_SHIFT, floor), e = last_slot(base, PMD_SHIFT, ceiling);
	     i <= e; i++) {
		unsigned long start = base + ((unsigned long)i << PMD_SHIFT), end = start + (1UL << PMD_SHIFT);

		if (span_outside(start, end, floor, ceiling) || !pmd_table(pmds[i]))
			continue;
		if (table_empty((u64 *)pmd_page_vaddr(pmds[i])) && span_inside(start, end, floor, ceiling))
			free_pte_range(tlb, &pmds[i], start);
	}
	return table_empty(&pmds->pmd);
}

static bool free_pud_range(struct mmu_gather *tlb, u64 *puds, unsigned long base,
			   unsigned long floor, unsigned long ceiling)
{
	for (int i = first_slot(base, PUD_SHIFT, floor), e = last_slot(base, PUD_SHIFT, ceiling);
	     i <= e; i++) {
		unsigned long start = base + ((unsigned long)i << PUD_SHIFT), end = start + (1UL << PUD_SHIFT);

		if (span_outside(start, end, floor, ceiling) || pud_none(puds[i]) || pud_bad(puds[i]))
			continue;
		pmd_t *pmds = pud_pgtable(puds[i]);

		if (free_pmd_range(tlb, pmds, start, floor, ceiling) &&
		    span_inside(start, end, floor, ceiling)) {
			puds[i] = 0;
			tlb->mm->pgtables_bytes -= PAGE_SIZE;
			tlb_remove_table(tlb, &pmds->pmd, start);
		}
	}
	return table_empty(puds);
}

static void free_pgd_range(struct mmu_gather *tlb, u64 *pgd, unsigned long floor,
			   unsigned long ceiling)
{
	for (int i = first_slot(0, PGDIR_SHIFT, floor), e = last_slot(0, PGDIR_SHIFT, ceiling);
	     i <= e; i++) {
		unsigned long start = (unsigned long)i << PGDIR_SHIFT, end = start + (1UL << PGDIR_SHIFT);
		u64 *p4d = p4d_offset(&pgd[i], start);

		if (span_outside(start, end, floor, ceiling) || p4d_none(*p4d) || p4d_bad(*p4d))
			continue;
		u64 *puds = p4d_pgtable(*p4d);

		if (free_pud_range(tlb, puds, start, floor, ceiling) &&
		    span_inside(start, end, floor, ceiling)) {
			*p4d = 0;
			tlb->mm->pgtables_bytes -= PAGE_SIZE;
			tlb_remove_table(tlb, puds, start);
		}
	}
}

void free_pgtables(struct mmu_gather *tlb, struct mm_struct *mm,
		   unsigned long floor, unsigned long ceiling)
{
	PERF_FUNC();
	free_pgd_range(tlb, mm->pgd, floor, ceiling);
}
