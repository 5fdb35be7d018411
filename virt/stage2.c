// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: arch/arm64/kvm/hyp/pgtable.c (kvm_pgtable_stage2_test_clear_young
 * with stage2_age_walker, kvm_pgtable_stage2_unmap with
 * stage2_unmap_put_pte, kvm_pgtable_stage2_map, kvm_pgtable_stage2_mkyoung,
 * kvm_pgtable_stage2_relax_perms, kvm_tlb_flush_vmid_range),
 * arch/arm64/kvm/hyp/vhe/tlb.c (__kvm_tlb_flush_vmid, _ipa, _ipa_nsh,
 * _range) and arch/arm64/kvm/mmu.c (kvm_unmap_gfn_range, user_mem_abort,
 * handle_access_fault); 6.1's write-locked faults behind the config; the
 * seed's arm64 kvm_arch_test_clear_young (v1, Feb 2023).
 */
/*
 * arm64's secondary MMU: stage 2, whose access flag hardware sets only
 * with HAFDBS (otherwise a stage-2 access-flag fault sets it). Aging
 * clears AF with no TLBI (the notifier's flush covers clear_flush_young);
 * unmapping clears each valid leaf and invalidates its IPA as it goes
 * (or the whole range at the end with FEAT_TLBIRANGE), so the notifier
 * has nothing left to flush. TLB maintenance is broadcast: no IPIs.
 */
#include "hw/cpu.h"
#include "hw/invariants.h"
#include "sim/frames.h"
#include "virt/kvm_host.h"
#include "virt/kvm_mmu.h"
#include "virt/mmu_lock.h"
#include "virt/spte.h"

#define S KVM_MMU_STAGE2

/* an invalid entry another walker owns for the moment (break-before-make) */
#define KVM_INVALID_PTE_LOCKED (1ULL << 10)

/* MAX_TLBI_RANGE_PAGES: __TLBI_RANGE_PAGES(31, 3), one range TLBI's reach */
#define MAX_TLBI_RANGE_PAGES (32UL << 16)
/* kvm_granule_size(KVM_PGTABLE_MIN_BLOCK_LEVEL): stage2_apply_range's chunk */
#define S2_APPLY_RANGE_CHUNK SZ_1G

/* DSB ISHST; TLBI VMALLS12E1IS; DSB ISH (ISB not counted) */
void __kvm_tlb_flush_vmid(struct kvm *kvm)
{
	(void)kvm;
	hw_dsb();
	hw_count(EV_tlbi_vmid, 1);
	hw_dsb();
}

/* DSB ISHST; TLBI IPAS2E1IS; DSB ISH; TLBI VMALLE1IS; DSB ISH */
static void __kvm_tlb_flush_vmid_ipa(struct kvm *kvm, gpa_t ipa)
{
	(void)kvm;
	(void)ipa;
	hw_dsb();
	hw_count(EV_tlbi_ipa, 1);
	hw_dsb();
	hw_count(EV_tlbi_vmid, 1);
	hw_dsb();
}

/* the same, on this CPU only: TLBI IPAS2E1 and VMALLE1 with DSB NSH */
static void __kvm_tlb_flush_vmid_ipa_nsh(struct kvm *kvm, gpa_t ipa)
{
	(void)kvm;
	(void)ipa;
	hw_dsb();
	hw_count(EV_tlbi_local, 1);
	hw_dsb();
	hw_count(EV_tlbi_local, 1);
	hw_dsb();
}

/* kvm_tlb_flush_vmid_range(): DSB; TLBI RIPAS2E1IS ...; DSB; TLBI VMALLE1IS; DSB per chunk */
static void kvm_tlb_flush_vmid_range(struct kvm *kvm, gpa_t addr, u64 size)
{
	u64 pages = size >> PAGE_SHIFT;

	(void)kvm;
	(void)addr;
	while (pages > 0) {
		u64 inval_pages = min(pages, MAX_TLBI_RANGE_PAGES);

		hw_dsb();
		hw_count(EV_tlbi_range, 1);
		hw_dsb();
		hw_count(EV_tlbi_vmid, 1);
		hw_dsb();
		pages -= inval_pages;
	}
}

/*
 * stage2_try_set_pte(): a shared walk (read lock, or none) races with
 * other walkers and hardware, so it uses cmpxchg; an exclusive one (write
 * lock) stores.
 */
static bool stage2_try_set_pte(u64 *ptep, u64 old, u64 new, bool shared)
{
	if (!shared) {
		spte_write(ptep, new);
		return true;
	}
	return spte_cmpxchg(ptep, old, new);
}

