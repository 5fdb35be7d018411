// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/memory.c (handle_mm_fault, do_anonymous_page, do_wp_page,
 * zap_pte_range, zap_present_ptes, unmap_vmas), mm/huge_memory.c
 * (do_huge_pmd_anonymous_page, zap_huge_pmd), mm/internal.h
 * (folio_pte_batch_flags), mm/util.c (folio_pte_batch).
 */
/*
 * Faults and zapping (mm/memory.c): anonymous faults mapping whole mTHP
 * folios with set_ptes(), folio_pte_batch(), and zap_pte_range() either
 * batched per folio (S5) or one PTE at a time (--without zap-batch).
 */
#include "hw/invariants.h"
#include "hw/phys.h"
#include "mm/switches.h"
#include "hw/cpu.h"
#include "mm/core.h"
#include "mm/filemap.h"
#include "mm/mm.h"
#include "mm/mmu_notifier.h"
#include "include/sched.h"
#include "mm/rmap.h"
#include "hw/perf.h"


static bool pte_range_none(pte_t *ptep, int nr)
{
	for (int i = 0; i < nr; i++)
		if (!pte_none(ptep_get(ptep + i)))
			return false;
	return true;
}

/* The largest enabled folio order that fits here: mTHP size or order 0. */
static int anon_fault_order(struct vm_area_struct *vma, unsigned long addr,
			    pte_t *ptep)
{
	int order = vma->folio_order;

	if (order > 0 && order < PMD_ORDER + 1) {
		unsigned long size = PAGE_SIZE << order;
		unsigned long start = ALIGN_DOWN(addr, size);
		pte_t *first = ptep - ((addr - start) >> PAGE_SHIFT);

		if (start >= vma->vm_start && start + size <= vma->vm_end &&
		    pte_range_none(first, 1 << order))
			return order;
	}
	return 0;
}

static vm_fault_t do_anonymous_page(struct vm_fault *vmf)
{
	PERF_FUNC();
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	unsigned long addr = vmf->address;
	spinlock_t *ptl;
	pte_t *ptep = pte_offset_map_lock(mm, vmf->pmd, addr, &ptl);
	int order = anon_fault_order(vma, addr, ptep);
	int nr = 1 << order;
	struct folio *folio;
	pte_t entry;

	ptep -= (addr - ALIGN_DOWN(addr, PAGE_SIZE << order)) >> PAGE_SHIFT;
	addr = ALIGN_DOWN(addr, PAGE_SIZE << order);
	folio = folio_alloc(order);
	if (!folio) {
		pte_unmap_unlock(ptep, ptl);
		return VM_FAULT_OOM;
	}
	/* one reference per mapping PTE */
	if (nr > 1)
		folio_ref_add(folio, nr - 1);
	mm->rss += nr;
	anon_vma_prepare(vma); /* vmf_anon_prepare() */
	folio_add_new_anon_rmap(folio, vma, addr);
	folio_add_lru_vma(folio, vma);
	entry = pte_mkyoung(pfn_pte(folio_pfn(folio), vma->vm_page_prot));
	if (vma->vm_flags & VM_WRITE)
		entry = pte_mkwrite(pte_mkdirty(entry));
	set_ptes(mm, addr, ptep, entry, nr);
	pte_unmap_unlock(ptep, ptl);
	return 0;
}

