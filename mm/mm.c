// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: kernel/fork.c (mm_alloc, mmput), mm/mmap.c (find_vma, mmap of
 * anonymous memory).
 */
/* Address spaces: mm_struct, the VMA list (ASIDs from arch/asid.c). */
#include <stdlib.h>

#include "arch/asid.h"
#include "hw/cpu.h"
#include "hw/host.h"
#include "hw/pgtable_mem.h"
#include "include/sched.h"
#include "mm/lru.h"
#include "mm/mm.h"
#include "mm/mmu_notifier.h"
#include "mm/reclaim.h"
#include "hw/perf.h"

/* Every live mm: mapcounts are sums over all of them. */
struct mm_struct *mm_list;

static void free_vmas(struct mm_struct *mm)
{
	while (mm->mmap) {
		struct vm_area_struct *vma = mm->mmap;

		mm->mmap = vma->vm_next;
		remove_vma(vma);
	}
}

/*
 * Machine reset: ASIDs from 1 again, and no mm left. An mm a failed run
 * left behind is forgotten (its structure and VMAs freed; its page-table
 * pages go back with hw_pt_reset, its frames with page_alloc_init).
 */
void mm_reset(void)
{
	root_lruvec.lrugen.mm_head = NULL;
	while (mm_list) {
		struct mm_struct *mm = mm_list;

		mm_list = mm->next_mm;
		free_vmas(mm);
		mmu_notifier_subscriptions_destroy(mm);
		free(mm);
	}
	asid_reset();
	current_task = &init_task;
	init_task.reclaim_state = NULL;
	init_task.flags = 0;
}

bool mm_restart(void)
{
	if (mm_list || !page_alloc_restart())
		return false;
	asid_reset();
	/* no folio is left on an LRU: lists, generations and batches start over */
	lruvec_init(&root_lruvec);
	lru_gen_init();
	mlock_reset();
	return true;
}

/*
 * mm_alloc_id (7.x kernel/fork.c): the kernel's IDA hands out the smallest
 * free id; the lab's few live mms are searched for it.
 */
static mm_id_t mm_alloc_id(void)
{
	mm_id_t id = MM_ID_MIN;
	bool taken;

	do {
		taken = false;
		for (struct mm_struct *m = mm_list; m && !taken; m = m->next_mm)
			taken = m->mm_id == id;
		id += taken;
	} while (taken);
	return id;
}

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = host_calloc(1, sizeof(*mm), "an mm_struct");

	mm->mm_id = mm_alloc_id();
	mm->pgd = hw_pt_alloc(0);
	mm->mm_users = 1;
	asid_new_context(mm);
	mm->next_mm = mm_list;
	mm_list = mm;
	return mm;
}

void switch_mm(struct hw_cpu *cpu, struct mm_struct *mm)
{
	check_and_switch_context(mm, cpu->id);
	hw_cpu_switch_mm(cpu, mm->pgd, mm->context.asid);
	mm->cpumask |= 1ULL << cpu->id;
}

/* exit_mmap: tear everything down with the fullmm gather. */
void mmput(struct mm_struct *mm)
{
	PERF_FUNC();
	struct mmu_gather tlb;

	/* the kernel's walker holds a reference (get_next_mm); the lab's does not */
	if (sim_current_agent && lru_gen_walk_on(mm))
		sim_bug("mmput of an mm an MGLRU aging walk is on: the walk would use it freed");
	/* mm's last user has gone, and its about to be pulled down */
	mm->mm_users = 0;
	mmu_notifier_release(mm);
	mm->fullmm_teardown = true;
	hw_machine.asid_retired[mm->context.asid] = true;
	tlb_gather_mmu_fullmm(&tlb, mm);
	for (struct vm_area_struct *vma = mm->mmap; vma; vma = vma->vm_next)
		unmap_vmas(&tlb, vma, vma->vm_start, vma->vm_end);
	free_pgtables(&tlb, mm, 0, ~0UL);
	tlb_finish_mmu(&tlb);
	free_vmas(mm);
	for (int c = 0; c < hw_machine.nr_agents; c++)
		if (hw_machine.cpu[c].ttbr == mm->pgd)
			hw_cpu_switch_mm(&hw_machine.cpu[c], NULL, 0);
	hw_machine.asid_root[mm->context.asid] = NULL;
	lru_gen_del_mm(mm);
	for (struct mm_struct **p = &mm_list; *p; p = &(*p)->next_mm) {
		if (*p == mm) {
			*p = mm->next_mm;
			break;
		}
	}
	hw_pt_free(mm->pgd);
	mmu_notifier_subscriptions_destroy(mm);
	free(mm);
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	for (struct vm_area_struct *vma = mm->mmap; vma; vma = vma->vm_next)
		if (addr < vma->vm_end)
			return addr >= vma->vm_start ? vma : NULL;
	return NULL;
}

struct vm_area_struct *mmap_anon(struct mm_struct *mm, unsigned long addr,
				 unsigned long len, unsigned long vm_flags,
				 int folio_order, bool pmd_mappable)
{
	struct vm_area_struct *vma, **link = &mm->mmap;

	if (!len || (addr | len) & ~PAGE_MASK)
		return NULL;
	while (*link && (*link)->vm_end <= addr)
		link = &(*link)->vm_next;
	if (*link && (*link)->vm_start < addr + len)
		return NULL; /* overlaps */
	vma = host_calloc(1, sizeof(*vma), "a VMA");
	vma->vm_start = addr;
	vma->vm_end = addr + len;
	vma->vm_mm = mm;
	/* anonymous memory: page offsets are virtual page numbers */
	vma->vm_pgoff = addr >> PAGE_SHIFT;
	vma->vm_flags = vm_flags;
	vma->vm_page_prot = arch->vm_get_page_prot(vm_flags);
	vma->folio_order = folio_order;
	vma->pmd_mappable = pmd_mappable;
	vma->vm_next = *link;
	*link = vma;
	mm->nr_vmas++;
	return vma;
}
