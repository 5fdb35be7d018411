// SPDX-License-Identifier: GPL-2.0-only
/*
 * virt/: KVM's secondary MMU behind mmu_notifier, on x86 (TDP MMU, EPT)
 * and arm64 (stage 2). A VMM mm maps guest memory (anonymous, or a file
 * for reclaim), one memslot backs the guest with it, and vCPUs fault in
 * the secondary entries. Every expected count is worked out in the
 * comment above its check; counts are of virt/'s own events (and the few
 * core-mm ones a path must cause), taken as differences around the call.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/phys.h"
#include "hw/profile.h"
#include "mm/filemap.h"
#include "mm/reclaim.h"
#include "mm/rmap.h"
#include "mm/switches.h"
#include "sim/sim.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"
#include "virt/kvm_host.h"
#include "virt/spte.h"

#define V_HVA 0x40000000UL
#define V_GPA 0x100000000ULL
#define V_PAGES 64UL

struct v_lab {
	struct mm_struct *mm;
	struct address_space *file;
	struct kvm *kvm;
	enum kvm_mmu_type t;
	struct hw_counters snap;
};

/*
 * A machine of arch, a VMM mm with V_PAGES pages at V_HVA (anonymous
 * read-write in 4 KiB folios, or a read-only file of 4 KiB folios), and a
 * VM with nr_vcpus vCPUs whose memslot 0 maps V_GPA to them.
 */
static void v_setup(struct v_lab *v, const char *arch_name, bool file, int nr_vcpus,
		    struct kvm_config cfg, bool s2_hw_af, bool tlbi_range)
{
	struct run_params p = {
		.arch = arch_name, .impl = "ref", .nr_cpus = 2, .seed = 1,
		.policy = HW_POLICY_ACCESSED, .tlb_entries = 256, .tlb_ways = 4, .hafdbs = true,
	};
	struct kvm_create_params kp = {
		.cfg = cfg, .nr_vcpus = nr_vcpus, .s2_hw_af = s2_hw_af, .tlbi_range = tlbi_range,
	};
	char err[200];

	memset(v, 0, sizeof(*v));
	lab_switches_reset();
	if (lab_machine_setup(&p, 8192, err, sizeof(err)))
		printf("    # setup failed: %s\n", err);
	v->t = kp.mmu_type = strcmp(arch_name, "x86") ? KVM_MMU_STAGE2 : KVM_MMU_TDP;
	v->mm = mm_alloc();
	if (file) {
		v->file = address_space_create(V_PAGES * PAGE_SIZE, 0);
		mmap_file(v->mm, V_HVA, V_PAGES * PAGE_SIZE, v->file, 0, VM_READ);
	} else {
		mmap_anon(v->mm, V_HVA, V_PAGES * PAGE_SIZE, VM_READ | VM_WRITE, 0, false);
	}
	v->kvm = kvm_create_vm(v->mm, &kp);
	EXPECT_EQ(kvm_set_memory_region(v->kvm, 0, V_GPA, V_PAGES * PAGE_SIZE, V_HVA), 0);
}

static void v_teardown(struct v_lab *v)
{
	EXPECT_EQ(kvm_check_invariants(v->kvm), 0);
	kvm_destroy_vm(v->kvm);
	mm_check_invariants(v->mm);
	mmput(v->mm);
	if (v->file)
		address_space_destroy(v->file);
	mm_check_all_freed();
	EXPECT_EQ(hw_violations.total, 0);
	lab_machine_teardown();
}

static void snap(struct v_lab *v)
{
	hw_events_snapshot(&v->snap);
}

/* events counted since the last snap() */
static long long ev(struct v_lab *v, enum hw_event e)
{
	return (long long)(hw_events.v[e] - v->snap.v[e]);
}

static u64 spte_at(struct v_lab *v, unsigned long page)
{
	return v->kvm->memslots[0].sptes[page];
}

static unsigned long hva_of(unsigned long page)
{
	return V_HVA + page * PAGE_SIZE;
}

static pte_t *t_ptep_of(struct mm_struct *mm, unsigned long addr)
{
	return pte_offset_map(pmd_walk(mm, addr), addr);
}

static int access_pages(struct kvm_vcpu *vcpu, unsigned long first, unsigned long n, bool write)
{
	int bad = 0;

	for (unsigned long i = first; i < first + n; i++)
		bad += kvm_vcpu_access(vcpu, V_GPA + i * PAGE_SIZE, write) != 0;
	return bad;
}

static int young_pages(struct v_lab *v, unsigned long first, unsigned long n)
{
	int y = 0;

	for (unsigned long i = first; i < first + n; i++)
		y += spte_present(v->t, spte_at(v, i)) && spte_young(v->t, spte_at(v, i));
	return y;
}

static struct kvm_config cfg(enum kvm_mmu_type t, int major, int minor)
{
	return kvm_config_for(t, KVM_VERSION((unsigned int)major, (unsigned int)minor));
}

/* ---- the configs stand for the kernels they name ---- */

static void test_config_versions(void)
{
	struct kvm_config c;

	/* 6.1: everything under the write lock, flushing; arm64 faults write-locked */
	c = cfg(KVM_MMU_TDP, 6, 1);
	EXPECT(c.age_lock == KVM_LOCK_WRITE && c.flush_young && !c.test_clear_young);
	c = cfg(KVM_MMU_STAGE2, 6, 1);
	EXPECT(c.s2_fault_lock == KVM_LOCK_WRITE && c.flush_young);
	/* 6.2: arm64 faults read-locked */
	EXPECT(cfg(KVM_MMU_STAGE2, 6, 2).s2_fault_lock == KVM_LOCK_READ);
	/* 6.13: x86 stops flushing in clear_flush_young; arm64 does not */
	EXPECT(!cfg(KVM_MMU_TDP, 6, 13).flush_young);
	EXPECT(cfg(KVM_MMU_STAGE2, 7, 3).flush_young);
	/* 6.15: x86 ages locklessly; arm64 keeps the write lock */
	EXPECT(cfg(KVM_MMU_TDP, 6, 14).age_lock == KVM_LOCK_WRITE);
	EXPECT(cfg(KVM_MMU_TDP, 6, 15).age_lock == KVM_LOCKLESS);
	EXPECT(cfg(KVM_MMU_STAGE2, 7, 3).age_lock == KVM_LOCK_WRITE);
	/* 6.4: toggling CR0.WP with TDP no longer unloads the root */
	EXPECT(cfg(KVM_MMU_TDP, 6, 2).cr0_wp_unloads_roots);
	EXPECT(!cfg(KVM_MMU_TDP, 6, 4).cr0_wp_unloads_roots);
	EXPECT(!cfg(KVM_MMU_STAGE2, 6, 2).cr0_wp_unloads_roots);
}

/* ---- faults ---- */

