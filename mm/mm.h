/* SPDX-License-Identifier: GPL-2.0-only */
/* Core-mm entry points: address spaces, faults, zap, munmap. */
#ifndef PTELAB_MM_MM_H
#define PTELAB_MM_MM_H

#include "arch/pgtable.h"
#include "include/mm_types.h"
#include "mm/mmu_gather.h"
#include "include/page.h"

struct hw_cpu;

/* mm_struct lifetime and ASIDs */
struct mm_struct *mm_alloc(void); /* never NULL (host OOM exits) */
void mmput(struct mm_struct *mm); /* exit_mmap + free */
void switch_mm(struct hw_cpu *cpu, struct mm_struct *mm);
/* Machine reset of core-mm state (ASIDs, live mms, mlock/LRU batches, page-cache counts). */
void mm_reset(void);
/*
 * No mm alive and every frame free: ASIDs from 1, frames and per-CPU
 * batches as on a fresh machine, so what runs next runs the same whatever
 * ran before (a fuzz sequence alone and after others). false if not idle.
 */
bool mm_restart(void);
void mlock_reset(void);

/* VMAs */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);
struct vm_area_struct *mmap_anon(struct mm_struct *mm, unsigned long addr,
				 unsigned long len, unsigned long vm_flags,
				 int folio_order, bool pmd_mappable);
int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len);
struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig);
void remove_vma(struct vm_area_struct *vma);
struct vm_area_struct *vma_split_range(struct mm_struct *mm, unsigned long start,
				       unsigned long end);

/* fork (mm/fork.c), mprotect, madvise */
struct mm_struct *dup_mm(struct mm_struct *oldmm);
int do_mprotect(struct mm_struct *mm, unsigned long start, unsigned long len,
		unsigned long vm_flags);
#define MADV_DONTNEED 4
#define MADV_FREE 8
#define MADV_COLD 20
#define MADV_PAGEOUT 21
int do_madvise(struct mm_struct *mm, unsigned long start, unsigned long len, int advice);
/* mremap(old_addr, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, new_addr) (mm/mremap.c); -1 if refused */
int do_mremap_fixed(struct mm_struct *mm, unsigned long old_addr, unsigned long len,
		    unsigned long new_addr);

/* mlock (mm/mlock.c) and GUP (mm/gup.c) */
int do_mlock(struct mm_struct *mm, unsigned long start, unsigned long len, bool lock);
/* a folio onto / off the unevictable list (mm/internal.h's, as the lab has them) */
void mlock_folio(struct folio *folio);
void munlock_folio(struct folio *folio);
long populate_vma_page_range(struct vm_area_struct *vma, unsigned long start,
			     unsigned long end);
#define FOLL_WRITE 0x1 /* the pages will be written: break COW, fault for write */
#define FOLL_TOUCH 0x2 /* mark them accessed (and dirty for FOLL_WRITE) */
#define FOLL_GET 0x4   /* take a reference on each page returned */
long get_user_pages_remote(struct mm_struct *mm, unsigned long start, unsigned long nr_pages,
			   unsigned int gup_flags, struct page **pages, int *locked);
bool get_user_page_fast_only(struct mm_struct *mm, unsigned long addr, unsigned int gup_flags,
			     struct page **pagep);

/* page tables */
#define PMD_SIZE SZ_2M
#define PMD_MASK (~(PMD_SIZE - 1))
/* include/linux/pgtable.h: the end of addr's PMD, or end if sooner */
static inline unsigned long pmd_addr_end(unsigned long addr, unsigned long end)
{
	unsigned long boundary = (addr + PMD_SIZE) & PMD_MASK;

	return boundary - 1 < end - 1 ? boundary : end;
}
pmd_t *pmd_alloc_walk(struct mm_struct *mm, unsigned long addr);
pmd_t *pmd_walk(struct mm_struct *mm, unsigned long addr);
/* addr's PTE slot, NULL if no PTE table maps it (none, or a PMD leaf); no lock, no event */
pte_t *pte_lookup(struct mm_struct *mm, unsigned long addr);
pte_t *pte_alloc_map(struct mm_struct *mm, pmd_t *pmdp);
pte_t *pte_offset_map_lock(struct mm_struct *mm, pmd_t *pmdp, unsigned long addr,
			   spinlock_t **ptlp);
void pte_unmap_unlock(pte_t *ptep, spinlock_t *ptl);
/* the entry and its table's lock without taking it; then spin_lock() of that lock */
pte_t *pte_offset_map_nolock(struct mm_struct *mm, pmd_t *pmdp, unsigned long addr,
			     spinlock_t **ptlp);
void pte_spin_lock(spinlock_t *ptl);
bool pte_spin_trylock(spinlock_t *ptl);
/* The split PTE lock as a lock on the sim engine (mm/ptlock.c); counted only elsewhere. */
struct pt_meta;
void ptlock_lock(const struct pt_meta *meta);
bool ptlock_trylock(const struct pt_meta *meta);
bool ptlock_contended(const struct pt_meta *meta);
void ptlock_unlock(const struct pt_meta *meta);
/* spin_trylock'ed pte_offset_map_lock: NULL if the table is absent or its lock is held */
pte_t *pte_offset_map_trylock(struct mm_struct *mm, pmd_t *pmdp, unsigned long addr,
			      spinlock_t **ptlp);