/* A 2 MiB folio mapped by one PMD entry. */
static vm_fault_t do_huge_pmd_anonymous_page(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long addr = vmf->address;
	struct folio *folio = folio_alloc(PMD_ORDER);
	pte_t entry;

	if (!folio)
		return VM_FAULT_OOM;
	hw_count(EV_lock_acquire, 1);
	anon_vma_prepare(vma); /* vmf_anon_prepare() */
	folio_add_new_anon_rmap(folio, vma, ALIGN_DOWN(addr, SZ_2M));
	if (vma->vm_flags & VM_LOCKED) {
		folio_set_mlocked(folio);
		folio_set_unevictable(folio);
	}
	/* PMD-mapped: the folio is mapped once as a whole, by one reference */
	for (int i = 0; i < (1 << PMD_ORDER); i++)
		folio_page(folio, i)->_mapcount = -1;
	folio_tail1(folio)->_nr_pages_mapped = 0;
	folio_set_large_mapcount(folio, 1, vma);
	folio_add_lru(folio);
	vma->vm_mm->rss += 1 << PMD_ORDER;
	entry = pte_mkyoung(pfn_pte(folio_pfn(folio), vma->vm_page_prot));
	if (vma->vm_flags & VM_WRITE)
		entry = pte_mkwrite(pte_mkdirty(entry));
	set_pmd_at(vma->vm_mm, addr, vmf->pmd, pfn_pmd(folio_pfn(folio), pte_pgprot(entry)));
	return 0;
}

/*
 * __wp_can_reuse_large_anon_folio (7.3): a large anonymous folio is
 * reused in place when every reference to it is a mapping and every
 * mapping is in this mm (its mm ids say exclusive). Only the faulting
 * page becomes exclusive and writable; the folio's other pages stay as
 * they are, so one folio can hold exclusive and shared pages, writable
 * and read-only entries side by side. The kernel rechecks under the
 * folio's mapcount bit spinlock: one lock acquisition.
 */
static bool wp_can_reuse_large_anon_folio(struct folio *folio, struct vm_area_struct *vma)
{
	/* let's just free up a large folio if only a single page is mapped */
	if (folio_mapcount(folio) <= 1)
		return false;
	if (folio_maybe_mapped_shared(folio))
		return false;
	if (folio_mapcount(folio) != folio_ref_count(folio))
		return false;
	hw_count(EV_lock_acquire, 1); /* folio_lock_large_mapcount */
	return folio_mm_id(folio, 0) == vma->vm_mm->mm_id || folio_mm_id(folio, 1) == vma->vm_mm->mm_id;
}

/*
 * A write to a read-only private page (copy on write). A page only this
 * mapping can reach is made writable where it is; otherwise a new
 * order-0 folio gets a copy and replaces the entry (clear + flush first:
 * on a contiguous block that unfolds it), and the old page loses a
 * mapping and a reference. Called with the PTL held (vmf->ptl); drops it.
 */
static vm_fault_t do_wp_page(struct vm_fault *vmf)
{
	PERF_FUNC();
	struct vm_area_struct *vma = vmf->vma;
	unsigned long addr = vmf->address;
	pte_t *ptep = vmf->pte, orig = vmf->orig_pte;
	spinlock_t *ptl = vmf->ptl;
	struct mm_struct *mm = vma->vm_mm;
	struct page *page = pfn_to_page(pte_pfn(orig));
	struct folio *folio = page_folio(page), *new;
	pte_t entry;

	if (!PageAnonExclusive(page) && !folio_test_large(folio) &&
	    folio_ref_count(folio) == 1 && folio_mapcount(folio) == 1)
		SetPageAnonExclusive(page); /* the other side went away */
	/* 6.15 (MM ids) reuses large folios; a tree's older core-mm never sees one reused */
	if (mm_sw.wp_reuse_large && !PageAnonExclusive(page) && folio_test_anon(folio) &&
	    folio_test_large(folio) && (!mm_core || mm_core->kver >= (6 << 16) + (15 << 8)) &&
	    wp_can_reuse_large_anon_folio(folio, vma))
		SetPageAnonExclusive(page);
	if (PageAnonExclusive(page)) {
		/* wp_page_reuse */
		entry = pte_mkyoung(pte_mkdirty(pte_mkwrite(orig)));
		ptep_set_access_flags(vma, addr, ptep, entry, 1);
		pte_unmap_unlock(ptep, ptl);
		return 0;
	}
	new = folio_alloc(0);
	if (!new) {
		pte_unmap_unlock(ptep, ptl);
		return VM_FAULT_OOM;
	}
	anon_vma_prepare(vma); /* vmf_anon_prepare() */
	folio_add_new_anon_rmap(new, vma, addr);
	folio_add_lru_vma(new, vma);
	entry = pte_mkyoung(pte_mkdirty(pte_mkwrite(pfn_pte(folio_pfn(new), vma->vm_page_prot))));
	/*
	 * wp_page_copy (7.3): secondary MMUs drop the old page first. The
	 * kernel drops the PTL, allocates, starts the invalidation and only
	 * then retakes it; the lab keeps the PTL it was given. That is the
	 * same outside the discrete-event engine (the PTL is only counted
	 * there); on it (mm/ptlock.c) no workload copies on write.
	 */
	struct mmu_notifier_range range;

	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, mm, addr & PAGE_MASK,
				(addr & PAGE_MASK) + PAGE_SIZE);
	mmu_notifier_invalidate_range_start(&range);
	/* ptep_clear_flush: the old translation goes before the new one comes */
	ptep_get_and_clear_full(mm, addr, ptep, 0);
	flush_tlb_page(vma, addr);
	set_pte_at(mm, addr, ptep, entry);
	folio_remove_rmap_pte(folio, page, vma);
	/* lab bookkeeping: the data lives on in the copy; an unmapped original may be discarded */
	if (page->_mapcount < 0)
		hw_frame_clean(page_to_pfn(page), 1);
	pte_unmap_unlock(ptep, ptl);
	mmu_notifier_invalidate_range_end(&range);
	folios_put_refs_one(folio, 1);
	return 0;
}

