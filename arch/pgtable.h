/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The page-table API core-mm calls, with the kernel's names. Each call
 * goes to the run's architecture and keeps the oracle (arch/oracle.h)
 * informed of the young/dirty state it reports, sets or discards.
 */
#ifndef PTELAB_ARCH_PGTABLE_H
#define PTELAB_ARCH_PGTABLE_H

#include "arch/arch.h"
#include "arch/oracle.h"
#include "arch/postcond.h"
#include "arch/pte_op_calls.h"
#include "hw/cache.h"
#include "hw/events.h"
#include "hw/perf.h"

static inline bool pte_none(pte_t pte) { return !pte_val(pte); }
static inline bool pte_present(pte_t pte) { return arch->pte_present(pte); }
static inline u64 pte_pfn(pte_t pte) { return arch->pte_pfn(pte); }
static inline bool pte_young(pte_t pte) { return arch->pte_young(pte); }
static inline bool pte_dirty(pte_t pte) { return arch->pte_dirty(pte); }
static inline bool pte_write(pte_t pte) { return arch->pte_write(pte); }
static inline pte_t pte_mkold(pte_t pte) { return arch->pte_mkold(pte); }
static inline pte_t pte_mkyoung(pte_t pte) { return arch->pte_mkyoung(pte); }
static inline pte_t pte_mkclean(pte_t pte) { return arch->pte_mkclean(pte); }
static inline pte_t pte_mkdirty(pte_t pte) { return arch->pte_mkdirty(pte); }
static inline pte_t pte_wrprotect(pte_t pte) { return arch->pte_wrprotect(pte); }
static inline pte_t pte_mkwrite(pte_t pte) { return arch->pte_mkwrite(pte); }
static inline pte_t pfn_pte(u64 pfn, pgprot_t prot) { return arch->pfn_pte(pfn, prot); }
static inline pgprot_t pte_pgprot(pte_t pte) { return arch->pte_pgprot(pte); }
static inline bool pte_same(pte_t a, pte_t b) { return pte_val(a) == pte_val(b); }

/* The new protection, the page, young and dirty kept (mprotect, fork's COW). */
static inline pte_t pte_modify(pte_t pte, pgprot_t prot)
{
	pte_t n = pfn_pte(pte_pfn(pte), prot);

	n = pte_young(pte) ? pte_mkyoung(n) : n;
	return pte_dirty(pte) ? pte_mkdirty(n) : n;
}

static inline pte_t pte_advance_pfn(pte_t pte, unsigned long nr)
{
	return pfn_pte(pte_pfn(pte) + nr, pte_pgprot(pte));
}

/* Count a call of op on ptep (arch/pte_op_calls.h). */
static inline void pte_op_count(enum pte_op op, const pte_t *ptep)
{
	u64 d = __atomic_load_n(&ptep->pte, __ATOMIC_RELAXED);

	pte_op_calls[op][arch->fmt->cont_ptes && hw_fmt_cont(arch->fmt, d)]++;
}

static inline pte_t ptep_get(pte_t *ptep)
{
	PERF_FRAME("ptep_get");
	u8 shadow = oracle_shadow(ptep);
	pte_t pte = arch->pte.ptep_get(ptep);

	pte_op_count(PTE_OP_ptep_get, ptep);
	pte_op_return(PTE_OP_ptep_get, pte_val(pte));
	oracle_check_read(ptep, pte, shadow, "ptep_get");
	oracle_check_phantom(ptep, pte, "ptep_get");
	return pte;
}

static inline pte_t ptep_get_lockless(pte_t *ptep)
{
	PERF_FRAME("ptep_get_lockless");
	u8 shadow = oracle_shadow(ptep);
	pte_t pte = arch->pte.ptep_get_lockless(ptep);

	pte_op_count(PTE_OP_ptep_get_lockless, ptep);
	pte_op_return(PTE_OP_ptep_get_lockless, pte_val(pte));
	oracle_check_read(ptep, pte, shadow, "ptep_get_lockless");
	oracle_check_phantom(ptep, pte, "ptep_get_lockless");
	return pte;
}

