// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: arch/x86/kvm/mmu/tdp_mmu.c (__kvm_tdp_mmu_age_gfn_range,
 * kvm_tdp_mmu_age_spte, tdp_mmu_zap_leafs, kvm_tdp_mmu_map) and
 * arch/x86/kvm/mmu/mmu.c (kvm_tdp_mmu_page_fault, fast_page_fault,
 * kvm_mmu_faultin_pfn, is_page_fault_stale); 6.12's age_gfn_range with
 * tdp_mmu_clear_spte_bits behind the config's write-locked aging; 6.2's
 * zap of a root whose last reference went (kvm_tdp_mmu_put_root); the
 * seed's kvm_arch_test_clear_young for x86 (v1, Feb 2023).
 */
/*
 * x86's secondary MMU: EPT built by the TDP MMU, whose leaves hardware
 * marks accessed (A) and dirty (D). Aging clears A on young leaves;
 * invalidation zaps leaves under the write lock and asks for a flush;
 * faults run under the read lock and install leaves with cmpxchg, after
 * checking that no invalidation raced with the lockless part.
 */
#include "hw/invariants.h"
#include "sim/frames.h"
#include "virt/kvm_host.h"
#include "virt/kvm_mmu.h"
#include "virt/mmu_lock.h"
#include "virt/spte.h"

#define T KVM_MMU_TDP

/*
 * Age one young leaf. Under the write lock (6.1 .. 6.14) the A bit is
 * cleared by tdp_mmu_clear_spte_bits(): an atomic AND when hardware may
 * still change the entry, else a store. Lockless (6.15+: RCU) it is
 * kvm_tdp_mmu_age_spte()'s cmpxchg, not retried: an entry that changed
 * under it is being zapped or is young again.
 */
static bool kvm_tdp_mmu_age_spte(struct kvm *kvm, u64 *sptep, u64 old_spte)
{
	if (kvm->cfg.age_lock == KVM_LOCK_WRITE) {
		if (spte_needs_atomic_update(old_spte))
			spte_clear_bits_atomic(sptep, VMX_EPT_ACCESS_BIT);
		else
			spte_write(sptep, spte_mkold(T, old_spte));
		return true;
	}
	return spte_cmpxchg(sptep, old_spte, spte_mkold(T, old_spte));
}

static bool __kvm_tdp_mmu_age_gfn_range(struct kvm *kvm, struct kvm_gfn_range *range,
					bool test_only)
{
	bool ret = false;

	for (gfn_t gfn = range->start; gfn < range->end; gfn++) {
		u64 *sptep = gfn_to_sptep(range->slot, gfn);
		u64 old_spte = spte_read(sptep);

		if (!spte_present(T, old_spte) || !spte_young(T, old_spte))
			continue;
		if (test_only)
			return true;
		ret = true;
		if (kvm_tdp_mmu_age_spte(kvm, sptep, old_spte)) {
			range->young_cleared++;
			kvm->stat.sptes_aged++;
		}
	}
	return ret;
}

bool kvm_tdp_mmu_age_gfn_range(struct kvm *kvm, struct kvm_gfn_range *range)
{
	return __kvm_tdp_mmu_age_gfn_range(kvm, range, false);
}

bool kvm_tdp_mmu_test_age_gfn(struct kvm *kvm, struct kvm_gfn_range *range)
{
	return __kvm_tdp_mmu_age_gfn_range(kvm, range, true);
}

/*
 * tdp_mmu_zap_leafs() under the write lock: every present leaf of the
 * range becomes non-present (kvm_tdp_mmu_write_spte: atomic where
 * hardware may still set A/D, else a store). true: something was zapped
 * and the caller flushes.
 */
bool kvm_tdp_mmu_unmap_gfn_range(struct kvm *kvm, struct kvm_gfn_range *range, bool flush)
{
	for (gfn_t gfn = range->start; gfn < range->end; gfn++) {
		u64 *sptep = gfn_to_sptep(range->slot, gfn);
		u64 old_spte = spte_read(sptep);

		if (!spte_present(T, old_spte))
			continue;
		if (spte_needs_atomic_update(old_spte))
			spte_xchg(sptep, 0);
		else
			spte_write(sptep, 0);
		kvm->stat.sptes_zapped++;
		flush = true;
	}
	return flush;
}

/*
 * The root whose last reference went (6.2 kvm_tdp_mmu_put_root): marked
 * invalid, so no vCPU enters it again, and zapped by a worker under the
 * read lock (tdp_mmu_zap_root_work). The lab zaps it at once; no vCPU can
 * hold its translations past the new root's load, which flushes.
 */
void kvm_tdp_mmu_zap_invalidated_root(struct kvm *kvm)
{
	int frame = SIM_FRAME("tdp_mmu_zap_root");

	sim_frame_enter(frame);
	kvm_mmu_lock(kvm, KVM_LOCK_READ);
	for (int i = 0; i < kvm->nr_memslots; i++) {
		struct kvm_memory_slot *slot = &kvm->memslots[i];
		struct kvm_gfn_range range = {
			.slot = slot, .start = slot->base_gfn, .end = slot->base_gfn + slot->npages,
			.may_block = true,
		};

		kvm_tdp_mmu_unmap_gfn_range(kvm, &range, false);
	}
	kvm_mmu_unlock(kvm, KVM_LOCK_READ);
	sim_frame_exit(frame);
}

/*
 * The seed's x86 kvm_arch_test_clear_young(): under RCU only, each young
 * leaf flips its bit (offset lsb_gfn - gfn) and, if the bit was set,
 * loses A by cmpxchg64.
 */