/*
 * handle_pte_fault (7.3): a none entry is a missing page (anonymous or
 * file), a write to a read-only one is copy on write, and anything else
 * only needs its access flag or dirty state set in software.
 */
static vm_fault_t handle_pte_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	pte_t entry;

	vmf->pte = pte_offset_map_lock(mm, vmf->pmd, vmf->address, &vmf->ptl);
	vmf->orig_pte = ptep_get(vmf->pte);
	if (pte_none(vmf->orig_pte)) {
		/* do_pte_missing */
		pte_unmap_unlock(vmf->pte, vmf->ptl);
		vmf->pte = NULL;
		if (vma->vm_file_mapping)
			return filemap_fault(vmf);
		return do_anonymous_page(vmf);
	}
	if (write && !pte_write(vmf->orig_pte)) {
		if (!(vma->vm_flags & VM_WRITE)) {
			pte_unmap_unlock(vmf->pte, vmf->ptl);
			return VM_FAULT_SIGSEGV;
		}
		return do_wp_page(vmf);
	}
	/* Present: the access flag or dirty state needs setting in software. */
	entry = pte_mkyoung(vmf->orig_pte);
	if (write)
		entry = pte_mkdirty(entry);
	ptep_set_access_flags(vma, vmf->address, vmf->pte, entry, write);
	pte_unmap_unlock(vmf->pte, vmf->ptl);
	return 0;
}

static vm_fault_t __handle_mm_fault(struct vm_area_struct *vma, unsigned long address,
			   unsigned int flags)
{
	struct vm_fault vmf = {
		.vma = vma,
		.address = address & PAGE_MASK,
		.real_address = address,
		.flags = flags,
		.pgoff = vma->vm_pgoff + ((address - vma->vm_start) >> PAGE_SHIFT),
	};
	struct mm_struct *mm = vma->vm_mm;

	hw_count(EV_fault, 1);
	vmf.pmd = pmd_alloc_walk(mm, address);
	if (!vmf.pmd)
		return VM_FAULT_OOM;
	/* create_huge_pmd */
	if (pmd_none(*vmf.pmd) && vma->pmd_mappable && vma->folio_order == PMD_ORDER &&
	    ALIGN_DOWN(address, SZ_2M) >= vma->vm_start &&
	    ALIGN_DOWN(address, SZ_2M) + SZ_2M <= vma->vm_end)
		return do_huge_pmd_anonymous_page(&vmf);
	if (!pmd_none(*vmf.pmd) && !pmd_table(*vmf.pmd))
		return 0; /* PMD leaf: hardware manages its A/D bits here */
	if (!pte_alloc_map(mm, vmf.pmd))
		return VM_FAULT_OOM;
	return handle_pte_fault(&vmf);
}

