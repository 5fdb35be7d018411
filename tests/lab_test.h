/* SPDX-License-Identifier: GPL-2.0-only */
/* A small machine with one mm for tests: map, touch, look at entries. */
#ifndef PTELAB_TESTS_LAB_TEST_H
#define PTELAB_TESTS_LAB_TEST_H

#include <string.h>

#include "lab/switches.h"
#include "hw/cpu.h"
#include "hw/invariants.h"
#include "hw/pgtable_mem.h"
#include "mm/mm.h"
#include "workloads/workload.h"

#define T_BASE 0x40000000UL
#define SZ_16K_T 0x4000UL
#define SZ_128K_T 0x20000UL
#define SZ_256K_T 0x40000UL
#define SZ_1M_T 0x100000UL

/* pte_mknoncont for arch-neutral test code (arm64 bit 52). */
static inline pte_t pte_mknoncont_t(pte_t pte)
{
	return __pte(pte_val(pte) & ~(1ULL << 52));
}

struct t_lab {
	struct mm_struct *mm;
	struct vm_area_struct *vma;
	struct hw_cpu *cpu;
};

static inline bool t_setup_impl(struct t_lab *t, const char *impl,
				const char *arch_name, u64 size, u64 folio_size,
				enum hw_cont_policy policy)
{
	struct run_params p = {
		.arch = arch_name, .impl = impl, .nr_cpus = 2, .seed = 42,
		.policy = policy, .tlb_entries = 256, .tlb_ways = 4, .hafdbs = true,
	};
	char err[200];
	int order = 0;

	while ((PAGE_SIZE << order) < folio_size)
		order++;
	lab_switches_reset();
	if (lab_machine_setup(&p, (size >> PAGE_SHIFT) * 2 + 8192, err, sizeof(err))) {
		printf("    # setup failed: %s\n", err);
		return false;
	}
	t->cpu = &hw_machine.cpu[0];
	t->mm = mm_alloc();
	t->vma = mmap_anon(t->mm, T_BASE, size, VM_READ | VM_WRITE, order, false);
	switch_mm(t->cpu, t->mm);
	return true;
}

static inline void t_setup(struct t_lab *t, const char *arch_name, u64 size,
			   u64 folio_size, enum hw_cont_policy policy)
{
	t_setup_impl(t, "ref", arch_name, size, folio_size, policy);
}

static inline void t_touch(struct t_lab *t, u64 off, u64 len, bool write)
{
	for (u64 a = off; a < off + len; a += PAGE_SIZE)
		access_user(t->cpu, t->mm, T_BASE + a, write);
}

static inline pte_t *t_ptep(struct t_lab *t, u64 off)
{
	return pte_offset_map(pmd_walk(t->mm, T_BASE + off), T_BASE + off);
}

static inline void t_teardown(struct t_lab *t)
{
	mmput(t->mm);
	lab_machine_teardown();
}

#endif
