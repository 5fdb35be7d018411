// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: none: ptelab's own checker (mapcounts, refcounts, dirty state,
 * RSS).
 */
/*
 * Invariants over everything mm/ knows: every mapcount equals the number
 * of entries mapping the page, every mapped folio holds at least one
 * reference per mapping, nothing leaks; plus the hardware-level sweeps.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/cpu.h"
#include "hw/host.h"
#include "hw/invariants.h"
#include "hw/phys.h"
#include "mm/lru.h"
#include "mm/mm.h"

/*
 * What the walk counts per frame, in as little host memory as it can
 * (the sweep runs at every check, at full scale too): mappings as u16,
 * redone as int if a count ever passes 65534; PMD mappings per 2 MiB
 * frame; "some PTE is dirty" as a bitmap.
 */
struct map_counts {
	u16 *maps16;
	int *maps32;    /* the wide pass, after an overflow */
	bool overflow;
	int *pmd_maps;  /* by pfn >> PMD_ORDER */
	u8 *dirty;      /* one bit per frame */
	u8 *writable;   /* one bit per frame: some present PTE lets it be written */
	int reported;   /* violations said by the walk (a few of each run) */
};

static inline void maps_inc(struct map_counts *mc, u64 pfn)
{
	if (mc->maps32)
		mc->maps32[pfn]++;
	else if (mc->maps16[pfn] == UINT16_MAX)
		mc->overflow = true;
	else
		mc->maps16[pfn]++;
}

static inline int maps_get(const struct map_counts *mc, u64 pfn)
{
	return mc->maps32 ? mc->maps32[pfn] : mc->maps16[pfn];
}

static inline bool dirty_test(const struct map_counts *mc, u64 pfn)
{
	return mc->dirty[pfn / 8] & (1U << (pfn % 8));
}

/*
 * Mappings, dirty and write state of one PTE table, mapping from va. A
 * writable entry in a VMA without VM_WRITE is a permission leak (a
 * batched restore that made read-only entries writable, as 2025's
 * mprotect/mremap/lazyfree bugs did); so is a writable entry mapping an
 * anonymous page that is not PageAnonExclusive (include/linux/page-flags.h:
 * a page that may be shared must not be mapped writable), which a batch
 * taking one entry's write bit for a folio of exclusive and shared pages
 * makes even where no other process maps the page today.
 */
static void check_writable(struct mm_struct *mm, struct vm_area_struct **vma, unsigned long va,
			   u64 pfn, int *reported)
{
	if (!*vma || va < (*vma)->vm_start || va >= (*vma)->vm_end)
		*vma = find_vma(mm, va);
	if (*vma && va >= (*vma)->vm_start && !((*vma)->vm_flags & VM_WRITE) && (*reported)++ < 4)
		hw_violation(VIOL_PERMISSION, "va %#lx (asid %u) is writable in a VMA "
			     "without VM_WRITE (%#lx-%#lx)", va, mm->context.asid,
			     (*vma)->vm_start, (*vma)->vm_end);
	if (pfn < max_pfn && folio_test_anon(pfn_folio(pfn)) &&
	    !PageAnonExclusive(pfn_to_page(pfn)) && (*reported)++ < 4)
		hw_violation(VIOL_PERMISSION, "va %#lx (asid %u) is writable but anonymous "
			     "pfn %#llx is not exclusive (PageAnonExclusive clear): it may "
			     "be shared", va, mm->context.asid, (unsigned long long)pfn);
}

void mm_check_writable(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	struct vm_area_struct *vma = NULL;
	int reported = 0;

	for (unsigned long va = start; va < end; va += PAGE_SIZE) {
		pte_t *ptep = pte_lookup(mm, va);

		if (ptep && pte_present(*ptep) && pte_write(*ptep))
			check_writable(mm, &vma, va, pte_pfn(*ptep), &reported);
	}
}

static u64 count_ptes(pte_t *pte, struct map_counts *mc, struct mm_struct *mm, unsigned long va,
		      bool check)
{
	struct hw_gather_cache gc = { 0 };
	struct vm_area_struct *vma = NULL;
	u64 present = 0;

	for (int i = 0; i < PTRS_PER_PTE; i++, va += PAGE_SIZE) {
		pte_t entry = pte[i];
		u64 pfn = pte_pfn(entry);

		if (pte_none(entry))
			continue;
		if (!pte_present(entry)) {
			if (pfn < max_pfn)
				maps_inc(mc, pfn);
			continue;
		}
		present++;
		if (pte_write(entry)) {
			if (check)
				check_writable(mm, &vma, va, pfn, &mc->reported);
			if (pfn < max_pfn)
				mc->writable[pfn / 8] |= (u8)(1U << (pfn % 8));
		}
		if (pfn >= max_pfn)
			continue;
		maps_inc(mc, pfn);
		if (hw_cont_gathered(&gc, &pte[i].pte, true))
			mc->dirty[pfn / 8] |= (u8)(1U << (pfn % 8));
	}
	return present;
}

