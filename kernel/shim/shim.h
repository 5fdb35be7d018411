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
 *   PTELAB_DISPATCH_BLOCK    "file" holding the tree's dispatcher block
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

/*
 * Kernel-only helpers the dispatcher block mentions (ptep_try_set() and
 * flush_tlb_before_set() serve kernel mappings, which the lab has none of).
 */
#define try_cmpxchg(ptr, oldp, new) \
	__atomic_compare_exchange_n((ptr), (oldp), (new), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
static inline void emit_pte_barriers(void) { }
static inline void flush_tlb_kernel_range(unsigned long start, unsigned long end)
{
	ptelab_kernel_warn(__FILE__, __LINE__, "flush_tlb_kernel_range: no kernel mappings in the lab");
}

/*
 * The tree's own public PTE API: its asm/pgtable.h CONFIG_ARM64_CONTPTE
 * block (the dispatchers and contpte_* prototypes), or the #else block
 * for a kernel without contpte, as the build extracted them.
 */
#ifdef PTELAB_DISPATCH_BLOCK
#include PTELAB_DISPATCH_BLOCK
#endif

#endif
