// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86-64 page-table API: hardware A/D bits, no contiguous hint, so every
 * batched operation is the generic per-PTE loop. TLB maintenance is
 * INVLPG or a full flush on the local CPU and IPIs to the other CPUs that
 * have the mm in their cpumask.
 */
#include "arch/arch.h"
#include "hw/cache.h"
#include "hw/cpu.h"
#include "hw/events.h"
#include "include/mmu_gather_types.h"
#include "hw/perf.h"

#define _PAGE_PRESENT (1ULL << 0)
#define _PAGE_RW (1ULL << 1)
#define _PAGE_USER (1ULL << 2)
#define _PAGE_ACCESSED (1ULL << 5)
#define _PAGE_DIRTY (1ULL << 6)
#define _PAGE_PSE (1ULL << 7)
#define _PAGE_NX (1ULL << 63)
#define PTE_PFN_MASK 0x000ffffffffff000ULL

#define PAGE_SHARED_X86 (_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_ACCESSED | _PAGE_NX)
#define PAGE_COPY_X86 (_PAGE_PRESENT | _PAGE_USER | _PAGE_ACCESSED | _PAGE_NX)
#define PAGE_NONE_X86 (_PAGE_ACCESSED | _PAGE_NX)

/* More pages than this in one flush: flush everything instead. */
static const unsigned long tlb_single_page_flush_ceiling = 33;
#define TLB_FLUSH_ALL (~0UL)

static bool x_present(pte_t p) { return pte_val(p) & _PAGE_PRESENT; }
static u64 x_pfn(pte_t p) { return (pte_val(p) & PTE_PFN_MASK) >> PAGE_SHIFT; }
static bool x_young(pte_t p) { return pte_val(p) & _PAGE_ACCESSED; }
static bool x_dirty(pte_t p) { return pte_val(p) & _PAGE_DIRTY; }
static bool x_write(pte_t p) { return pte_val(p) & _PAGE_RW; }
static pte_t x_mkold(pte_t p) { return __pte(pte_val(p) & ~_PAGE_ACCESSED); }
static pte_t x_mkyoung(pte_t p) { return __pte(pte_val(p) | _PAGE_ACCESSED); }
static pte_t x_mkclean(pte_t p) { return __pte(pte_val(p) & ~_PAGE_DIRTY); }
static pte_t x_mkdirty(pte_t p) { return __pte(pte_val(p) | _PAGE_DIRTY); }
static pte_t x_wrprotect(pte_t p) { return __pte(pte_val(p) & ~_PAGE_RW); }
static pte_t x_mkwrite(pte_t p) { return __pte(pte_val(p) | _PAGE_RW); }
static pte_t x_pfn_pte(u64 pfn, pgprot_t prot) { return __pte((pfn << PAGE_SHIFT) | pgprot_val(prot)); }
static pgprot_t x_pgprot(pte_t p) { return __pgprot(pte_val(p) & ~PTE_PFN_MASK); }

static pgprot_t x_vm_get_page_prot(unsigned long vm_flags)
{
	if (!(vm_flags & (VM_READ | VM_WRITE | VM_EXEC)))
		return __pgprot(PAGE_NONE_X86);
	if ((vm_flags & VM_SHARED) && (vm_flags & VM_WRITE))
		return __pgprot(PAGE_SHARED_X86);
	return __pgprot(PAGE_COPY_X86);
}

static u64 x_mk_table(u64 *table)
{
	return (u64)(uintptr_t)table | _PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_ACCESSED;
}

static u64 x_mk_pmd_leaf(u64 pfn, pgprot_t prot)
{
	return (pfn << PAGE_SHIFT) | pgprot_val(prot) | _PAGE_PSE;
}

/*
 * The upper levels (asm/pgtable.h): a table entry is present without
 * _PAGE_PSE (*_bad tests its flags), a leaf has _PAGE_PSE.
 */
static bool x_table(u64 d) { return (d & _PAGE_PRESENT) && !(d & _PAGE_PSE); }
static bool x_p4d_bad(u64 p4d) { return !x_table(p4d); }
static bool x_pud_bad(u64 pud) { return !x_table(pud); }
static u64 *x_pgtable(u64 d) { return (u64 *)(uintptr_t)(d & PTE_PFN_MASK); }
static bool x_pmd_leaf(u64 pmd) { return pmd & _PAGE_PSE; }
static u64 x_pmd_pfn(u64 pmd) { return (pmd & PTE_PFN_MASK & ~(SZ_2M - 1)) >> PAGE_SHIFT; }
static unsigned long x_pmd_page_vaddr(u64 pmd) { return (unsigned long)(pmd & PTE_PFN_MASK); }

