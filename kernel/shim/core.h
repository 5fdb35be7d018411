/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Forced first into a tree's extracted core-mm functions (kernel/extract.c,
 * the roots of kernel/core_roots.c): kernel spellings on top of ptelab's
 * own mm/ headers, so the tree's zap path runs in the twin's frame: its
 * PTE API calls go through arch/pgtable.h's wrappers (counters, oracle,
 * postconditions), its rmap, mmu_gather and locks are ptelab's. What the
 * lab does differently from the kernel at this boundary says so here;
 * kernel/core_roots.c gives each boundary name its reason. Built with
 *   PTELAB_KVER   VERSION * 65536 + PATCHLEVEL * 256 + SUBLEVEL
 */
#ifndef PTELAB_KERNEL_SHIM_CORE_H
#define PTELAB_KERNEL_SHIM_CORE_H

#define PTELAB_SHIM_CORE 1

#include <stdlib.h>
#include <string.h>

#include "mm/mm.h"
#include "mm/mmu_gather.h"
#include "mm/swap.h"
#include "mm/mmu_notifier.h"
#include "mm/reclaim.h"
#include "mm/rmap.h"
#include "kernel/shim/dup.h"
#include "kernel/shim/lab.h"
#include "hw/host.h"

/* include/linux/kconfig.h: IS_ENABLED() of what the lab's kernel has */
#define __ARG_PLACEHOLDER_1 0,
#define __take_second_arg(__ignored, val, ...) val
#define __is_defined(x) ___is_defined(x)
#define ___is_defined(val) ____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk) __take_second_arg(arg1_or_junk 1, 0)
#define IS_ENABLED(option) __is_defined(option)
#define CONFIG_MMU 1
#define CONFIG_SMP 1 /* tlb_delay_rmap(): the SMP kernel's delayed rmap */
#define CONFIG_MMU_NOTIFIER 1 /* secondary MMUs follow the lab's mms (S3) */
#define CONFIG_LRU_GEN 1 /* the multi-gen LRU (--lru mglru) */
#define CONFIG_LRU_GEN_WALKS_MMU 1 /* its aging walks page tables (arm64 and x86 set young in hardware) */

/* include/linux/compiler*.h, printk.h: what the lab needs none of */
#define __must_check
#define __meminit
#define __read_mostly
#define pr_alert(...) ((void)0)
#define pr_err(...) ((void)0)
#define EXPORT_SYMBOL(x)
#define EXPORT_SYMBOL_GPL(x)

/* include/linux/minmax.h, mmdebug.h */
#define min_t(type, x, y) ((type)(x) < (type)(y) ? (type)(x) : (type)(y))
#define max_t(type, x, y) ((type)(x) > (type)(y) ? (type)(x) : (type)(y))
/*
 * CONFIG_DEBUG_VM: in check's workloads (mm_debug_vm, mm/core.h) a
 * VM_WARN_ON*()/VM_BUG_ON*() condition is checked, as a kernel
 * developer's test kernel does, but costs nothing, as in the
 * distributions' kernels the lab's counts model: its PTE reads (move_ptes'
 * "new entry is none") leave no event, modelled time, call count, cache
 * line or interleaving point. Measured workloads skip it, as those
 * kernels do (the snapshot would cost more than the code around it).
 */
#include "arch/pte_op_calls.h"
/* mm/core.h's (not included here: the unit renames its members' names, the roots) */
extern bool mm_debug_vm;
#include "hw/cache.h"
#include "hw/interleave.h"
struct ptelab_uncounted {
	struct hw_counters events;
	u64 cost;
	u64 calls[NR_PTE_OPS][2];
	bool cache, interleave;
};
static inline void ptelab_uncounted_begin(struct ptelab_uncounted *u)
{
	u->events = hw_events;
	u->cost = hw_cost_acc;
	memcpy(u->calls, pte_op_calls, sizeof(u->calls));
	u->cache = hw_cache_on;
	u->interleave = hw_interleave.on;
	hw_cache_on = false;
	hw_interleave.on = false;
}
static inline void ptelab_uncounted_end(const struct ptelab_uncounted *u)
{
	hw_events = u->events;
	hw_cost_acc = u->cost;
	memcpy(pte_op_calls, u->calls, sizeof(u->calls));
	hw_cache_on = u->cache;
	hw_interleave.on = u->interleave;
}
#define PTELAB_DEBUG_VM(c) ({							\
	bool __c = false;							\
	if (unlikely(mm_debug_vm)) {						\
		struct ptelab_uncounted __u;					\
		ptelab_uncounted_begin(&__u);					\
		__c = !!(c);							\
		ptelab_uncounted_end(&__u);					\
		if (unlikely(__c))						\
			ptelab_kernel_warn(__FILE__, __LINE__, #c);		\
	}									\
	__c; })
#undef VM_WARN_ON
#undef VM_WARN_ON_ONCE
#undef VM_BUG_ON
#define VM_WARN_ON(c) ((void)PTELAB_DEBUG_VM(c))
#define VM_WARN_ON_ONCE(c) ((void)PTELAB_DEBUG_VM(c))
#define VM_BUG_ON(c) ((void)PTELAB_DEBUG_VM(c))
#define VM_WARN_ON_FOLIO(c, folio) VM_WARN_ON(c)
#define VM_WARN_ON_ONCE_FOLIO(c, folio) VM_WARN_ON(c)
#define VM_BUG_ON_FOLIO(c, folio) VM_WARN_ON(c)
#define VM_BUG_ON_PAGE(c, page) VM_WARN_ON(c)
/*
 * folio_pte_batch_flags() warns if *ptentp points into a page table
 * (virt_addr_valid && PageTable): the lab's callers pass stack copies, and
 * page-table memory is not in a linear map it could ask.
 */
#define virt_addr_valid(p) false
#define virt_to_page(p) ((struct page *)NULL)
#define PageTable(page) false

/* include/linux/pgtable.h (6.6+): pte_mkwrite() takes the VMA */
#define pte_mkwrite(pte, vma) (pte_mkwrite)(pte)

