// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/filemap.c (filemap_map_pages, page cache add/remove),
 * mm/memory.c (do_read_fault).
 */
/*
 * Page cache and file faults. A fault maps the whole folio at once
 * (filemap_map_pages mapping a large folio with one set_ptes), so 64 KiB
 * folios become contiguous blocks on arm64.
 */
#include <stdlib.h>

#include "hw/host.h"
#include "mm/filemap.h"
#include "mm/lru.h"
#include "mm/mm.h"
#include "mm/shmem.h"
#include "mm/swap.h"

struct address_space *address_space_create(u64 size, unsigned int order)
{
	struct address_space *m = host_calloc(1, sizeof(*m), "an address_space");

	m->nr_pages = size >> PAGE_SHIFT;
	m->order = order;
	m->cache = host_calloc(m->nr_pages, sizeof(*m->cache), "the page cache");
	return m;
}

void address_space_destroy(struct address_space *mapping)
{
	/* truncate: drop every cached folio (they must be unmapped by now) */
	for (u64 i = 0; i < mapping->nr_pages; i++) {
		struct folio *folio = xa_load(mapping, i);

		if (xa_is_value(folio)) {
			/* shmem_undo_range: the page's swap slot goes with it */
			swap_free(radix_to_swp_entry(folio));
			xa_store(mapping, i, NULL);
			mapping->nrswapped--;
			continue;
		}
		if (!folio)
			continue;
		if (folio_test_lru(folio))
			lru_del_folio(folio);
		filemap_remove_folio(folio);
	}
	vma_interval_tree_destroy(&mapping->i_mmap);
	free(mapping->cache);
	free(mapping);
}

struct folio *filemap_get_folio(struct address_space *mapping, u64 index)
{
	struct folio *entry = index < mapping->nr_pages ? xa_load(mapping, index) : NULL;

	return xa_is_value(entry) ? NULL : entry;
}

struct folio *filemap_read_folio(struct address_space *mapping, u64 index)
{
	u64 nr = 1UL << mapping->order, start = ALIGN_DOWN(index, nr);
	struct folio *folio = filemap_get_folio(mapping, index);

	if (folio)
		return folio;
	folio = folio_alloc(mapping->order);
	if (!folio)
		return NULL;
	/* the page cache's own reference is the one folio_alloc gave */
	folio->page.mapping = mapping;
	folio->page.index = start;
	for (u64 i = 0; i < nr && start + i < mapping->nr_pages; i++)
		xa_store(mapping, start + i, folio);
	mapping->nrpages += (long)nr;
	folio_add_lru(folio);
	return folio;
}

/*
 * Pages that left a page cache since the machine was set up, counted
 * slot by slot here and nowhere else: reclaim's own tally is checked
 * against it (memory_reclaim).
 */
static u64 removed_pages;

u64 filemap_removed_pages(void)
{
	return removed_pages;
}

void filemap_count_removed(u64 nr)
{
	removed_pages += nr;
}

void filemap_reset(void)
{
	removed_pages = 0;
}

void filemap_remove_folio(struct folio *folio)
{
	struct address_space *mapping = folio->page.mapping;
	u64 nr = (u64)folio_nr_pages(folio);

	for (u64 i = 0; i < nr && folio->page.index + i < mapping->nr_pages; i++) {
		if (xa_load(mapping, folio->page.index + i) == folio)
			removed_pages++;
		xa_store(mapping, folio->page.index + i, NULL);
	}
	mapping->nrpages -= (long)nr;
	folio->page.mapping = NULL;
	/* the page cache's reference: the folio may be freed here, touch it no more */
	folios_put_refs_one(folio, 1);
}

struct vm_area_struct *mmap_file(struct mm_struct *mm, unsigned long addr,
				 unsigned long len, struct address_space *mapping,
				 u64 pgoff, unsigned long vm_flags)
{
	struct vm_area_struct *vma = mmap_anon(mm, addr, len, vm_flags | VM_SHARED, 0, false);
	if (!vma)
		return NULL;
	vma->vm_file_mapping = mapping;
	vma->vm_pgoff = pgoff;
	vma_interval_tree_insert(vma, &mapping->i_mmap);
	return vma;
}

/*
 * filemap_fault + finish_fault (7.3), with the lab's readahead: the whole
 * folio around the address is read in and mapped by one set_ptes().
 */
vm_fault_t filemap_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct address_space *mapping = vma->vm_file_mapping;
	unsigned long addr = vmf->address;
	pmd_t *pmdp = vmf->pmd;
	u64 pgoff = vmf->pgoff;
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	struct folio *folio = mapping->shmem ? shmem_get_folio(mapping, pgoff)
					     : filemap_read_folio(mapping, pgoff);
	pte_t *ptep;

	if (!folio)
		return VM_FAULT_OOM;
	/* the part of the folio inside the VMA, entries still none */
	u64 first = folio->page.index, nr = (u64)folio_nr_pages(folio);
	unsigned long start = addr - ((pgoff - first) << PAGE_SHIFT);
	unsigned long end = start + (nr << PAGE_SHIFT);
	if (start < vma->vm_start || end > vma->vm_end ||
	    (start & ~(SZ_2M - 1)) != ((end - 1) & ~(SZ_2M - 1))) {
		start = addr; /* fall back to the one page */
		first = pgoff;
		nr = 1;
	}
	spinlock_t *ptl;
fallback:
	ptep = pte_offset_map_lock(vma->vm_mm, pmdp, start, &ptl);
	for (u64 i = 0; i < nr; i++) {
		if (pte_none(ptep_get(ptep + i)))
			continue;
		pte_unmap_unlock(ptep, ptl);
		if (nr == 1)
			return VM_FAULT_NOPAGE; /* raced with another fault: nothing to do */
		/* part of the folio is still mapped (a partial zap): this page alone (needs_fallback) */
		start = addr;
		first = pgoff;
		nr = 1;
		goto fallback;
	}
	struct page *page = folio_page(folio, (long)(first - folio->page.index));
	folio_ref_add(folio, (int)nr);
	folio_add_file_rmap_ptes(folio, page, (int)nr, vma);
	vma->vm_mm->rss += (long)nr;
	pte_t entry = pte_mkyoung(pfn_pte(folio_pfn(folio) + (first - folio->page.index),
					  vma->vm_page_prot));
	/*
	 * A shared writable shmem mapping needs no write notification (no
	 * dirty accounting): vm_page_prot is writable; a write fault maps dirty.
	 */
	if (write && (vma->vm_flags & VM_WRITE))
		entry = pte_mkdirty(pte_mkwrite(entry));
	set_ptes(vma->vm_mm, start, ptep, entry, (unsigned int)nr);
	pte_unmap_unlock(ptep, ptl);
	return 0;
}