static pte_t x_ptep_get(pte_t *ptep)
{
	hw_count(EV_pte_read, 1);
	hw_cache_pte(ptep);
	return __pte(__atomic_load_n(&ptep->pte, __ATOMIC_RELAXED));
}

static void x_set_pte(pte_t *ptep, pte_t pte)
{
	hw_count(EV_pte_write, 1);
	hw_cache_pte(ptep);
	__atomic_store_n(&ptep->pte, pte_val(pte), __ATOMIC_RELAXED);
}

static void x_set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		       pte_t pte, unsigned int nr)
{
	(void)mm;
	(void)addr;
	for (unsigned int i = 0; i < nr; i++)
		x_set_pte(ptep + i, x_pfn_pte(x_pfn(pte) + i, x_pgprot(pte)));
}

/* fullmm: nobody else uses the mm, a plain read and clear will do. */
static pte_t x_ptep_get_and_clear_full(struct mm_struct *mm, unsigned long addr,
				       pte_t *ptep, int full)
{
	(void)mm;
	(void)addr;
	if (full) {
		pte_t pte = x_ptep_get(ptep);

		x_set_pte(ptep, __pte(0));
		return pte;
	}
	hw_count(EV_pte_atomic, 1);
	hw_cache_pte(ptep);
	return __pte(__atomic_exchange_n(&ptep->pte, 0, __ATOMIC_RELAXED));
}

static pte_t x_get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				       pte_t *ptep, unsigned int nr, int full)
{
	pte_t pte = x_ptep_get_and_clear_full(mm, addr, ptep, full);

	for (unsigned int i = 1; i < nr; i++) {
		pte_t tmp = x_ptep_get_and_clear_full(mm, addr + i * PAGE_SIZE, ptep + i, full);

		if (x_dirty(tmp))
			pte = x_mkdirty(pte);
		if (x_young(tmp))
			pte = x_mkyoung(pte);
	}
	return pte;
}

static void x_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
			      pte_t *ptep, unsigned int nr, int full)
{
	for (unsigned int i = 0; i < nr; i++)
		x_ptep_get_and_clear_full(mm, addr + i * PAGE_SIZE, ptep + i, full);
}

/* Only an entry that is young needs the atomic. */
static int x_ptep_test_and_clear_young(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep)
{
	(void)vma;
	(void)addr;
	if (!x_young(x_ptep_get(ptep)))
		return 0;
	hw_count(EV_pte_atomic, 1);
	hw_cache_pte(ptep);
	return !!(__atomic_fetch_and(&ptep->pte, ~_PAGE_ACCESSED, __ATOMIC_RELAXED) &
		  _PAGE_ACCESSED);
}

static bool x_test_and_clear_young_ptes(struct vm_area_struct *vma,
					unsigned long addr, pte_t *ptep,
					unsigned int nr)
{
	bool young = false;

	for (unsigned int i = 0; i < nr; i++)
		young |= x_ptep_test_and_clear_young(vma, addr + i * PAGE_SIZE, ptep + i);
	return young;
}

static void x_wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
			     pte_t *ptep, unsigned int nr)
{
	(void)mm;
	(void)addr;
	for (unsigned int i = 0; i < nr; i++) {
		hw_count(EV_pte_atomic, 1);
		hw_cache_pte(&ptep[i]);
		__atomic_fetch_and(&ptep[i].pte, ~_PAGE_RW, __ATOMIC_RELAXED);
	}
}

/* The generic loop: clear, adjust, write back. */
static void x_clear_young_dirty_ptes(struct vm_area_struct *vma,
				     unsigned long addr, pte_t *ptep,
				     unsigned int nr, cydp_t flags)
{
	for (unsigned int i = 0; i < nr; i++) {
		pte_t pte = x_ptep_get_and_clear_full(vma->vm_mm, addr, ptep + i, 0);

		if (flags & CYDP_CLEAR_YOUNG)
			pte = x_mkold(pte);
		if (flags & CYDP_CLEAR_DIRTY)
			pte = x_mkclean(pte);
		x_set_pte(ptep + i, pte);
	}
}

/* x86 sets A/D itself; software only writes when making it dirty. */
static int x_ptep_set_access_flags(struct vm_area_struct *vma, unsigned long addr,
				   pte_t *ptep, pte_t entry, int dirty)
{
	int changed = pte_val(x_ptep_get(ptep)) != pte_val(entry);

	(void)vma;
	(void)addr;
	if (changed && dirty)
		x_set_pte(ptep, entry);
	return changed;
}

static unsigned int x_pte_batch_hint(pte_t *ptep, pte_t pte)
{
	(void)ptep;
	(void)pte;
	return 1;
}