/*
 * The MGLRU fault window: folios added to the LRU while it is open join
 * a young generation (every lab VMA has recency: no VM_SEQ_READ,
 * VM_RAND_READ or FMODE_NOREUSE).
 */
static void lru_gen_enter_fault(struct vm_area_struct *vma)
{
	(void)vma;
	current->in_lru_fault = true;
}

static void lru_gen_exit_fault(void)
{
	current->in_lru_fault = false;
}

vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long address,
			   unsigned int flags)
{
	PERF_FUNC();
	vm_fault_t ret;

	lru_gen_enter_fault(vma);
	ret = __handle_mm_fault(vma, address, flags);
	lru_gen_exit_fault();
	return ret;
}

/*
 * A load or store by a user thread: the hardware access, and on a fault
 * the kernel's handler, then the access again, as the CPU retries the
 * instruction. A handler that returns success while the access keeps
 * faulting would hang the thread forever: after ACCESS_MAX_FAULTS that is
 * reported as a violation (no forward progress), never dropped silently.
 */
#define ACCESS_MAX_FAULTS 8

int access_user(struct hw_cpu *cpu, struct mm_struct *mm, unsigned long addr,
		bool write)
{
	for (int tries = 0; tries < ACCESS_MAX_FAULTS; tries++) {
		struct vm_area_struct *vma;

		if (hw_access(cpu, addr, write) == HW_OK)
			return 0;
		vma = find_vma(mm, addr);
		if (!vma || (write && !(vma->vm_flags & VM_WRITE)))
			return -1; /* SIGSEGV */
		if (handle_mm_fault(vma, addr, write ? FAULT_FLAG_WRITE : 0) & VM_FAULT_ERROR)
			return -1;
	}
	hw_violation(VIOL_NO_PROGRESS, "%s of %#lx faulted %d times in a row, each fault handled "
		     "without error: the thread would retry forever",
		     write ? "store" : "load", addr, ACCESS_MAX_FAULTS);
	return -1;
}

const struct mm_core_ops *mm_core;
bool mm_debug_vm;

/* mm/internal.h (7.3): the bits a batch ignores under these flags */
static pte_t pte_batch_clear_ignored(pte_t pte, fpb_t flags)
{
	if (!(flags & FPB_RESPECT_DIRTY))
		pte = pte_mkclean(pte);
	if (!(flags & FPB_RESPECT_WRITE))
		pte = pte_wrprotect(pte);
	return pte_mkold(pte);
}

/*
 * mm/internal.h (7.3) folio_pte_batch_flags(): how many PTEs from ptep map
 * consecutive pages of folio with the same bits but those flags ignore,
 * never past the folio's last page. pte_batch_hint() lets a contiguous
 * block be judged by one read. Young, dirty and write of the entries in
 * the batch (only those) merge into *ptentp as flags ask.
 */