/*
 * A lockless reader racing a writer (hw/interleave.h): the writer is
 * mid-update, so the oracle's "nothing lost" does not apply yet; what it
 * returned is checked when the writer's operation ends (arch/postcond.c).
 */
static inline u64 ptep_get_lockless_racing(u64 *ptep)
{
	pte_t pte = arch->pte.ptep_get_lockless((pte_t *)ptep);

	pte_op_count(PTE_OP_ptep_get_lockless, (pte_t *)ptep);
	return pte_val(pte);
}

static inline void set_ptes(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, pte_t pte, unsigned int nr)
{
	PERF_FRAME("set_ptes");
	struct postcond pc;

	pte_op_count(PTE_OP_set_ptes, ptep);
	postcond_start(&pc, "set_ptes", mm, addr, ptep, nr, false);
	pc.takes = PC_TAKES_RANGE;
	arch->pte.set_ptes(mm, addr, ptep, pte, nr);
	oracle_set(ptep, nr, pte_young(pte), pte_dirty(pte));
	postcond_set(&pc, pte);
}

static inline void set_pte_at(struct mm_struct *mm, unsigned long addr,
			      pte_t *ptep, pte_t pte)
{
	set_ptes(mm, addr, ptep, pte, 1);
}

/*
 * The end of a batch of PTE updates under the PTL (zap_pte_range). No arch
 * in the lab defers work to it; the checker settles what a fullmm
 * teardown promised to finish by then (arch/postcond.h).
 */
static inline void arch_enter_lazy_mmu_mode(void)
{
}

static inline void arch_leave_lazy_mmu_mode(void)
{
	postcond_lazy_mmu_leave();
}

/* Clears without reporting: the caller does not need young/dirty. */
static inline void clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				   pte_t *ptep, unsigned int nr, int full)
{
	PERF_FRAME("clear_full_ptes");
	struct postcond pc;

	pte_op_count(PTE_OP_clear_full_ptes, ptep);
	postcond_start(&pc, "clear_full_ptes", mm, addr, ptep, nr, false);
	pc.takes = PC_TAKES_RANGE;
	arch->pte.clear_full_ptes(mm, addr, ptep, nr, full);
	oracle_discard(ptep, nr, true, true);
	postcond_cleared(&pc);
}

static inline pte_t get_and_clear_full_ptes(struct mm_struct *mm,
					    unsigned long addr, pte_t *ptep,
					    unsigned int nr, int full)
{
	PERF_FRAME("get_and_clear_full_ptes");
	struct postcond pc;
	pte_t pte;

	pte_op_count(PTE_OP_get_and_clear_full_ptes, ptep);
	postcond_start(&pc, "get_and_clear_full_ptes", mm, addr, ptep, nr, false);
	pc.takes = PC_TAKES_RANGE;
	pte = arch->pte.get_and_clear_full_ptes(mm, addr, ptep, nr, full);
	pte_op_return(PTE_OP_get_and_clear_full_ptes, pte_val(pte));
	oracle_report(ptep, nr, pte_young(pte), pte_dirty(pte), true, true,
		      false, "get_and_clear_full_ptes");
	postcond_cleared(&pc);
	return pte;
}

/*
 * mprotect's transaction over a run (arch/arm64/mm/mmu.c, on a CPU without
 * erratum 2645198, so no break-before-make): the run cleared, its young
 * and dirty gathered, then set again with the new protection.
 */
static inline pte_t modify_prot_start_ptes(struct vm_area_struct *vma, unsigned long addr,
					   pte_t *ptep, unsigned int nr)
{
	return get_and_clear_full_ptes(vma->vm_mm, addr, ptep, nr, 0);
}