/* spin_is_contended(ptl) of a lock pte_offset_map_lock returned */
bool pte_lock_contended(spinlock_t *ptl);
bool ptlock_any_held(void);
bool ptlock_held_by_current(void);
void ptlock_exit(void);
pte_t *pte_offset_map(pmd_t *pmdp, unsigned long addr);
void free_pgtables(struct mmu_gather *tlb, struct mm_struct *mm,
		   unsigned long floor, unsigned long ceiling);

/* faults (include/linux/mm_types.h, mm.h) */
#define FAULT_FLAG_WRITE 0x1
typedef unsigned int vm_fault_t;
#define VM_FAULT_OOM		0x000001
#define VM_FAULT_SIGBUS		0x000002
#define VM_FAULT_SIGSEGV	0x000040
#define VM_FAULT_NOPAGE		0x000100
#define VM_FAULT_ERROR		(VM_FAULT_OOM | VM_FAULT_SIGBUS | VM_FAULT_SIGSEGV)

/* What a fault handler is working on, passed down the fault path. */
struct vm_fault {
	struct vm_area_struct *vma;
	unsigned long address;     /* faulting address, page aligned */
	unsigned long real_address;
	unsigned long pgoff;       /* logical page offset in the VMA */
	unsigned int flags;        /* FAULT_FLAG_* */
	pmd_t *pmd;
	pte_t orig_pte;            /* the entry the fault was taken on */
	pte_t *pte;
	spinlock_t *ptl;
};

vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long address,
			   unsigned int flags);
/* One simulated load/store by a CPU, faulting memory in as needed. */
int access_user(struct hw_cpu *cpu, struct mm_struct *mm, unsigned long addr,
		bool write);

/* batching */
/* mm/internal.h (7.3): what folio_pte_batch_flags() compares and merges */
typedef int fpb_t;
#define FPB_RESPECT_DIRTY 0x1      /* batches do not mix clean and dirty */
/* include/linux/mm.h: change_protection()'s cp_flags */
#define MM_CP_TRY_CHANGE_WRITABLE (1UL << 0)
#define FPB_RESPECT_SOFT_DIRTY 0x2 /* (no soft-dirty in the lab: nothing to respect) */
#define FPB_RESPECT_WRITE 0x4      /* batches do not mix writable and read-only */
#define FPB_MERGE_WRITE 0x8        /* *ptentp becomes writable if any entry is */
#define FPB_MERGE_YOUNG_DIRTY 0x10 /* *ptentp young/dirty if any entry is */
unsigned int folio_pte_batch_flags(struct folio *folio, struct vm_area_struct *vma,
				   pte_t *ptep, pte_t *ptentp, unsigned int max_nr, fpb_t flags);
/* mm/util.c (7.3): the batch with nothing respected or merged */
unsigned int folio_pte_batch(struct folio *folio, pte_t *ptep, pte_t pte, unsigned int max_nr);

/* zap */
void unmap_vmas(struct mmu_gather *tlb, struct vm_area_struct *vma,
		unsigned long start, unsigned long end);
unsigned long zap_pte_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
			    pmd_t *pmdp, unsigned long addr, unsigned long end);

/* rmap */
void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long address);
void folio_remove_rmap_ptes(struct folio *folio, struct page *page, int nr,
			    struct vm_area_struct *vma);
void deferred_split_folio(struct folio *folio);
/* a large folio's mapcount and its mm ids (a PMD mapping's too) */
void folio_set_large_mapcount(struct folio *folio, int mapcount, struct vm_area_struct *vma);
void folio_sub_large_mapcount(struct folio *folio, int diff, struct vm_area_struct *vma);
#define folio_remove_rmap_pte(folio, page, vma) \
	folio_remove_rmap_ptes(folio, page, 1, vma)
/* fork: dst_vma (the child's) gains the mappings */
void folio_dup_anon_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma);
void folio_add_file_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma);

/* freeing and the LRU */
void folios_put_refs_one(struct folio *folio, int refs);
void folios_put(struct folio **folios, unsigned int nr);
void folio_add_lru(struct folio *folio);
void folio_add_lru_locked(struct folio *folio);
void folio_add_lru_vma(struct folio *folio, struct vm_area_struct *vma);
void lru_del_folio(struct folio *folio);
void free_pages_and_swap_cache(struct encoded_page **pages, int nr);

/* invariants over everything mm knows (every live mm; the argument is
 * kept for call sites that think of one) */
extern struct mm_struct *mm_list;
void mm_check_invariants(struct mm_struct *mm);
/* The writable entries of [start, end) only (both rules of mm_check_invariants' walk). */
void mm_check_writable(struct mm_struct *mm, unsigned long start, unsigned long end);
void mm_check_all_freed(void);
/* Pages mapped by present entries, walked from the page tables (no events). */
u64 mm_count_present_pages(const struct mm_struct *mm);
/* mm->rss must equal that walk; a VIOL_OTHER violation otherwise. */
void mm_check_rss(const struct mm_struct *mm);

#endif
