/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which kernel's KVM a run models: the few behaviours of the secondary
 * MMU's aging and faults that changed between the kernels S3 compares
 * (../shared/S3.md). Everything else in virt/ is 7.3's shape. A workload
 * maps its switches and variants onto one of these; kvm_config_for()
 * gives the merged kernels, and the seed's op is one field on top.
 */
#ifndef PTELAB_VIRT_KVM_CONFIG_H
#define PTELAB_VIRT_KVM_CONFIG_H

#include <stdbool.h>

/* The secondary MMU's shape: x86's TDP MMU (EPT) or arm64's stage 2. */
enum kvm_mmu_type {
	KVM_MMU_TDP,     /* x86: EPT with A/D bits, hardware sets A on access */
	KVM_MMU_STAGE2,  /* arm64: stage 2; AF set by hardware only with HAFDBS */
};

/* How a path holds kvm->mmu_lock. */
enum kvm_lock_mode {
	KVM_LOCK_WRITE,  /* write_lock(&kvm->mmu_lock): KVM_MMU_LOCK of rwlock arches */
	KVM_LOCK_READ,   /* read_lock(&kvm->mmu_lock) */
	KVM_LOCKLESS,    /* no mmu_lock: RCU protects the tables, cmpxchg the entries */
};

struct kvm_config {
	const char *name;
	/*
	 * clear_flush_young, clear_young and test_young, through
	 * kvm_handle_hva_range():
	 *  KVM_LOCK_WRITE: KVM_MMU_LOCK, 6.1 .. 7.3 on arm64, 6.1 .. 6.14 on x86;
	 *  KVM_LOCKLESS:   x86 from 6.15 (CONFIG_KVM_MMU_LOCKLESS_AGING, TDP MMU
	 *                  under RCU; arm64 does not select it);
	 *  KVM_LOCK_READ:  no merged kernel; the 2024 RFC v3 of the bitmap
	 *                  series aged arm64 stage 2 under the read lock
	 *                  (kvm_arch_prepare_bitmap_age), for what-ifs.
	 */
	enum kvm_lock_mode age_lock;
	/*
	 * clear_flush_young flushes the guest's TLBs when something was young
	 * (flush_on_ret), inside the lock: every kernel on arm64; x86 until
	 * 6.12, 6.13 stopped (CONFIG_KVM_ELIDE_TLB_FLUSH_IF_YOUNG).
	 */
	bool flush_young;
	/*
	 * The seed (v1, Feb 2023): ->test_clear_young with a lockless fast
	 * path (RCU + cmpxchg) on x86's TDP MMU and on arm64 stage 2 when the
	 * hardware manages AF (kvm_arch_has_test_clear_young()). Never merged:
	 * off in every kvm_config_for(); the workload sets it for "after".
	 */
	bool test_clear_young;
	/*
	 * arm64 stage-2 translation and access-flag faults (user_mem_abort's
	 * map, handle_access_fault): KVM_LOCK_WRITE in 6.1, KVM_LOCK_READ
	 * from 6.2 (parallel stage-2 faults). Permission faults take the read
	 * lock in both. x86 TDP MMU faults always take the read lock.
	 */
	enum kvm_lock_mode s2_fault_lock;
	/*
	 * x86 with TDP before 6.4: KVM_SET_SREGS toggling CR0.WP resets the
	 * vCPU's MMU context and unloads its root (kvm_mmu_reset_context ->
	 * kvm_mmu_unload); the vCPU that puts the root's last reference marks
	 * it invalid and a worker zaps it (kvm_tdp_mmu_put_root ->
	 * tdp_mmu_schedule_zap_root), so the next run starts from an empty
	 * EPT. 6.4 ("KVM: x86: Do not unload MMU roots when only toggling
	 * CR0.WP with TDP enabled") keeps the root.
	 */
	bool cr0_wp_unloads_roots;
};

#define KVM_VERSION(major, minor) (((major) << 8) | (minor))

/* The merged behaviour of kernel major.minor for this MMU type. */
struct kvm_config kvm_config_for(enum kvm_mmu_type type, unsigned int version);

#endif