static void fault_in(const char *arch_name, struct kvm_config c, bool write)
{
	struct v_lab v;
	struct kvm_vcpu *vcpu;
	bool x86 = !strcmp(arch_name, "x86");
	bool wlock = !x86 && c.s2_fault_lock == KVM_LOCK_WRITE;

	v_setup(&v, arch_name, false, 1, c, true, false);
	vcpu = kvm_get_vcpu(v.kvm, 0);
	snap(&v);
	EXPECT_EQ(access_pages(vcpu, 0, V_PAGES, write), 0);
	/*
	 * Per page, first touch: the walk misses (mem_access), one exit
	 * (secondary_fault), the host faults the page in (fault: 4 KiB
	 * folios, one each), the lock once, the leaf read once; then the
	 * access again (a second mem_access) finds it.
	 *  x86 (read lock): the leaf installed by one cmpxchg; the replayed
	 *   store sets D (hw_update), a load finds A already set by KVM.
	 *  arm64 7.3 (read lock): break-before-make's cmpxchg to locked, then
	 *   the store of the new leaf.
	 *  arm64 6.1 (write lock): one store.
	 */
	EXPECT_EQ(ev(&v, EV_mem_access), 2 * V_PAGES);
	EXPECT_EQ(ev(&v, EV_secondary_fault), V_PAGES);
	EXPECT_EQ(ev(&v, EV_fault), V_PAGES);
	EXPECT_EQ(ev(&v, EV_fault_retry), 0);
	EXPECT_EQ(ev(&v, EV_mmu_lock_read), wlock ? 0 : V_PAGES);
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), wlock ? V_PAGES : 0);
	EXPECT_EQ(ev(&v, EV_spte_read), V_PAGES);
	EXPECT_EQ(ev(&v, EV_spte_atomic), wlock ? 0 : V_PAGES);
	EXPECT_EQ(ev(&v, EV_spte_write), x86 ? 0 : V_PAGES);
	EXPECT_EQ(ev(&v, EV_hw_update), x86 && write ? V_PAGES : 0);
	EXPECT_EQ(ev(&v, EV_kvm_flush), 0);
	EXPECT_EQ(vcpu->stat.pf_fixed, V_PAGES);
	/* every leaf young and writable (the host page is writable: anon, VM_WRITE) */
	EXPECT_EQ(young_pages(&v, 0, V_PAGES), V_PAGES);
	EXPECT(spte_writable(v.t, spte_at(&v, 7)));
	EXPECT_EQ(spte_to_pfn(v.t, spte_at(&v, 7)), pte_pfn(ptep_get(t_ptep_of(v.mm, hva_of(7)))));
	/* a second pass: 64 walks that hit, nothing else (x86: D already set by the stores) */
	snap(&v);
	EXPECT_EQ(access_pages(vcpu, 0, V_PAGES, write), 0);
	EXPECT_EQ(ev(&v, EV_mem_access), V_PAGES);
	EXPECT_EQ(ev(&v, EV_secondary_fault), 0);
	EXPECT_EQ(ev(&v, EV_hw_update), 0);
	/* outside every memslot: -EFAULT, no fault taken */
	EXPECT_EQ(kvm_vcpu_access(vcpu, V_GPA + V_PAGES * PAGE_SIZE, false), -EFAULT);
	v_teardown(&v);
}

static void test_fault_in_x86_write(void)
{
	fault_in("x86", cfg(KVM_MMU_TDP, 7, 3), true);
}

static void test_fault_in_x86_read(void)
{
	fault_in("x86", cfg(KVM_MMU_TDP, 7, 3), false);
}

static void test_fault_in_arm64(void)
{
	fault_in("arm64", cfg(KVM_MMU_STAGE2, 7, 3), true);
}

static void test_fault_in_arm64_6_1(void)
{
	fault_in("arm64", cfg(KVM_MMU_STAGE2, 6, 1), false);
}

/*
 * max_guest_memory_test's reset: 2 vCPUs fault in 32 pages each, then
 * both toggle CR0.WP. Before 6.4 the first toggle only drops vCPU 0's
 * reference; the second drops the last and the root is zapped (64 leaves,
 * one read lock, no flush: no vCPU uses an invalid root), so the next
 * pass faults every page again and each vCPU flushes its new root once
 * (tlbi_local) on entry. From 6.4 nothing changes and the pass only stores.
 */
static void cr0_wp_reset(int major, int minor)
{
	struct v_lab v;
	struct kvm_config c = cfg(KVM_MMU_TDP, major, minor);
	bool unloads = c.cr0_wp_unloads_roots;

	v_setup(&v, "x86", false, 2, c, true, false);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, 32, true), 0);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 1), 32, 32, true), 0);
	kvm_vcpu_leave_guest(kvm_get_vcpu(v.kvm, 0));
	kvm_vcpu_leave_guest(kvm_get_vcpu(v.kvm, 1));
	snap(&v);
	kvm_vcpu_toggle_cr0_wp(kvm_get_vcpu(v.kvm, 0));
	EXPECT_EQ(young_pages(&v, 0, V_PAGES), V_PAGES);
	kvm_vcpu_toggle_cr0_wp(kvm_get_vcpu(v.kvm, 1));
	EXPECT_EQ(young_pages(&v, 0, V_PAGES), unloads ? 0 : V_PAGES);
	EXPECT_EQ(ev(&v, EV_mmu_lock_read), unloads ? 1 : 0);
	EXPECT_EQ(ev(&v, EV_kvm_flush), 0);
	EXPECT_EQ((long long)v.kvm->stat.sptes_zapped, unloads ? V_PAGES : 0);
	snap(&v);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, 32, true), 0);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 1), 32, 32, true), 0);
	EXPECT_EQ(ev(&v, EV_secondary_fault), unloads ? V_PAGES : 0);
	EXPECT_EQ(ev(&v, EV_tlbi_local), unloads ? 2 : 0);
	EXPECT_EQ(young_pages(&v, 0, V_PAGES), V_PAGES);
	v_teardown(&v);
}

static void test_cr0_wp_reset_x86_6_2(void)
{
	cr0_wp_reset(6, 2);
}

static void test_cr0_wp_reset_x86_6_4(void)
{
	cr0_wp_reset(6, 4);
}

/* ---- aging ---- */

/*
 * 4 vCPUs; 0..2 fault in 16 pages each of the first 48 (and stay in
 * guest mode), vCPU 3 never runs. Then clear_flush_young over pages
 * 0..15.
 */