unsigned int folio_pte_batch_flags(struct folio *folio, struct vm_area_struct *vma,
				   pte_t *ptep, pte_t *ptentp, unsigned int max_nr, fpb_t flags)
{
	PERF_FUNC();
	bool any_writable = false, any_young = false, any_dirty = false;
	pte_t expected, pte = *ptentp;
	unsigned int nr, cur;

	(void)vma;
	/* VM_WARN_ON_FOLIO(page_folio(pfn_to_page(pte_pfn(pte))) != folio) */
	if (!pte_present(pte) || pte_pfn(pte) < folio_pfn(folio) ||
	    pte_pfn(pte) >= folio_pfn(folio) + folio_nr_pages(folio) || max_nr < 1) {
		hw_violation(VIOL_OTHER, "folio_pte_batch: pfn %#llx is not in the folio at %#llx",
			     (unsigned long long)pte_pfn(pte), (unsigned long long)folio_pfn(folio));
		return 1;
	}
	max_nr = (unsigned int)min((u64)max_nr,
				   folio_pfn(folio) + folio_nr_pages(folio) - pte_pfn(pte));
	nr = pte_batch_hint(ptep, pte);
	expected = pte_batch_clear_ignored(pte_advance_pfn(pte, nr), flags);
	ptep += nr;
	while (nr < max_nr) {
		pte = ptep_get(ptep);
		if (!pte_same(pte_batch_clear_ignored(pte, flags), expected))
			break;
		if (flags & FPB_MERGE_WRITE)
			any_writable |= pte_write(pte);
		if (flags & FPB_MERGE_YOUNG_DIRTY) {
			any_young |= pte_young(pte);
			any_dirty |= pte_dirty(pte);
		}
		cur = pte_batch_hint(ptep, pte);
		expected = pte_advance_pfn(expected, cur);
		ptep += cur;
		nr += cur;
	}
	if (any_writable)
		*ptentp = pte_mkwrite(*ptentp);
	if (any_young)
		*ptentp = pte_mkyoung(*ptentp);
	if (any_dirty)
		*ptentp = pte_mkdirty(*ptentp);
	return min(nr, max_nr);
}

unsigned int folio_pte_batch(struct folio *folio, pte_t *ptep, pte_t pte, unsigned int max_nr)
{
	return folio_pte_batch_flags(folio, NULL, ptep, &pte, max_nr, 0);
}

static void zap_present_folio_ptes(struct mmu_gather *tlb,
				   struct vm_area_struct *vma,
				   struct folio *folio, struct page *page,
				   pte_t *ptep, int nr, unsigned long addr,
				   bool *force_flush, bool *force_break)
{
	struct mm_struct *mm = vma->vm_mm;
	bool delay_rmap = false;

	if (!folio_test_anon(folio) || !mm_sw.zap_batch) {
		/*
		 * file folios (and the per-PTE kernel): gather young/dirty; 7.3
		 * clears any nr with get_and_clear_full_ptes, the per-PTE kernels
		 * each entry with ptep_get_and_clear_full (S2's contpte modes)
		 */
		pte_t ptent = mm_sw.zap_batch ? get_and_clear_full_ptes(mm, addr, ptep, nr, tlb->fullmm)
					      : ptep_get_and_clear_full(mm, addr, ptep, tlb->fullmm);

		if (!folio_test_anon(folio)) {
			if (pte_dirty(ptent)) {
				folio_set_dirty(folio);
				/*
				 * tlb_delay_rmap(): the rmap stays until the TLB is
				 * flushed, under the PTL, so writeback cannot find
				 * the folio clean and unmapped while a stale
				 * writable entry may still dirty it.
				 */
				tlb->delayed_rmap = true;
				delay_rmap = true;
				*force_flush = true;
			}
			if (pte_young(ptent))
				folio_set_referenced(folio);
		}
	} else {
		/* anonymous memory about to be freed: young/dirty are moot */
		clear_full_ptes(mm, addr, ptep, nr, tlb->fullmm);
	}
	mm->rss -= nr;
	tlb_remove_tlb_entries(tlb, addr, nr);
	if (!delay_rmap)
		folio_remove_rmap_ptes(folio, page, nr, vma);
	if (__tlb_remove_folio_pages(tlb, page, nr, delay_rmap)) {
		*force_flush = true;
		*force_break = true;
	}
}

/*
 * Contpte series v3 01/15 (Dec 2023): how many entries from ptep map the
 * following pages of folio with the same permissions (young and dirty
 * ignored), up to the folio's end or end. One ptep_get() per entry: on a
 * contiguous block each is a whole-block gather, as 2023's
 * contpte_ptep_get had no batch hint.
 */