/*
 * stage2_age_walker() over every leaf of the range: young = any valid
 * leaf with AF; mkold clears it (the TLBI is the notifier's business).
 * The walk does not stop at the first young leaf.
 */
bool kvm_pgtable_stage2_test_clear_young(struct kvm *kvm, struct kvm_gfn_range *range,
					 bool mkold)
{
	bool shared = kvm->cfg.age_lock != KVM_LOCK_WRITE;
	bool young = false;

	for (gfn_t gfn = range->start; gfn < range->end; gfn++) {
		u64 *ptep = gfn_to_sptep(range->slot, gfn);
		u64 old = spte_read(ptep);

		if (!spte_present(S, old) || !spte_young(S, old))
			continue;
		young = true;
		if (mkold && stage2_try_set_pte(ptep, old, spte_mkold(S, old), shared)) {
			range->young_cleared++;
			kvm->stat.sptes_aged++;
		}
	}
	return young;
}

/*
 * kvm_pgtable_stage2_unmap() per 1 GiB chunk (stage2_apply_range): each
 * valid leaf is cleared (kvm_clear_pte, under the write lock) and its
 * IPA invalidated at once, unless FEAT_TLBIRANGE lets the walk defer to
 * one range invalidation per chunk (stage2_unmap_defer_tlb_flush; the
 * lab assumes FEAT_S2FWB alongside, as ARMv8.4 parts have).
 */
static void kvm_pgtable_stage2_unmap(struct kvm *kvm, struct kvm_memory_slot *slot, gfn_t start,
				     gfn_t end)
{
	bool defer = kvm->tlbi_range;

	for (gfn_t gfn = start; gfn < end; gfn++) {
		u64 *ptep = gfn_to_sptep(slot, gfn);
		u64 old = spte_read(ptep);

		if (!spte_present(S, old))
			continue;
		spte_write(ptep, 0);
		kvm->stat.sptes_zapped++;
		if (!defer)
			__kvm_tlb_flush_vmid_ipa(kvm, gfn_to_gpa(gfn));
	}
	if (defer)
		kvm_tlb_flush_vmid_range(kvm, gfn_to_gpa(start), (end - start) << PAGE_SHIFT);
}

/* arm64 kvm_unmap_gfn_range(): flushes as it goes, so never asks the caller to */
bool kvm_s2_unmap_gfn_range(struct kvm *kvm, struct kvm_gfn_range *range)
{
	gpa_t addr = gfn_to_gpa(range->start), end = gfn_to_gpa(range->end);

	while (addr < end) {
		gpa_t next = min(ALIGN_DOWN(addr + S2_APPLY_RANGE_CHUNK, S2_APPLY_RANGE_CHUNK), end);

		kvm_pgtable_stage2_unmap(kvm, range->slot, gpa_to_gfn(addr), gpa_to_gfn(next));
		addr = next;
	}
	return false;
}

/*
 * The seed's arm64 kvm_arch_test_clear_young(): a shared walk under RCU
 * (stage-2 tables made RCU-safe by the same series); each young leaf
 * flips its bit and, if it was set, loses AF by cmpxchg.
 */
bool kvm_s2_test_clear_young(struct kvm *kvm, struct kvm_gfn_range *range, gfn_t lsb_gfn,
			     unsigned long *bitmap)
{
	if (!kvm->s2_hw_af)
		return false;
	for (gfn_t gfn = range->start; gfn < range->end; gfn++) {
		u64 *ptep = gfn_to_sptep(range->slot, gfn);
		u64 old = spte_read(ptep);
		unsigned long bit = lsb_gfn - gfn;
		unsigned long mask = 1UL << (bit % 64);
		bool was_set;

		if (!spte_present(S, old) || !spte_young(S, old))
			continue;
		was_set = bitmap[bit / 64] & mask;
		bitmap[bit / 64] ^= mask;
		if (was_set && spte_cmpxchg(ptep, old, spte_mkold(S, old)))
			range->young_cleared++;
	}
	return true;
}

/*
 * kvm_pgtable_stage2_map() of one page: break-before-make. A shared walk
 * locks the entry by cmpxchg first (stage2_try_break_pte); a valid old
 * entry is cleared and its IPA invalidated before the new one is stored.
 */