static void x86_clear_flush_young(int major, int minor)
{
	struct kvm_config c = cfg(KVM_MMU_TDP, major, minor);
	bool flush = c.flush_young, locked = c.age_lock == KVM_LOCK_WRITE;
	struct v_lab v;

	v_setup(&v, "x86", false, 4, c, true, false);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, i), 16UL * (unsigned long)i, 16, true), 0);
	snap(&v);
	EXPECT(mmu_notifier_clear_flush_young(v.mm, hva_of(0), hva_of(16)));
	/*
	 * One notifier call; 16 leaves read, all young. 6.1 .. 6.14: under
	 * the write lock, each young, writable and dirty leaf loses A by a
	 * store (hardware cannot change it: spte_needs_atomic_update is
	 * false); 6.15+: locklessly, by cmpxchg. Something was young: 6.1 ..
	 * 6.12 flush: one kvm_flush, an IPI to each of the 3 vCPUs in guest
	 * mode (not vCPU 3); 6.13+: none.
	 */
	EXPECT_EQ(ev(&v, EV_notifier_call), 1);
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), locked ? 1 : 0);
	EXPECT_EQ(ev(&v, EV_mmu_lock_read), 0);
	EXPECT_EQ(ev(&v, EV_spte_read), 16);
	EXPECT_EQ(ev(&v, EV_spte_write), locked ? 16 : 0);
	EXPECT_EQ(ev(&v, EV_spte_atomic), locked ? 0 : 16);
	EXPECT_EQ(ev(&v, EV_kvm_flush), flush ? 1 : 0);
	EXPECT_EQ(ev(&v, EV_ipi), flush ? 3 : 0);
	/* the request reaches every vCPU, in the guest or not */
	EXPECT_EQ(ev(&v, EV_vcpu_request), flush ? 4 : 0);
	EXPECT_EQ(young_pages(&v, 0, 16), 0);
	EXPECT_EQ(young_pages(&v, 16, 32), 32);
	/* again: nothing young, nothing cleared, no flush; 16 reads */
	snap(&v);
	EXPECT(!mmu_notifier_clear_flush_young(v.mm, hva_of(0), hva_of(16)));
	EXPECT_EQ(ev(&v, EV_spte_read), 16);
	EXPECT_EQ(ev(&v, EV_spte_write) + ev(&v, EV_spte_atomic), 0);
	EXPECT_EQ(ev(&v, EV_kvm_flush), 0);
	/*
	 * The kicked vCPUs pay at their next entry: a kick and the flush
	 * request's INVEPT (tlbi_local) each; vCPU 3 was not kicked, but has
	 * the request too. A load of page 0 by vCPU 0 sets A again.
	 */
	snap(&v);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(kvm_vcpu_access(kvm_get_vcpu(v.kvm, i), V_GPA, false), 0);
	EXPECT_EQ(ev(&v, EV_vcpu_kick), flush ? 3 : 0);
	EXPECT_EQ(ev(&v, EV_tlbi_local), flush ? 4 : 0);
	EXPECT_EQ(ev(&v, EV_hw_update), 1);
	EXPECT_EQ(young_pages(&v, 0, 16), 1);
	v_teardown(&v);
}

static void test_clear_flush_young_x86_6_1(void)
{
	x86_clear_flush_young(6, 1);
}

static void test_clear_flush_young_x86_6_13(void)
{
	x86_clear_flush_young(6, 13);
}

static void test_clear_flush_young_x86_6_15(void)
{
	x86_clear_flush_young(6, 15);
}

static void test_clear_flush_young_arm64(void)
{
	struct v_lab v;

	v_setup(&v, "arm64", false, 4, cfg(KVM_MMU_STAGE2, 7, 3), true, false);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, i), 16UL * (unsigned long)i, 16, true), 0);
	snap(&v);
	EXPECT(mmu_notifier_clear_flush_young(v.mm, hva_of(0), hva_of(16)));
	/*
	 * Under the write lock, 16 leaves read, 16 AF cleared by a store
	 * (an exclusive walk); the flush is __kvm_tlb_flush_vmid: DSB, one
	 * TLBI VMALLS12E1IS, DSB, broadcast: no IPI, whatever the vCPUs do.
	 */
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), 1);
	EXPECT_EQ(ev(&v, EV_spte_read), 16);
	EXPECT_EQ(ev(&v, EV_spte_write), 16);
	EXPECT_EQ(ev(&v, EV_spte_atomic), 0);
	EXPECT_EQ(ev(&v, EV_kvm_flush), 1);
	EXPECT_EQ(ev(&v, EV_tlbi_vmid), 1);
	EXPECT_EQ(ev(&v, EV_dsb), 2);
	EXPECT_EQ(ev(&v, EV_ipi), 0);
	EXPECT_EQ(young_pages(&v, 0, 16), 0);
	/* with hardware AF a load makes a leaf young again: one hw_update, no fault */
	snap(&v);
	EXPECT_EQ(kvm_vcpu_access(kvm_get_vcpu(v.kvm, 0), V_GPA, false), 0);
	EXPECT_EQ(ev(&v, EV_hw_update), 1);
	EXPECT_EQ(ev(&v, EV_secondary_fault), 0);
	v_teardown(&v);
}

static void clear_young(const char *arch_name, struct kvm_config c)
{
	struct v_lab v;

	v_setup(&v, arch_name, false, 2, c, true, false);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, 32, true), 0);
	snap(&v);
	/* 32 young leaves aged, reported young, and never a flush nor an IPI */
	EXPECT(mmu_notifier_clear_young(v.mm, hva_of(0), hva_of(32)));
	EXPECT_EQ(ev(&v, EV_spte_read), 32);
	EXPECT_EQ(ev(&v, EV_spte_write) + ev(&v, EV_spte_atomic), 32);
	EXPECT_EQ(ev(&v, EV_kvm_flush), 0);
	EXPECT_EQ(ev(&v, EV_ipi) + ev(&v, EV_tlbi_vmid) + ev(&v, EV_dsb), 0);
	EXPECT_EQ(young_pages(&v, 0, 32), 0);
	EXPECT_EQ(v.kvm->stat.sptes_aged, 32);
	v_teardown(&v);
}

static void test_clear_young_x86(void)
{
	clear_young("x86", cfg(KVM_MMU_TDP, 6, 1));
}

static void test_clear_young_arm64(void)
{
	clear_young("arm64", cfg(KVM_MMU_STAGE2, 6, 1));
}

static void test_test_young(void)
{
	struct v_lab v;

	v_setup(&v, "x86", false, 1, cfg(KVM_MMU_TDP, 6, 1), true, false);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, 4, false), 0);
	snap(&v);
	/* one page, young: one leaf read under the write lock, nothing written */
	EXPECT(mmu_notifier_test_young(v.mm, hva_of(2) + 100));
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), 1);
	EXPECT_EQ(ev(&v, EV_spte_read), 1);
	EXPECT_EQ(ev(&v, EV_spte_write) + ev(&v, EV_spte_atomic) + ev(&v, EV_kvm_flush), 0);
	EXPECT_EQ(young_pages(&v, 0, 4), 4);
	/* a page the guest never touched: no leaf, not young */
	EXPECT(!mmu_notifier_test_young(v.mm, hva_of(9)));
	/* an hva outside the memslot: no memslot, no lock */
	snap(&v);
	EXPECT(!mmu_notifier_test_young(v.mm, V_HVA + V_PAGES * PAGE_SIZE));
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), 0);
	v_teardown(&v);
}

static bool test_bit_t(const unsigned long *bitmap, unsigned long bit)
{
	return bitmap[bit / 64] & (1UL << (bit % 64));
}