static int folio_nr_pages_cont_mapped(struct folio *folio, struct page *page,
				      pte_t *ptep, unsigned long addr,
				      unsigned long end, pte_t ptent)
{
	PERF_FUNC();
	unsigned long folio_end;
	pte_t expected;
	int floops, i;

	if (!folio_test_large(folio))
		return 1;
	folio_end = addr + (folio_pfn(folio) + folio_nr_pages(folio) - page_to_pfn(page)) * PAGE_SIZE;
	floops = (int)((min(folio_end, end) - addr) >> PAGE_SHIFT);
	expected = pte_batch_clear_ignored(ptent, FPB_RESPECT_WRITE);
	for (i = 1; i < floops; i++) {
		pte_t pte = ptep_get(ptep + i);

		expected = pte_advance_pfn(expected, 1);
		if (!pte_present(pte) ||
		    !pte_same(pte_batch_clear_ignored(pte, FPB_RESPECT_WRITE), expected))
			break;
	}
	return i;
}

/*
 * Contpte series v3 02/15's zap of present entries: the folio's run is
 * capped by what the gather can take without flushing mid-run, cleared by
 * one clear_ptes() (get_and_clear_full_ptes since 6.9), and then each
 * page is unmapped and gathered on its own, as 6.7 did.
 */
static int zap_present_ptes_v3(struct mmu_gather *tlb, struct vm_area_struct *vma,
			       pte_t *ptep, pte_t ptent, unsigned long addr,
			       unsigned long end, bool *force_flush, bool *force_break)
{
	PERF_FUNC();
	struct mm_struct *mm = vma->vm_mm;
	struct page *page = pfn_to_page(pte_pfn(ptent));
	struct folio *folio = page_folio(page);
	int nr = folio_nr_pages_cont_mapped(folio, page, ptep, addr, end, ptent);
	bool delay_rmap = false;

	nr = max(1, min(nr, (int)tlb_get_guaranteed_space(tlb)));
	ptent = get_and_clear_full_ptes(mm, addr, ptep, (unsigned int)nr, tlb->fullmm);
	for (int i = 0; i < nr; i++)
		tlb_remove_tlb_entries(tlb, addr + (unsigned long)i * PAGE_SIZE, 1);
	if (!folio_test_anon(folio)) {
		if (pte_dirty(ptent)) {
			folio_set_dirty(folio);
			tlb->delayed_rmap = true; /* tlb_delay_rmap(), as above */
			delay_rmap = true;
			*force_flush = true;
		}
		if (pte_young(ptent))
			folio_set_referenced(folio);
	}
	for (int i = 0; i < nr; i++, page++) {
		mm->rss--;
		if (!delay_rmap)
			folio_remove_rmap_ptes(folio, page, 1, vma);
		if (__tlb_remove_page(tlb, page, delay_rmap)) {
			/* only the run's last page may fill the gather: the cap above */
			if (i + 1 < nr)
				hw_violation(VIOL_OTHER, "zap_pte_range: the gather filled at page %d of a "
					     "cleared run of %d at %#lx: the rest is never unmapped", i + 1,
					     nr, addr);
			*force_flush = true;
			*force_break = true;
			return i + 1;
		}
	}
	return nr;
}

static int zap_present_ptes(struct mmu_gather *tlb, struct vm_area_struct *vma,
			    pte_t *ptep, pte_t ptent, int max_nr,
			    unsigned long addr, bool *force_flush,
			    bool *force_break)
{
	PERF_FUNC();
	struct page *page = pfn_to_page(pte_pfn(ptent));
	struct folio *folio = page_folio(page);
	int nr = 1;

	if (!mm_sw.zap_batch && mm_sw.zap_clear_ptes_v3)
		return zap_present_ptes_v3(tlb, vma, ptep, ptent, addr,
					   addr + (unsigned long)max_nr * PAGE_SIZE,
					   force_flush, force_break);

	if (folio_test_large(folio) && max_nr != 1 && mm_sw.zap_batch)
		nr = (int)folio_pte_batch(folio, ptep, ptent, (unsigned int)max_nr);
	zap_present_folio_ptes(tlb, vma, folio, page, ptep, nr, addr,
			       force_flush, force_break);
	return nr;
}

