/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Forced first into a kernel's arch/arm64/mm/contpte.c (-include), so the
 * file compiles unchanged against ptelab: kernel spellings on top of
 * ptelab's arm64 pte layout, raw operations and TLB maintenance. The
 * build passes what it detected in the tree:
 *   PTELAB_KVER          VERSION * 65536 + PATCHLEVEL * 256 + SUBLEVEL
 *   PTELAB_TLBF          __flush_tlb_range takes (level, tlbf_t flags)
 *   PTELAB_BATCHED_YOUNG contpte_*_young_ptes instead of contpte_ptep_*young
 *   PTELAB_MKCONT_TYPE_PAGE  pte_mkcont also sets the page type bits
 */
#ifndef PTELAB_KERNEL_SHIM_H
#define PTELAB_KERNEL_SHIM_H

#define PTELAB_SHIM 1

#include "arch/arm64/raw.h"
#include "mm/page.h"

#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + (c))

/* compiler and generic kernel macros */
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#define noinline __attribute__((__noinline__))
#define __bitwise
#define __force
#define __maybe_unused __attribute__((__unused__))
#define BIT(n) (1UL << (n))
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define PTR_ALIGN_DOWN(p, a) ((__typeof__(p))ALIGN_DOWN((unsigned long)(p), (a)))
#define PTR_ALIGN(p, a) ((__typeof__(p))ALIGN((unsigned long)(p), (a)))

/* A kernel WARN is a lab violation: the code asserted something false. */
void ptelab_kernel_warn(const char *file, int line, const char *cond);
#define WARN_ON(c) ({ bool __c = !!(c); if (unlikely(__c)) ptelab_kernel_warn(__FILE__, __LINE__, #c); __c; })
#define WARN_ON_ONCE(c) WARN_ON(c)
#define VM_WARN_ON(c) ((void)WARN_ON(c))
#define VM_WARN_ON_ONCE(c) ((void)WARN_ON(c))
#define VM_BUG_ON(c) ((void)WARN_ON(c))
#define BUG_ON(c) ((void)WARN_ON(c))

/* CPU features, from the simulated machine */
bool ptelab_hw_bbml2(void);
bool system_supports_tlb_range(void);
static inline bool system_supports_bbml2_noabort(void) { return ptelab_hw_bbml2(); }
static inline bool system_supports_bbml3(void) { return ptelab_hw_bbml2(); }
static inline bool lpa2_is_enabled(void) { return false; }
static inline bool system_supports_mte(void) { return false; }

/* pages and folios: ptelab's struct page, one per simulated frame */
#define pte_page(pte) pfn_to_page(pte_pfn(pte))

/* the kernel's own mm: contpte only manages user mms */
extern struct mm_struct init_mm;

/* the dispatcher inline contpte.c calls, and its own prototypes */
void __contpte_try_fold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte);
void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte);

static inline void contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
				      pte_t *ptep, pte_t pte)
{
	if (unlikely(pte_valid_cont(pte)))
		__contpte_try_unfold(mm, addr, ptep, pte);
}

pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte);
pte_t contpte_ptep_get_lockless(pte_t *orig_ptep);
void contpte_set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		      pte_t pte, unsigned int nr);
void contpte_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
			     pte_t *ptep, unsigned int nr, int full);
pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				      pte_t *ptep, unsigned int nr, int full);
#ifdef PTELAB_BATCHED_YOUNG
bool contpte_test_and_clear_young_ptes(struct vm_area_struct *vma,
				       unsigned long addr, pte_t *ptep,
				       unsigned int nr);
bool contpte_clear_flush_young_ptes(struct vm_area_struct *vma,
				    unsigned long addr, pte_t *ptep,
				    unsigned int nr);
#else
int contpte_ptep_test_and_clear_young(struct vm_area_struct *vma,
				      unsigned long addr, pte_t *ptep);
int contpte_ptep_clear_flush_young(struct vm_area_struct *vma,
				   unsigned long addr, pte_t *ptep);
#endif
void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr,
			    pte_t *ptep, unsigned int nr);
void contpte_clear_young_dirty_ptes(struct vm_area_struct *vma,
				    unsigned long addr, pte_t *ptep,
				    unsigned int nr, cydp_t flags);
int contpte_ptep_set_access_flags(struct vm_area_struct *vma,
				  unsigned long addr, pte_t *ptep,
				  pte_t entry, int dirty);

#endif