/* include/linux/sched.h: kernel code here never sleeps or is preempted */
static inline bool need_resched(void) { return false; }
static inline void cond_resched(void) { }

/* include/linux/mm_types.h: rss counters (the lab keeps one total, mm->rss) */
enum { MM_FILEPAGES, MM_ANONPAGES, MM_SWAPENTS, MM_SHMEMPAGES, NR_MM_COUNTERS };
typedef unsigned int __bitwise zap_flags_t;

/* include/linux/mm.h */
static inline void add_mm_counter(struct mm_struct *mm, int member, long value)
{
	if (member != MM_SWAPENTS)
		mm->rss += value;
}

static inline int mm_counter_file(struct folio *folio)
{
	return folio_test_swapbacked(folio) ? MM_SHMEMPAGES : MM_FILEPAGES;
}

static inline int mm_counter(struct folio *folio)
{
	return folio_test_anon(folio) ? MM_ANONPAGES : mm_counter_file(folio);
}

static inline bool vma_is_anonymous(struct vm_area_struct *vma)
{
	return !vma->vm_file_mapping;
}

/* No VM_SEQ_READ/VM_RAND_READ/FMODE_NOREUSE in the lab: every VMA has recency. */
static inline bool vma_has_recency(struct vm_area_struct *vma)
{
	return true;
}

/*
 * The lab's folios: a file folio dirtied at zap is the page cache's to
 * write back (the lab has no ->dirty_folio), an accessed one is
 * referenced (folio_mark_accessed's activation is the LRU's business:
 * ptelab's twin does the same at this point).
 */
#define folio_mark_dirty(folio) (folio_set_dirty(folio), true)
#define folio_mark_accessed(folio) folio_set_referenced(folio)

/* The lab's vm_normal_page(): every present user PTE maps a struct page. */
static inline struct page *vm_normal_page(struct vm_area_struct *vma, unsigned long addr,
					  pte_t pte)
{
	return pfn_to_page(pte_pfn(pte));
}

void ptelab_print_bad_pte(struct vm_area_struct *vma, unsigned long addr, pte_t pte,
			  struct page *page, const char *file, int line);
#define print_bad_pte(vma, addr, pte, page) \
	ptelab_print_bad_pte(vma, addr, pte, page, __FILE__, __LINE__)

static inline void folio_put(struct folio *folio)
{
	folios_put_refs_one(folio, 1);
}

/* include/asm-generic/tlb.h: the kernel's signatures over ptelab's mmu_gather */
#define tlb_remove_tlb_entries(tlb, ptep, nr, address) \
	(tlb_remove_tlb_entries)(tlb, address, nr)
#define tlb_remove_tlb_entry(tlb, ptep, address) \
	(tlb_remove_tlb_entries)(tlb, address, 1)
static inline void tlb_change_page_size(struct mmu_gather *tlb, unsigned int size) { }
#define tlb_delay_rmap(tlb) (((tlb)->delayed_rmap = 1), true)
/* the arch's flush of what a gather collected (asm/tlb.h): the lab's arch */
#define tlb_flush(tlb) arch->tlb_flush(tlb)

/*
 * mm/mmu_gather.c's world: batches are host pages; no page poisoning or
 * init_on_free; one gather per mm at a time (no parallel PTE batching
 * under a shared mmap_lock in the lab), so none is ever nested.
 */
#define GFP_NOWAIT 0
#define __get_free_page(gfp) ((unsigned long)host_malloc(PAGE_SIZE, "an mmu_gather batch"))
#define free_pages(addr, order) free((void *)(addr))
#define page_poisoning_enabled_static() false
#define want_init_on_free() false
#define inc_tlb_flush_pending(mm) ((void)(mm))
#define dec_tlb_flush_pending(mm) ((void)(mm))
#define mm_tlb_flush_nested(mm) ((void)(mm), false)

/* include/linux/pgtable.h: lazy MMU mode (7.3's names) and per-arch hooks */
#define lazy_mmu_mode_enable() arch_enter_lazy_mmu_mode()
#define lazy_mmu_mode_disable() arch_leave_lazy_mmu_mode()
static inline void arch_check_zapped_pte(struct vm_area_struct *vma, pte_t pte) { }
static inline pte_t pte_clear_soft_dirty(pte_t pte) { return pte; }
static inline bool pte_soft_dirty(pte_t pte) { return false; }
static inline pte_t pte_mksoft_dirty(pte_t pte) { return pte; }
static inline void ksm_might_unmap_zero_page(struct mm_struct *mm, pte_t pte) { }

/* include/linux/userfaultfd_k.h: no userfaultfd in the lab */
static inline bool uffd_supports_wp_marker(void) { return false; }
static inline bool userfaultfd_wp(struct vm_area_struct *vma) { return false; }
static inline bool userfaultfd_pte_wp(struct vm_area_struct *vma, pte_t pte) { return false; }
static inline bool pte_uffd(pte_t pte) { return false; }
static inline bool pte_swp_uffd_any(pte_t pte) { return false; }
typedef unsigned long pte_marker;
#define PTE_MARKER_UFFD_WP 1UL
#define PTE_MARKER_POISONED 2UL
#define PTE_MARKER_GUARD 4UL

/*
 * Non-present entries (include/linux/leafops.h, swapops.h): the lab never
 * writes one into a user page table (anonymous memory is not swapped,
 * shmem's swap entries live in the page cache), so each decodes as no
 * known kind and the tree's own "unrecognized swap entry" WARN reports
 * one if it ever appears. Clearing one is a violation too.
 */
typedef struct { unsigned long val; } softleaf_t;
static inline softleaf_t softleaf_from_pte(pte_t pte) { return (softleaf_t){ pte_val(pte) }; }
#define SOFTLEAF_NONE(name) \
	static inline bool softleaf_is_##name(softleaf_t e) { return false; }
