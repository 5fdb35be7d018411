// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/rmap.c (anon_vma_prepare, anon_vma_clone, anon_vma_fork,
 * unlink_anon_vmas, rmap_walk, rmap_walk_anon, rmap_walk_file),
 * mm/internal.h (vma_address).
 */
/*
 * From a folio to every VMA that may map it: anonymous folios through
 * their anon_vma (every VMA of the process and its fork children that
 * may share the folio), page-cache folios through the file's i_mmap.
 * Each walk holds the anon_vma or i_mmap lock for reading (one counted
 * acquisition) and calls rmap_one once per candidate VMA.
 */
#include <stdlib.h>

#include "hw/events.h"
#include "hw/host.h"
#include "mm/filemap.h"
#include "mm/rmap.h"
#include "sim/frames.h"
#include "hw/perf.h"

static void anon_vma_chain_link(struct vm_area_struct *vma, struct anon_vma *anon_vma)
{
	vma->anon_vma_chain = host_realloc(vma->anon_vma_chain,
					   (size_t)(vma->nr_anon_vma_chain + 1) * sizeof(*vma->anon_vma_chain),
					   "an anon_vma_chain");
	vma->anon_vma_chain[vma->nr_anon_vma_chain++] = anon_vma;
	vma_interval_tree_insert(vma, &anon_vma->rb_root);
}

static struct anon_vma *anon_vma_alloc(void)
{
	return host_calloc(1, sizeof(struct anon_vma), "an anon_vma");
}

/* The first anonymous fault of a VMA gives it an anon_vma. */
int anon_vma_prepare(struct vm_area_struct *vma)
{
	if (vma->anon_vma)
		return 0;
	vma->anon_vma = anon_vma_alloc();
	anon_vma_chain_link(vma, vma->anon_vma);
	return 0;
}

void anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	for (int i = 0; i < src->nr_anon_vma_chain; i++)
		anon_vma_chain_link(dst, src->anon_vma_chain[i]);
}

void anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma)
{
	anon_vma_clone(vma, pvma);
	vma->anon_vma = NULL;
	/* the parent never faulted anonymous memory here: nothing to share */
	if (!pvma->anon_vma)
		return;
	vma->anon_vma = anon_vma_alloc();
	anon_vma_chain_link(vma, vma->anon_vma);
}

/*
 * The VMA goes away: it leaves every anon_vma it was on; an anon_vma no
 * VMA is left on is freed (a folio still pointing to it is unmapped, and
 * rmap walks never start on an unmapped folio).
 */
void unlink_anon_vmas(struct vm_area_struct *vma)
{
	for (int i = 0; i < vma->nr_anon_vma_chain; i++) {
		struct anon_vma *anon_vma = vma->anon_vma_chain[i];

		vma_interval_tree_remove(vma, &anon_vma->rb_root);
		if (!anon_vma->rb_root.nr) {
			vma_interval_tree_destroy(&anon_vma->rb_root);
			free(anon_vma);
		}
	}
	free(vma->anon_vma_chain);
	vma->anon_vma_chain = NULL;
	vma->nr_anon_vma_chain = 0;
	vma->anon_vma = NULL;
}

unsigned long vma_address(const struct vm_area_struct *vma, unsigned long pgoff,
			  unsigned long nr_pages)
{
	unsigned long address;

	if (pgoff >= vma->vm_pgoff) {
		address = vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
		/* Check for address beyond vma (or wrapped through 0?) */
		if (address < vma->vm_start || address >= vma->vm_end)
			address = RMAP_EFAULT;
	} else if (pgoff + nr_pages - 1 >= vma->vm_pgoff) {
		/* Test above avoids possibility of wrap to 0 on 32-bit */
		address = vma->vm_start;
	} else {
		address = RMAP_EFAULT;
	}
	return address;
}

/* One VMA of the walk: rmap_one, then whether to stop. */
static bool rmap_walk_one(struct folio *folio, struct vm_area_struct *vma,
			  unsigned long pgoff_start, struct rmap_walk_control *rwc)
{
	unsigned long address = vma_address(vma, pgoff_start, (unsigned long)folio_nr_pages(folio));

	if (address == RMAP_EFAULT)
		return true;
	if (rwc->invalid_vma && rwc->invalid_vma(vma, rwc->arg))
		return true;
	hw_count(EV_rmap_call, 1);
	if (!rwc->rmap_one(folio, vma, address, rwc->arg))
		return false;
	if (rwc->done && rwc->done(folio))
		return false;
	return true;
}

/* Every VMA of root that may map the folio's page offsets, in turn. */
static void rmap_walk_tree(struct folio *folio, struct rb_root_cached *root,
			   struct rmap_walk_control *rwc)
{
	unsigned long pgoff_start = folio_pgoff(folio);
	unsigned long pgoff_end = pgoff_start + (unsigned long)folio_nr_pages(folio) - 1;
	struct vm_area_struct *vma;

	vma_interval_tree_foreach(vma, root, pgoff_start, pgoff_end) {
		if (!rmap_walk_one(folio, vma, pgoff_start, rwc))
			break;
	}
}

static void rmap_walk_anon(struct folio *folio, struct rmap_walk_control *rwc)
{
	PERF_FUNC();
	struct anon_vma *anon_vma = folio_anon_vma(folio);

	if (!anon_vma)
		return;
	int frame = SIM_FRAME("rmap_walk_anon");

	sim_frame_enter(frame);
	hw_count(EV_lock_acquire, 1); /* anon_vma_lock_read */
	rmap_walk_tree(folio, &anon_vma->rb_root, rwc);
	sim_frame_exit(frame);
}

static void rmap_walk_file(struct folio *folio, struct rmap_walk_control *rwc)
{
	PERF_FUNC();
	struct address_space *mapping = folio_mapping(folio);

	if (!mapping)
		return;
	int frame = SIM_FRAME("rmap_walk_file");

	sim_frame_enter(frame);
	hw_count(EV_lock_acquire, 1); /* i_mmap_lock_read */
	rmap_walk_tree(folio, &mapping->i_mmap, rwc);
	sim_frame_exit(frame);
}

void rmap_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	if (folio_test_anon(folio))
		rmap_walk_anon(folio, rwc);
	else
		rmap_walk_file(folio, rwc);
}
