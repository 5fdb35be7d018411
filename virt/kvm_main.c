// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: virt/kvm/kvm_main.c (kvm_create_vm, kvm_destroy_vm,
 * kvm_set_memory_region, kvm_handle_hva_range, kvm_age_hva_range,
 * kvm_mmu_invalidate_start/range_add/end, kvm_mmu_notifier_*,
 * kvm_flush_remote_tlbs); kvm_test_clear_young and
 * kvm_mmu_notifier_test_clear_young from the S3 seed (v1, Feb 2023).
 */
/*
 * The mmu_notifier side of KVM: core-mm tells a VM what happens to the
 * VMM's address space, and every handler goes through
 * kvm_handle_hva_range(): find the memslots the hva range overlaps, take
 * mmu_lock once (as the config says for aging; the write lock for
 * invalidations), run the arch handler per gfn range, and flush the
 * guest's TLBs if asked and something was young or zapped, while still
 * holding the lock. Each notifier entry is a profile frame, named as
 * perf shows it.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/host.h"
#include "hw/invariants.h"
#include "sim/frames.h"
#include "virt/kvm_host.h"
#include "virt/kvm_mmu.h"
#include "virt/mmu_lock.h"

typedef bool (*gfn_handler_t)(struct kvm *kvm, struct kvm_gfn_range *range);
typedef void (*on_lock_fn_t)(struct kvm *kvm);

struct kvm_mmu_notifier_range {
	u64 start, end;
	gfn_handler_t handler; /* NULL: on_lock only */
	on_lock_fn_t on_lock;  /* NULL: none */
	bool flush_on_ret;
	bool may_block;
	/* the kernel's KVM_MMU_LOCK, or .lockless; the lab's read mode is a what-if */
	enum kvm_lock_mode lock;
};

typedef struct kvm_mmu_notifier_return {
	bool ret;
	bool found_memslot;
} kvm_mn_ret_t;

static kvm_mn_ret_t kvm_handle_hva_range(struct kvm *kvm,
					 const struct kvm_mmu_notifier_range *range)
{
	kvm_mn_ret_t r = { .ret = false, .found_memslot = false };
	unsigned long young_cleared = 0;

	if (range->end <= range->start)
		return r;
	for (int i = 0; i < kvm->nr_memslots; i++) {
		struct kvm_memory_slot *slot = &kvm->memslots[i];
		unsigned long slot_end = slot->userspace_addr + (slot->npages << PAGE_SHIFT);
		unsigned long hva_start, hva_end;
		struct kvm_gfn_range gfn_range;

		if (range->start >= slot_end || range->end <= slot->userspace_addr)
			continue;
		hva_start = max(range->start, slot->userspace_addr);
		hva_end = min(range->end, slot_end);
		/* {gfn(page) | page intersects with [hva_start, hva_end)} */
		gfn_range = (struct kvm_gfn_range){
			.slot = slot,
			.start = hva_to_gfn_memslot(hva_start, slot),
			.end = hva_to_gfn_memslot(hva_end + PAGE_SIZE - 1, slot),
			.may_block = range->may_block,
			.lockless = range->lock == KVM_LOCKLESS,
		};
		if (!r.found_memslot) {
			r.found_memslot = true;
			kvm_mmu_lock(kvm, range->lock);
			if (range->on_lock)
				range->on_lock(kvm);
			if (!range->handler)
				goto mmu_unlock;
		}
		r.ret |= range->handler(kvm, &gfn_range);
		young_cleared += gfn_range.young_cleared;
	}
	if (range->flush_on_ret && r.ret)
		kvm_flush_remote_tlbs(kvm);
mmu_unlock:
	if (r.found_memslot)
		kvm_mmu_unlock(kvm, range->lock);
	/* a young entry made old must be reported young, or the access is lost */
	if (young_cleared && !r.ret)
		hw_violation(VIOL_LOST_YOUNG, "kvm: %lu young secondary entries in [%#llx, %#llx) "
			     "aged but not reported", young_cleared,
			     (unsigned long long)range->start, (unsigned long long)range->end);
	return r;
}

static bool kvm_age_hva_range(struct mmu_notifier *mn, unsigned long start, unsigned long end,
			      gfn_handler_t handler, bool flush_on_ret)
{
	struct kvm *kvm = mmu_notifier_to_kvm(mn);
	const struct kvm_mmu_notifier_range range = {
		.start = start,
		.end = end,
		.handler = handler,
		.flush_on_ret = flush_on_ret,
		.may_block = false,
		.lock = kvm->cfg.age_lock,
	};
	bool young = kvm_handle_hva_range(kvm, &range).ret;

	kvm->stat.age_calls++;
	kvm->stat.age_young += young;
	return young;
}