SOFTLEAF_NONE(device_private)
SOFTLEAF_NONE(device_exclusive)
SOFTLEAF_NONE(swap)
SOFTLEAF_NONE(migration)
SOFTLEAF_NONE(uffd_wp_marker)
SOFTLEAF_NONE(guard_marker)
SOFTLEAF_NONE(hwpoison)
SOFTLEAF_NONE(poison_marker)
static inline struct page *softleaf_to_page(softleaf_t e) { return NULL; }
static inline struct folio *softleaf_to_folio(softleaf_t e) { return NULL; }
static inline pte_t make_pte_marker(pte_marker m) { return __pte(0); }
void ptelab_kernel_unsupported(const char *file, int line, const char *what);
#define swap_put_entries_direct(entry, nr) \
	ptelab_kernel_unsupported(__FILE__, __LINE__, "swap_put_entries_direct: no swap PTEs")
#define swap_pte_batch(ptep, max_nr, pte) \
	(ptelab_kernel_unsupported(__FILE__, __LINE__, "swap_pte_batch: no swap PTEs"), 1)
#define clear_nonpresent_ptes(mm, addr, ptep, nr) \
	ptelab_kernel_unsupported(__FILE__, __LINE__, "clear_nonpresent_ptes: no non-present PTEs")

/*
 * The same, as 6.x spells it (include/linux/swapops.h): no entry is a
 * genuine swap entry (non_swap_entry() is true) and none is of a kind
 * the tree knows, so its zap_pte_range warns about an unrecognized one.
 */
static inline swp_entry_t pte_to_swp_entry(pte_t pte) { return (swp_entry_t){ pte_val(pte) }; }
static inline bool non_swap_entry(swp_entry_t e) { return true; }
#define SWP_NONE(name) static inline bool name(swp_entry_t e) { return false; }
SWP_NONE(is_device_private_entry)
SWP_NONE(is_device_exclusive_entry)
SWP_NONE(is_migration_entry)
SWP_NONE(pte_marker_entry_uffd_wp)
SWP_NONE(is_hwpoison_entry)
SWP_NONE(is_poisoned_swp_entry)
static inline struct page *pfn_swap_entry_to_page(swp_entry_t e) { return NULL; }
static inline struct folio *pfn_swap_entry_folio(swp_entry_t e) { return NULL; }
#define free_swap_and_cache_nr(entry, nr) \
	ptelab_kernel_unsupported(__FILE__, __LINE__, "free_swap_and_cache_nr: no swap PTEs")
#define clear_not_present_full_ptes(mm, addr, ptep, nr, full) \
	ptelab_kernel_unsupported(__FILE__, __LINE__, "clear_not_present_full_ptes: no non-present PTEs")
#define pte_install_uffd_wp_if_needed(vma, addr, ptep, pteval) (false)

/*
 * Empty PTE-table reclaim (CONFIG_PT_RECLAIM) is off in the lab, as
 * IS_ENABLED() says: the tree's code for it compiles, and a call is a
 * violation.
 */
