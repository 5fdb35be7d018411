/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Event counters. Every layer counts what it does here; the CLI reads them.
 * Names are the stable public contract of the JSON output (DESIGN.md).
 */
#ifndef PTELAB_HW_EVENTS_H
#define PTELAB_HW_EVENTS_H

#include "hw/types.h"

#define HW_EVENTS(X)                                                          \
	X(pte_read)         /* software load of a PTE */                         \
	X(pte_write)        /* software store of a PTE */                        \
	X(pte_atomic)       /* software atomic RMW of a PTE (xchg/cmpxchg) */    \
	X(tlbi_page)        /* broadcast TLBI by VA (arm64) */                   \
	X(tlbi_range)       /* TLBI by range (FEAT_TLBIRANGE) */                 \
	X(tlbi_asid)        /* TLBI by ASID (arm64) / full flush (x86) */        \
	X(tlbi_local)       /* one CPU only: arm64 TLBI VALE1, x86 INVLPG */    \
	X(dsb)              /* DSB barrier after TLB maintenance */              \
	X(ipi)              /* x86 TLB shootdown IPI sent to a remote CPU */     \
	X(mem_access)       /* simulated load or store by a CPU */               \
	X(tlb_hit)                                                                \
	X(tlb_miss)                                                               \
	X(ptw)              /* hardware page-table walk */                       \
	X(hw_update)        /* hardware AF/dirty update of a descriptor */       \
	X(contpte_get)      /* ptep_get on a contpte block (a gather) */         \
	X(contpte_get_read) /* pte_read done inside those gathers */             \
	X(young_read)       /* pte_read inside young test-and-clear calls */     \
	X(young_atomic)     /* pte_atomic inside young test-and-clear calls */   \
	X(fold)             /* contpte block folded */                           \
	X(unfold)           /* contpte block unfolded */                         \
	X(folio_ref_atomic) /* atomic on a folio refcount */                     \
	X(mapcount_atomic)  /* atomic on a mapcount */                           \
	X(rmap_call)        /* rmap add/remove call */                           \
	X(lock_acquire)                                                           \
	X(lock_contended)                                                         \
	X(fault)                                                                  \
	X(notifier_call)                                                          \
	X(deferred_split)   /* large folio queued on/off the deferred split list */ \
	X(folio_alloc)      /* folio taken from the page allocator */            \
	X(folio_free)       /* folio returned to the page allocator */           \
	X(pvmw_step)        /* page_vma_mapped_walk on one PTE slot: the walk's bookkeeping and check_pte's pfn test (its load is a pte_read) */ \
	X(lru_move)         /* a folio linked into or out of an LRU list, with its lruvec size counters */ \
	X(lru_isolate)      /* a folio isolated for reclaim: folio_try_get + folio_test_clear_lru */ \
	X(lru_putback)      /* an isolated folio put back (move_folios_to_lru): folio_set_lru + folio_put */ \
	X(memcg_uncharge)   /* mem_cgroup_uncharge of one folio alone (6.9 __folio_put_large): uncharge_batch's page counters and memcg stats; batched frees pay theirs inside folio_free */ \
	X(free_tail_page)   /* free_pages_prepare: one tail page of a large folio checked and cleared */ \
	X(pt_alloc)         /* page-table page allocated */                      \
	X(pt_free)          /* page-table page freed */                          \
	X(gather_flush)     /* mmu_gather batch flushed (tlb_flush_mmu) */ \
	X(spte_read)        /* KVM software load of a secondary-MMU leaf (SPTE) */ \
	X(spte_write)       /* KVM software store of an SPTE */                 \
	X(spte_atomic)      /* KVM atomic RMW of an SPTE (cmpxchg/xchg/and) */  \
	X(kvm_flush)        /* kvm_flush_remote_tlbs(): one call, software part */ \
	X(tlbi_vmid)        /* arm64 TLBI VMALLS12E1IS / VMALLE1IS: one VMID */  \
	X(tlbi_ipa)         /* arm64 TLBI IPAS2E1IS: one IPA's stage-2 entry */ \
	X(vcpu_kick)        /* vCPU kicked out of guest mode by an IPI, re-entered */ \
	X(vcpu_request)     /* kvm_make_vcpu_request(): one vCPU's request bit set, its mode read */ \
	X(mmu_lock_read)    /* kvm->mmu_lock taken for read */                  \
	X(mmu_lock_write)   /* kvm->mmu_lock taken for write */                 \
	X(mmu_lock_bounce)  /* kvm->mmu_lock's word fetched from the CPU that last wrote it (HITM): an acquire, hand-off or release after another CPU's */ \
	X(secondary_fault)  /* EPT violation / stage-2 abort handled by KVM */  \
	X(fault_retry)      /* a secondary fault given up for an invalidation */ \
	X(swap_io)          /* software side of one swap read or write: swap map, bio, completion */ \
	X(cache_hit)        /* a software PTE or struct page access found its line in the CPU's cache (hw/cache.h) */ \
	X(cache_miss)       /* ... or did not: the line came from further away */ \
	X(contpte_merge)    /* a gather folding one entry's dirty or young bit into its result (pte_mkdirty/pte_mkyoung on orig_pte, a dependency chain through the loop) */ \
	X(contpte_test)     /* a gather testing a loaded entry's dirty or young bit once more: pte_read stands for the load and one compare-and-branch on it; the loop before S4 tests both bits of every entry, S4's only those it still needs (a lockless gather's first load, of the entry asked for, counts as one) */ \
	X(gup_page)         /* __get_user_pages' step for one page: the loop's checks and cond_resched, follow_page_mask's descent from the pgd, vm_normal_page, can_follow_write_pte, folio_mark_accessed (its PTE load, lock and gather are counted apart) */ \
	X(lru_lock_bounce)  /* lruvec->lru_lock's word fetched from the CPU that last wrote it (HITM), as mmu_lock_bounce: only on the discrete-event engine, where several CPUs reclaim and add folios at once */ \
	X(shrink_slab)      /* shrink_node's pass outside the LRU: shrink_slab over the registered shrinkers (none with much to free here), vmpressure, the reclaim state's flush */