/* the seed's bitmap: page i of [hva_of(0), hva_of(64)) is bit 63 - i */
static void test_clear_young_bitmap(const char *arch_name)
{
	bool x86 = !strcmp(arch_name, "x86");
	struct kvm_config c = x86 ? cfg(KVM_MMU_TDP, 6, 1) : cfg(KVM_MMU_STAGE2, 6, 1);
	unsigned long bitmap[1] = { 0 };
	struct v_lab v;
	int set = 0;

	c.test_clear_young = true;
	v_setup(&v, arch_name, false, 1, c, true, false);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, V_PAGES, true), 0);
	/* pages 10..19 made old, then 12 and 15 touched again: 64 - 10 + 2 = 56 young */
	EXPECT(mmu_notifier_clear_young(v.mm, hva_of(10), hva_of(20)));
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 12, 1, false), 0);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 15, 1, false), 0);
	snap(&v);
	/*
	 * Test only (bits 0): the fast path reads 64 leaves under RCU, takes
	 * no lock, changes no leaf, and flips the 56 young pages' bits to 1.
	 * One notifier call; the return is 0 (no fallback happened).
	 */
	EXPECT_EQ(mmu_notifier_test_clear_young(v.mm, hva_of(0), hva_of(64), false, bitmap), 0);
	EXPECT_EQ(ev(&v, EV_notifier_call), 1);
	EXPECT_EQ(ev(&v, EV_mmu_lock_read) + ev(&v, EV_mmu_lock_write), 0);
	EXPECT_EQ(ev(&v, EV_spte_read), 64);
	EXPECT_EQ(ev(&v, EV_spte_atomic) + ev(&v, EV_spte_write), 0);
	for (unsigned long b = 0; b < 64; b++)
		set += test_bit_t(bitmap, b);
	EXPECT_EQ(set, 56);
	EXPECT(test_bit_t(bitmap, 63 - 0) && test_bit_t(bitmap, 63 - 12) && test_bit_t(bitmap, 63 - 63));
	EXPECT(!test_bit_t(bitmap, 63 - 10) && !test_bit_t(bitmap, 63 - 19));
	EXPECT_EQ(young_pages(&v, 0, V_PAGES), 56);
	/*
	 * Test and clear with the same bitmap: each young leaf's bit was 1,
	 * so it flips to 0 and the leaf loses A by cmpxchg: 56 atomics, no
	 * lock; afterwards no bit and no young leaf is left.
	 */
	snap(&v);
	EXPECT_EQ(mmu_notifier_test_clear_young(v.mm, hva_of(0), hva_of(64), true, bitmap), 0);
	EXPECT_EQ(ev(&v, EV_spte_atomic), 56);
	EXPECT_EQ(ev(&v, EV_mmu_lock_read) + ev(&v, EV_mmu_lock_write), 0);
	EXPECT_EQ(bitmap[0], 0);
	EXPECT_EQ(young_pages(&v, 0, V_PAGES), 0);
	EXPECT_EQ(v.kvm->stat.test_clear_young_fast, 2);
	v_teardown(&v);
}

/*
 * The seed's look-around (should_look_around): the page itself is tested
 * and cleared in both MMUs; the 64-page window is scanned only when the
 * host entry was young or the fast path found the secondary one young.
 * Host entries all old; KVM's leaves old but for pages 20 and 40.
 */
static bool look_around_at(struct v_lab *v, unsigned long page)
{
	unsigned long addr = hva_of(page);
	pte_t *ptep = t_ptep_of(v->mm, addr);
	struct folio *folio = pfn_folio(pte_pfn(ptep_get(ptep)));
	struct vm_area_struct *vma = find_vma(v->mm, addr);
	DEFINE_FOLIO_VMA_WALK(pvmw, folio, vma, addr, 0);

	pvmw.pte = ptep;
	pvmw.pmd = pmd_walk(v->mm, addr);
	return lru_gen_look_around(&pvmw, 1);
}

static void test_look_around_asks_its_page_first(void)
{
	struct kvm_config c = cfg(KVM_MMU_TDP, 6, 1);
	struct v_lab v;

	c.test_clear_young = true;
	v_setup(&v, "x86", false, 1, c, true, false);
	lru_gen_enabled = true; /* before the faults: the folios go on MGLRU's lists */
	mm_sw.lru_gen_spte = LRU_GEN_SPTE_HOST;
	lab_switch_off("young-batch");
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, V_PAGES, true), 0);
	for (unsigned long i = 0; i < V_PAGES; i++)
		ptep_test_and_clear_young(find_vma(v.mm, hva_of(i)), hva_of(i), t_ptep_of(v.mm, hva_of(i)));
	EXPECT(mmu_notifier_clear_young(v.mm, hva_of(0), hva_of(V_PAGES)));
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 20, 1, false), 0);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 40, 1, false), 0);
	EXPECT_EQ(young_pages(&v, 0, V_PAGES), 2);
	/* page 10, old in both MMUs: one notifier call for it, no window */
	snap(&v);
	EXPECT(!look_around_at(&v, 10));
	EXPECT_EQ(ev(&v, EV_notifier_call), 1);
	EXPECT_EQ(young_pages(&v, 0, V_PAGES), 2);
	/* page 20, young in KVM's leaf (fast path): young, and the window is aged too */
	snap(&v);
	EXPECT(look_around_at(&v, 20));
	EXPECT_EQ(ev(&v, EV_notifier_call), 2);
	EXPECT_EQ(young_pages(&v, 0, V_PAGES), 0);
	lru_gen_enabled = false;
	v_teardown(&v);
}

static void test_test_clear_young_x86(void)
{
	test_clear_young_bitmap("x86");
}

static void test_test_clear_young_arm64(void)
{
	test_clear_young_bitmap("arm64");
}

/* arm64 without hardware AF has no fast path: fallback is clear_young under the lock */
static void test_test_clear_young_arm64_software_af(void)
{
	struct kvm_config c = cfg(KVM_MMU_STAGE2, 6, 1);
	unsigned long bitmap[1] = { 0 };
	struct v_lab v;

	c.test_clear_young = true;
	v_setup(&v, "arm64", false, 1, c, false, false);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, 8, false), 0);
	snap(&v);
	/*
	 * fallback false: the op says "no fast path", nothing else runs:
	 * one notifier call, no leaf read, returns 0.
	 */
	EXPECT_EQ(mmu_notifier_test_clear_young(v.mm, hva_of(0), hva_of(8), false, bitmap), 0);
	EXPECT_EQ(ev(&v, EV_notifier_call), 1);
	EXPECT_EQ(ev(&v, EV_spte_read), 0);
	/* fallback true: then clear_young: 2 calls, the write lock, 8 reads, 8 stores, young */
	snap(&v);
	EXPECT_EQ(mmu_notifier_test_clear_young(v.mm, hva_of(0), hva_of(8), true, bitmap), 1);
	EXPECT_EQ(ev(&v, EV_notifier_call), 2);
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), 1);
	EXPECT_EQ(ev(&v, EV_spte_read), 8);
	EXPECT_EQ(ev(&v, EV_spte_write), 8);
	EXPECT_EQ(bitmap[0], 0);
	/*
	 * Software AF: the next load takes an access-flag fault, fixed by
	 * handle_access_fault under the (6.1) write lock: 1 read, 1 store, a
	 * DSB; the access retried: 2 walks.
	 */
	snap(&v);
	EXPECT_EQ(kvm_vcpu_access(kvm_get_vcpu(v.kvm, 0), V_GPA, false), 0);
	EXPECT_EQ(ev(&v, EV_secondary_fault), 1);
	EXPECT_EQ(ev(&v, EV_mem_access), 2);
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), 1);
	EXPECT_EQ(ev(&v, EV_spte_read), 1);
	EXPECT_EQ(ev(&v, EV_spte_write), 1);
	EXPECT_EQ(ev(&v, EV_dsb), 1);
	EXPECT_EQ(ev(&v, EV_fault), 0);
	EXPECT_EQ(kvm_get_vcpu(v.kvm, 0)->stat.af_fault, 1);
	v_teardown(&v);
}

/* ---- invalidation ---- */

