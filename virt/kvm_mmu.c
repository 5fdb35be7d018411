// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: the per-architecture kvm_age_gfn, kvm_test_age_gfn and
 * kvm_unmap_gfn_range (arch/x86/kvm/mmu/mmu.c, arch/arm64/kvm/mmu.c);
 * hva_to_pfn and kvm_release_faultin_page (virt/kvm/kvm_main.c);
 * kvm_arch_has_test_clear_young / kvm_arch_test_clear_young from the
 * S3 seed (v1, Feb 2023).
 */
/*
 * What the generic code calls per gfn range, sent to the VM's MMU type;
 * and the host page behind a guest fault: the VMM's page at the hva,
 * with a reference, faulted in by get_user_pages when it is missing.
 */
#include "mm/mm.h"
#include "sim/frames.h"
#include "virt/kvm_host.h"
#include "virt/kvm_mmu.h"

bool kvm_age_gfn(struct kvm *kvm, struct kvm_gfn_range *range)
{
	if (kvm->mmu_type == KVM_MMU_TDP)
		return kvm_tdp_mmu_age_gfn_range(kvm, range);
	return kvm_pgtable_stage2_test_clear_young(kvm, range, true);
}

bool kvm_test_age_gfn(struct kvm *kvm, struct kvm_gfn_range *range)
{
	if (kvm->mmu_type == KVM_MMU_TDP)
		return kvm_tdp_mmu_test_age_gfn(kvm, range);
	return kvm_pgtable_stage2_test_clear_young(kvm, range, false);
}

/* true: the caller must flush (x86); arm64's unmap flushes as it goes */
bool kvm_unmap_gfn_range(struct kvm *kvm, struct kvm_gfn_range *range)
{
	if (kvm->mmu_type == KVM_MMU_TDP)
		return kvm_tdp_mmu_unmap_gfn_range(kvm, range, false);
	return kvm_s2_unmap_gfn_range(kvm, range);
}

/*
 * The seed's condition for the fast path: x86 with the TDP MMU and A/D
 * bits (always, here); arm64 only where hardware manages the access flag
 * (cpu_has_hw_af()): with software AF a young entry is made old by a
 * fault, which the lockless walk cannot serialise against.
 */
bool kvm_arch_has_test_clear_young(const struct kvm *kvm)
{
	return kvm->mmu_type == KVM_MMU_TDP || kvm->s2_hw_af;
}

bool kvm_arch_test_clear_young(struct kvm *kvm, struct kvm_gfn_range *range, gfn_t lsb_gfn,
			       unsigned long *bitmap)
{
	if (kvm->mmu_type == KVM_MMU_TDP)
		return kvm_tdp_mmu_test_clear_young(kvm, range, lsb_gfn, bitmap);
	return kvm_s2_test_clear_young(kvm, range, lsb_gfn, bitmap);
}

/*
 * hva_to_pfn(): first the lockless GUP for a writable page
 * (hva_to_pfn_fast: the mapping is made writable whenever the host's
 * is), else get_user_pages (hva_to_pfn_slow), which faults the page in
 * (handle_mm_fault: swap-in and COW included), then the writable probe
 * again for a read. The page comes back with a reference.
 */
int kvm_faultin_pfn(struct kvm_vcpu *vcpu, struct kvm_page_fault *fault)
{
	struct kvm *kvm = vcpu->kvm;
	unsigned long hva = __gfn_to_hva_memslot(fault->slot, fault->gfn);
	int frame = SIM_FRAME("hva_to_pfn");
	struct page *page, *wpage;
	bool writable = true;

	sim_frame_enter(frame);
	if (!get_user_page_fast_only(kvm->mm, hva, FOLL_WRITE, &page)) {
		if (get_user_pages_remote(kvm->mm, hva, 1, fault->write ? FOLL_WRITE : 0, &page,
					  NULL) != 1) {
			sim_frame_exit(frame);
			return -EFAULT;
		}
		writable = fault->write;
		if (!writable && get_user_page_fast_only(kvm->mm, hva, FOLL_WRITE, &wpage)) {
			kvm_release_faultin_page(kvm, page, true, false);
			page = wpage;
			writable = true;
		}
	}
	sim_frame_exit(frame);
	fault->refcounted_page = page;
	fault->pfn = page_to_pfn(page);
	fault->map_writable = writable;
	if (kvm->faultin_hook)
		kvm->faultin_hook(vcpu, hva, kvm->faultin_hook_arg);
	return 0;
}

/*
 * The fault's reference goes; a page mapped writable is dirty from now on
 * (kvm_set_page_dirty), since the guest writes it behind the host's PTEs.
 */
void kvm_release_faultin_page(struct kvm *kvm, struct page *page, bool unused, bool dirty)
{
	struct folio *folio;

	(void)kvm;
	if (!page)
		return;
	folio = page_folio(page);
	if (dirty && !unused)
		folio_set_dirty(folio);
	folios_put_refs_one(folio, 1);
}
