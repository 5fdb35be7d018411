// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: none: ptelab's own checks of the secondary MMU (what
 * CONFIG_KVM_PROVE_MMU and the mmu_notifier contract promise).
 */
/*
 * A secondary mapping may only exist while the primary one does: KVM
 * holds no reference on the pages it maps, so a leaf that survives its
 * hva's unmap would let the guest reach a frame the host has freed or
 * reused (the invalidate-before-free contract). Each present leaf is
 * checked against the VMM's page tables, read without events.
 */
#include "hw/invariants.h"
#include "hw/mmu.h"
#include "hw/phys.h"
#include "mm/mm.h"
#include "virt/kvm_host.h"
#include "virt/spte.h"

/* The pfn the VMM's tables map at hva (PTE or PMD leaf), or -1; *writable too. */
static s64 primary_pfn(struct mm_struct *mm, unsigned long hva, bool *writable)
{
	int level;
	u64 *slot = mm->pgd ? hw_walk_slot(mm->pgd, hva, &level) : NULL;

	*writable = false;
	if (!slot)
		return -1;
	if (level == 3) {
		pte_t pte = __pte(*slot);

		if (!pte_present(pte))
			return -1;
		*writable = pte_write(pte);
		return (s64)pte_pfn(pte);
	}
	if (level == 2) {
		pmd_t pmd = __pmd(*slot);

		if (!pmd_leaf(pmd))
			return -1;
		*writable = true; /* the lab's PMD leaves: anonymous THPs, writable as their VMA */
		return (s64)(pmd_pfn(pmd) + ((hva & ~PMD_MASK) >> PAGE_SHIFT));
	}
	return -1;
}

int kvm_check_invariants(struct kvm *kvm)
{
	u64 before = hw_violations.total;
	enum kvm_mmu_type t = kvm->mmu_type;
	int reported = 0;

	for (int i = 0; i < kvm->nr_memslots; i++) {
		struct kvm_memory_slot *slot = &kvm->memslots[i];

		for (unsigned long n = 0; n < slot->npages; n++) {
			u64 spte = slot->sptes[n];
			gfn_t gfn = slot->base_gfn + n;
			unsigned long hva = __gfn_to_hva_memslot(slot, gfn);
			u64 pfn;
			bool w;
			s64 ppfn;

			if (!spte_present(t, spte))
				continue;
			pfn = spte_to_pfn(t, spte);
			if (pfn >= hw_phys.nr_frames || hw_frame_is_free(pfn)) {
				if (reported++ < 4)
					hw_violation(VIOL_FREED_FRAME, "kvm: gfn %#llx maps %s pfn %#llx",
						     (unsigned long long)gfn,
						     pfn >= hw_phys.nr_frames ? "no" : "freed",
						     (unsigned long long)pfn);
				continue;
			}
			ppfn = kvm->mm ? primary_pfn(kvm->mm, hva, &w) : -1;
			if (ppfn != (s64)pfn) {
				if (reported++ < 4)
					hw_violation(VIOL_OTHER, "kvm: gfn %#llx maps pfn %#llx but hva %#lx "
						     "%s", (unsigned long long)gfn,
						     (unsigned long long)pfn, hva,
						     ppfn < 0 ? "is not mapped" : "maps another page");
			} else if (spte_writable(t, spte) && !w) {
				if (reported++ < 4)
					hw_violation(VIOL_OTHER, "kvm: gfn %#llx is writable, hva %#lx "
						     "read-only", (unsigned long long)gfn, hva);
			}
		}
	}
	if (kvm->mmu_invalidate_in_progress || kvm->mn_active_invalidate_count)
		hw_violation(VIOL_OTHER, "kvm: invalidations unbalanced (%ld in progress, %ld active)",
			     kvm->mmu_invalidate_in_progress, kvm->mn_active_invalidate_count);
	if (kvm->mmu_lock.readers || kvm->mmu_lock.wlocked)
		hw_violation(VIOL_OTHER, "kvm: mmu_lock still held (%d readers%s)",
			     kvm->mmu_lock.readers, kvm->mmu_lock.wlocked ? ", a writer" : "");
	return (int)(hw_violations.total - before);
}
