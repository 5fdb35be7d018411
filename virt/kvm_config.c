// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors: no one file; the version boundaries of kvm_config.h, read in
 * 6.12's and 7.3's virt/kvm/kvm_main.c, arch/x86/kvm/mmu/tdp_mmu.c and
 * arch/arm64/kvm/mmu.c (../shared/S3.md).
 */
#include "virt/kvm_config.h"

struct kvm_config kvm_config_for(enum kvm_mmu_type type, unsigned int version)
{
	struct kvm_config c = {
		.name = "7.3",
		.age_lock = KVM_LOCK_WRITE,
		.flush_young = true,
		.test_clear_young = false,
		.s2_fault_lock = KVM_LOCK_READ,
	};

	if (version < KVM_VERSION(6, 2))
		c.s2_fault_lock = KVM_LOCK_WRITE;
	if (type == KVM_MMU_TDP) {
		c.cr0_wp_unloads_roots = version < KVM_VERSION(6, 4);
		if (version >= KVM_VERSION(6, 13))
			c.flush_young = false;
		if (version >= KVM_VERSION(6, 15))
			c.age_lock = KVM_LOCKLESS;
	}
	if (version < KVM_VERSION(6, 2))
		c.name = "6.1";
	else if (version < KVM_VERSION(6, 4))
		c.name = "6.2-6.3";
	else if (version < KVM_VERSION(6, 13))
		c.name = "6.4-6.12";
	else if (version < KVM_VERSION(6, 15))
		c.name = "6.13-6.14";
	else
		c.name = "6.15+";
	return c;
}
