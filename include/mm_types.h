/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct mm_struct and struct vm_area_struct, with the kernel's field
 * names for the fields arch code (and a kernel's contpte.c) looks at.
 */
#ifndef PTELAB_INCLUDE_MM_TYPES_H
#define PTELAB_INCLUDE_MM_TYPES_H

#include "include/pte_types.h"

struct address_space;
struct anon_vma;
struct mmu_notifier_subscriptions;

/* The split PTE lock of a page-table page; the lab counts who holds it. */
typedef int spinlock_t;
struct vm_area_struct;

/*
 * CPUs of this mm's threads that the lab runs outside hw_machine's CPUs
 * (a VMM's vCPU threads): they are in the kernel's mm_cpumask too, so an
 * x86 TLB shootdown of the mm IPIs those that are running. ipi() sends
 * one to each (a vCPU in guest mode exits for it) and says how many.
 */
struct mm_thread_cpus {
	unsigned int (*ipi)(struct mm_thread_cpus *tc);
};

typedef struct {
	u64 id;   /* ASID generation and ASID (arch/asid.c) */
	u16 asid; /* the ASID: what the TLBs are tagged with */
} mm_context_t;

struct mm_struct {
	u64 *pgd;
	mm_context_t context;
	unsigned int mm_id;            /* mm_id_t: the smallest free id >= MM_ID_MIN (the kernel's IDA) */
	struct vm_area_struct *mmap;   /* VMAs sorted by address */
	u64 cpumask;                   /* CPUs that ran this mm (x86 IPIs) */
	struct mm_thread_cpus *thread_cpus; /* NULL: none beyond cpumask */
	int mm_users;                  /* its users: 1 until mmput() (no threads in the lab) */
	long rss;                      /* pages mapped */
	long pgtables_bytes;
	int nr_vmas;
	bool fullmm_teardown;          /* exit_mmap in progress */
	struct mm_struct *next_mm;     /* all live mms, for invariant sweeps */
	int lru_gen_walks;             /* MGLRU aging walks on it now */
	/* secondary MMUs (KVM) following this mm; NULL: none */
	struct mmu_notifier_subscriptions *notifier_subscriptions;
};

/*
 * include/linux/mm_types.h (7.x): the VMA's flags as a bitmap of one word,
 * the same bits as vm_flags (the kernel's union, while it converts).
 */
typedef struct {
	unsigned long __vma_flags[1];
} vma_flags_t;

#define VM_READ 0x1UL
#define VM_WRITE 0x2UL
#define VM_EXEC 0x4UL
#define VM_SHARED 0x8UL
#define VM_LOCKED 0x2000UL

struct vm_area_struct {
	unsigned long vm_start, vm_end;
	struct mm_struct *vm_mm;
	pgprot_t vm_page_prot;
	union {
		unsigned long vm_flags;
		vma_flags_t flags;
	};
	struct vm_area_struct *vm_next;
	struct address_space *vm_file_mapping; /* NULL: anonymous */
	unsigned long vm_pgoff;
	int folio_order;                       /* mTHP size for faults */
	bool pmd_mappable;                     /* 2M folios may be PMD-mapped */
	/*
	 * The anon_vma new anonymous folios of this VMA point to, and every
	 * anon_vma whose folios it may map (its anon_vma_chain: its own and,
	 * after fork, its ancestors').
	 */
	struct anon_vma *anon_vma;
	struct anon_vma **anon_vma_chain;
	int nr_anon_vma_chain;
};

#endif
