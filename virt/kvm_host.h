/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A guest's host side (include/linux/kvm_host.h, 7.3): struct kvm with
 * mmu_lock and the mmu_invalidate_* state through which a page fault
 * notices an invalidation it raced with; memslots (guest frames backed by
 * a range of the VMM's address space); vCPUs with their guest mode; and
 * the mmu_notifier by which core-mm tells KVM what happens to that
 * address space. The secondary page tables are x86's TDP MMU (EPT) or
 * arm64's stage 2, chosen per VM (enum kvm_mmu_type).
 */
#ifndef PTELAB_VIRT_KVM_HOST_H
#define PTELAB_VIRT_KVM_HOST_H

#include <errno.h>

#include "mm/mmu_notifier.h"
#include "sim/rwlock.h"
#include "virt/kvm_config.h"

typedef u64 gfn_t;
typedef u64 gpa_t;
typedef u64 kvm_pfn_t;

#define INVALID_GPA (~(gpa_t)0)

static inline gfn_t gpa_to_gfn(gpa_t gpa)
{
	return gpa >> PAGE_SHIFT;
}

static inline gpa_t gfn_to_gpa(gfn_t gfn)
{
	return gfn << PAGE_SHIFT;
}

#define KVM_MAX_MEMSLOTS 8

/*
 * A memslot: npages guest frames from base_gfn, backed by the VMM's
 * memory at userspace_addr. sptes[] is the secondary page table, kept
 * compact: one 64-bit leaf per guest page in a flat array (65.5 M pages
 * cost 8 bytes each); the upper levels are not kept. Walks count what
 * the kernel's walkers touch at the leaves: one spte_read per leaf
 * visited, one spte_write or spte_atomic per leaf changed; the upper
 * levels' reads (a few per 512 leaves) are not counted.
 */
struct kvm_memory_slot {
	int id;
	gfn_t base_gfn;
	unsigned long npages;
	unsigned long userspace_addr;
	u64 *sptes;
};

static inline unsigned long __gfn_to_hva_memslot(const struct kvm_memory_slot *slot, gfn_t gfn)
{
	return slot->userspace_addr + ((gfn - slot->base_gfn) << PAGE_SHIFT);
}

static inline gfn_t hva_to_gfn_memslot(unsigned long hva, const struct kvm_memory_slot *slot)
{
	return slot->base_gfn + ((hva - slot->userspace_addr) >> PAGE_SHIFT);
}

static inline u64 *gfn_to_sptep(const struct kvm_memory_slot *slot, gfn_t gfn)
{
	return &slot->sptes[gfn - slot->base_gfn];
}

/* What a notifier handler works on: [start, end) of one memslot. */
struct kvm_gfn_range {
	struct kvm_memory_slot *slot;
	gfn_t start, end;
	bool may_block;
	bool lockless;
	/* lab only: young entries the handler made old, for the lost-young check */
	unsigned long young_cleared;
};

/* vcpu->mode (include/linux/kvm_host.h) */
enum vcpu_mode {
	OUTSIDE_GUEST_MODE,
	IN_GUEST_MODE,
	EXITING_GUEST_MODE, /* kicked by an IPI, on its way out */
};

/* vcpu->requests bits */
#define KVM_REQ_TLB_FLUSH 0
#define KVM_LONG_BITS (8 * (int)sizeof(long))

struct kvm_vcpu_stat {
	u64 pf_taken;    /* EPT violations / stage-2 aborts */
	u64 pf_fixed;    /* ... that installed an entry */
	u64 pf_fast;     /* ... fixed by x86's fast_page_fault */
	u64 pf_spurious; /* ... that found the entry already fine */
	u64 pf_retry;    /* ... given up for an invalidation (RET_PF_RETRY / -EAGAIN) */
	u64 af_fault;    /* arm64 access-flag faults (no hardware AF) */
	u64 kicks;       /* exits forced by a remote TLB flush's IPI */
	u64 tlb_flush;   /* KVM_REQ_TLB_FLUSH handled at entry */
};

struct kvm;

struct kvm_vcpu {
	struct kvm *kvm;
	int vcpu_id;
	enum vcpu_mode mode;           /* set through kvm_vcpu_set_mode() */
	unsigned long requests;
	/* the kvm->all_req_gen it has seen: a newer one is a request to all */
	u64 all_req_seen;
	bool root_unloaded;            /* kvm_mmu_unload()ed: kvm_mmu_load() at next entry */
	struct kvm_vcpu_stat stat;
	void *priv; /* free for the workload */
};

/* vcpu->mode, keeping kvm->in_guest in step */
void kvm_vcpu_set_mode(struct kvm_vcpu *vcpu, enum vcpu_mode mode);
/* KVM_REQ_TLB_FLUSH pending (its own bit or a request to all); clears it */
bool kvm_check_request_tlb_flush(struct kvm_vcpu *vcpu);

struct kvm_stat {
	u64 remote_tlb_flush;   /* kvm_flush_remote_tlbs() calls */
	u64 remote_tlb_flush_ipis;
	u64 host_shootdown_kicks; /* vCPUs in guest mode a host TLB shootdown IPI made exit */
	u64 age_calls;          /* clear_flush_young / clear_young / test_young */
	u64 age_young;          /* ... that found something young */
	u64 test_clear_young_fast; /* test_clear_young calls done on the fast path */
	u64 invalidations;      /* invalidate_range_start calls that found a memslot */
	u64 sptes_zapped;
	u64 sptes_aged;         /* young leaves made old by aging */
};

struct kvm {
	enum kvm_mmu_type mmu_type;
	struct kvm_config cfg;
	struct mm_struct *mm;          /* the VMM's address space; NULL once exit released it */
	/*
	 * A queued rwlock (sim/); outside a running sim engine an
	 * uncontended acquisition just succeeds, so sequential runs use it too.
	 */
	struct sim_rwlock mmu_lock;
	unsigned long mmu_invalidate_seq;
	long mmu_invalidate_in_progress;
	gfn_t mmu_invalidate_range_start, mmu_invalidate_range_end;
	long mn_active_invalidate_count;
	struct kvm_memory_slot memslots[KVM_MAX_MEMSLOTS];
	int nr_memslots;
	struct kvm_vcpu *vcpus;
	int nr_vcpus;
	int root_refs;  /* vCPUs holding the TDP root (x86, cr0_wp_unloads_roots): all at first */
	/*
	 * The simulator's shortcuts for kvm_make_all_cpus_request (the work
	 * it models is still counted per vCPU): KVM_REQ_TLB_FLUSH to every
	 * vCPU is one generation bump, and the vCPUs in guest mode are a
	 * bitmap, so a flush costs O(vCPUs kicked) host time, not O(vCPUs).
	 */
	u64 all_req_gen;
	unsigned long *in_guest;
	struct mmu_notifier mmu_notifier;
	/* the vCPU threads as CPUs of the VMM's mm (host TLB shootdowns reach them) */
	struct mm_thread_cpus thread_cpus;
	bool s2_hw_af;   /* arm64: stage-2 AF managed by hardware (HAFDBS, VTCR_EL2.HA) */
	bool tlbi_range; /* arm64: FEAT_TLBIRANGE (stage-2 unmaps flush by range) */
	struct kvm_stat stat;
	/*
	 * Called by a vCPU's fault after it got the host page and before it
	 * takes mmu_lock: where a sim workload charges a swap-in's sleep, and
	 * where a test races an invalidation with the fault.
	 */
	void (*faultin_hook)(struct kvm_vcpu *vcpu, unsigned long hva, void *arg);
	void *faultin_hook_arg;
};

static inline struct kvm *mmu_notifier_to_kvm(struct mmu_notifier *mn)
{
	return (struct kvm *)((char *)mn - offsetof(struct kvm, mmu_notifier));
}

static inline struct kvm_vcpu *kvm_get_vcpu(struct kvm *kvm, int i)
{
	return i >= 0 && i < kvm->nr_vcpus ? &kvm->vcpus[i] : NULL;
}

/*
 * mmu_invalidate_retry() / mmu_invalidate_retry_gfn(): must a fault
 * that snapshot mmu_seq before getting its page throw it away? Yes if an
 * invalidation is in progress (of its gfn, for the _gfn form) or one
 * ended since (the seq moved). Called with mmu_lock held; the _unsafe
 * form is the same test made before taking it.
 */
static inline bool mmu_invalidate_retry(const struct kvm *kvm, unsigned long mmu_seq)
{
	return kvm->mmu_invalidate_in_progress || kvm->mmu_invalidate_seq != mmu_seq;
}

static inline bool mmu_invalidate_retry_gfn(const struct kvm *kvm, unsigned long mmu_seq,
					    gfn_t gfn)
{
	if (kvm->mmu_invalidate_in_progress &&
	    (kvm->mmu_invalidate_range_start == INVALID_GPA ||
	     (gfn >= kvm->mmu_invalidate_range_start && gfn < kvm->mmu_invalidate_range_end)))
		return true;
	return kvm->mmu_invalidate_seq != mmu_seq;
}

#define mmu_invalidate_retry_gfn_unsafe mmu_invalidate_retry_gfn

/* --- Creating a VM (kvm_main.c) --- */
struct kvm_create_params {
	enum kvm_mmu_type mmu_type;
	struct kvm_config cfg;
	int nr_vcpus;
	bool s2_hw_af;
	bool tlbi_range;
};

/* A VM of the VMM mm, its notifier registered (never NULL: host OOM exits). */
struct kvm *kvm_create_vm(struct mm_struct *mm, const struct kvm_create_params *p);
/* Zap everything, unregister (unless the mm was released first), free. */
void kvm_destroy_vm(struct kvm *kvm);
/*
 * KVM_SET_USER_MEMORY_REGION: slot id maps gpa .. gpa + size to the VMM's
 * hva .. hva + size (page aligned, not overlapping). 0, or -1.
 */
int kvm_set_memory_region(struct kvm *kvm, int id, gpa_t gpa, u64 size, unsigned long hva);
struct kvm_memory_slot *gfn_to_memslot(struct kvm *kvm, gfn_t gfn);

/* --- Remote TLB flushes (kvm_main.c, per architecture) --- */
void kvm_flush_remote_tlbs(struct kvm *kvm);

/* --- The arch handlers the notifiers run per gfn range (kvm_mmu.c) --- */
bool kvm_age_gfn(struct kvm *kvm, struct kvm_gfn_range *range);
bool kvm_test_age_gfn(struct kvm *kvm, struct kvm_gfn_range *range);
bool kvm_unmap_gfn_range(struct kvm *kvm, struct kvm_gfn_range *range);
/* tdp_mmu_zap_root() of the invalidated root: every leaf of every memslot, read lock, no flush */
void kvm_tdp_mmu_zap_invalidated_root(struct kvm *kvm);
/* The seed's fast path: false if this VM has none (see kvm_config.test_clear_young). */
bool kvm_arch_has_test_clear_young(const struct kvm *kvm);
bool kvm_arch_test_clear_young(struct kvm *kvm, struct kvm_gfn_range *range, gfn_t lsb_gfn,
			       unsigned long *bitmap);

/* --- The guest side (kvm_vcpu.c) --- */
/*
 * One load or store by the guest on vCPU at gpa, as the hardware does it:
 * through a present, permitted leaf the access completes (hardware sets
 * A, or AF where it manages it); otherwise the vCPU exits to KVM's fault
 * handler and retries. 0 when the access completed; -EFAULT when the gpa
 * has no memslot or the VMM cannot provide the page; -EAGAIN when, in a
 * sequential run, an invalidation in progress keeps the fault retrying.
 */
int kvm_vcpu_access(struct kvm_vcpu *vcpu, gpa_t gpa, bool write);
/* The vCPU thread leaves guest mode (halts, returns to the VMM). */
void kvm_vcpu_leave_guest(struct kvm_vcpu *vcpu);
/*
 * KVM_SET_SREGS with CR0.WP flipped, the vCPU outside the guest
 * (kvm_post_set_cr0): the MMU context is reset; with
 * cfg.cr0_wp_unloads_roots the vCPU also drops its root, and the last
 * vCPU to drop it zaps every leaf (the root is invalid: no flush). A vCPU
 * that unloaded loads a new root, and flushes it, when it next enters.
 */
void kvm_vcpu_toggle_cr0_wp(struct kvm_vcpu *vcpu);

/* --- Faults (tdp_mmu.c, stage2.c), and the page behind a gfn (kvm_mmu.c) --- */
#define RET_PF_CONTINUE 0
#define RET_PF_RETRY 1
#define RET_PF_FIXED 2
#define RET_PF_SPURIOUS 3

struct kvm_page_fault {
	gfn_t gfn;
	bool write;
	bool present;           /* the leaf was present (a permission fault) */
	struct kvm_memory_slot *slot;
	unsigned long mmu_seq;
	kvm_pfn_t pfn;
	struct page *refcounted_page;
	bool map_writable;
};

int kvm_tdp_mmu_page_fault(struct kvm_vcpu *vcpu, struct kvm_page_fault *fault);
int user_mem_abort(struct kvm_vcpu *vcpu, struct kvm_page_fault *fault);
int handle_access_fault(struct kvm_vcpu *vcpu, gpa_t fault_ipa);
/* hva_to_pfn(): the VMM's page at the fault's hva, with a reference. */
int kvm_faultin_pfn(struct kvm_vcpu *vcpu, struct kvm_page_fault *fault);
void kvm_release_faultin_page(struct kvm *kvm, struct page *page, bool unused, bool dirty);

/* --- Invariants (kvm_invariants.c) --- */
/*
 * Every present leaf maps a frame the allocator has not got back and
 * that the VMM's page tables map at that hva (writable only where they
 * are); invalidations balanced; mmu_lock free. Violations go to
 * hw_violation(); returns how many were found.
 */
int kvm_check_invariants(struct kvm *kvm);

#endif
