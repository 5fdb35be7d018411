// SPDX-License-Identifier: GPL-2.0-only
/*
 * The end of a tree's core-mm unit (kernel/build_core.c appends it after
 * the extracted text): the table ptelab's mm/ calls the tree's roots
 * through (mm/core.h), adapting the kernel's signatures to the twin's.
 * The only symbol the unit exports; the tree's functions stay local.
 */
#include <stddef.h>
#include <stdlib.h>

#include "hw/perf.h"
#include "mm/core.h"

/*
 * Modelled perf frames for the tree's functions: the hooks
 * -finstrument-functions calls at every entry and exit of one, inlined or
 * not (ptelab's own headers are excluded from instrumentation: their
 * wrappers open frames themselves). A function not in the table (none
 * should be) opens no frame.
 */
#define NO_INSTR __attribute__((no_instrument_function))

struct ptelab_core_frame {
	uintptr_t fn;
	int id;
};

static struct ptelab_core_frame *ptelab_frames;
static int ptelab_nr_frames = -1;

static NO_INSTR int ptelab_frame_cmp(const void *a, const void *b)
{
	uintptr_t x = ((const struct ptelab_core_frame *)a)->fn;
	uintptr_t y = ((const struct ptelab_core_frame *)b)->fn;

	return x < y ? -1 : x > y;
}

/* The frame id of fn, 0 if it is not one of the tree's; the table sorted on first use. */
static NO_INSTR int ptelab_frame_lookup(void *fn)
{
	int lo = 0, hi;

	if (ptelab_nr_frames < 0) {
		int n = 0;

		while (ptelab_core_fns[n].fn)
			n++;
		ptelab_frames = calloc((size_t)n + 1, sizeof(*ptelab_frames));
		if (!ptelab_frames)
			return 0;
		for (int i = 0; i < n; i++)
			ptelab_frames[i] = (struct ptelab_core_frame){ (uintptr_t)ptelab_core_fns[i].fn,
								 perf_frame_id(ptelab_core_fns[i].name) };
		qsort(ptelab_frames, (size_t)n, sizeof(*ptelab_frames), ptelab_frame_cmp);
		ptelab_nr_frames = n;
	}
	hi = ptelab_nr_frames;
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (ptelab_frames[mid].fn < (uintptr_t)fn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ptelab_nr_frames && ptelab_frames[lo].fn == (uintptr_t)fn ? ptelab_frames[lo].id : 0;
}

/* what the last lookups found, by address: the hooks run at every call */
static struct ptelab_core_frame ptelab_frame_cache[64];

static inline NO_INSTR int ptelab_frame_of(void *fn)
{
	struct ptelab_core_frame *c = &ptelab_frame_cache[((uintptr_t)fn >> 4) & 63];

	if (c->fn != (uintptr_t)fn)
		*c = (struct ptelab_core_frame){ (uintptr_t)fn, ptelab_frame_lookup(fn) };
	return c->id;
}

NO_INSTR void __cyg_profile_func_enter(void *fn, void *site);
NO_INSTR void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site)
{
	int id;

	/* the tree's look-around counts its window's young entries (kernel/shim/core.h) */
	if (fn == (void *)lru_gen_look_around && current->reclaim_state)
		current->reclaim_state->look_around_tests = 1;
	/* the gather's flushes, counted where the tree's code makes them */
	else if (fn == (void *)tlb_flush_mmu)
		hw_count(EV_gather_flush, 1);
	if (perf_on && (id = ptelab_frame_of(fn)))
		perf_enter(id);
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	int id;

	if (fn == (void *)lru_gen_look_around && current->reclaim_state)
		current->reclaim_state->look_around_tests = 0;
	if (perf_on && (id = ptelab_frame_of(fn)))
		perf_exit(id);
}

static unsigned long ptelab_entry_zap_pte_range(struct mmu_gather *tlb,
						struct vm_area_struct *vma, pmd_t *pmd,
						unsigned long addr, unsigned long end)
{
	/* unmap_vmas with no details: every folio, COWed ones too */
	return zap_pte_range(tlb, vma, pmd, addr, end, NULL);
}


/*
 * move_ptes as the tree has it: a struct pagetable_move_control
 * (mm/internal.h; 7.2 and 7.3 have it, and the unit renames its tag, so
 * the rename says the tree has it), or 6.12's VMAs and addresses one by
 * one. The lab's mremap needs no rmap locks.
 */
static int ptelab_entry_move_ptes(struct vm_area_struct *vma, struct vm_area_struct *new_vma,
				  pmd_t *old_pmd, unsigned long old_addr, pmd_t *new_pmd,
				  unsigned long new_addr, unsigned long extent)
{
#ifdef pagetable_move_control
	struct pagetable_move_control pmc = {
		.old = vma, .new = new_vma, .old_addr = old_addr, .old_end = old_addr + extent,
		.new_addr = new_addr, .len_in = extent, .need_rmap_locks = false,
	};

	return move_ptes(&pmc, extent, old_pmd, new_pmd);
#else
	return move_ptes(vma, old_pmd, old_addr, old_addr + extent, new_vma, new_pmd, new_addr,
			 false);
#endif
}

/* the tree's struct folio_referenced_arg is ptelab's, word for word (6.x and 7.x) */
_Static_assert(sizeof(struct folio_referenced_arg) == sizeof(lab_folio_referenced_arg) &&
	       offsetof(struct folio_referenced_arg, memcg) ==
	       offsetof(lab_folio_referenced_arg, memcg),
	       "the tree's folio_referenced_arg is not ptelab's");

/* and its struct madvise_walk_private is ptelab's (mm/madvise.h) */
_Static_assert(sizeof(struct madvise_walk_private) == sizeof(lab_madvise_walk_private) &&
	       offsetof(struct madvise_walk_private, tlb) == offsetof(lab_madvise_walk_private, tlb) &&
	       offsetof(struct madvise_walk_private, pageout) ==
	       offsetof(lab_madvise_walk_private, pageout),
	       "the tree's madvise_walk_private is not ptelab's");

__attribute__((visibility("default"))) const struct mm_core_ops ptelab_core_ops = {
	.kernel = PTELAB_KRELEASE,
	.kver = PTELAB_KVER,
	.zap_pte_range = ptelab_entry_zap_pte_range,
	.folio_referenced_one = folio_referenced_one,
	.mlock_pte_range = mlock_pte_range,
	.copy_pte_range = copy_pte_range,
	.walk_pte_range = walk_pte_range,
	.try_to_unmap_one = try_to_unmap_one,
	.change_pte_range = change_pte_range,
	.move_ptes = ptelab_entry_move_ptes,
	.madvise_cold_or_pageout_pte_range = madvise_cold_or_pageout_pte_range,
	.madvise_free_pte_range = madvise_free_pte_range,
	.tlb_gather_mmu = tlb_gather_mmu,
	.tlb_gather_mmu_fullmm = tlb_gather_mmu_fullmm,
	.tlb_finish_mmu = tlb_finish_mmu,
	.tlb_flush_mmu = tlb_flush_mmu,
	.tlb_flush_rmaps = tlb_flush_rmaps,
	.__tlb_remove_folio_pages = __tlb_remove_folio_pages,
};