#define PT_RECLAIM_OFF(call) \
	(ptelab_kernel_unsupported(__FILE__, __LINE__, #call ": CONFIG_PT_RECLAIM is off"), 0)
#define pmd_lockptr(mm, pmd) ((spinlock_t *)PT_RECLAIM_OFF(pmd_lockptr))
#define pmd_lock(mm, pmd) ((spinlock_t *)PT_RECLAIM_OFF(pmd_lock))
/* a PTE table's lock (MGLRU's walk); a PMD's only with PT_RECLAIM, whose pmd_lockptr() said so */
static inline bool spin_trylock(spinlock_t *l)
{
	return l && pte_spin_trylock(l);
}
/* a PTE table's lock (pte_offset_map_lock's), or a PMD's (pmd_trans_huge_lock's) */
extern spinlock_t ptelab_pmd_lock;
static inline void spin_unlock(spinlock_t *l)
{
	if (l != &ptelab_pmd_lock)
		pte_unmap_unlock(NULL, l);
}
#define spin_lock_nested(l, n) pte_spin_lock(l)
static inline void spin_lock(spinlock_t *l)
{
	if (l != &ptelab_pmd_lock)
		pte_spin_lock(l);
}
/* no preemption in the lab: nobody waits for a lock long enough to ask for a break */
#define spin_needbreak(l) false
#define SINGLE_DEPTH_NESTING 1
#define pmdp_get(pmd) ((void)PT_RECLAIM_OFF(pmdp_get), __pmd(0))
#define pmd_clear(pmd) ((void)PT_RECLAIM_OFF(pmd_clear))
/* the entry and its lock, not taken; the lab's tables cannot change under it */
#define pte_offset_map_rw_nolock(mm, pmd, addr, pmdvalp, ptlp) \
	(*(pmdvalp) = *(pmd), pte_offset_map_nolock(mm, pmd, addr, ptlp))
#define pte_unmap(pte) ((void)0)
#define pte_free_tlb(tlb, table, addr) ((void)PT_RECLAIM_OFF(pte_free_tlb))
#define pmd_pgtable(pmd) ((void *)0)
#define mm_dec_nr_ptes(mm) ((void)0)

/*
 * rmap's walk (mm/rmap.c): ptelab's page_vma_mapped_walk, notifiers and
 * MGLRU look-around at the boundary.
 */
/* include/linux/mm.h (7.x): the VMA-flag bitmap API over the one word */
#define VMA_LOCKED_BIT 13 /* VM_LOCKED */
_Static_assert(VM_LOCKED == 1UL << VMA_LOCKED_BIT, "VMA_LOCKED_BIT is VM_LOCKED's bit");
static inline bool vma_test(const struct vm_area_struct *vma, int bit)
{
	return vma->vm_flags & (1UL << bit);
}
static inline void ptelab_vma_flags_bits(vma_flags_t *f, const int *bits, int n, bool set)
{
	for (int i = 0; i < n; i++)
		f->__vma_flags[0] = set ? f->__vma_flags[0] | (1UL << bits[i])
					: f->__vma_flags[0] & ~(1UL << bits[i]);
}
#define PTELAB_BITS(...) (const int[]){ __VA_ARGS__ }, \
	(int)(sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int))
#define vma_flags_set(f, ...) ptelab_vma_flags_bits(f, PTELAB_BITS(__VA_ARGS__), true)
#define vma_flags_clear(f, ...) ptelab_vma_flags_bits(f, PTELAB_BITS(__VA_ARGS__), false)
static inline void vma_flags_set_mask(vma_flags_t *f, vma_flags_t mask)
{
	f->__vma_flags[0] |= mask.__vma_flags[0];
}

/* include/linux/mm_types.h, mm.h, pagemap.h, minmax.h */
typedef unsigned long vm_flags_t;
typedef unsigned long pgoff_t;
static inline unsigned long vma_pages(const struct vm_area_struct *vma)
{
	return (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
}
static inline bool folio_test_ksm(const struct folio *folio) { return false; }
/*
 * 7.3's VMA page offsets: the lab's anonymous folios take their index from
 * vm_pgoff too (mm/rmap.c's folio_add_new_anon_rmap), so both are vm_pgoff.
 */
static inline pgoff_t vma_start_pgoff(const struct vm_area_struct *vma) { return vma->vm_pgoff; }
static inline pgoff_t vma_start_anon_pgoff(const struct vm_area_struct *vma) { return vma->vm_pgoff; }
#define in_range(val, start, len) ((val) - (start) < (len))
static inline size_t folio_size(const struct folio *folio)
{
	return (size_t)folio_nr_pages(folio) << PAGE_SHIFT;
}

/* include/linux/atomic.h; mm_users: the lab's mms are live until mmput() */
#define atomic_read(v) (*(v))
static inline bool check_stable_address_space(struct mm_struct *mm) { return false; }

/*
 * 6.x's guess before MM ids (include/linux/mm.h, 6.12): more mappings than
 * pages, or the first page mapped twice.
 */
static inline bool folio_likely_mapped_shared(struct folio *folio)
{
	int mapcount = folio_mapcount(folio);

	if (!folio_test_large(folio) || mapcount <= 1)
		return mapcount > 1;
	if (mapcount > folio_nr_pages(folio))
		return true;
	return folio->page._mapcount > 0;
}

/* include/linux/mm_inline.h: the lab's MGLRU switch is a variable; no switching */
#define lru_gen_enabled() (lru_gen_enabled)
static inline bool lru_gen_switching(void) { return false; }

/* the lab ages no PMD-mapped folio through rmap (no THP aging) */
#define pmdp_clear_flush_young_notify(vma, addr, pmdp) \
	(ptelab_kernel_unsupported(__FILE__, __LINE__, "pmdp_clear_flush_young_notify: PMD-mapped aging"), 0)

/* page idle tracking (CONFIG_PAGE_IDLE_FLAG) is off in the lab */
static inline void folio_clear_idle(struct folio *folio) { }
static inline bool folio_test_clear_young(struct folio *folio) { return false; }

/* mlock happens at mlock() in the lab: reclaim never finds a missed one */
static inline void mlock_vma_folio(struct folio *folio, struct vm_area_struct *vma) { }

/*
 * mlock's walk (mm/mlock.c): ptelab's page walk and mlock batch at the
 * boundary. pmd_trans_huge_lock() takes a PMD-mapped folio's PMD lock
 * (counted as the twin counts it), NULL for a PTE table.
 */
#include "mm/pagewalk.h"
static inline spinlock_t *pmd_trans_huge_lock(pmd_t *pmd, struct vm_area_struct *vma)
{
	if (!pmd_leaf(*pmd))
		return NULL;
	hw_count(EV_lock_acquire, 1);
	return &ptelab_pmd_lock;
}
static inline bool pmd_present(pmd_t pmd) { return !pmd_none(pmd); }
static inline bool is_huge_zero_pmd(pmd_t pmd) { return false; }
static inline struct folio *pmd_folio(pmd_t pmd) { return pfn_folio(pmd_pfn(pmd)); }
static inline bool folio_is_zone_device(const struct folio *folio) { return false; }
static inline struct folio *vm_normal_folio(struct vm_area_struct *vma, unsigned long addr,
					    pte_t pte)
{
	struct page *page = vm_normal_page(vma, addr, pte);

	return page ? page_folio(page) : NULL;
}

/*
 * fork's copy (mm/memory.c copy_pte_range): ptelab's rmap at the boundary,
 * which never refuses to share an anonymous page (the lab pins none).
 */
#include <errno.h>
static inline pte_t *pte_alloc_map_lock(struct mm_struct *mm, pmd_t *pmd, unsigned long addr,
					spinlock_t **ptlp)
{
	return pte_alloc_map(mm, pmd) ? pte_offset_map_lock(mm, pmd, addr, ptlp) : NULL;
}
/*
 * 6.x passes (src_vma), 7.x (dst_vma, src_vma); 6.x's file forms no VMA,
 * 7.x's the child's. ptelab's rmap needs the child's VMA (the folio's mm
 * ids): every caller, in both, is fork's copy with it in scope as dst_vma.
 */
#define folio_try_dup_anon_rmap_ptes(folio, page, nr, ...) \
	(folio_dup_anon_rmap_ptes(folio, page, nr, dst_vma, NULL), 0)
#define folio_try_dup_anon_rmap_pte(folio, page, ...) \
	folio_try_dup_anon_rmap_ptes(folio, page, 1, __VA_ARGS__)
#define folio_dup_file_rmap_ptes(folio, page, nr, ...) \
	folio_add_file_rmap_ptes(folio, page, nr, dst_vma)
#define folio_dup_file_rmap_pte(folio, page, ...) \
	folio_add_file_rmap_ptes(folio, page, 1, dst_vma)
static inline void folio_ref_sub(struct folio *folio, int nr)
{
	folio_ref_sub_and_test(folio, nr);
}
/* a private mapping (no VM_MAYWRITE in the lab); 6.x asks with the flags */
static inline bool is_cow_mapping(unsigned long flags)
{
	return !(flags & VM_SHARED);
}
static inline bool vma_is_cow_mapping(struct vm_area_struct *vma)
{
	return is_cow_mapping(vma->vm_flags);
}
/* no soft-dirty tracking in the lab (CONFIG_MEM_SOFT_DIRTY off) */
#define VM_SOFTDIRTY 0UL
static inline bool pgtable_supports_soft_dirty(void) { return false; }
static inline pte_t pte_clear_uffd_wp(pte_t pte) { return pte; }
#define add_swap_count_continuation(entry, gfp) \
	(ptelab_kernel_unsupported(__FILE__, __LINE__, "add_swap_count_continuation: no swap"), -1)
static inline bool userfaultfd_protected(struct vm_area_struct *vma) { return false; }
static inline bool userfaultfd_rwp(struct vm_area_struct *vma) { return false; }
static inline pte_t pte_clear_uffd(pte_t pte) { return pte; }
static inline pte_t pte_swp_clear_uffd(pte_t pte) { return pte; }
static inline softleaf_t softleaf_mk_none(void) { return (softleaf_t){ 0 }; }
#define swap_retry_table_alloc(entry, gfp) \
	(ptelab_kernel_unsupported(__FILE__, __LINE__, "swap_retry_table_alloc: no swap PTEs"), -1)
#define copy_nonpresent_pte(dst_mm, src_mm, dst_pte, src_pte, dst_vma, src_vma, addr, rss) \
	(ptelab_kernel_unsupported(__FILE__, __LINE__, "copy_nonpresent_pte: no non-present PTEs"), 0)
#define copy_present_page(dst_vma, src_vma, dst_pte, src_pte, addr, rss, prealloc, page) \
	(ptelab_kernel_unsupported(__FILE__, __LINE__, "copy_present_page: no pinned pages"), 0)
#define folio_prealloc(src_mm, vma, addr, need_zero) \
	(ptelab_kernel_unsupported(__FILE__, __LINE__, "folio_prealloc: no pinned pages"), \
	 (struct folio *)NULL)
#define GFP_KERNEL 0

/*
 * MGLRU's aging walk (mm/vmscan.c walk_pte_range): the twin's walk
 * (struct lru_gen_mm_walk, mm/reclaim.h), generations and Bloom filters
 * at the boundary. One node, no memcg: every folio is the root
 * lruvec's.
 */
#include "include/sched.h"
#include "mm/mmzone.h"
struct mem_cgroup;
#define lruvec_memcg(lruvec) ((struct mem_cgroup *)NULL)
#define folio_memcg(folio) ((struct mem_cgroup *)NULL)
#define folio_memcg_rcu(folio) ((struct mem_cgroup *)NULL)
#define lruvec_pgdat(lruvec) (&node_data)
#define folio_nid(folio) 0
static inline unsigned long pgdat_end_pfn(const struct pglist_data *pgdat)
{
	return pgdat->node_start_pfn + max_pfn;
}
static inline bool pfn_valid(unsigned long pfn) { return pfn < max_pfn; }
static inline bool is_zero_pfn(unsigned long pfn) { return false; }
static inline bool pte_devmap(pte_t pte) { return false; }
/* no special PTEs (zero page, PFN maps) in the lab, as vm_normal_page() above says */
static inline bool pte_special(pte_t pte) { return false; }
#define rcu_read_lock() ((void)0)
#define rcu_read_unlock() ((void)0)
#define cache_line_size() 64
#define clamp_t(type, v, lo, hi) min_t(type, max_t(type, v, lo), hi)
/* include/linux/mm_inline.h; page.gen is the generation + 1, 0 off the generations */
static inline int lru_gen_from_seq(unsigned long seq) { return (int)(seq % MAX_NR_GENS); }
static inline int folio_lru_gen(const struct folio *folio) { return (int)folio->page.gen - 1; }
static inline bool folio_is_file_lru(const struct folio *folio)
{
	return !folio_test_swapbacked(folio);
}
/* shmem keeps no swap-cache copy in the lab (mm/shmem.c) */
static inline bool folio_test_swapcache(const struct folio *folio) { return false; }
/*
 * folio_update_gen(): the twin's (mm/mglru.c), which takes the seq whose
 * generation gen is: the walk's max_seq. Returns the old generation, or
 * -1 if the folio stayed (isolated by reclaim). 7.3 passes the VMA's flags.
 */
static inline int ptelab_core_folio_update_gen(struct folio *folio, int gen)
{
	unsigned long seq = folio_lruvec(folio)->lrugen.max_seq;
	int old = folio_lru_gen(folio);

	for (int i = 0; i < MAX_NR_GENS && lru_gen_from_seq(seq) != gen; i++)
		seq--;
	if (lru_gen_from_seq(seq) != gen) {
		ptelab_kernel_warn(__FILE__, __LINE__, "folio_update_gen: gen is no generation's");
		return -1;
	}
	return (folio_update_gen(folio, seq) || old == gen) ? old : -1;
}
#define folio_update_gen(folio, gen, ...) ptelab_core_folio_update_gen(folio, gen)
/* the twin's walk counts the folios it moved; its lrugen counts pages by list, not by walk deltas */
#define update_batch_size(walk, folio, old_gen, new_gen) ((void)((walk)->batched++))
/*
 * Look-around without a walk (the kernel's direct reclaim): the lab's
 * reclaimers always carry one (mm/reclaim.h struct reclaim_state), so the
 * tree's code never gets here.
 */
#define lru_gen_set_refs(folio, ...) \
	(ptelab_kernel_unsupported(__FILE__, __LINE__, "lru_gen_set_refs: look-around without a walk"), false)
#define folio_activate(folio) \
	ptelab_kernel_unsupported(__FILE__, __LINE__, "folio_activate: look-around without a walk")
/* ptelab's walk_mm visits the VMAs one by one: a table two VMAs share is walked once for each */
#define get_next_vma(mask, size, args, start, end) false

/*
 * MGLRU's look-around (lru_gen_look_around): the lab's Bloom filters live
 * in the lruvec's lrugen, which stands for its mm_state (ptelab's
 * update_bloom_filter takes the lruvec).
 */
#define lru_gen_mm_state lruvec
#define get_mm_state(lruvec) (lruvec)
#define get_mem_cgroup_from_folio(folio) ((struct mem_cgroup *)NULL)
#define mem_cgroup_lruvec(memcg, pgdat) (&root_lruvec)
#define mem_cgroup_put(memcg) ((void)0)
#define mem_cgroup_trylock_pages(memcg) true
#define mem_cgroup_unlock_pages() ((void)0)
#define folio_pgdat(folio) (&node_data)
#define lockdep_assert_held(l) ((void)0)
#define spin_is_contended(l) pte_lock_contended(l)
/* no VM_IO, VM_PFNMAP, VM_MIXEDMAP or VM_DONTEXPAND mapping in the lab */
#define VM_SPECIAL 0UL
/*
 * The lab's look_around_young_ptes (mm/reclaim.h): the young entries the
 * tree's lru_gen_look_around() found in its window. Its first young test
 * is of the folio rmap found, the ones after it of the window; the entry
 * hooks (kernel/shim/core_entry.c) mark the reclaimer's reclaim_state
 * while it runs (the lab's tasks interleave: the mark is per task).
 */
static inline bool ptelab_look_around_young(bool young, unsigned int nr)
{
	struct reclaim_state *rs = current->reclaim_state;

	if (rs && rs->look_around_tests && rs->look_around_tests++ > 1 && young && rs->stat)
		rs->stat->nr_look_around_young += nr;
	return young;
}
#define test_and_clear_young_ptes_notify(vma, addr, ptep, nr) \
	ptelab_look_around_young((test_and_clear_young_ptes_notify)(vma, addr, ptep, nr), nr)
#define ptep_clear_young_notify(vma, addr, ptep) \
	ptelab_look_around_young((ptep_clear_young_notify)(vma, addr, ptep), 1)

/*
 * Reclaim's unmap (mm/rmap.c try_to_unmap_one): page-cache and lazyfree
 * anonymous folios, flushed at once (no TTU_BATCH_FLUSH), no hugetlb,
 * hwpoison or uffd.
 */
enum ttu_flags {
	TTU_SPLIT_HUGE_PMD = 0x4, TTU_IGNORE_MLOCK = 0x8, TTU_SYNC = 0x10, TTU_HWPOISON = 0x20,
	TTU_BATCH_FLUSH = 0x40, TTU_RMAP_LOCKED = 0x80,
};
/*
 * 6.x and 7.2 handle hugetlb folios and anonymous swap-out inline in
 * try_to_unmap_one: compiled, never reached in the lab (no hugetlb,
 * reclaim unmaps no anonymous folio); each call reports itself, and a
 * discarded argument (mm->mmlist) need not exist in the lab's structs.
 */
#define PTELAB_UNREACHED(what, val) (ptelab_kernel_unsupported(__FILE__, __LINE__, what), val)
struct hstate;
#define hstate_vma(vma) PTELAB_UNREACHED("hstate_vma: no hugetlb", (struct hstate *)NULL)
#define huge_page_size(h) PTELAB_UNREACHED("huge_page_size: no hugetlb", 0UL)
#define adjust_range_if_pmd_sharing_possible(vma, start, end) \
	((void)PTELAB_UNREACHED("adjust_range_if_pmd_sharing_possible: no hugetlb", 0))
#define hugetlb_vma_trylock_write(vma) PTELAB_UNREACHED("hugetlb_vma_trylock_write", false)
#define hugetlb_vma_unlock_write(vma) ((void)PTELAB_UNREACHED("hugetlb_vma_unlock_write", 0))
#define huge_pmd_unshare(tlb, vma, addr, ptep) PTELAB_UNREACHED("huge_pmd_unshare", 0)
#define huge_pmd_unshare_flush(tlb, vma) ((void)PTELAB_UNREACHED("huge_pmd_unshare_flush", 0))
#define huge_ptep_clear_flush(vma, addr, ptep) PTELAB_UNREACHED("huge_ptep_clear_flush", __pte(0))
#define hugetlb_count_sub(nr, mm) ((void)PTELAB_UNREACHED("hugetlb_count_sub", 0))
#define set_huge_pte_at(mm, addr, ptep, pte, ...) ((void)PTELAB_UNREACHED("set_huge_pte_at", 0))
#define hugetlb_remove_rmap(folio) ((void)PTELAB_UNREACHED("hugetlb_remove_rmap", 0))
#define tlb_gather_mmu_vma(tlb, vma) ((void)PTELAB_UNREACHED("tlb_gather_mmu_vma: no hugetlb", 0))
#define unmap_huge_pmd_locked(vma, addr, pmdp, folio) \
	PTELAB_UNREACHED("unmap_huge_pmd_locked: no PMD-mapped page cache", false)
/* MADV_FREE'd: anonymous and no longer swap-backed (on the file LRU) */
static inline bool folio_test_lazyfree(const struct folio *folio)
{
	return folio_test_anon(folio) && !folio_test_swapbacked(folio);
}
#define VM_DROPPABLE 0UL /* no MAP_DROPPABLE in the lab */
/* 6.x reads it before its lazyfree check: a value, unused unless swap-out follows */
#define page_swap_entry(page) ((void)(page), (swp_entry_t){ 0 })
#define folio_dup_swap(folio, page) PTELAB_UNREACHED("folio_dup_swap: no anon swap-out", -1)
#define folio_put_swap(folio, page) ((void)PTELAB_UNREACHED("folio_put_swap", 0))
#define swap_duplicate(entry) PTELAB_UNREACHED("swap_duplicate: no anon swap-out", -1)
#define swap_free(entry) ((void)PTELAB_UNREACHED("swap_free", 0))
#define arch_unmap_one(mm, vma, addr, pte) PTELAB_UNREACHED("arch_unmap_one", -1)
#define folio_try_share_anon_rmap_pte(folio, page) PTELAB_UNREACHED("folio_try_share_anon_rmap_pte", -1)
#define list_empty(l) PTELAB_UNREACHED("list_empty: the mm list of swap-out", false)
/* swapoff's list of mms: only that dead code names it, any member of the lab's mm will do */
#define mmlist rss
extern struct mm_struct init_mm;
#define mmlist_lock ptelab_pmd_lock
#define inc_mm_counter(mm, member) add_mm_counter(mm, member, 1)
#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
static inline pte_t pte_swp_mkexclusive(pte_t pte) { return pte; }
static inline pte_t pte_swp_mksoft_dirty(pte_t pte) { return pte; }
static inline pte_t pte_swp_mkuffd_wp(pte_t pte) { return pte; }
static inline bool pte_swp_soft_dirty(pte_t pte) { return false; }
static inline bool pte_swp_uffd_wp(pte_t pte) { return false; }
static inline bool pte_uffd_wp(pte_t pte) { return false; }
#define flush_cache_page(vma, addr, pfn) ((void)0)
/* 6.12's one-PTE unmap: cleared and flushed (ptep_clear_flush), or cleared alone for a deferred flush */
static inline pte_t ptep_clear_flush(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep)
{
	pte_t pte = get_and_clear_full_ptes(vma->vm_mm, addr, ptep, 1, 0);

	flush_tlb_range(vma, addr, addr + PAGE_SIZE);
	return pte;
}
#define ptep_get_and_clear(mm, addr, ptep) get_and_clear_full_ptes(mm, addr, ptep, 1, 0)

/* include/linux/pgtable.h (7.x) */
#define get_and_clear_ptes(mm, addr, ptep, nr) get_and_clear_full_ptes(mm, addr, ptep, nr, 0)
#define mlock_drain_local() ((void)0)
/* hwpoison (TTU_HWPOISON) is not in the lab: folio_test_hwpoison() is false */
#define make_hwpoison_entry(page) \
	(ptelab_kernel_unsupported(__FILE__, __LINE__, "make_hwpoison_entry: no hwpoison"), (swp_entry_t){ 0 })
static inline pte_t swp_entry_to_pte(swp_entry_t e) { return __pte(e.val); }
#define dec_mm_counter(mm, member) add_mm_counter(mm, member, -1)
#define pte_clear(mm, addr, ptep) \
	ptelab_kernel_unsupported(__FILE__, __LINE__, "pte_clear: no non-present PTEs")
#define should_defer_flush(mm, flags) false
#define set_tlb_ubc_flush_pending(mm, pteval, ...) \
	ptelab_kernel_unsupported(__FILE__, __LINE__, "set_tlb_ubc_flush_pending: no deferred flush")
/* 7.3's ttu_anon_folio and its lazyfree half are the tree's; the lab swaps out no anon folio */
#define ttu_anon_swapbacked_folio(vma, folio, page, address, ptep, pteval) \
	PTELAB_UNREACHED("ttu_anon_swapbacked_folio: reclaim swaps out no anon folio", false)
#define split_huge_pmd_locked(vma, address, pmd, ...) \
	ptelab_kernel_unsupported(__FILE__, __LINE__, "split_huge_pmd_locked: no PMD-mapped page cache")
#define page_vma_mapped_walk_restart(pvmw) \
	ptelab_kernel_unsupported(__FILE__, __LINE__, "page_vma_mapped_walk_restart")
static inline bool folio_test_hugetlb(const struct folio *folio) { return false; }
static inline bool folio_test_hwpoison(const struct folio *folio) { return false; }
static inline bool PageHWPoison(const struct page *page) { return false; }
#define huge_ptep_get(mm, addr, ptep) ptep_get(ptep)
static inline bool pte_unused(pte_t pte) { return false; }
static inline bool userfaultfd_armed(struct vm_area_struct *vma) { return false; }
#define cond_install_uffd_wp_ptes(vma, addr, ptep, pteval, nr) ((void)0)
#define flush_cache_range(vma, start, end) ((void)0)
#define update_hiwater_rss(mm) ((void)0)
#define folio_put_refs(folio, refs) folios_put_refs_one(folio, refs)
static inline unsigned long softleaf_to_pfn(softleaf_t e) { return 0; }

/*
 * mprotect (mm/mprotect.c change_pte_range): arm64's
 * modify_prot_start/commit_ptes are arch/pgtable.h's (the twin's too),
 * the gather's range for the flush; no NUMA hinting,
 * soft-dirty or userfaultfd protection.
 */
#define VMA_WRITE_BIT 1 /* VM_WRITE */
#define VMA_SHARED_BIT 3 /* VM_SHARED */
_Static_assert(VM_WRITE == 1UL << VMA_WRITE_BIT && VM_SHARED == 1UL << VMA_SHARED_BIT,
	       "VMA_*_BIT are VM_*'s bits");
#define MM_CP_PROT_NUMA (1UL << 1)
#define MM_CP_UFFD_WP (1UL << 2)
#define MM_CP_UFFD_WP_RESOLVE (1UL << 3)
#define MM_CP_UFFD_WP_ALL (MM_CP_UFFD_WP | MM_CP_UFFD_WP_RESOLVE)
#define MM_CP_UFFD_RWP (1UL << 4)
#define MM_CP_UFFD_RWP_RESOLVE (1UL << 5)
/* 6.x's one-entry forms (arm64's: the same with nr 1) */
#define ptep_modify_prot_start(vma, addr, ptep) modify_prot_start_ptes(vma, addr, ptep, 1)
#define ptep_modify_prot_commit(vma, addr, ptep, old, pte) \
	modify_prot_commit_ptes(vma, addr, ptep, old, pte, 1)
/* arm64 has no pte_needs_flush(): the generic one flushes every change */
#define pte_needs_flush(oldpte, newpte) true
#define tlb_flush_pte_range(tlb, addr, size) (tlb_remove_tlb_entries)(tlb, addr, (size) >> PAGE_SHIFT)
#define NUMA_NO_NODE (-1)
#define flush_tlb_batched_pending(mm) ((void)0)
static inline bool pte_protnone(pte_t pte) { return false; }
static inline bool pte_needs_soft_dirty_wp(struct vm_area_struct *vma, pte_t pte) { return false; }
static inline pte_t pte_mkuffd(pte_t pte) { return pte; }
static inline bool userfaultfd_wp_use_markers(struct vm_area_struct *vma) { return false; }
#define PAGE_NONE __pgprot(0)
#define vma_is_single_threaded_private(vma) \
	PTELAB_UNREACHED("vma_is_single_threaded_private: no NUMA hinting", false)
#define folio_can_map_prot_numa(folio, vma, single) \
	PTELAB_UNREACHED("folio_can_map_prot_numa: no NUMA hinting", false)
#define change_softleaf_pte(vma, addr, ptep, oldpte, cp_flags) \
	PTELAB_UNREACHED("change_softleaf_pte: no non-present PTEs", 0L)
static inline pte_t pte_mkuffd_wp(pte_t pte) { return pte; }
/* 6.12 handles NUMA hinting and non-present entries inline: compiled, never reached */
#define numa_node_id() 0
#define sysctl_numa_balancing_mode 0
#define NUMA_BALANCING_NORMAL 1
#define NUMA_BALANCING_MEMORY_TIERING 2
#define node_is_toptier(nid) true
#define folio_use_access_time(folio) false
#define folio_xchg_access_time(folio, t) PTELAB_UNREACHED("folio_xchg_access_time: no NUMA hinting", 0)
#define jiffies_to_msecs(j) 0U
#define jiffies 0UL
#define folio_maybe_dma_pinned(folio) false
static inline bool is_swap_pte(pte_t pte) { return !pte_none(pte) && !pte_present(pte); }
#define is_writable_migration_entry(e) false
#define is_writable_device_private_entry(e) false
#define is_writable_device_exclusive_entry(e) false
#define is_pte_marker_entry(e) false
#define swp_offset(e) ((e).val)
#define make_readable_migration_entry(off) PTELAB_UNREACHED("migration entry", (swp_entry_t){ off })
#define make_readable_exclusive_migration_entry(off) \
	PTELAB_UNREACHED("migration entry", (swp_entry_t){ off })
#define make_readable_device_private_entry(off) PTELAB_UNREACHED("device entry", (swp_entry_t){ off })
#define make_readable_device_exclusive_entry(off) PTELAB_UNREACHED("device entry", (swp_entry_t){ off })
static inline pte_t pte_swp_clear_uffd_wp(pte_t pte) { return pte; }
static inline bool PageAnon(const struct page *page) { return folio_test_anon(page_folio((struct page *)page)); }

/*
 * mremap (mm/mremap.c move_ptes): the lab's mremap runs alone (no rmap
 * locks needed), with no userfaultfd or soft-dirty state to carry.
 */
#define take_rmap_locks(vma) ((void)PTELAB_UNREACHED("take_rmap_locks", 0))
#define drop_rmap_locks(vma) ((void)PTELAB_UNREACHED("drop_rmap_locks", 0))
#define vma_has_uffd_without_event_remap(vma) false
#define move_pte(pte, old_addr, new_addr) (pte)
#define move_soft_dirty_pte(pte) (pte)
#define pte_is_uffd_wp_marker(pte) false
#define pte_marker_uffd_wp(pte) false /* 6.x */

/*
 * madvise (mm/madvise.c madvise_cold_or_pageout_pte_range,
 * madvise_free_pte_range): ptelab's LRU, split and reclaim at the
 * boundary; a PMD-mapped folio is left as it is (the THP branch is
 * CONFIG_TRANSPARENT_HUGEPAGE's, off here; madvise_free_huge_pmd says
 * it handled the PMD); the calling process may write every file it maps.
 */
#include "mm/huge_memory.h"
#include "mm/lru.h"
#include "mm/madvise.h"
#define fatal_signal_pending(task) false
#define can_do_file_pageout(vma) ((vma)->vm_file_mapping != NULL)
static inline bool pmd_trans_huge(pmd_t pmd) { return pmd_leaf(pmd); }
#define madvise_free_huge_pmd(tlb, vma, pmd, addr, next) true
#define folio_free_swap(folio) PTELAB_UNREACHED("folio_free_swap: no anon swap cache", false)
#define pte_clear_not_present_full(mm, addr, ptep, full) \
	ptelab_kernel_unsupported(__FILE__, __LINE__, "pte_clear_not_present_full: no non-present PTEs")
/*
 * The tree's folio lists (LIST_HEAD, list_add(&folio->lru, &list)): the
 * pfns of MADV_PAGEOUT's isolated folios in the order they were added,
 * the order the kernel's reclaim_pages() takes them from its list's
 * tail. One pmd_entry's: at most one PTE table's folios. A list_add to
 * anything else is 6.x's swap-out mm list: never reached.
 */
struct ptelab_folio_list {
	u32 pfn[PTRS_PER_PTE];
	int nr;
};
#define LIST_HEAD(name) struct ptelab_folio_list name = { .nr = 0 }
static inline void ptelab_folio_list_add(struct ptelab_folio_list *list, struct page *head)
{
	if (list->nr < PTRS_PER_PTE)
		list->pfn[list->nr++] = (u32)page_to_pfn(head);
	else
		ptelab_kernel_unsupported(__FILE__, __LINE__, "list_add: more folios than a PTE table maps");
}
#define list_add(entry, head) _Generic((head),						\
	struct ptelab_folio_list *: ptelab_folio_list_add(					\
		(struct ptelab_folio_list *)(void *)(head), (struct page *)(void *)(entry)),	\
	default: (void)PTELAB_UNREACHED("list_add: the mm list of swap-out", 0))
#define reclaim_pages(list) reclaim_pages((list)->pfn, (list)->nr)

/*
 * The tree's functions by address (the unit's last definition, written by
 * kernel/extract.c): -finstrument-functions calls the entry's hooks at
 * each of them, inlined or not, which open a modelled perf frame of the
 * tree function's own name, as PERF_FUNC() does in the twin.
 */
struct ptelab_core_fn {
	void *fn;
	const char *name;
};

#endif