static void kvm_mmu_invalidate_start(struct kvm *kvm)
{
	/*
	 * The count increase must become visible at unlock time as no spte
	 * can be established without taking the mmu_lock and count is also
	 * read inside the mmu_lock critical section.
	 */
	kvm->mmu_invalidate_in_progress++;
	if (kvm->mmu_invalidate_in_progress == 1) {
		kvm->mmu_invalidate_range_start = INVALID_GPA;
		kvm->mmu_invalidate_range_end = INVALID_GPA;
	}
}

static void kvm_mmu_invalidate_range_add(struct kvm *kvm, gfn_t start, gfn_t end)
{
	if (!kvm->mmu_invalidate_in_progress)
		hw_violation(VIOL_OTHER, "kvm: invalidate range added with none in progress");
	if (kvm->mmu_invalidate_range_start == INVALID_GPA) {
		kvm->mmu_invalidate_range_start = start;
		kvm->mmu_invalidate_range_end = end;
	} else {
		/* concurrent ranges accumulate until every invalidation ends */
		kvm->mmu_invalidate_range_start = min(kvm->mmu_invalidate_range_start, start);
		kvm->mmu_invalidate_range_end = max(kvm->mmu_invalidate_range_end, end);
	}
}

static bool kvm_mmu_unmap_gfn_range(struct kvm *kvm, struct kvm_gfn_range *range)
{
	kvm_mmu_invalidate_range_add(kvm, range->start, range->end);
	return kvm_unmap_gfn_range(kvm, range);
}

static int kvm_mmu_notifier_invalidate_range_start(struct mmu_notifier *mn,
						   const struct mmu_notifier_range *range)
{
	struct kvm *kvm = mmu_notifier_to_kvm(mn);
	const struct kvm_mmu_notifier_range hva_range = {
		.start = range->start,
		.end = range->end,
		.handler = kvm_mmu_unmap_gfn_range,
		.on_lock = kvm_mmu_invalidate_start,
		.flush_on_ret = true,
		.may_block = true,
		.lock = KVM_LOCK_WRITE,
	};
	int frame = SIM_FRAME("kvm_mmu_notifier_invalidate_range_start");

	sim_frame_enter(frame);
	/* memslots stay put until range_end: the spin_lock(mn_invalidate_lock) pair */
	hw_count(EV_lock_acquire, 1);
	kvm->mn_active_invalidate_count++;
	if (kvm_handle_hva_range(kvm, &hva_range).found_memslot)
		kvm->stat.invalidations++;
	sim_frame_exit(frame);
	return 0;
}

static void kvm_mmu_invalidate_end(struct kvm *kvm)
{
	/*
	 * This sequence increase will notify the kvm page fault that the
	 * page that is going to be mapped in the spte could have been freed.
	 */
	kvm->mmu_invalidate_seq++;
	kvm->mmu_invalidate_in_progress--;
	if (kvm->mmu_invalidate_in_progress < 0)
		hw_violation(VIOL_OTHER, "kvm: mmu_invalidate_in_progress went negative");
}

static void kvm_mmu_notifier_invalidate_range_end(struct mmu_notifier *mn,
						  const struct mmu_notifier_range *range)
{
	struct kvm *kvm = mmu_notifier_to_kvm(mn);
	const struct kvm_mmu_notifier_range hva_range = {
		.start = range->start,
		.end = range->end,
		.on_lock = kvm_mmu_invalidate_end,
		.flush_on_ret = false,
		.may_block = true,
		.lock = KVM_LOCK_WRITE,
	};
	int frame = SIM_FRAME("kvm_mmu_notifier_invalidate_range_end");

	sim_frame_enter(frame);
	kvm_handle_hva_range(kvm, &hva_range);
	hw_count(EV_lock_acquire, 1);
	if (--kvm->mn_active_invalidate_count < 0)
		hw_violation(VIOL_OTHER, "kvm: invalidate_range_end without a start");
	sim_frame_exit(frame);
}

static bool kvm_mmu_notifier_clear_flush_young(struct mmu_notifier *mn, struct mm_struct *mm,
					       unsigned long start, unsigned long end)
{
	struct kvm *kvm = mmu_notifier_to_kvm(mn);
	int frame = SIM_FRAME("kvm_mmu_notifier_clear_flush_young");
	bool young;

	sim_frame_enter(frame);
	young = kvm_age_hva_range(mn, start, end, kvm_age_gfn, kvm->cfg.flush_young);
	sim_frame_exit(frame);
	return young;
}