static void invalidate(const char *arch_name, bool tlbi_range)
{
	bool x86 = !strcmp(arch_name, "x86");
	struct kvm_config c = x86 ? cfg(KVM_MMU_TDP, 7, 3) : cfg(KVM_MMU_STAGE2, 7, 3);
	struct mmu_notifier_range range;
	struct v_lab v;
	unsigned long seq;

	v_setup(&v, arch_name, false, 2, c, true, tlbi_range);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, 32, true), 0);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 1), 32, 1, false), 0);
	seq = v.kvm->mmu_invalidate_seq;
	snap(&v);
	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, v.mm, hva_of(8), hva_of(24));
	mmu_notifier_invalidate_range_start(&range);
	/*
	 * Start: the write lock; 16 leaves read, all present, all zapped by a
	 * store (young, writable, dirty: no atomic needed on x86; arm64
	 * clears under the write lock). x86 asks for the flush: one
	 * kvm_flush, 2 IPIs (both vCPUs in guest mode). arm64 flushes each
	 * IPA as it zaps: per leaf DSB, TLBI IPAS2E1IS, DSB, TLBI VMALLE1IS,
	 * DSB; with FEAT_TLBIRANGE one range flush at the end (3 DSBs, one
	 * range TLBI, one VMALLE1IS); no kvm_flush. The seq is unchanged and
	 * an invalidation is in progress over gfns 8..23.
	 */
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), 1);
	EXPECT_EQ(ev(&v, EV_spte_read), 16);
	EXPECT_EQ(ev(&v, EV_spte_write), 16);
	EXPECT_EQ(ev(&v, EV_spte_atomic), 0);
	if (x86) {
		EXPECT_EQ(ev(&v, EV_kvm_flush), 1);
		EXPECT_EQ(ev(&v, EV_ipi), 2);
		EXPECT_EQ(ev(&v, EV_vcpu_request), 2);
	} else {
		EXPECT_EQ(ev(&v, EV_kvm_flush), 0);
		EXPECT_EQ(ev(&v, EV_vcpu_request), 0); /* broadcast TLBI, no requests */
		EXPECT_EQ(ev(&v, EV_tlbi_ipa), tlbi_range ? 0 : 16);
		EXPECT_EQ(ev(&v, EV_tlbi_range), tlbi_range ? 1 : 0);
		EXPECT_EQ(ev(&v, EV_tlbi_vmid), tlbi_range ? 1 : 16);
		EXPECT_EQ(ev(&v, EV_dsb), tlbi_range ? 3 : 48);
	}
	EXPECT_EQ(v.kvm->mmu_invalidate_seq, seq);
	EXPECT_EQ(v.kvm->mmu_invalidate_in_progress, 1);
	EXPECT_EQ(v.kvm->mmu_invalidate_range_start, gpa_to_gfn(V_GPA) + 8);
	EXPECT_EQ(v.kvm->mmu_invalidate_range_end, gpa_to_gfn(V_GPA) + 24);
	EXPECT(!spte_present(v.t, spte_at(&v, 8)) && !spte_present(v.t, spte_at(&v, 23)));
	EXPECT(spte_present(v.t, spte_at(&v, 7)) && spte_present(v.t, spte_at(&v, 24)));
	/*
	 * A fault on gfn 10 now cannot install anything: a sequential run
	 * reports -EAGAIN after one retry (x86: the check before the page
	 * is got; arm64: under the lock).
	 */
	snap(&v);
	EXPECT_EQ(kvm_vcpu_access(kvm_get_vcpu(v.kvm, 0), V_GPA + 10 * PAGE_SIZE, false), -EAGAIN);
	EXPECT_EQ(ev(&v, EV_fault_retry), 1);
	EXPECT_EQ(ev(&v, EV_secondary_fault), 1);
	EXPECT_EQ(ev(&v, EV_mmu_lock_read), x86 ? 0 : 1);
	EXPECT(!spte_present(v.t, spte_at(&v, 10)));
	/* End: the write lock again, seq + 1, nothing in progress */
	snap(&v);
	mmu_notifier_invalidate_range_end(&range);
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), 1);
	EXPECT_EQ(v.kvm->mmu_invalidate_seq, seq + 1);
	EXPECT_EQ(v.kvm->mmu_invalidate_in_progress, 0);
	/* now the fault goes through */
	EXPECT_EQ(kvm_vcpu_access(kvm_get_vcpu(v.kvm, 0), V_GPA + 10 * PAGE_SIZE, false), 0);
	EXPECT(spte_present(v.t, spte_at(&v, 10)));
	/* an hva range outside every memslot takes no lock */
	snap(&v);
	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, v.mm, hva_of(V_PAGES), hva_of(V_PAGES + 4));
	mmu_notifier_invalidate_range_start(&range);
	mmu_notifier_invalidate_range_end(&range);
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), 0);
	EXPECT_EQ(v.kvm->mmu_invalidate_seq, seq + 1);
	v_teardown(&v);
}

static void test_invalidate_x86(void)
{
	invalidate("x86", false);
}

static void test_invalidate_arm64(void)
{
	invalidate("arm64", false);
}

static void test_invalidate_arm64_tlbi_range(void)
{
	invalidate("arm64", true);
}

/* the faultin hook races an invalidation with the fault, once */
static int race_calls;
static void race_invalidate(struct kvm_vcpu *vcpu, unsigned long hva, void *arg)
{
	struct mmu_notifier_range range;

	(void)arg;
	if (race_calls++)
		return;
	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, vcpu->kvm->mm, hva, hva + PAGE_SIZE);
	mmu_notifier_invalidate_range_start(&range);
	mmu_notifier_invalidate_range_end(&range);
}

static void fault_race(const char *arch_name)
{
	bool x86 = !strcmp(arch_name, "x86");
	struct v_lab v;
	unsigned long seq;

	v_setup(&v, arch_name, false, 1, x86 ? cfg(KVM_MMU_TDP, 7, 3) : cfg(KVM_MMU_STAGE2, 7, 3),
		true, false);
	v.kvm->faultin_hook = race_invalidate;
	race_calls = 0;
	seq = v.kvm->mmu_invalidate_seq;
	snap(&v);
	EXPECT_EQ(kvm_vcpu_access(kvm_get_vcpu(v.kvm, 0), V_GPA + 5 * PAGE_SIZE, true), 0);
	/*
	 * The first fault gets the page, then an invalidation of its hva
	 * starts and ends (2 write-lock acquisitions, seq + 1); the fault
	 * notices and retries: x86 by the check after getting the page,
	 * before the lock; arm64 under the lock. The second fault maps.
	 * 2 exits, 1 retry; read locks: x86 1, arm64 2; 3 walks.
	 */
	EXPECT_EQ(race_calls, 2);
	EXPECT_EQ(v.kvm->mmu_invalidate_seq, seq + 1);
	EXPECT_EQ(ev(&v, EV_secondary_fault), 2);
	EXPECT_EQ(ev(&v, EV_fault_retry), 1);
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), 2);
	EXPECT_EQ(ev(&v, EV_mmu_lock_read), x86 ? 1 : 2);
	EXPECT_EQ(ev(&v, EV_mem_access), 3);
	EXPECT_EQ(kvm_get_vcpu(v.kvm, 0)->stat.pf_retry, 1);
	EXPECT_EQ(kvm_get_vcpu(v.kvm, 0)->stat.pf_fixed, 1);
	EXPECT(spte_present(v.t, spte_at(&v, 5)));
	v_teardown(&v);
}