static void flush_tlb_func(int cpu, int asid, unsigned long start,
			   unsigned long end, unsigned int stride_shift)
{
	if (end == TLB_FLUSH_ALL) {
		hw_tlbi_asid(asid, false, cpu);
		return;
	}
	for (unsigned long a = start; a < end; a += 1UL << stride_shift)
		hw_tlbi_va(asid, a, false, cpu);
}

static void flush_tlb_mm_range(struct mm_struct *mm, unsigned long start,
			       unsigned long end, unsigned int stride_shift,
			       bool freed_tables)
{
	PERF_FUNC();
	int self = hw_machine.cur_cpu;

	if (end != TLB_FLUSH_ALL &&
	    ((end - start) >> stride_shift) > tlb_single_page_flush_ceiling) {
		start = 0;
		end = TLB_FLUSH_ALL;
	}
	(void)freed_tables;
	for (int c = 0; c < hw_machine.nr_cpus; c++) {
		if (!(mm->cpumask & (1ULL << c)))
			continue;
		if (c != self)
			hw_count(EV_ipi, 1);
		flush_tlb_func(c, mm->context.asid, start, end, stride_shift);
	}
	/* native_flush_tlb_multi: the mm's other running threads, not lazy */
	if (mm->thread_cpus)
		hw_count(EV_ipi, mm->thread_cpus->ipi(mm->thread_cpus));
}

static void x_flush_tlb_range(struct vm_area_struct *vma, unsigned long start,
			      unsigned long end)
{
	flush_tlb_mm_range(vma->vm_mm, start, end, PAGE_SHIFT, false);
}

static void x_flush_tlb_mm(struct mm_struct *mm)
{
	flush_tlb_mm_range(mm, 0, TLB_FLUSH_ALL, 0, false);
}

static void x_flush_tlb_page(struct vm_area_struct *vma, unsigned long addr)
{
	flush_tlb_mm_range(vma->vm_mm, addr, addr + PAGE_SIZE, PAGE_SHIFT, false);
}

static void x_tlb_flush(struct mmu_gather *tlb)
{
	if (tlb->fullmm || tlb->end == ~0UL) {
		flush_tlb_mm_range(tlb->mm, 0, TLB_FLUSH_ALL, 0, tlb->freed_tables);
		return;
	}
	flush_tlb_mm_range(tlb->mm, tlb->start, tlb->end,
			   tlb->cleared_ptes ? PAGE_SHIFT : 21, tlb->freed_tables);
}

const struct arch_ops arch_x86_ops = {
	.name = "x86",
	.fmt = &hw_fmt_x86,
	.pte_present = x_present,
	.pte_pfn = x_pfn,
	.pte_young = x_young,
	.pte_dirty = x_dirty,
	.pte_write = x_write,
	.pte_mkold = x_mkold,
	.pte_mkyoung = x_mkyoung,
	.pte_mkclean = x_mkclean,
	.pte_mkdirty = x_mkdirty,
	.pte_wrprotect = x_wrprotect,
	.pte_mkwrite = x_mkwrite,
	.pfn_pte = x_pfn_pte,
	.pte_pgprot = x_pgprot,
	.vm_get_page_prot = x_vm_get_page_prot,
	.mk_table = x_mk_table,
	.mk_pmd_leaf = x_mk_pmd_leaf,
	.p4d_bad = x_p4d_bad,
	.p4d_pgtable = x_pgtable,
	.pud_bad = x_pud_bad,
	.pud_pgtable = x_pgtable,
	.pmd_table = x_table,
	.pmd_leaf = x_pmd_leaf,
	.pmd_pfn = x_pmd_pfn,
	.pmd_page_vaddr = x_pmd_page_vaddr,
	.pte = {
		.ptep_get = x_ptep_get,
		.ptep_get_lockless = x_ptep_get,
		.set_ptes = x_set_ptes,
		.clear_full_ptes = x_clear_full_ptes,
		.get_and_clear_full_ptes = x_get_and_clear_full_ptes,
		.ptep_get_and_clear_full = x_ptep_get_and_clear_full,
		.ptep_test_and_clear_young = x_ptep_test_and_clear_young,
		.ptep_clear_flush_young = x_ptep_test_and_clear_young,
		.test_and_clear_young_ptes = x_test_and_clear_young_ptes,
		.clear_flush_young_ptes = x_test_and_clear_young_ptes,
		.wrprotect_ptes = x_wrprotect_ptes,
		.clear_young_dirty_ptes = x_clear_young_dirty_ptes,
		.ptep_set_access_flags = x_ptep_set_access_flags,
		.pte_batch_hint = x_pte_batch_hint,
	},
	.flush_tlb_range = x_flush_tlb_range,
	.flush_tlb_mm = x_flush_tlb_mm,
	.flush_tlb_page = x_flush_tlb_page,
	.tlb_flush = x_tlb_flush,
};