static bool kvm_mmu_notifier_clear_young(struct mmu_notifier *mn, struct mm_struct *mm,
					 unsigned long start, unsigned long end)
{
	int frame = SIM_FRAME("kvm_mmu_notifier_clear_young");
	bool young;

	/* never flushes: TLBs drop the stale young state at their own pace */
	sim_frame_enter(frame);
	young = kvm_age_hva_range(mn, start, end, kvm_age_gfn, false);
	sim_frame_exit(frame);
	return young;
}

static bool kvm_mmu_notifier_test_young(struct mmu_notifier *mn, struct mm_struct *mm,
					unsigned long address)
{
	int frame = SIM_FRAME("kvm_mmu_notifier_test_young");
	bool young;

	sim_frame_enter(frame);
	young = kvm_age_hva_range(mn, address, address + 1, kvm_test_age_gfn, false);
	sim_frame_exit(frame);
	return young;
}

/*
 * The seed's kvm_test_clear_young(): per overlapping memslot, the arch's
 * lockless walk (under RCU only) flips and clears as the bitmap asks; its
 * bit offsets count back from lsb_gfn, the gfn of end - 1.
 */
static bool kvm_test_clear_young(struct kvm *kvm, unsigned long start, unsigned long end,
				 unsigned long *bitmap)
{
	bool success = true;

	for (int i = 0; i < kvm->nr_memslots && success; i++) {
		struct kvm_memory_slot *slot = &kvm->memslots[i];
		unsigned long slot_last = slot->userspace_addr + (slot->npages << PAGE_SHIFT) - 1;
		struct kvm_gfn_range range = { .slot = slot, .lockless = true };
		unsigned long hva_start, hva_end;
		gfn_t lsb_gfn;

		if (start > slot_last || end - 1 < slot->userspace_addr)
			continue;
		hva_start = max(start, slot->userspace_addr);
		hva_end = min(end - 1, slot_last);
		range.start = hva_to_gfn_memslot(hva_start, slot);
		range.end = hva_to_gfn_memslot(hva_end, slot) + 1;
		lsb_gfn = hva_to_gfn_memslot(end - 1, slot);
		success = kvm_arch_test_clear_young(kvm, &range, lsb_gfn, bitmap);
		kvm->stat.sptes_aged += range.young_cleared;
	}
	return success;
}

static bool kvm_mmu_notifier_test_clear_young(struct mmu_notifier *mn, struct mm_struct *mm,
					      unsigned long start, unsigned long end,
					      unsigned long *bitmap)
{
	struct kvm *kvm = mmu_notifier_to_kvm(mn);
	int frame = SIM_FRAME("kvm_mmu_notifier_test_clear_young");
	bool fast = false;

	sim_frame_enter(frame);
	if (kvm_arch_has_test_clear_young(kvm)) {
		fast = kvm_test_clear_young(kvm, start, end, bitmap);
		kvm->stat.test_clear_young_fast += fast;
	}
	sim_frame_exit(frame);
	return fast;
}

/* kvm_flush_shadow_all(): every secondary mapping goes, under the write lock. */
static void kvm_flush_shadow_all(struct kvm *kvm)
{
	bool flush = false;

	kvm_mmu_lock(kvm, KVM_LOCK_WRITE);
	for (int i = 0; i < kvm->nr_memslots; i++) {
		struct kvm_memory_slot *slot = &kvm->memslots[i];
		struct kvm_gfn_range range = {
			.slot = slot, .start = slot->base_gfn, .end = slot->base_gfn + slot->npages,
			.may_block = true,
		};

		flush |= kvm_unmap_gfn_range(kvm, &range);
	}
	if (flush)
		kvm_flush_remote_tlbs(kvm);
	kvm_mmu_unlock(kvm, KVM_LOCK_WRITE);
}

static void kvm_mmu_notifier_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct kvm *kvm = mmu_notifier_to_kvm(mn);

	kvm_flush_shadow_all(kvm);
	/* the kernel keeps the mm_struct (mmgrab) until the VM goes; the lab frees it */
	kvm->mm = NULL;
}

static const struct mmu_notifier_ops kvm_mmu_notifier_ops = {
	.invalidate_range_start = kvm_mmu_notifier_invalidate_range_start,
	.invalidate_range_end = kvm_mmu_notifier_invalidate_range_end,
	.clear_flush_young = kvm_mmu_notifier_clear_flush_young,
	.clear_young = kvm_mmu_notifier_clear_young,
	.test_young = kvm_mmu_notifier_test_young,
	.release = kvm_mmu_notifier_release,
};