static inline void modify_prot_commit_ptes(struct vm_area_struct *vma, unsigned long addr,
					   pte_t *ptep, pte_t old_pte, pte_t pte, unsigned int nr)
{
	(void)old_pte;
	/*
	 * the run was cleared without invalidation: contpte_set_ptes() folds
	 * its whole aligned blocks with no break-before-make, a known
	 * finding (hw/invariants.c) whose TLB conflicts are told apart
	 */
	if (nr > 1 && arch->fmt->cont_ptes && pte_present(pte))
		arch_mark_fold_without_bbm(vma->vm_mm, addr, pte_pfn(pte), nr);
	set_ptes(vma->vm_mm, addr, ptep, pte, nr);
}

static inline pte_t ptep_get_and_clear_full(struct mm_struct *mm,
					    unsigned long addr, pte_t *ptep,
					    int full)
{
	PERF_FRAME("ptep_get_and_clear_full");
	struct postcond pc;
	pte_t pte;

	pte_op_count(PTE_OP_ptep_get_and_clear_full, ptep);
	postcond_start(&pc, "ptep_get_and_clear_full", mm, addr, ptep, 1, false);
	pc.takes = PC_TAKES_RANGE;
	pc.full = full;
	pte = arch->pte.ptep_get_and_clear_full(mm, addr, ptep, full);
	pte_op_return(PTE_OP_ptep_get_and_clear_full, pte_val(pte));
	oracle_report(ptep, 1, pte_young(pte), pte_dirty(pte), true, true,
		      false, "ptep_get_and_clear_full");
	postcond_cleared(&pc);
	return pte;
}

/* Loads and atomics spent testing young bits (what S1 reduces). */
struct young_cost {
	u64 read, atomic;
};

static inline struct young_cost young_cost_start(void)
{
	return (struct young_cost){ hw_events.v[EV_pte_read], hw_events.v[EV_pte_atomic] };
}

static inline void young_cost_end(struct young_cost c)
{
	hw_count(EV_young_read, hw_events.v[EV_pte_read] - c.read);
	hw_count(EV_young_atomic, hw_events.v[EV_pte_atomic] - c.atomic);
}

static inline int ptep_test_and_clear_young(struct vm_area_struct *vma,
					    unsigned long addr, pte_t *ptep)
{
	PERF_FRAME("ptep_test_and_clear_young");
	struct young_cost c = young_cost_start();
	struct postcond pc;
	int young;

	pte_op_count(PTE_OP_ptep_test_and_clear_young, ptep);
	postcond_start(&pc, "ptep_test_and_clear_young", vma ? vma->vm_mm : NULL, addr, ptep, 1, false);
	pc.takes = PC_TAKES_YOUNG;
	young = arch->pte.ptep_test_and_clear_young(vma, addr, ptep);
	young_cost_end(c);
	pte_op_return(PTE_OP_ptep_test_and_clear_young, (u64)young);
	oracle_report(ptep, 1, young, false, true, false, true,
		      "ptep_test_and_clear_young");
	postcond_young_cleared(&pc, vma ? vma->vm_mm : NULL, young, false);
	return young;
}

static inline int ptep_clear_flush_young(struct vm_area_struct *vma,
					 unsigned long addr, pte_t *ptep)
{
	PERF_FRAME("ptep_clear_flush_young");
	struct young_cost c = young_cost_start();
	struct postcond pc;
	int young;

	pte_op_count(PTE_OP_ptep_clear_flush_young, ptep);
	postcond_start(&pc, "ptep_clear_flush_young", vma ? vma->vm_mm : NULL, addr, ptep, 1, true);
	pc.takes = PC_TAKES_YOUNG;
	young = arch->pte.ptep_clear_flush_young(vma, addr, ptep);
	young_cost_end(c);
	pte_op_return(PTE_OP_ptep_clear_flush_young, (u64)young);
	oracle_report(ptep, 1, young, false, true, false, true,
		      "ptep_clear_flush_young");
	postcond_young_cleared(&pc, vma ? vma->vm_mm : NULL, young, true);
	return young;
}