unsigned long zap_pte_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
			    pmd_t *pmdp, unsigned long addr, unsigned long end)
{
	PERF_FUNC();
	bool force_flush = false, force_break = false;
	pte_t *start_pte, *ptep;
	spinlock_t *ptl;
	int nr;

retry:
	start_pte = ptep = pte_offset_map_lock(vma->vm_mm, pmdp, addr, &ptl);
	if (!ptep)
		return end;
	arch_enter_lazy_mmu_mode();
	do {
		pte_t ptent = ptep_get(ptep);
		int max_nr = (int)((end - addr) / PAGE_SIZE);

		nr = 1;
		if (pte_none(ptent))
			continue;
		if (pte_present(ptent))
			nr = zap_present_ptes(tlb, vma, ptep, ptent, max_nr, addr,
					      &force_flush, &force_break);
		if (force_break) {
			addr += (unsigned long)nr * PAGE_SIZE;
			break;
		}
	} while (ptep += nr, addr += PAGE_SIZE * (unsigned long)nr, addr != end);
	arch_leave_lazy_mmu_mode();

	/* flush before dropping the PTL (and the delayed rmaps), then free what was gathered */
	if (force_flush) {
		tlb_flush_mmu_tlbonly(tlb);
		tlb_flush_rmaps(tlb, vma);
	}
	pte_unmap_unlock(start_pte, ptl);
	if (force_flush) {
		tlb_flush_mmu(tlb);
		force_flush = force_break = false;
	}
	if (addr != end)
		goto retry;
	return addr;
}

/* A PMD-mapped folio goes in one step: one rmap call, one reference. */
static void zap_huge_pmd(struct mmu_gather *tlb, struct vm_area_struct *vma,
			 pmd_t *pmdp, unsigned long addr)
{
	PERF_FUNC();
	pmd_t pmd;
	struct folio *folio;

	hw_count(EV_lock_acquire, 1);
	pmd = pmdp_huge_get_and_clear(vma->vm_mm, addr, pmdp);
	folio = pfn_folio(pmd_pfn(pmd));
	tlb->start = min(tlb->start, addr);
	tlb->end = max(tlb->end, addr + SZ_2M);
	tlb->cleared_pmds = true;
	hw_count(EV_rmap_call, 1);
	hw_count(EV_mapcount_atomic, 1);
	hw_cache_page(folio_pfn(folio) + 1);
	folio_sub_large_mapcount(folio, 1, vma);
	vma->vm_mm->rss -= 1 << PMD_ORDER;
	if (__tlb_remove_page(tlb, &folio->page, false))
		tlb_flush_mmu(tlb);
}

/*
 * The tree's zap_pte_range, unless a switch asks for a zap the tree does
 * not have (--without zap-batch, S2's clear-ptes): those are the twin's.
 */
static bool tree_zap_pte_range(void)
{
	return mm_core && mm_core->zap_pte_range && mm_sw.zap_batch && !mm_sw.zap_clear_ptes_v3;
}

void unmap_vmas(struct mmu_gather *tlb, struct vm_area_struct *vma,
		unsigned long start, unsigned long end)
{
	PERF_FUNC();
	start = max(start, vma->vm_start);
	end = min(end, vma->vm_end);
	for (unsigned long addr = start, next; addr < end; addr = next) {
		pmd_t *pmdp = pmd_walk(vma->vm_mm, addr);

		next = pmd_addr_end(addr, end);
		if (!pmdp || pmd_none(*pmdp))
			continue;
		if (!pmd_table(*pmdp)) {
			zap_huge_pmd(tlb, vma, pmdp, addr);
			continue;
		}
		/*
		 * As zap_pmd_range: a zap_pte_range that stopped early (6.x
		 * returns when its gather is full, 7.x retries itself) is called
		 * again from where it stopped. The tree's opens its own perf
		 * frames (kernel/shim/core_entry.c).
		 */
		if (tree_zap_pte_range())
			next = mm_core->zap_pte_range(tlb, vma, pmdp, addr, next);
		else
			next = zap_pte_range(tlb, vma, pmdp, addr, next);
	}
}
