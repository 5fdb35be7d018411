// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: the vCPU's run loop around a guest access as far as the
 * secondary MMU is concerned: vcpu_enter_guest's request handling
 * (KVM_REQ_TLB_FLUSH, guest mode), the EPT violation / stage-2 abort
 * exits (kvm_mmu_page_fault -> kvm_tdp_mmu_page_fault on x86,
 * kvm_handle_guest_abort -> user_mem_abort / handle_access_fault on
 * arm64) and the hardware's own part: the guest's walk of the secondary
 * table, which sets A (x86) or AF (arm64 with HAFDBS) on the leaf it
 * uses, and D on x86 for a store.
 */
/*
 * There is no guest TLB: every access walks the leaf, so one the guest
 * repeats after an aging without flush sets the young bit again (real
 * hardware would hit its TLB and leave the bit clear until that entry
 * went). A flush costs what it costs and what it would invalidate is
 * not modelled.
 */
#include "hw/invariants.h"
#include "hw/phys.h"
#include "sim/engine.h"
#include "virt/kvm_host.h"
#include "virt/spte.h"

enum guest_walk {
	GUEST_WALK_OK,
	GUEST_WALK_TRANSLATION, /* leaf not present: EPT violation / translation fault */
	GUEST_WALK_PERMISSION,  /* store to a read-only leaf */
	GUEST_WALK_ACCESS_FLAG, /* arm64: AF clear, hardware does not manage it */
};

/*
 * The hardware's walk of the leaf for gfn: permission checked, then the
 * young (and x86 dirty) bits set in one atomic update if missing; the
 * store lands in the host frame the leaf names.
 */
static enum guest_walk guest_walk(struct kvm *kvm, struct kvm_memory_slot *slot, gfn_t gfn,
				  bool write)
{
	enum kvm_mmu_type t = kvm->mmu_type;
	u64 *sptep = gfn_to_sptep(slot, gfn);
	u64 spte = __atomic_load_n(sptep, __ATOMIC_RELAXED);
	u64 set = 0, pfn;

	hw_count(EV_mem_access, 1);
	if (!spte_present(t, spte))
		return GUEST_WALK_TRANSLATION;
	if (write && !spte_writable(t, spte))
		return GUEST_WALK_PERMISSION;
	if (!spte_young(t, spte)) {
		if (t == KVM_MMU_STAGE2 && !kvm->s2_hw_af)
			return GUEST_WALK_ACCESS_FLAG;
		set |= spte_mkyoung(t, 0);
	}
	if (t == KVM_MMU_TDP && write && !spte_dirty(spte))
		set |= VMX_EPT_DIRTY_BIT;
	if (set) {
		hw_count(EV_hw_update, 1);
		__atomic_fetch_or(sptep, set, __ATOMIC_SEQ_CST);
	}
	pfn = spte_to_pfn(t, spte);
	if (pfn >= hw_phys.nr_frames || hw_frame_is_free(pfn)) {
		hw_violation(VIOL_FREED_FRAME, "vcpu %s gpa %#llx reaches %s pfn %#llx through %s",
			     write ? "store to" : "load from", (unsigned long long)gfn_to_gpa(gfn),
			     pfn >= hw_phys.nr_frames ? "no" : "freed", (unsigned long long)pfn,
			     t == KVM_MMU_TDP ? "EPT" : "stage 2");
		return GUEST_WALK_OK;
	}
	if (write)
		hw_frame_store(pfn);
	return GUEST_WALK_OK;
}

/*
 * Entering the guest: a request left by a remote flush is served first
 * (x86 kvm_vcpu_flush_tlb_all: INVEPT on this CPU), and a vCPU that was
 * kicked out by its IPI pays the exit and the re-entry.
 */
static void kvm_vcpu_enter_guest(struct kvm_vcpu *vcpu)
{
	if (vcpu->root_unloaded) {
		/* kvm_mmu_load(): a new root, flushed (flush_tlb_current: its provenance is unknown) */
		vcpu->root_unloaded = false;
		vcpu->kvm->root_refs++;
		hw_count(EV_tlbi_local, 1);
	}
	if (vcpu->mode == EXITING_GUEST_MODE) {
		hw_count(EV_vcpu_kick, 1);
		vcpu->stat.kicks++;
	}
	if (kvm_check_request_tlb_flush(vcpu)) {
		hw_count(EV_tlbi_local, 1);
		vcpu->stat.tlb_flush++;
	}
	kvm_vcpu_set_mode(vcpu, IN_GUEST_MODE);
}

void kvm_vcpu_leave_guest(struct kvm_vcpu *vcpu)
{
	if (vcpu->mode == EXITING_GUEST_MODE)
		kvm_vcpu_enter_guest(vcpu); /* the kick's exit happened; its cost is paid */
	kvm_vcpu_set_mode(vcpu, OUTSIDE_GUEST_MODE);
}

void kvm_vcpu_toggle_cr0_wp(struct kvm_vcpu *vcpu)
{
	struct kvm *kvm = vcpu->kvm;

	/* arm64 has no CR0; with roots kept only the role's permission bits change */
	if (kvm->mmu_type != KVM_MMU_TDP || !kvm->cfg.cr0_wp_unloads_roots || vcpu->root_unloaded)
		return;
	/* kvm_mmu_reset_context -> kvm_mmu_unload -> kvm_tdp_mmu_put_root */
	vcpu->root_unloaded = true;
	if (--kvm->root_refs == 0)
		kvm_tdp_mmu_zap_invalidated_root(kvm);
}

/* consecutive retries a sequential run allows before it reports no progress */
#define KVM_SEQUENTIAL_RETRIES 16

int kvm_vcpu_access(struct kvm_vcpu *vcpu, gpa_t gpa, bool write)
{
	struct kvm *kvm = vcpu->kvm;
	gfn_t gfn = gpa_to_gfn(gpa);
	struct kvm_memory_slot *slot = gfn_to_memslot(kvm, gfn);
	int retries = 0;

	if (!slot)
		return -EFAULT; /* MMIO, in the kernel: not modelled */
	for (;;) {
		struct kvm_page_fault fault = { .gfn = gfn, .write = write, .slot = slot };
		enum guest_walk w;
		int r;

		sim_sync(); /* the leaf is shared with every other agent */
		kvm_vcpu_enter_guest(vcpu);
		w = guest_walk(kvm, slot, gfn, write);
		if (w == GUEST_WALK_OK)
			return 0;
		/* VM exit */
		kvm_vcpu_set_mode(vcpu, OUTSIDE_GUEST_MODE);
		hw_count(EV_secondary_fault, 1);
		vcpu->stat.pf_taken++;
		fault.present = w == GUEST_WALK_PERMISSION;
		if (w == GUEST_WALK_ACCESS_FLAG)
			r = handle_access_fault(vcpu, gpa);
		else if (kvm->mmu_type == KVM_MMU_TDP)
			r = kvm_tdp_mmu_page_fault(vcpu, &fault);
		else
			r = user_mem_abort(vcpu, &fault);
		if (r < 0)
			return r;
		if (r != RET_PF_RETRY) {
			retries = 0;
			continue;
		}
		hw_count(EV_fault_retry, 1);
		vcpu->stat.pf_retry++;
		/* sequentially, nobody else can end the invalidation it waits for */
		if (!sim_current() &&
		    (kvm->mmu_invalidate_in_progress || ++retries > KVM_SEQUENTIAL_RETRIES))
			return -EAGAIN;
	}
}