static inline bool test_and_clear_young_ptes(struct vm_area_struct *vma,
					     unsigned long addr, pte_t *ptep,
					     unsigned int nr)
{
	PERF_FRAME("test_and_clear_young_ptes");
	struct young_cost c = young_cost_start();
	struct postcond pc;
	bool young;

	pte_op_count(PTE_OP_test_and_clear_young_ptes, ptep);
	postcond_start(&pc, "test_and_clear_young_ptes", vma ? vma->vm_mm : NULL, addr, ptep, nr, false);
	pc.takes = PC_TAKES_YOUNG;
	young = arch->pte.test_and_clear_young_ptes(vma, addr, ptep, nr);
	young_cost_end(c);
	pte_op_return(PTE_OP_test_and_clear_young_ptes, (u64)young);
	oracle_report(ptep, nr, young, false, true, false, true,
		      "test_and_clear_young_ptes");
	postcond_young_cleared(&pc, vma ? vma->vm_mm : NULL, young, false);
	return young;
}

static inline bool clear_flush_young_ptes(struct vm_area_struct *vma,
					  unsigned long addr, pte_t *ptep,
					  unsigned int nr)
{
	PERF_FRAME("clear_flush_young_ptes");
	struct young_cost c = young_cost_start();
	struct postcond pc;
	bool young;

	pte_op_count(PTE_OP_clear_flush_young_ptes, ptep);
	postcond_start(&pc, "clear_flush_young_ptes", vma ? vma->vm_mm : NULL, addr, ptep, nr, true);
	pc.takes = PC_TAKES_YOUNG;
	young = arch->pte.clear_flush_young_ptes(vma, addr, ptep, nr);
	young_cost_end(c);
	pte_op_return(PTE_OP_clear_flush_young_ptes, (u64)young);
	oracle_report(ptep, nr, young, false, true, false, true,
		      "clear_flush_young_ptes");
	postcond_young_cleared(&pc, vma ? vma->vm_mm : NULL, young, true);
	return young;
}

static inline void wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
				  pte_t *ptep, unsigned int nr)
{
	PERF_FRAME("wrprotect_ptes");
	struct postcond pc;

	pte_op_count(PTE_OP_wrprotect_ptes, ptep);
	postcond_start(&pc, "wrprotect_ptes", mm, addr, ptep, nr, false);
	arch->pte.wrprotect_ptes(mm, addr, ptep, nr);
	postcond_wrprotected(&pc);
}

static inline void ptep_set_wrprotect(struct mm_struct *mm, unsigned long addr,
				      pte_t *ptep)
{
	wrprotect_ptes(mm, addr, ptep, 1);
}

static inline void clear_young_dirty_ptes(struct vm_area_struct *vma,
					  unsigned long addr, pte_t *ptep,
					  unsigned int nr, cydp_t flags)
{
	PERF_FRAME("clear_young_dirty_ptes");
	struct postcond pc;

	pte_op_count(PTE_OP_clear_young_dirty_ptes, ptep);
	postcond_start(&pc, "clear_young_dirty_ptes", vma ? vma->vm_mm : NULL, addr, ptep, nr, false);
	pc.takes = (flags & CYDP_CLEAR_YOUNG ? PC_TAKES_YOUNG : 0) |
		   (flags & CYDP_CLEAR_DIRTY ? PC_TAKES_DIRTY : 0);
	arch->pte.clear_young_dirty_ptes(vma, addr, ptep, nr, flags);
	oracle_discard(ptep, nr, flags & CYDP_CLEAR_YOUNG, flags & CYDP_CLEAR_DIRTY);
	postcond_young_dirty_cleared(&pc, flags);
}