static int kvm_pgtable_stage2_map(struct kvm *kvm, struct kvm_page_fault *fault, bool shared)
{
	u64 *ptep = gfn_to_sptep(fault->slot, fault->gfn);
	u64 old = spte_read(ptep);
	u64 new = make_spte(S, fault->pfn, fault->map_writable);

	if (old == new)
		return 0;
	if (spte_present(S, old) && spte_to_pfn(S, old) != fault->pfn)
		hw_violation(VIOL_OTHER, "kvm: ipa %#llx remapped from pfn %#llx to %#llx "
			     "without an invalidation", (unsigned long long)gfn_to_gpa(fault->gfn),
			     (unsigned long long)spte_to_pfn(S, old), (unsigned long long)fault->pfn);
	if (shared && !spte_cmpxchg(ptep, old, KVM_INVALID_PTE_LOCKED))
		return -EAGAIN;
	if (spte_present(S, old)) {
		if (!shared)
			spte_write(ptep, 0);
		__kvm_tlb_flush_vmid_ipa(kvm, gfn_to_gpa(fault->gfn));
	}
	spte_write(ptep, new); /* stage2_make_pte: smp_store_release */
	return 0;
}

/* kvm_pgtable_stage2_relax_perms(): add write to a valid leaf, TLBI it locally */
static int kvm_pgtable_stage2_relax_perms(struct kvm *kvm, struct kvm_page_fault *fault,
					  bool shared)
{
	u64 *ptep = gfn_to_sptep(fault->slot, fault->gfn);
	u64 old = spte_read(ptep);

	if (!spte_present(S, old))
		return -EAGAIN;
	if (!stage2_try_set_pte(ptep, old, old | KVM_PTE_LEAF_ATTR_LO_S2_S2AP_W, shared))
		return -EAGAIN;
	__kvm_tlb_flush_vmid_ipa_nsh(kvm, gfn_to_gpa(fault->gfn));
	return 0;
}

/*
 * user_mem_abort(): snapshot mmu_invalidate_seq, get the page outside
 * the lock (kvm_s2_fault_pin_pfn), take mmu_lock (translation faults:
 * the write lock in 6.1, the read lock from 6.2; permission faults: the
 * read lock), give up with -EAGAIN if an invalidation ran meanwhile,
 * else map (or relax permissions on the same page).
 */
int user_mem_abort(struct kvm_vcpu *vcpu, struct kvm_page_fault *fault)
{
	struct kvm *kvm = vcpu->kvm;
	int frame = SIM_FRAME("user_mem_abort");
	enum kvm_lock_mode lock = fault->present ? KVM_LOCK_READ : kvm->cfg.s2_fault_lock;
	bool shared = lock != KVM_LOCK_WRITE;
	int ret;

	sim_frame_enter(frame);
	fault->mmu_seq = kvm->mmu_invalidate_seq;
	ret = kvm_faultin_pfn(vcpu, fault);
	if (ret)
		goto out;
	kvm_mmu_lock(kvm, lock);
	ret = -EAGAIN;
	if (mmu_invalidate_retry(kvm, fault->mmu_seq))
		goto out_unlock;
	if (fault->present && fault->map_writable &&
	    spte_to_pfn(S, *gfn_to_sptep(fault->slot, fault->gfn)) == fault->pfn)
		ret = kvm_pgtable_stage2_relax_perms(kvm, fault, shared);
	else
		ret = kvm_pgtable_stage2_map(kvm, fault, shared);
out_unlock:
	kvm_release_faultin_page(kvm, fault->refcounted_page, !!ret, fault->map_writable);
	kvm_mmu_unlock(kvm, lock);
out:
	sim_frame_exit(frame);
	if (ret == -EAGAIN)
		return RET_PF_RETRY;
	if (ret)
		return ret;
	vcpu->stat.pf_fixed++;
	return RET_PF_FIXED;
}

/*
 * handle_access_fault(): no hardware AF, so the vCPU faulted on an old
 * leaf; make it young again (kvm_pgtable_stage2_mkyoung, DSB ISHST),
 * under the write lock in 6.1 and the read lock from 6.2.
 */
int handle_access_fault(struct kvm_vcpu *vcpu, gpa_t fault_ipa)
{
	struct kvm *kvm = vcpu->kvm;
	struct kvm_memory_slot *slot = gfn_to_memslot(kvm, gpa_to_gfn(fault_ipa));
	enum kvm_lock_mode lock = kvm->cfg.s2_fault_lock;
	int frame = SIM_FRAME("handle_access_fault");
	u64 *ptep, old;

	sim_frame_enter(frame);
	vcpu->stat.af_fault++;
	kvm_mmu_lock(kvm, lock);
	ptep = gfn_to_sptep(slot, gpa_to_gfn(fault_ipa));
	old = spte_read(ptep);
	if (spte_present(S, old) &&
	    (spte_young(S, old) ||
	     stage2_try_set_pte(ptep, old, spte_mkyoung(S, old), lock != KVM_LOCK_WRITE)))
		hw_dsb();
	kvm_mmu_unlock(kvm, lock);
	sim_frame_exit(frame);
	return RET_PF_FIXED;
}