/* The kernel with the seed applied: the same, plus ->test_clear_young. */
static const struct mmu_notifier_ops kvm_mmu_notifier_ops_test_clear_young = {
	.invalidate_range_start = kvm_mmu_notifier_invalidate_range_start,
	.invalidate_range_end = kvm_mmu_notifier_invalidate_range_end,
	.clear_flush_young = kvm_mmu_notifier_clear_flush_young,
	.clear_young = kvm_mmu_notifier_clear_young,
	.test_young = kvm_mmu_notifier_test_young,
	.test_clear_young = kvm_mmu_notifier_test_clear_young,
	.release = kvm_mmu_notifier_release,
};

/*
 * kvm_flush_remote_tlbs(): no vCPU may keep a translation the caller
 * just removed or aged. x86 asks every vCPU to flush before it next
 * enters the guest and IPIs those in guest mode, waiting for each
 * (kvm_make_all_cpus_request); arm64 invalidates the VMID by broadcast
 * TLBI from here (kvm_arch_flush_remote_tlbs -> __kvm_tlb_flush_vmid).
 */
void kvm_flush_remote_tlbs(struct kvm *kvm)
{
	int frame = SIM_FRAME("kvm_flush_remote_tlbs");

	sim_frame_enter(frame);
	hw_count(EV_kvm_flush, 1);
	kvm->stat.remote_tlb_flush++;
	if (kvm->mmu_type == KVM_MMU_STAGE2)
		__kvm_tlb_flush_vmid(kvm);
	else
		kvm_make_all_cpus_request(kvm, KVM_REQ_TLB_FLUSH);
	sim_frame_exit(frame);
}

/*
 * Each vCPU gets the request (kvm_make_vcpu_request: set_bit on
 * vcpu->requests, kvm_vcpu_wake_up, vcpu->mode read: cache lines the
 * vCPU's own CPU keeps writing, so a remote transfer each, whether it
 * is in the guest or not); one in guest mode is kicked out by an IPI
 * (counted per target, the wait for its ack included in the ipi cost)
 * and pays its exit and re-entry when it next enters (vcpu_kick).
 */
void kvm_make_all_cpus_request(struct kvm *kvm, unsigned int req)
{
	int words = (kvm->nr_vcpus + KVM_LONG_BITS - 1) / KVM_LONG_BITS;

	if (req != KVM_REQ_TLB_FLUSH)
		sim_bug("kvm_make_all_cpus_request(%u): only KVM_REQ_TLB_FLUSH is modelled", req);
	hw_count(EV_vcpu_request, (u64)kvm->nr_vcpus);
	kvm->all_req_gen++;
	for (int w = 0; w < words; w++) {
		while (kvm->in_guest[w]) {
			int i = w * KVM_LONG_BITS + __builtin_ctzl(kvm->in_guest[w]);

			kvm_vcpu_set_mode(&kvm->vcpus[i], EXITING_GUEST_MODE);
			hw_count(EV_ipi, 1);
			kvm->stat.remote_tlb_flush_ipis++;
		}
	}
}

/*
 * A host TLB shootdown of the VMM's mm (x86 flush_tlb_mm_range from
 * reclaim's unmap, say) IPIs the CPUs running its threads. A vCPU in
 * guest mode takes an external-interrupt exit for it, runs the flush and
 * re-enters (vcpu_kick, paid when it next enters); the sender's part per
 * target, sending and waiting for the ack, is the ipi the caller counts.
 * vCPU threads in the host kernel at that moment would ack from there,
 * cheaply, and sleeping ones are lazy and skipped: neither is counted.
 */
static unsigned int kvm_vcpu_threads_ipi(struct mm_thread_cpus *tc)
{
	struct kvm *kvm = (struct kvm *)((char *)tc - offsetof(struct kvm, thread_cpus));
	int words = (kvm->nr_vcpus + KVM_LONG_BITS - 1) / KVM_LONG_BITS;
	unsigned int n = 0;

	for (int w = 0; w < words; w++) {
		while (kvm->in_guest[w]) {
			int i = w * KVM_LONG_BITS + __builtin_ctzl(kvm->in_guest[w]);

			kvm_vcpu_set_mode(&kvm->vcpus[i], EXITING_GUEST_MODE);
			n++;
		}
	}
	kvm->stat.host_shootdown_kicks += n;
	return n;
}

void kvm_vcpu_set_mode(struct kvm_vcpu *vcpu, enum vcpu_mode mode)
{
	unsigned long bit = 1UL << (vcpu->vcpu_id % KVM_LONG_BITS);
	unsigned long *w = &vcpu->kvm->in_guest[vcpu->vcpu_id / KVM_LONG_BITS];

	vcpu->mode = mode;
	if (mode == IN_GUEST_MODE)
		*w |= bit;
	else
		*w &= ~bit;
}