static void test_fault_race_x86(void)
{
	fault_race("x86");
}

static void test_fault_race_arm64(void)
{
	fault_race("arm64");
}

/* ---- core-mm unmapping a KVM-mapped page ---- */

static void unmap_file_folio(const char *arch_name)
{
	bool x86 = !strcmp(arch_name, "x86");
	struct v_lab v;
	struct folio *folio;
	u64 pfn;

	v_setup(&v, arch_name, true, 1, x86 ? cfg(KVM_MMU_TDP, 7, 3) : cfg(KVM_MMU_STAGE2, 7, 3),
		true, false);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, 16, false), 0);
	/* the file is read-only: its leaves are too */
	EXPECT(!spte_writable(v.t, spte_at(&v, 5)));
	folio = filemap_get_folio(v.file, 5);
	pfn = folio_pfn(folio);
	EXPECT_EQ(spte_to_pfn(v.t, spte_at(&v, 5)), pfn);
	snap(&v);
	/*
	 * Reclaim's unmap invalidates [hva 5, hva 6) first: one zap, its
	 * flush (x86: one kvm_flush and the IPI to the vCPU in guest mode),
	 * then the folio leaves the page cache and the allocator has it.
	 */
	EXPECT(reclaim_clean_folio(folio));
	EXPECT_EQ(ev(&v, EV_notifier_call), 2);
	EXPECT_EQ(ev(&v, EV_folio_free), 1);
	EXPECT(hw_frame_is_free(pfn));
	EXPECT(!spte_present(v.t, spte_at(&v, 5)));
	EXPECT(spte_present(v.t, spte_at(&v, 4)) && spte_present(v.t, spte_at(&v, 6)));
	if (x86)
		EXPECT_EQ(ev(&v, EV_ipi), 1);
	EXPECT_EQ(kvm_check_invariants(v.kvm), 0);
	/* the guest reads page 5 again: a fault reads the file page back in */
	snap(&v);
	EXPECT_EQ(kvm_vcpu_access(kvm_get_vcpu(v.kvm, 0), V_GPA + 5 * PAGE_SIZE, false), 0);
	EXPECT_EQ(ev(&v, EV_secondary_fault), 1);
	EXPECT_EQ(ev(&v, EV_fault), 1);
	EXPECT(spte_present(v.t, spte_at(&v, 5)));
	EXPECT_EQ(hw_violations.total, 0);

	/*
	 * Without the notifier, the same reclaim leaves the leaf to a freed
	 * frame: the invariant check finds it (a freed frame and an hva no
	 * longer mapped), and the guest's next load reaches the freed frame.
	 */
	mmu_notifier_unregister(&v.kvm->mmu_notifier, v.mm);
	folio = filemap_get_folio(v.file, 6);
	pfn = folio_pfn(folio);
	EXPECT(reclaim_clean_folio(folio));
	EXPECT(hw_frame_is_free(pfn));
	EXPECT(spte_present(v.t, spte_at(&v, 6)));
	EXPECT(kvm_check_invariants(v.kvm) >= 1);
	EXPECT(hw_violations.count[VIOL_FREED_FRAME] >= 1);
	hw_violations_reset();
	EXPECT_EQ(kvm_vcpu_access(kvm_get_vcpu(v.kvm, 0), V_GPA + 6 * PAGE_SIZE, false), 0);
	EXPECT_EQ(hw_violations.count[VIOL_FREED_FRAME], 1);
	hw_violations_reset();
	/* the lab drops the stale leaf by hand so the teardown's checks hold */
	v.kvm->memslots[0].sptes[6] = 0;
	v_teardown(&v);
}

static void test_try_to_unmap_file_folio_x86(void)
{
	unmap_file_folio("x86");
}

static void test_try_to_unmap_file_folio_arm64(void)
{
	unmap_file_folio("arm64");
}

/*
 * The vCPU threads are threads of the VMM: an x86 TLB shootdown of its
 * mm IPIs those in guest mode, which exit for it and pay the exit and
 * re-entry at their next entry. Here the VMM unmaps memory no memslot
 * covers, so KVM zaps and flushes nothing: the IPIs are the host's own.
 * arm64's broadcast TLBI interrupts no guest.
 */
static void shootdown(const char *arch_name)
{
	bool x86 = !strcmp(arch_name, "x86");
	unsigned long other = V_HVA + 4 * V_PAGES * PAGE_SIZE;
	struct v_lab v;

	v_setup(&v, arch_name, false, 3, x86 ? cfg(KVM_MMU_TDP, 7, 3) : cfg(KVM_MMU_STAGE2, 7, 3),
		true, false);
	mmap_anon(v.mm, other, 4 * PAGE_SIZE, VM_READ | VM_WRITE, 0, false);
	switch_mm(&hw_machine.cpu[0], v.mm);
	EXPECT_EQ(access_user(&hw_machine.cpu[0], v.mm, other, true), 0);
	/* vCPUs 0 and 1 stay in guest mode after their accesses; 2 never ran */
	for (int i = 0; i < 2; i++)
		EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, i), 8UL * (unsigned long)i, 8, true), 0);
	snap(&v);
	EXPECT_EQ(do_munmap(v.mm, other, 4 * PAGE_SIZE), 0);
	EXPECT_EQ(ev(&v, EV_kvm_flush), 0);
	EXPECT_EQ(ev(&v, EV_ipi), x86 ? 2 : 0);
	EXPECT_EQ(v.kvm->stat.host_shootdown_kicks, x86 ? 2 : 0);
	EXPECT_EQ(kvm_get_vcpu(v.kvm, 0)->mode, x86 ? EXITING_GUEST_MODE : IN_GUEST_MODE);
	EXPECT_EQ(kvm_get_vcpu(v.kvm, 2)->mode, OUTSIDE_GUEST_MODE);
	/* the exit is paid when the vCPU next enters; no flush request came with it */
	snap(&v);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, 1, true), 0);
	EXPECT_EQ(ev(&v, EV_vcpu_kick), x86 ? 1 : 0);
	EXPECT_EQ(ev(&v, EV_tlbi_local), 0);
	v_teardown(&v);
}

static void test_shootdown_x86(void)
{
	shootdown("x86");
}

static void test_shootdown_arm64(void)
{
	shootdown("arm64");
}

static void test_munmap_and_cow_invalidate(void)
{
	struct v_lab v;
	struct mm_struct *child;

	v_setup(&v, "x86", false, 1, cfg(KVM_MMU_TDP, 7, 3), true, false);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, V_PAGES, true), 0);
	snap(&v);
	/* munmap of 8 pages: one invalidation pair (2 notifier calls), 8 leaves zapped */
	EXPECT_EQ(do_munmap(v.mm, hva_of(8), 8 * PAGE_SIZE), 0);
	EXPECT_EQ(ev(&v, EV_notifier_call), 2);
	EXPECT_EQ(v.kvm->stat.sptes_zapped, 8);
	EXPECT_EQ(kvm_check_invariants(v.kvm), 0);
	/* the guest touching an unmapped hva: the VMM has no page, -EFAULT */
	EXPECT_EQ(kvm_vcpu_access(kvm_get_vcpu(v.kvm, 0), V_GPA + 9 * PAGE_SIZE, false), -EFAULT);
	/*
	 * fork write-protects the parent's private pages: one invalidation
	 * over the 2 remaining VMAs (2 x 2 notifier calls) zaps every
	 * writable leaf (56), so none stays writable over a read-only PTE.
	 */
	snap(&v);
	child = dup_mm(v.mm);
	EXPECT_EQ(ev(&v, EV_notifier_call), 4);
	EXPECT_EQ(v.kvm->stat.sptes_zapped, 8 + 56);
	EXPECT_EQ(kvm_check_invariants(v.kvm), 0);
	/* the guest writes page 0: the host breaks COW (wp_page_copy invalidates), maps the copy */
	EXPECT_EQ(kvm_vcpu_access(kvm_get_vcpu(v.kvm, 0), V_GPA, true), 0);
	EXPECT(spte_writable(v.t, spte_at(&v, 0)));
	EXPECT_EQ(kvm_check_invariants(v.kvm), 0);
	mmput(child);
	v_teardown(&v);
}

