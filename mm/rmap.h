/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reverse map (include/linux/rmap.h, 7.3): anon_vma, the walk over
 * every VMA that maps a folio (rmap_walk with rmap_walk_control), and
 * page_vma_mapped_walk, which finds the folio's entries in one VMA.
 */
#ifndef PTELAB_MM_RMAP_H
#define PTELAB_MM_RMAP_H

#include "mm/interval_tree.h"
#include "mm/mm.h"

/*
 * The anonymous folios of a VMA (and, after fork, of its children) point
 * here; rb_root holds every VMA that may map them (the kernel's tree of
 * anon_vma_chains). Freed when the last VMA leaves it.
 */
struct anon_vma {
	struct rb_root_cached rb_root;
};

/* A tagged folio->mapping names an anon_vma, as in the kernel. */
#define FOLIO_MAPPING_ANON 0x1UL

static inline struct anon_vma *folio_anon_vma(const struct folio *folio)
{
	unsigned long mapping = (unsigned long)folio->page.mapping;

	if (!(mapping & FOLIO_MAPPING_ANON))
		return NULL;
	return (struct anon_vma *)(mapping - FOLIO_MAPPING_ANON);
}

/* The page cache a folio belongs to; NULL for anonymous folios. */
static inline struct address_space *folio_mapping(const struct folio *folio)
{
	if ((unsigned long)folio->page.mapping & FOLIO_MAPPING_ANON)
		return NULL;
	return folio->page.mapping;
}

/* The folio's offset: in its file, or its anonymous virtual page. */
static inline unsigned long folio_pgoff(const struct folio *folio)
{
	return folio->page.index;
}

int anon_vma_prepare(struct vm_area_struct *vma);
/* dst maps what src maps (split, fork): it joins every anon_vma of src. */
void anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src);
/* fork: clone, plus a new anon_vma for the child's own new folios. */
void anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma);
void unlink_anon_vmas(struct vm_area_struct *vma);

/* page_vma_mapped_walk() */
#define PVMW_SYNC		(1 << 0)
#define PVMW_MIGRATION		(1 << 1)
#define PVMW_PGTABLE_CROSSED	(1 << 2)

struct page_vma_mapped_walk {
	unsigned long pfn;
	unsigned long nr_pages;
	unsigned long pgoff;
	struct vm_area_struct *vma;
	unsigned long address;
	pmd_t *pmd;
	pte_t *pte;
	spinlock_t *ptl;
	unsigned int flags;
	bool pgoff_is_anon;
};

#define DEFINE_FOLIO_VMA_WALK(name, _folio, _vma, _address, _flags)	\
	struct page_vma_mapped_walk name = {				\
		.pfn = folio_pfn(_folio),				\
		.nr_pages = (unsigned long)folio_nr_pages(_folio),	\
		.pgoff = folio_pgoff(_folio),				\
		.vma = _vma,						\
		.address = _address,					\
		.flags = _flags,					\
		.pgoff_is_anon = folio_test_anon(_folio),		\
	}

/* mm/internal.h: the end of the folio's range in the walk's VMA */
static inline unsigned long vma_address_end(struct page_vma_mapped_walk *pvmw)
{
	const unsigned long pgoff_end = pvmw->pgoff + pvmw->nr_pages;
	const struct vm_area_struct *vma = pvmw->vma;
	unsigned long address;

	/* Common case */
	if (pvmw->nr_pages == 1)
		return pvmw->address + PAGE_SIZE;
	address = vma->vm_start + ((pgoff_end - vma->vm_pgoff) << PAGE_SHIFT);
	/* Check for address beyond vma (or wrapped through 0?) */
	if (address < vma->vm_start || address > vma->vm_end)
		address = vma->vm_end;
	return address;
}

bool page_vma_mapped_walk(struct page_vma_mapped_walk *pvmw);

static inline void page_vma_mapped_walk_done(struct page_vma_mapped_walk *pvmw)
{
	if (pvmw->ptl)
		pte_unmap_unlock(pvmw->pte, pvmw->ptl);
	pvmw->ptl = NULL;
}

/*
 * Where the folio starting at pgoff (nr pages) is mapped in vma: its
 * first address there, or -EFAULT if it is not (vma_address, mm/internal.h).
 */
#define RMAP_EFAULT (~0UL - 13)
unsigned long vma_address(const struct vm_area_struct *vma, unsigned long pgoff,
			  unsigned long nr_pages);

struct rmap_walk_control {
	void *arg;
	/* false stops the walk */
	bool (*rmap_one)(struct folio *folio, struct vm_area_struct *vma,
			 unsigned long addr, void *arg);
	int (*done)(struct folio *folio);
	bool (*invalid_vma)(struct vm_area_struct *vma, void *arg);
};

void rmap_walk(struct folio *folio, struct rmap_walk_control *rwc);

struct mem_cgroup;
int folio_referenced(struct folio *folio, int is_locked, struct mem_cgroup *memcg,
		     unsigned long *vm_flags);
bool try_to_unmap(struct folio *folio);

/*
 * mm/internal.h: whether the folio lies whole inside [start, end) of the
 * VMA, by its offset (folio_within_vma: the whole VMA).
 */
static inline bool folio_within_range(struct folio *folio, struct vm_area_struct *vma,
				      unsigned long start, unsigned long end)
{
	unsigned long pgoff, addr, vma_pglen = (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;

	if (start > end)
		return false;
	if (start < vma->vm_start)
		start = vma->vm_start;
	if (end > vma->vm_end)
		end = vma->vm_end;
	pgoff = folio_pgoff(folio);
	/* if folio start address is not in vma range */
	if (pgoff - vma->vm_pgoff >= vma_pglen)
		return false;
	addr = vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
	return !(addr < start || end - addr < (unsigned long)folio_nr_pages(folio) << PAGE_SHIFT);
}

static inline bool folio_within_vma(struct folio *folio, struct vm_area_struct *vma)
{
	return folio_within_range(folio, vma, vma->vm_start, vma->vm_end);
}

/*
 * folio_referenced()'s state across the VMAs of one folio (mm/rmap.c's
 * struct folio_referenced_arg: 6.x's vm_flags, 7.x's vma_flags_t, the
 * same word). A tree's own folio_referenced_one() takes it as it is.
 */
struct folio_referenced_arg {
	int mapcount;
	int referenced;
	unsigned long vm_flags;
	struct mem_cgroup *memcg;
};
typedef struct folio_referenced_arg lab_folio_referenced_arg;

#endif
