/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm->mmu_lock as each path takes it (KVM_MMU_LOCK / read_lock / none).
 * The acquiring atomic is a counted event (mmu_lock_read, mmu_lock_write)
 * charged, like any wait for the lock, to the frame perf shows for it
 * (_raw_write_lock, _raw_read_lock); the waiting itself is the sim
 * engine's queued-rwlock time. KVM_LOCKLESS is an RCU read side: free.
 *
 * The lock word is one cache line every vCPU fault, notifier and reclaim
 * thread writes: an acquire or a release by a CPU other than the line's
 * last writer fetches it from that CPU's cache first (mmu_lock_bounce,
 * counted by the lock's on_bounce: kvm_create_vm) - what makes a lock
 * taken from many CPUs cost more than its uncontended atomic. Both are
 * charged inside the hold: while the line travels nobody else can take
 * the lock either.
 */
#ifndef PTELAB_VIRT_MMU_LOCK_H
#define PTELAB_VIRT_MMU_LOCK_H

#include "sim/frames.h"
#include "virt/kvm_host.h"

static inline void kvm_mmu_lock(struct kvm *kvm, enum kvm_lock_mode mode)
{
	int frame;

	if (mode == KVM_LOCKLESS)
		return; /* rcu_read_lock() */
	frame = mode == KVM_LOCK_WRITE ? SIM_FRAME("_raw_write_lock") : SIM_FRAME("_raw_read_lock");
	sim_frame_enter(frame);
	if (mode == KVM_LOCK_WRITE) {
		hw_count(EV_mmu_lock_write, 1);
		sim_write_lock(&kvm->mmu_lock, 0);
	} else {
		hw_count(EV_mmu_lock_read, 1);
		sim_read_lock(&kvm->mmu_lock, 0);
	}
	sim_frame_exit(frame);
}

static inline void kvm_mmu_unlock(struct kvm *kvm, enum kvm_lock_mode mode)
{
	if (mode == KVM_LOCK_WRITE)
		sim_write_unlock(&kvm->mmu_lock);
	else if (mode == KVM_LOCK_READ)
		sim_read_unlock(&kvm->mmu_lock);
}

#endif