/* exit_mmap before the VM goes: release zaps everything; the VM is destroyed after */
static void test_release_on_exit(void)
{
	struct v_lab v;

	v_setup(&v, "arm64", false, 1, cfg(KVM_MMU_STAGE2, 7, 3), true, false);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, 16, true), 0);
	snap(&v);
	mmput(v.mm);
	/* one release call: the write lock, 64 leaves read, 16 zapped */
	EXPECT_EQ(ev(&v, EV_notifier_call), 1);
	EXPECT_EQ(ev(&v, EV_mmu_lock_write), 1);
	EXPECT_EQ(ev(&v, EV_spte_read), 64);
	EXPECT_EQ(v.kvm->stat.sptes_zapped, 16);
	EXPECT(v.kvm->mmu_notifier.mm == NULL);
	EXPECT_EQ(kvm_check_invariants(v.kvm), 0);
	kvm_destroy_vm(v.kvm);
	mm_check_all_freed();
	EXPECT_EQ(hw_violations.total, 0);
	lab_machine_teardown();
}

/* ---- two agents on mmu_lock ---- */

struct sim_args {
	struct v_lab *v;
	int rc;
};

static void kswapd_fn(void *arg)
{
	struct sim_args *a = arg;

	/* ages the 4 young pages: write lock, flush, one IPI */
	mmu_notifier_clear_flush_young(a->v->mm, hva_of(0), hva_of(4));
}

static void vcpu_fn(void *arg)
{
	struct sim_args *a = arg;

	/* page 4 was never faulted: a fault under the read lock */
	a->rc = kvm_vcpu_access(kvm_get_vcpu(a->v->kvm, 0), V_GPA + 4 * PAGE_SIZE, true);
}

/* A task that takes a PTE table's lock, looks the table up again (nested), and holds it hold ns. */
struct ptl_args {
	struct mm_struct *mm;
	unsigned long addr;
	u64 hold;
};

static void ptl_fn(void *arg)
{
	struct ptl_args *a = arg;
	spinlock_t *ptl, *again_ptl;
	pte_t *pte = pte_offset_map_lock(a->mm, pmd_walk(a->mm, a->addr), a->addr, &ptl);
	pte_t *again = pte_offset_map_lock(a->mm, pmd_walk(a->mm, a->addr), a->addr, &again_ptl);

	pte_unmap_unlock(again, again_ptl);
	sim_advance(a->hold);
	pte_unmap_unlock(pte, ptl);
}

/*
 * The split PTE lock on the engine: a task that finds a table's lock
 * held spins until the holder lets go (folio_referenced_one holds it
 * across the notifier); another table's lock is another lock.
 */
static void test_ptlock_spins_behind_its_holder(void)
{
	struct v_lab v;
	struct sim_engine *e;
	struct sim_profile p;
	const struct sim_frame_row *row;

	v_setup(&v, "x86", false, 1, cfg(KVM_MMU_TDP, 6, 1), true, false);
	/* the VMM's table of V_HVA and a second one, 2M further */
	unsigned long far = V_HVA + SZ_2M;
	EXPECT(pte_alloc_map(v.mm, pmd_alloc_walk(v.mm, V_HVA)) != NULL);
	EXPECT(pte_alloc_map(v.mm, pmd_alloc_walk(v.mm, far)) != NULL);
	struct ptl_args holder = { v.mm, V_HVA, 3000 }, waiter = { v.mm, V_HVA + 5 * PAGE_SIZE, 0 },
			other = { v.mm, far, 0 };

	e = sim_engine_create(&(struct sim_config){ .seed = 1 });
	sim_agent_create(e, "holder", "reclaim", ptl_fn, &holder);
	sim_agent_create(e, "waiter", "reclaim", ptl_fn, &waiter);
	sim_agent_create(e, "other", "reclaim", ptl_fn, &other);
	EXPECT_EQ(sim_run(e), 0);
	/* the holder (id 0) locks at 0 and lets go at 3000: the waiter spun from 0 to 3000 */
	EXPECT_EQ(sim_agent(e, 0)->clock, 3000);
	EXPECT_EQ(sim_agent(e, 1)->clock, 3000);
	EXPECT_EQ(sim_agent(e, 2)->clock, 0);
	sim_profile_agent(&p, sim_agent(e, 1));
	row = sim_profile_row(&p, "_raw_spin_lock");
	EXPECT(row && row->incl_ns == 3000);
	sim_profile_release(&p);
	sim_engine_destroy(e);
	/* outside the engine the lock is only counted: the same table twice is no wait */
	spinlock_t *ptl;
	pte_t *pte = pte_offset_map_lock(v.mm, pmd_walk(v.mm, V_HVA), V_HVA, &ptl);
	EXPECT(pte != NULL);
	pte_unmap_unlock(pte, ptl);
	v_teardown(&v);
	EXPECT_EQ(hw_violations.total, 0);
}