/* Every entry of an mm's tables, read without counting events; the pages present. */
static u64 count_mm(struct mm_struct *mm, struct map_counts *mc, bool check)
{
	u64 present = 0;

	for (int i = 0; i < PTRS_PER_PGD; i++) {
		u64 *p4d = p4d_offset(&mm->pgd[i], (unsigned long)i << PGDIR_SHIFT);

		if (p4d_none(*p4d) || p4d_bad(*p4d))
			continue;
		for (int j = 0; j < PTRS_PER_PUD; j++) {
			u64 pud = p4d_pgtable(*p4d)[j];

			if (pud_none(pud) || pud_bad(pud))
				continue;
			for (int k = 0; k < PTRS_PER_PMD; k++) {
				pmd_t pmd = pud_pgtable(pud)[k];

				if (pmd_table(pmd)) {
					unsigned long va = ((unsigned long)i << PGDIR_SHIFT) |
							   ((unsigned long)j << PUD_SHIFT) |
							   ((unsigned long)k << PMD_SHIFT);

					present += count_ptes((pte_t *)pmd_page_vaddr(pmd), mc, mm, va,
							      check);
				} else if (pmd_leaf(pmd)) {
					if (pmd_pfn(pmd) < max_pfn)
						mc->pmd_maps[pmd_pfn(pmd) >> PMD_ORDER]++;
					present += 1UL << PMD_ORDER;
				}
			}
		}
	}
	return present;
}

/*
 * A frame stored to since software last cleaned it must read dirty
 * through one of the PTEs mapping it (gathered over a contiguous block)
 * or through its folio: otherwise writeback or a lazyfree discard would
 * lose the data. (After fork one side's PTE may be clean: the union
 * is what counts, as it is for the kernel.)
 */
static void check_written(u64 pfn, const struct map_counts *mc, int *reported)
{
	if (!hw_frame_written(pfn) || dirty_test(mc, pfn) || folio_test_dirty(pfn_folio(pfn)))
		return;
	if ((*reported)++ < 4)
		hw_violation(VIOL_LOST_DIRTY, "pfn %#llx was written but no PTE nor its folio is dirty",
			     (unsigned long long)pfn);
}

/* Pages mapped by the present entries of an mm: PTEs, and PMD leaves whole. */
u64 mm_count_present_pages(const struct mm_struct *mm)
{
	u64 n = 0;

	if (!mm->pgd)
		return 0;
	for (int i = 0; i < PTRS_PER_PGD; i++) {
		u64 p4d = mm->pgd[i];

		if (p4d_none(p4d) || p4d_bad(p4d))
			continue;
		for (int j = 0; j < PTRS_PER_PUD; j++) {
			u64 pud = p4d_pgtable(p4d)[j];

			if (pud_none(pud) || pud_bad(pud))
				continue;
			for (int k = 0; k < PTRS_PER_PMD; k++) {
				pmd_t pmd = pud_pgtable(pud)[k];

				if (pmd_table(pmd)) {
					pte_t *pte = (pte_t *)pmd_page_vaddr(pmd);

					for (int l = 0; l < PTRS_PER_PTE; l++)
						n += !pte_none(pte[l]) && pte_present(pte[l]);
				} else if (pmd_leaf(pmd)) {
					n += 1UL << PMD_ORDER;
				}
			}
		}
	}
	return n;
}

static void check_rss(const struct mm_struct *mm, u64 walked)
{
	if (mm->rss < 0 || (u64)mm->rss != walked)
		hw_violation(VIOL_OTHER, "mm asid %u: rss %ld but %llu pages mapped by present entries",
			     mm->context.asid, mm->rss, (unsigned long long)walked);
}

/* mm->rss, kept by the fault, zap, fork and unmap paths, against a walk. */
void mm_check_rss(const struct mm_struct *mm)
{
	check_rss(mm, mm_count_present_pages(mm));
}

