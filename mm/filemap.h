/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A file's page cache (struct address_space) holding large folios of one
 * order, as a filesystem with large-folio readahead gives, and the VMAs
 * that map it (i_mmap) for the reverse map.
 */
#ifndef PTELAB_MM_FILEMAP_H
#define PTELAB_MM_FILEMAP_H

#include "include/mm_types.h"
#include "include/page.h"
#include "mm/interval_tree.h"
#include "mm/mm.h"

struct address_space {
	u32 *cache;            /* one slot per file page: see xa_load() */
	u64 nr_pages;          /* file size in pages */
	unsigned int order;    /* folio order readahead allocates */
	long nrpages;          /* pages cached */
	/*
	 * shmem (mm/shmem.c): folios are swap-backed, and a slot whose page
	 * went to swap holds its swap entry (xa_is_value) instead of a folio.
	 */
	bool shmem;
	long nrswapped;
	struct rb_root_cached i_mmap; /* the VMAs mapping the file */
};

/*
 * The page cache is an xarray in the kernel; here it is one u32 per file
 * page (4 host bytes, not a pointer's 8): 0 empty, (pfn + 1) << 1 the
 * folio's head, or a value entry (bit 0 set: shmem's swap entry, as
 * swp_to_radix_entry makes it). xa_load and xa_store speak entries.
 */
#define XA_MAX_INDEX_VAL ((1UL << 31) - 2)

static inline void *xa_load(const struct address_space *mapping, u64 index)
{
	u32 v = mapping->cache[index];

	if (v & 1)
		return (void *)(uintptr_t)v;
	return v ? (void *)&mem_map[(v >> 1) - 1] : NULL;
}

static inline void xa_store(struct address_space *mapping, u64 index, const void *entry)
{
	uintptr_t e = (uintptr_t)entry, v;

	if (!entry)
		v = 0;
	else if (e & 1)
		v = e;
	else
		v = (u64)(page_to_pfn((const struct page *)entry) + 1) << 1;
	/* fits: page_alloc_init and swapon keep pfns and slots below 2^31 - 1 */
	mapping->cache[index] = (u32)v;
}

struct address_space *address_space_create(u64 size, unsigned int order);
void address_space_destroy(struct address_space *mapping);
/* The folio at index, or NULL (also for a shmem page out on swap). */
struct folio *filemap_get_folio(struct address_space *mapping, u64 index);
/* The folio holding index, read in (allocated, clean) if absent. */
struct folio *filemap_read_folio(struct address_space *mapping, u64 index);
/* __remove_mapping: a clean, unmapped folio leaves the cache. */
void filemap_remove_folio(struct folio *folio);
/* Page-cache pages removed since filemap_reset() (machine setup). */
u64 filemap_removed_pages(void);
void filemap_reset(void);
/* A page left a cache another way (shmem to swap): counted here too. */
void filemap_count_removed(u64 nr);

struct mm_struct;
struct vm_area_struct *mmap_file(struct mm_struct *mm, unsigned long addr,
				 unsigned long len, struct address_space *mapping,
				 u64 pgoff, unsigned long vm_flags);
/* Fault in and map (set_ptes) the whole folio around addr. */
struct vm_fault;
vm_fault_t filemap_fault(struct vm_fault *vmf);

#endif