bool kvm_tdp_mmu_test_clear_young(struct kvm *kvm, struct kvm_gfn_range *range, gfn_t lsb_gfn,
				  unsigned long *bitmap)
{
	for (gfn_t gfn = range->start; gfn < range->end; gfn++) {
		u64 *sptep = gfn_to_sptep(range->slot, gfn);
		u64 old_spte = spte_read(sptep);
		unsigned long bit = lsb_gfn - gfn;
		unsigned long mask = 1UL << (bit % 64);
		bool was_set;

		if (!spte_present(T, old_spte) || !spte_young(T, old_spte))
			continue;
		/* __test_and_change_bit() */
		was_set = bitmap[bit / 64] & mask;
		bitmap[bit / 64] ^= mask;
		if (was_set && spte_cmpxchg(sptep, old_spte, spte_mkold(T, old_spte)))
			range->young_cleared++;
	}
	return true;
}

/*
 * fast_page_fault(): with A/D bits on, only a write to a present leaf
 * can be fixed without mmu_lock, and only if KVM had write-protected it
 * for its own reasons (dirty logging). The lab's leaves are writable
 * exactly when the host's page was, so the lockless look either finds
 * the fault already fixed (spurious) or gives up.
 */
#define RET_PF_INVALID (-1000)

static int fast_page_fault(struct kvm_vcpu *vcpu, struct kvm_page_fault *fault)
{
	u64 spte;

	/* page_fault_can_be_fast(): not present -> !kvm_ad_enabled; present -> write */
	if (!fault->present || !fault->write)
		return RET_PF_INVALID;
	spte = spte_read(gfn_to_sptep(fault->slot, fault->gfn));
	if (!spte_present(T, spte))
		return RET_PF_INVALID;
	if (spte_writable(T, spte)) {
		vcpu->stat.pf_spurious++;
		return RET_PF_SPURIOUS;
	}
	return RET_PF_INVALID;
}

/*
 * kvm_mmu_faultin_pfn(): snapshot mmu_invalidate_seq, then get the page
 * outside mmu_lock; an invalidation already covering the gfn, before or
 * after, means retrying rather than contending for the lock.
 */
static int kvm_mmu_faultin_pfn(struct kvm_vcpu *vcpu, struct kvm_page_fault *fault)
{
	struct kvm *kvm = vcpu->kvm;
	int r;

	fault->mmu_seq = kvm->mmu_invalidate_seq;
	if (mmu_invalidate_retry_gfn_unsafe(kvm, fault->mmu_seq, fault->gfn))
		return RET_PF_RETRY;
	r = kvm_faultin_pfn(vcpu, fault);
	if (r)
		return r;
	if (mmu_invalidate_retry_gfn_unsafe(kvm, fault->mmu_seq, fault->gfn)) {
		kvm_release_faultin_page(kvm, fault->refcounted_page, true, false);
		fault->refcounted_page = NULL;
		return RET_PF_RETRY;
	}
	return RET_PF_CONTINUE;
}

/*
 * kvm_tdp_mmu_map() at the target level: the leaf is installed with
 * cmpxchg (tdp_mmu_set_spte_atomic), since other vCPUs fault under the
 * same read lock; losing the race means retrying the fault.
 */
static int kvm_tdp_mmu_map(struct kvm_vcpu *vcpu, struct kvm_page_fault *fault)
{
	u64 *sptep = gfn_to_sptep(fault->slot, fault->gfn);
	u64 old_spte = spte_read(sptep);
	u64 new_spte = make_spte(T, fault->pfn, fault->map_writable);

	if (new_spte == old_spte) {
		vcpu->stat.pf_spurious++;
		return RET_PF_SPURIOUS;
	}
	if (spte_present(T, old_spte) && spte_to_pfn(T, old_spte) != fault->pfn)
		hw_violation(VIOL_OTHER, "kvm: gfn %#llx remapped from pfn %#llx to %#llx "
			     "without an invalidation", (unsigned long long)fault->gfn,
			     (unsigned long long)spte_to_pfn(T, old_spte),
			     (unsigned long long)fault->pfn);
	if (!spte_cmpxchg(sptep, old_spte, new_spte))
		return RET_PF_RETRY;
	vcpu->stat.pf_fixed++;
	return RET_PF_FIXED;
}

int kvm_tdp_mmu_page_fault(struct kvm_vcpu *vcpu, struct kvm_page_fault *fault)
{
	struct kvm *kvm = vcpu->kvm;
	int frame = SIM_FRAME("kvm_tdp_mmu_page_fault");
	int r;

	sim_frame_enter(frame);
	r = fast_page_fault(vcpu, fault);
	if (r != RET_PF_INVALID) {
		vcpu->stat.pf_fast++;
		goto out;
	}
	r = kvm_mmu_faultin_pfn(vcpu, fault);
	if (r != RET_PF_CONTINUE)
		goto out;
	r = RET_PF_RETRY;
	kvm_mmu_lock(kvm, KVM_LOCK_READ);
	/* is_page_fault_stale(): the lockless checks can miss; this one cannot */
	if (!mmu_invalidate_retry_gfn(kvm, fault->mmu_seq, fault->gfn))
		r = kvm_tdp_mmu_map(vcpu, fault);
	/* kvm_mmu_finish_page_fault() */
	kvm_release_faultin_page(kvm, fault->refcounted_page, r == RET_PF_RETRY,
				 fault->map_writable);
	kvm_mmu_unlock(kvm, KVM_LOCK_READ);
out:
	sim_frame_exit(frame);
	return r;
}