bool kvm_check_request_tlb_flush(struct kvm_vcpu *vcpu)
{
	bool pending = vcpu->requests & (1UL << KVM_REQ_TLB_FLUSH) ||
		       vcpu->all_req_seen != vcpu->kvm->all_req_gen;

	vcpu->requests &= ~(1UL << KVM_REQ_TLB_FLUSH);
	vcpu->all_req_seen = vcpu->kvm->all_req_gen;
	return pending;
}

/* kvm->mmu_lock's word came from another CPU's cache (virt/mmu_lock.h) */
static void kvm_mmu_lock_bounce(void)
{
	hw_count(EV_mmu_lock_bounce, 1);
}

struct kvm *kvm_create_vm(struct mm_struct *mm, const struct kvm_create_params *p)
{
	struct kvm *kvm = host_calloc(1, sizeof(*kvm), "a VM");

	kvm->mmu_type = p->mmu_type;
	kvm->cfg = p->cfg;
	kvm->mm = mm;
	kvm->s2_hw_af = p->s2_hw_af;
	kvm->tlbi_range = p->tlbi_range;
	sim_rwlock_init(&kvm->mmu_lock, "kvm->mmu_lock");
	kvm->mmu_lock.on_bounce = kvm_mmu_lock_bounce;
	kvm->nr_vcpus = p->nr_vcpus;
	kvm->root_refs = p->nr_vcpus;
	kvm->vcpus = host_calloc((size_t)max(p->nr_vcpus, 1), sizeof(*kvm->vcpus), "vCPUs");
	kvm->in_guest = host_calloc((size_t)p->nr_vcpus / KVM_LONG_BITS + 1, sizeof(long), "vCPUs");
	for (int i = 0; i < p->nr_vcpus; i++) {
		kvm->vcpus[i].kvm = kvm;
		kvm->vcpus[i].vcpu_id = i;
		kvm->vcpus[i].mode = OUTSIDE_GUEST_MODE;
	}
	/* KVM_RUN runs in the VMM's threads: their CPUs hold the VMM's mm */
	kvm->thread_cpus.ipi = kvm_vcpu_threads_ipi;
	if (!mm->thread_cpus)
		mm->thread_cpus = &kvm->thread_cpus;
	kvm->mmu_notifier.ops = p->cfg.test_clear_young ? &kvm_mmu_notifier_ops_test_clear_young
							: &kvm_mmu_notifier_ops;
	mmu_notifier_register(&kvm->mmu_notifier, mm);
	return kvm;
}

void kvm_destroy_vm(struct kvm *kvm)
{
	if (kvm->mm && kvm->mm->thread_cpus == &kvm->thread_cpus)
		kvm->mm->thread_cpus = NULL;
	/* mmu_notifier_unregister() releases a subscriber exit has not released */
	if (kvm->mmu_notifier.mm) {
		kvm_flush_shadow_all(kvm);
		mmu_notifier_unregister(&kvm->mmu_notifier, kvm->mm);
	}
	for (int i = 0; i < kvm->nr_memslots; i++)
		free(kvm->memslots[i].sptes);
	free(kvm->vcpus);
	free(kvm->in_guest);
	free(kvm);
}

int kvm_set_memory_region(struct kvm *kvm, int id, gpa_t gpa, u64 size, unsigned long hva)
{
	struct kvm_memory_slot *slot;

	if (kvm->nr_memslots == KVM_MAX_MEMSLOTS || !size || (gpa | size | hva) & ~PAGE_MASK)
		return -1;
	for (int i = 0; i < kvm->nr_memslots; i++) {
		struct kvm_memory_slot *s = &kvm->memslots[i];

		if (s->id == id || (gpa_to_gfn(gpa) < s->base_gfn + s->npages &&
				    s->base_gfn < gpa_to_gfn(gpa + size)))
			return -1;
	}
	slot = &kvm->memslots[kvm->nr_memslots++];
	slot->id = id;
	slot->base_gfn = gpa_to_gfn(gpa);
	slot->npages = size >> PAGE_SHIFT;
	slot->userspace_addr = hva;
	slot->sptes = host_calloc(slot->npages, sizeof(u64), "a memslot's SPTEs");
	return 0;
}

struct kvm_memory_slot *gfn_to_memslot(struct kvm *kvm, gfn_t gfn)
{
	for (int i = 0; i < kvm->nr_memslots; i++) {
		struct kvm_memory_slot *s = &kvm->memslots[i];

		if (gfn >= s->base_gfn && gfn < s->base_gfn + s->npages)
			return s;
	}
	return NULL;
}