static void test_two_agents_wait_on_mmu_lock(void)
{
	struct v_lab v;
	struct profile prof = { .name = "test" };
	struct profile_meter meter;
	struct sim_engine *e;
	struct sim_args a = { .v = &v, .rc = -1 };
	struct sim_lock_stat rd, wr;
	struct sim_profile p;
	const struct sim_frame_row *row;

	v_setup(&v, "x86", false, 1, cfg(KVM_MMU_TDP, 6, 1), true, false);
	EXPECT_EQ(access_pages(kvm_get_vcpu(v.kvm, 0), 0, 4, true), 0);
	/* only three things cost time: an exit (1000 ns), an IPI (5000 ns), a lock-line bounce (100) */
	prof.cost[EV_secondary_fault] = 1000;
	prof.cost[EV_ipi] = 5000;
	prof.cost[EV_mmu_lock_bounce] = 100;
	e = sim_engine_create(&(struct sim_config){ .seed = 1 });
	profile_meter_init(&meter, &prof);
	sim_set_cost_hook(e, profile_meter_cost_since, &meter);
	sim_agent_create(e, "kswapd", "kswapd", kswapd_fn, &a);
	sim_agent_create(e, "vcpu0", "vcpu", vcpu_fn, &a);
	/* the 4 sequential faults above: 4 uncontended reads, no hold time */
	sim_rwlock_stats(&v.kvm->mmu_lock, 0, &rd, &wr);
	EXPECT_EQ(rd.acquired, 4);
	EXPECT_EQ(rd.contended + wr.acquired, 0);
	u64 bounces = hw_events.v[EV_mmu_lock_bounce];
	EXPECT_EQ(sim_run(e), 0);
	EXPECT_EQ(a.rc, 0);
	/*
	 * kswapd (id 0) runs first at 0: takes the write lock at 0, ages 4
	 * young leaves, flushes: the vCPU is in guest mode, one IPI, 5000 ns;
	 * at its unlock (t = 5000) it lets the vCPU (t = 0) catch up. The
	 * vCPU enters (kicked: it pays the kick, cost 0), faults (1000 ns),
	 * gets the page and asks for the read lock at 1000: a writer holds
	 * it, so it queues. kswapd releases at 5000 and the reader is granted
	 * at 5000: one contended read acquisition, waiting 4000 ns (charged
	 * to the vCPU's _raw_read_lock frame); the write lock held 5000 ns,
	 * uncontended. kswapd wrote the lock word last (the faults before ran
	 * outside any agent, its unlock after its own lock): the reader's
	 * acquire fetches the line, one bounce, 100 ns; it finishes at 5100.
	 */
	sim_rwlock_stats(&v.kvm->mmu_lock, 5000, &rd, &wr);
	EXPECT_EQ(wr.acquired, 1);
	EXPECT_EQ(wr.contended, 0);
	EXPECT_EQ(wr.hold_ns, 5000);
	EXPECT_EQ(rd.acquired, 4 + 1);
	EXPECT_EQ(rd.contended, 1);
	EXPECT_EQ(rd.wait_ns, 4000);
	EXPECT_EQ(hw_events.v[EV_mmu_lock_bounce] - bounces, 1);
	EXPECT_EQ(sim_agent(e, 0)->clock, 5000);
	EXPECT_EQ(sim_agent(e, 1)->clock, 5100);
	EXPECT_EQ(kvm_get_vcpu(v.kvm, 0)->stat.kicks, 1);
	sim_profile_agent(&p, sim_agent(e, 1));
	row = sim_profile_row(&p, "_raw_read_lock");
	EXPECT(row && row->incl_ns == 4000 + 100);
	sim_profile_release(&p);
	sim_profile_agent(&p, sim_agent(e, 0));
	row = sim_profile_row(&p, "kvm_mmu_notifier_clear_flush_young");
	EXPECT(row && row->incl_ns == 5000);
	row = sim_profile_row(&p, "kvm_flush_remote_tlbs");
	EXPECT(row && row->incl_ns == 5000);
	row = sim_profile_row(&p, "__mmu_notifier_clear_flush_young");
	EXPECT(row && row->incl_ns == 5000);
	sim_profile_release(&p);
	sim_engine_destroy(e);
	v_teardown(&v);
}

/* ---- profiles must cost every event ---- */

static void test_profile_missing_cost_fails(void)
{
	const char text[] = "name = x\narch = x86\ncost.pte_read = 1\n";
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct profile p;
	char err[300];

	EXPECT_EQ(profile_parse(f, "t.prof", "x", &p, err, sizeof(err)), -1);
	EXPECT(strstr(err, "no cost for event 'pte_write'") != NULL);
	fclose(f);
}

/* what a profile says once, it says once; its name is its file's; it is text */
static int parse_text(const char *text, size_t n, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, n, "r");
	struct profile p;
	int r = profile_parse(f, "t.prof", "x", &p, err, errlen);

	fclose(f);
	return r;
}

static void test_profile_refuses_what_it_cannot_mean(void)
{
	static const char dup[] = "name = x\narch = x86\ncost.pte_read = 1\ncost.pte_read = 2\n";
	static const char other[] = "name = y\narch = x86\n";
	static const char nul[] = "name = x\narch = x\0\x86\n";
	static const char ctl[] = "name = x\n\x01\x02\x03 = 4\n";
	char err[300];

	EXPECT_EQ(parse_text(dup, sizeof(dup) - 1, err, sizeof(err)), -1);
	EXPECT(strstr(err, "t.prof:4: 'cost.pte_read' is given twice") != NULL);
	EXPECT_EQ(parse_text(other, sizeof(other) - 1, err, sizeof(err)), -1);
	EXPECT(strstr(err, "t.prof:1: name = y, but the file is x's") != NULL);
	EXPECT_EQ(parse_text(nul, sizeof(nul) - 1, err, sizeof(err)), -1);
	EXPECT(strstr(err, "t.prof:2: not a text file (byte 0x00)") != NULL);
	EXPECT_EQ(parse_text(ctl, sizeof(ctl) - 1, err, sizeof(err)), -1);
	EXPECT(strstr(err, "t.prof:2: not a text file (byte 0x01)") != NULL);
}

static const struct ktap_case cases[] = {
	{ "profile_refuses_what_it_cannot_mean", test_profile_refuses_what_it_cannot_mean },
	{ "config_versions", test_config_versions },
	{ "fault_in_x86_write", test_fault_in_x86_write },
	{ "fault_in_x86_read", test_fault_in_x86_read },
	{ "fault_in_arm64", test_fault_in_arm64 },
	{ "fault_in_arm64_6_1", test_fault_in_arm64_6_1 },
	{ "cr0_wp_reset_x86_6_2", test_cr0_wp_reset_x86_6_2 },
	{ "cr0_wp_reset_x86_6_4", test_cr0_wp_reset_x86_6_4 },
	{ "clear_flush_young_x86_6_1", test_clear_flush_young_x86_6_1 },
	{ "clear_flush_young_x86_6_13", test_clear_flush_young_x86_6_13 },
	{ "clear_flush_young_x86_6_15", test_clear_flush_young_x86_6_15 },
	{ "clear_flush_young_arm64", test_clear_flush_young_arm64 },
	{ "clear_young_x86", test_clear_young_x86 },
	{ "clear_young_arm64", test_clear_young_arm64 },
	{ "test_young", test_test_young },
	{ "test_clear_young_x86", test_test_clear_young_x86 },
	{ "look_around_asks_its_page_first", test_look_around_asks_its_page_first },
	{ "test_clear_young_arm64", test_test_clear_young_arm64 },
	{ "test_clear_young_arm64_software_af", test_test_clear_young_arm64_software_af },
	{ "invalidate_x86", test_invalidate_x86 },
	{ "invalidate_arm64", test_invalidate_arm64 },
	{ "invalidate_arm64_tlbi_range", test_invalidate_arm64_tlbi_range },
	{ "fault_race_x86", test_fault_race_x86 },
	{ "fault_race_arm64", test_fault_race_arm64 },
	{ "try_to_unmap_file_folio_x86", test_try_to_unmap_file_folio_x86 },
	{ "try_to_unmap_file_folio_arm64", test_try_to_unmap_file_folio_arm64 },
	{ "shootdown_x86", test_shootdown_x86 },
	{ "shootdown_arm64", test_shootdown_arm64 },
	{ "munmap_and_cow_invalidate", test_munmap_and_cow_invalidate },
	{ "release_on_exit", test_release_on_exit },
	{ "two_agents_wait_on_mmu_lock", test_two_agents_wait_on_mmu_lock },
	{ "ptlock_spins_behind_its_holder", test_ptlock_spins_behind_its_holder },
	{ "profile_missing_cost_fails", test_profile_missing_cost_fails },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "virt", cases, (int)ARRAY_SIZE(cases));
}
