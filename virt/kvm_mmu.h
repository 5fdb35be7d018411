/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virt/'s own interface between the generic code (kvm_main.c, the vCPU
 * side) and each architecture's secondary MMU: x86's TDP MMU
 * (tdp_mmu.c, after arch/x86/kvm/mmu/{tdp_mmu,mmu}.c) and arm64's stage
 * 2 (stage2.c, after arch/arm64/kvm/mmu.c and hyp/pgtable.c). The
 * kernel links one architecture; the lab dispatches on kvm->mmu_type.
 */
#ifndef PTELAB_VIRT_KVM_MMU_H
#define PTELAB_VIRT_KVM_MMU_H

#include "virt/kvm_host.h"

/* x86 TDP MMU */
bool kvm_tdp_mmu_age_gfn_range(struct kvm *kvm, struct kvm_gfn_range *range);
bool kvm_tdp_mmu_test_age_gfn(struct kvm *kvm, struct kvm_gfn_range *range);
bool kvm_tdp_mmu_unmap_gfn_range(struct kvm *kvm, struct kvm_gfn_range *range, bool flush);
bool kvm_tdp_mmu_test_clear_young(struct kvm *kvm, struct kvm_gfn_range *range, gfn_t lsb_gfn,
				  unsigned long *bitmap);
/* kvm_make_all_cpus_request(kvm, KVM_REQ_TLB_FLUSH) */
void kvm_make_all_cpus_request(struct kvm *kvm, unsigned int req);

/* arm64 stage 2 */
bool kvm_pgtable_stage2_test_clear_young(struct kvm *kvm, struct kvm_gfn_range *range,
					 bool mkold);
bool kvm_s2_unmap_gfn_range(struct kvm *kvm, struct kvm_gfn_range *range);
bool kvm_s2_test_clear_young(struct kvm *kvm, struct kvm_gfn_range *range, gfn_t lsb_gfn,
			     unsigned long *bitmap);
/* __kvm_tlb_flush_vmid(): DSB ISHST, TLBI VMALLS12E1IS, DSB ISH */
void __kvm_tlb_flush_vmid(struct kvm *kvm);

#endif
