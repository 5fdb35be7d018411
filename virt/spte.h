/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Leaf entries of the secondary page tables, in each architecture's real
 * bit layout: an x86 EPT leaf as KVM's TDP MMU builds it
 * (arch/x86/kvm/mmu/spte.h, asm/vmx.h) and an arm64 stage-2 level-3
 * descriptor (arch/arm64/kvm/hyp/pgtable.c). Only the bits the lab
 * reads or writes are named. Software reads and writes go through the
 * counting accessors at the bottom; the guest's hardware uses raw ones.
 */
#ifndef PTELAB_VIRT_SPTE_H
#define PTELAB_VIRT_SPTE_H

#include "hw/events.h"
#include "virt/kvm_config.h"

/* x86 EPT */
#define VMX_EPT_READABLE_MASK		0x1ULL
#define VMX_EPT_WRITABLE_MASK		0x2ULL
#define VMX_EPT_EXECUTABLE_MASK		0x4ULL
#define VMX_EPT_MT_WB			(6ULL << 3)
#define VMX_EPT_ACCESS_BIT		(1ULL << 8)  /* shadow_accessed_mask */
#define VMX_EPT_DIRTY_BIT		(1ULL << 9)  /* shadow_dirty_mask */
#define SPTE_MMU_PRESENT_MASK		(1ULL << 11) /* KVM's own "present" bit */
#define SPTE_BASE_ADDR_MASK		0x000ffffffffff000ULL

/* arm64 stage 2 (level 3: a page descriptor) */
#define KVM_PTE_VALID			(1ULL << 0)
#define KVM_PTE_TYPE_PAGE		(1ULL << 1)
#define KVM_PTE_LEAF_ATTR_LO_S2_MEMATTR	(0xfULL << 2)
#define KVM_PTE_LEAF_ATTR_LO_S2_S2AP_R	(1ULL << 6)
#define KVM_PTE_LEAF_ATTR_LO_S2_S2AP_W	(1ULL << 7)
#define KVM_PTE_LEAF_ATTR_LO_S2_SH_IS	(3ULL << 8)
#define KVM_PTE_LEAF_ATTR_LO_S2_AF	(1ULL << 10)
#define KVM_PTE_ADDR_MASK		0x0000fffffffff000ULL

static inline bool spte_present(enum kvm_mmu_type t, u64 spte)
{
	return t == KVM_MMU_TDP ? spte & SPTE_MMU_PRESENT_MASK : spte & KVM_PTE_VALID;
}

static inline bool spte_young(enum kvm_mmu_type t, u64 spte)
{
	return spte & (t == KVM_MMU_TDP ? VMX_EPT_ACCESS_BIT : KVM_PTE_LEAF_ATTR_LO_S2_AF);
}

static inline u64 spte_mkold(enum kvm_mmu_type t, u64 spte)
{
	return spte & ~(t == KVM_MMU_TDP ? VMX_EPT_ACCESS_BIT : KVM_PTE_LEAF_ATTR_LO_S2_AF);
}

static inline u64 spte_mkyoung(enum kvm_mmu_type t, u64 spte)
{
	return spte | (t == KVM_MMU_TDP ? VMX_EPT_ACCESS_BIT : KVM_PTE_LEAF_ATTR_LO_S2_AF);
}

static inline bool spte_writable(enum kvm_mmu_type t, u64 spte)
{
	return spte & (t == KVM_MMU_TDP ? VMX_EPT_WRITABLE_MASK : KVM_PTE_LEAF_ATTR_LO_S2_S2AP_W);
}

/* x86 only: the EPT dirty bit, set by hardware on a store */
static inline bool spte_dirty(u64 spte)
{
	return spte & VMX_EPT_DIRTY_BIT;
}

static inline u64 spte_to_pfn(enum kvm_mmu_type t, u64 spte)
{
	return (spte & (t == KVM_MMU_TDP ? SPTE_BASE_ADDR_MASK : KVM_PTE_ADDR_MASK)) >> 12;
}

/*
 * make_spte() / kvm_init_valid_leaf_pte(): a leaf for pfn, young (KVM
 * maps what the vCPU is touching right now), writable if asked.
 */
static inline u64 make_spte(enum kvm_mmu_type t, u64 pfn, bool writable)
{
	if (t == KVM_MMU_TDP)
		return SPTE_MMU_PRESENT_MASK | VMX_EPT_READABLE_MASK | VMX_EPT_EXECUTABLE_MASK |
		       VMX_EPT_MT_WB | VMX_EPT_ACCESS_BIT | (writable ? VMX_EPT_WRITABLE_MASK : 0) |
		       (pfn << 12);
	return KVM_PTE_VALID | KVM_PTE_TYPE_PAGE | KVM_PTE_LEAF_ATTR_LO_S2_MEMATTR |
	       KVM_PTE_LEAF_ATTR_LO_S2_S2AP_R | KVM_PTE_LEAF_ATTR_LO_S2_SH_IS |
	       KVM_PTE_LEAF_ATTR_LO_S2_AF | (writable ? KVM_PTE_LEAF_ATTR_LO_S2_S2AP_W : 0) |
	       (pfn << 12);
}

/*
 * x86 spte_needs_atomic_update(): hardware may still set A (or D on a
 * writable entry) under a software update that does not hold the entry
 * exclusively, so such an update is an atomic RMW; otherwise a store.
 */
static inline bool spte_needs_atomic_update(u64 spte)
{
	return !(spte & VMX_EPT_ACCESS_BIT) ||
	       ((spte & VMX_EPT_WRITABLE_MASK) && !(spte & VMX_EPT_DIRTY_BIT));
}

/* Software accesses to an SPTE, one counted event each. */
static inline u64 spte_read(const u64 *sptep)
{
	hw_count(EV_spte_read, 1);
	return __atomic_load_n(sptep, __ATOMIC_RELAXED);
}

static inline void spte_write(u64 *sptep, u64 spte)
{
	hw_count(EV_spte_write, 1);
	__atomic_store_n(sptep, spte, __ATOMIC_RELEASE);
}

/* cmpxchg64(): true if *sptep still held old and now holds new */
static inline bool spte_cmpxchg(u64 *sptep, u64 old, u64 new)
{
	hw_count(EV_spte_atomic, 1);
	return __atomic_compare_exchange_n(sptep, &old, new, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_RELAXED);
}

/* xchg: an unconditional atomic update, old value back */
static inline u64 spte_xchg(u64 *sptep, u64 new)
{
	hw_count(EV_spte_atomic, 1);
	return __atomic_exchange_n(sptep, new, __ATOMIC_SEQ_CST);
}

/* atomic64_fetch_and(~bits): clear bits atomically, old value back */
static inline u64 spte_clear_bits_atomic(u64 *sptep, u64 bits)
{
	hw_count(EV_spte_atomic, 1);
	return __atomic_fetch_and(sptep, ~bits, __ATOMIC_SEQ_CST);
}

#endif