static void count_all(struct map_counts *mc, bool check)
{
	for (struct mm_struct *m = mm_list; m; m = m->next_mm) {
		u64 present = count_mm(m, mc, check);

		if (check)
			check_rss(m, present);
	}
}

void mm_check_invariants(struct mm_struct *mm)
{
	size_t nr_pmds = (max_pfn >> PMD_ORDER) + 1;
	struct map_counts mc = {
		.maps16 = host_calloc(max_pfn, sizeof(u16), "the mapcount check"),
		.pmd_maps = host_calloc(nr_pmds, sizeof(int), "the mapcount check"),
		.dirty = host_calloc(max_pfn / 8 + 1, 1, "the mapcount check"),
		.writable = host_calloc(max_pfn / 8 + 1, 1, "the mapcount check"),
	};

	(void)mm;
	count_all(&mc, true);
	if (mc.overflow) {
		/* a frame mapped 65535 times or more: count again, wide */
		free(mc.maps16);
		mc.maps16 = NULL;
		mc.maps32 = host_calloc(max_pfn, sizeof(int), "the mapcount check");
		memset(mc.pmd_maps, 0, nr_pmds * sizeof(int));
		memset(mc.dirty, 0, max_pfn / 8 + 1);
		memset(mc.writable, 0, max_pfn / 8 + 1);
		count_all(&mc, false);
	}
	int reported = mc.reported;
	for (u64 pfn = 0; pfn < max_pfn;) {
		struct page *p = &mem_map[pfn];
		u64 nr = 1UL << p->order, end;

		if (page_alloc_untouched(pfn, &end)) {
			pfn = end;
			continue;
		}

		if (p->flags & (1UL << PG_buddy)) {
			pfn += nr;
			continue;
		}
		struct folio *folio = (struct folio *)p;
		long total = pfn % (1UL << PMD_ORDER) ? 0 : mc.pmd_maps[pfn >> PMD_ORDER];
		for (u64 i = 0; i < nr; i++) {
			struct page *sub = &mem_map[pfn + i];
			int maps = maps_get(&mc, pfn + i);

			total += maps;
			if (maps)
				check_written(pfn + i, &mc, &reported);
			/*
			 * An anonymous page mapped more than once (shared after fork
			 * until a write copies it) is read-only everywhere: a
			 * writable one lets one process write what another reads.
			 */
			if (maps > 1 && folio_test_anon(folio) &&
			    (mc.writable[(pfn + i) / 8] & (1U << ((pfn + i) % 8))) && reported++ < 4)
				hw_violation(VIOL_PERMISSION, "anonymous pfn %#llx is mapped %d times and "
					     "writable: a write through one mapping shows in the others",
					     (unsigned long long)(pfn + i), maps);
			if (sub->_mapcount + 1 != maps && reported++ < 4)
				hw_violation(VIOL_MAPCOUNT, "pfn %#llx mapcount %d but %d PTEs map it",
					     (unsigned long long)(pfn + i), sub->_mapcount + 1, maps);
		}
		if (folio_test_large(folio) && folio_mapcount(folio) != total && reported++ < 4)
			hw_violation(VIOL_MAPCOUNT, "folio %#llx mapcount %d but %ld mappings",
				     (unsigned long long)pfn, folio_mapcount(folio), total);
		if (folio_ref_count(folio) < total && reported++ < 4)
			hw_violation(VIOL_REFCOUNT, "folio %#llx refcount %d below %ld mappings",
				     (unsigned long long)pfn, folio_ref_count(folio), total);
		if (total == 0 && folio_ref_count(folio) > 0 && folio_test_anon(folio) &&
		    reported++ < 4)
			hw_violation(VIOL_REFCOUNT, "anon folio %#llx unmapped but holds %d refs",
				     (unsigned long long)pfn, folio_ref_count(folio));
		pfn += nr;
	}
	for (struct mm_struct *m = mm_list; m; m = m->next_mm)
		oracle_sweep(m->pgd);
	hw_check_tlbs();
	free(mc.maps16);
	free(mc.maps32);
	free(mc.pmd_maps);
	free(mc.dirty);
	free(mc.writable);
}

void mm_check_all_freed(void)
{
	lru_add_drain_all(); /* the batches' references are not leaks */
	if (nr_free_pages() != max_pfn)
		hw_violation(VIOL_REFCOUNT, "%llu pages never returned to the allocator",
			     (unsigned long long)(max_pfn - nr_free_pages()));
}