enum hw_event {
#define X(name) EV_##name,
	HW_EVENTS(X)
#undef X
	NR_HW_EVENTS
};

struct hw_counters {
	u64 v[NR_HW_EVENTS];
};

extern struct hw_counters hw_events;
extern const char *const hw_event_names[NR_HW_EVENTS];

/*
 * A cost meter (hw/profile.h) attached: each count also adds its cost, so
 * reading the time spent is O(1) however many events there are. One
 * meter at a time; hw_events_reset() detaches it.
 */
/*
 * Costs in fixed point, 2^-HW_COST_SHIFT ns: integer adds keep the
 * per-count overhead small (sim_now() drains the sum very often) and
 * the rounding of a rate (under 1e-6 ns) far below any fitted digit.
 */
#define HW_COST_SHIFT 20
extern bool hw_cost_on;
extern u64 hw_cost_rate[NR_HW_EVENTS];
extern u64 hw_cost_acc;

/* Rates are 0 while no meter is attached: the sum is then unchanged, without a test. */
static inline void hw_count(enum hw_event ev, u64 n)
{
	hw_events.v[ev] += n;
	hw_cost_acc += n * hw_cost_rate[ev];
}

/* Snapshot/diff so a workload can report the events of one phase only. */
void hw_events_reset(void); /* every counter 0 */
void hw_events_snapshot(struct hw_counters *out);
void hw_events_diff(struct hw_counters *out, const struct hw_counters *a,
		    const struct hw_counters *b);
int hw_event_by_name(const char *name);
/*
 * Attribution counters (contpte_get_read, young_read, young_atomic) are
 * subsets of pte_read/pte_atomic, kept to say where loads went; a profile
 * must not cost them, or the time would be counted twice.
 */
bool hw_event_is_attribution(int ev);
/*
 * Counters whose work other events already cost (a fold's or unfold's
 * entries and TLBIs, a gather's loads) or that only say how often
 * something happened (lock_contended: waiting is modelled time in sim/).
 * A profile may leave them out; every other event needs a cost.
 */
bool hw_event_is_count_only(int ev);

#endif