static inline int ptep_set_access_flags(struct vm_area_struct *vma,
					unsigned long addr, pte_t *ptep,
					pte_t entry, int dirty)
{
	PERF_FRAME("ptep_set_access_flags");
	struct postcond pc;
	int changed;

	pte_op_count(PTE_OP_ptep_set_access_flags, ptep);
	postcond_start(&pc, "ptep_set_access_flags", vma ? vma->vm_mm : NULL, addr, ptep, 1, false);
	changed = arch->pte.ptep_set_access_flags(vma, addr, ptep, entry, dirty);
	pte_op_return(PTE_OP_ptep_set_access_flags, (u64)changed);
	/* x86 leaves young to the hardware: track only what was written */
	oracle_set(ptep, 1, pte_young(entry) && hw_cont_gather_young(&ptep->pte),
		   pte_dirty(entry) && hw_cont_gather_dirty(&ptep->pte));
	postcond_access_flags(&pc, entry, dirty);
	return changed;
}

/* Entries one contiguous-bit block spans (arm64's CONT_PTES); 1 without the bit. */
static inline unsigned int arch_cont_ptes(void)
{
	return arch->fmt->cont_ptes ? arch->fmt->cont_ptes : 1;
}

static inline unsigned int pte_batch_hint(pte_t *ptep, pte_t pte)
{
	PERF_FRAME("pte_batch_hint");
	unsigned int nr = arch->pte.pte_batch_hint(ptep, pte);

	pte_op_count(PTE_OP_pte_batch_hint, ptep);
	pte_op_return(PTE_OP_pte_batch_hint, nr);
	return nr;
}

/*
 * The upper levels with the kernel's helper names (PMD entries are pmd_t;
 * the levels above stay u64), over the arch's own bits, so core-mm never reads the
 * hardware descriptor format. Four levels; the p4d is folded into the
 * pgd (include/asm-generic/pgtable-nop4d.h).
 */
#define PMD_SHIFT 21
#define PUD_SHIFT 30
#define PGDIR_SHIFT 39
#define PTRS_PER_PMD PTRS_PER_PTE
#define PTRS_PER_PUD PTRS_PER_PTE
#define PTRS_PER_PGD PTRS_PER_PTE

static inline unsigned long pte_index(unsigned long addr) { return (addr >> PAGE_SHIFT) & (PTRS_PER_PTE - 1); }
static inline unsigned long pmd_index(unsigned long addr) { return (addr >> PMD_SHIFT) & (PTRS_PER_PMD - 1); }
static inline unsigned long pud_index(unsigned long addr) { return (addr >> PUD_SHIFT) & (PTRS_PER_PUD - 1); }
static inline unsigned long pgd_index(unsigned long addr) { return (addr >> PGDIR_SHIFT) & (PTRS_PER_PGD - 1); }

static inline u64 *pgd_offset(struct mm_struct *mm, unsigned long addr) { return mm->pgd + pgd_index(addr); }
static inline u64 *p4d_offset(u64 *pgd, unsigned long addr) { (void)addr; return pgd; }

static inline bool p4d_none(u64 p4d) { return !p4d; }
static inline bool p4d_bad(u64 p4d) { return arch->p4d_bad(p4d); }
static inline u64 *p4d_pgtable(u64 p4d) { return arch->p4d_pgtable(p4d); }
static inline u64 *pud_offset(u64 *p4d, unsigned long addr) { return p4d_pgtable(*p4d) + pud_index(addr); }

static inline bool pud_none(u64 pud) { return !pud; }
static inline bool pud_bad(u64 pud) { return arch->pud_bad(pud); }
static inline pmd_t *pud_pgtable(u64 pud) { return (pmd_t *)arch->pud_pgtable(pud); }
static inline pmd_t *pmd_offset(u64 *pud, unsigned long addr)
{
	return pud_pgtable(*pud) + pmd_index(addr);
}

static inline bool pmd_none(pmd_t pmd) { return !pmd_val(pmd); }
/* a table of PTEs below (arm64's pmd_table(); generically !pmd_leaf) */
static inline bool pmd_table(pmd_t pmd) { return pmd_val(pmd) && arch->pmd_table(pmd_val(pmd)); }
/* a 2M block mapping a folio */
static inline bool pmd_leaf(pmd_t pmd) { return pmd_val(pmd) && arch->pmd_leaf(pmd_val(pmd)); }
static inline u64 pmd_pfn(pmd_t pmd) { return arch->pmd_pfn(pmd_val(pmd)); }
static inline pmd_t pfn_pmd(u64 pfn, pgprot_t prot) { return __pmd(arch->mk_pmd_leaf(pfn, prot)); }
static inline unsigned long pmd_page_vaddr(pmd_t pmd) { return arch->pmd_page_vaddr(pmd_val(pmd)); }
static inline bool pmd_same(pmd_t a, pmd_t b) { return pmd_val(a) == pmd_val(b); }

/*
 * The accessed bit of a PMD entry; of a table entry only where the
 * walker sets it (x86: arch_has_hw_nonleaf_pmd_young), which MGLRU's
 * aging walk reads to skip tables no CPU went through.
 */
static inline bool arch_has_hw_nonleaf_pmd_young(void) { return arch->fmt->nonleaf_af; }
static inline bool pmd_young(pmd_t pmd) { return pmd_val(pmd) & arch->fmt->af_bit; }
static inline bool pmdp_test_and_clear_young(struct vm_area_struct *vma, unsigned long addr,
					     pmd_t *pmdp)
{
	(void)vma;
	(void)addr;
	hw_count(EV_pte_atomic, 1);
	hw_cache_pte(pmdp);
	return __atomic_fetch_and(&pmdp->pmd, ~arch->fmt->af_bit, __ATOMIC_RELAXED) &
	       arch->fmt->af_bit;
}

/* READ_ONCE of the entry: lockless walkers see one value */
static inline pmd_t pmdp_get_lockless(pmd_t *pmdp)
{
	return __pmd(__atomic_load_n(&pmdp->pmd, __ATOMIC_RELAXED));
}

static inline pte_t *pte_offset_kernel(pmd_t *pmd, unsigned long addr)
{
	return (pte_t *)pmd_page_vaddr(*pmd) + pte_index(addr);
}

/* Install a next-level table (not counted: table setup is no PTE traffic). */
static inline void p4d_populate(struct mm_struct *mm, u64 *p4d, u64 *pud)
{
	(void)mm;
	*p4d = arch->mk_table(pud);
}

static inline void pud_populate(struct mm_struct *mm, u64 *pud, pmd_t *pmd)
{
	(void)mm;
	*pud = arch->mk_table(&pmd->pmd);
}

static inline void pmd_populate(struct mm_struct *mm, pmd_t *pmd, pte_t *pte)
{
	(void)mm;
	pmd->pmd = arch->mk_table(&pte->pte);
}

/* Table teardown (free_pmd_range): not counted, as table setup is not. */
static inline void pmd_clear(pmd_t *pmdp)
{
	pmdp->pmd = 0;
}

static inline void set_pmd_at(struct mm_struct *mm, unsigned long addr, pmd_t *pmdp, pmd_t pmd)
{
	(void)mm;
	(void)addr;
	hw_count(EV_pte_write, 1);
	hw_cache_pte(pmdp);
	__atomic_store_n(&pmdp->pmd, pmd_val(pmd), __ATOMIC_RELAXED);
}

static inline pmd_t pmdp_huge_get_and_clear(struct mm_struct *mm, unsigned long addr, pmd_t *pmdp)
{
	(void)mm;
	(void)addr;
	hw_count(EV_pte_atomic, 1);
	hw_cache_pte(pmdp);
	return __pmd(__atomic_exchange_n(&pmdp->pmd, 0, __ATOMIC_RELAXED));
}

static inline void flush_tlb_range(struct vm_area_struct *vma,
				   unsigned long start, unsigned long end)
{
	arch->flush_tlb_range(vma, start, end);
}

static inline void flush_tlb_mm(struct mm_struct *mm)
{
	arch->flush_tlb_mm(mm);
}

static inline void flush_tlb_page(struct vm_area_struct *vma, unsigned long addr)
{
	arch->flush_tlb_page(vma, addr);
}

#endif
