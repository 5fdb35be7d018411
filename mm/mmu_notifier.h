/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * mmu_notifier (include/linux/mmu_notifier.h, 7.3): secondary MMUs (KVM's
 * stage 2 / EPT) subscribe to an mm and are told when its mappings age
 * or go away. With no subscriber every call is a test of one pointer, as
 * in the kernel; the *_notify helpers of mm/internal.h combine the
 * primary MMU's op with the notifier's.
 */
#ifndef PTELAB_MM_MMU_NOTIFIER_H
#define PTELAB_MM_MMU_NOTIFIER_H

#include "mm/mm.h"

struct mmu_notifier;

struct mmu_notifier_range {
	struct mm_struct *mm;
	unsigned long start, end;
	int event; /* MMU_NOTIFY_* */
};

#define MMU_NOTIFY_UNMAP 0
#define MMU_NOTIFY_CLEAR 1
#define MMU_NOTIFY_PROTECTION_VMA 2
#define MMU_NOTIFY_PROTECTION_PAGE 3

struct mmu_notifier_ops {
	bool (*clear_flush_young)(struct mmu_notifier *sub, struct mm_struct *mm,
				  unsigned long start, unsigned long end);
	bool (*clear_young)(struct mmu_notifier *sub, struct mm_struct *mm,
			    unsigned long start, unsigned long end);
	bool (*test_young)(struct mmu_notifier *sub, struct mm_struct *mm,
			   unsigned long address);
	int (*invalidate_range_start)(struct mmu_notifier *sub,
				      const struct mmu_notifier_range *range);
	void (*invalidate_range_end)(struct mmu_notifier *sub,
				     const struct mmu_notifier_range *range);
	/*
	 * The seed's batched op (v1, Feb 2023, "mm/kvm: add
	 * mmu_notifier_test_clear_young()"): test, or test and clear, the
	 * young bits of [start, end) in one call as bitmap asks (see
	 * mmu_notifier_test_clear_young()). false: no fast path here, the
	 * caller may fall back to clear_young.
	 */
	bool (*test_clear_young)(struct mmu_notifier *sub, struct mm_struct *mm,
				 unsigned long start, unsigned long end,
				 unsigned long *bitmap);
	/* exit_mmap: the mm's last user has gone; drop every secondary mapping */
	void (*release)(struct mmu_notifier *sub, struct mm_struct *mm);
};

struct mmu_notifier {
	const struct mmu_notifier_ops *ops;
	struct mm_struct *mm;
	struct mmu_notifier *next;
};

struct mmu_notifier_subscriptions {
	struct mmu_notifier *list;
};

static inline bool mm_has_notifiers(const struct mm_struct *mm)
{
	return mm->notifier_subscriptions && mm->notifier_subscriptions->list;
}

int mmu_notifier_register(struct mmu_notifier *sub, struct mm_struct *mm);
void mmu_notifier_unregister(struct mmu_notifier *sub, struct mm_struct *mm);
/* the mm is freed: its subscriptions go with it */
void mmu_notifier_subscriptions_destroy(struct mm_struct *mm);

bool __mmu_notifier_clear_flush_young(struct mm_struct *mm, unsigned long start,
				      unsigned long end);
bool __mmu_notifier_clear_young(struct mm_struct *mm, unsigned long start,
				unsigned long end);
bool __mmu_notifier_test_young(struct mm_struct *mm, unsigned long address);
void __mmu_notifier_invalidate_range_start(struct mmu_notifier_range *range);
void __mmu_notifier_invalidate_range_end(struct mmu_notifier_range *range);
int __mmu_notifier_test_clear_young(struct mm_struct *mm, unsigned long start,
				    unsigned long end, bool fallback, unsigned long *bitmap);
void __mmu_notifier_release(struct mm_struct *mm);

static inline bool mmu_notifier_clear_flush_young(struct mm_struct *mm,
						  unsigned long start, unsigned long end)
{
	if (mm_has_notifiers(mm))
		return __mmu_notifier_clear_flush_young(mm, start, end);
	return false;
}

static inline bool mmu_notifier_clear_young(struct mm_struct *mm,
					    unsigned long start, unsigned long end)
{
	if (mm_has_notifiers(mm))
		return __mmu_notifier_clear_young(mm, start, end);
	return false;
}

static inline bool mmu_notifier_test_young(struct mm_struct *mm, unsigned long address)
{
	if (mm_has_notifiers(mm))
		return __mmu_notifier_test_young(mm, address);
	return false;
}

/*
 * The seed v1's batched young op. The bitmap (at least (end - start) /
 * PAGE_SIZE bits) is indexed from the end: addr's bit is
 * (end - addr) / PAGE_SIZE - 1, which suits a caller looping forward.
 * For each young secondary entry the bit is flipped, and the entry's
 * young bit cleared only if the bit was 1: a 0 asks "test", a 1 asks
 * "test and clear", and for a young entry it reads 1 or 0 afterwards.
 * A subscriber without the fast path falls back to clear_young if
 * fallback is true (and its result is returned); otherwise, and when
 * every subscriber took the fast path, the return is 0.
 */
static inline int mmu_notifier_test_clear_young(struct mm_struct *mm, unsigned long start,
						unsigned long end, bool fallback,
						unsigned long *bitmap)
{
	if (mm_has_notifiers(mm))
		return __mmu_notifier_test_clear_young(mm, start, end, fallback, bitmap);
	return 0;
}

/* exit_mmap (7.3): the secondary MMUs let go before the teardown */
static inline void mmu_notifier_release(struct mm_struct *mm)
{
	if (mm_has_notifiers(mm))
		__mmu_notifier_release(mm);
}

/* flags (MMU_NOTIFIER_RANGE_BLOCKABLE): the lab's subscribers may always block */
static inline void mmu_notifier_range_init(struct mmu_notifier_range *range, int event,
					   unsigned int flags, struct mm_struct *mm,
					   unsigned long start, unsigned long end)
{
	(void)flags;
	range->mm = mm;
	range->start = start;
	range->end = end;
	range->event = event;
}

static inline void mmu_notifier_invalidate_range_start(struct mmu_notifier_range *range)
{
	if (mm_has_notifiers(range->mm))
		__mmu_notifier_invalidate_range_start(range);
}

static inline void mmu_notifier_invalidate_range_end(struct mmu_notifier_range *range)
{
	if (mm_has_notifiers(range->mm))
		__mmu_notifier_invalidate_range_end(range);
}

/* mm/internal.h (7.3): the primary MMU's young op, then the secondary's */
static inline bool clear_flush_young_ptes_notify(struct vm_area_struct *vma,
						 unsigned long addr, pte_t *ptep,
						 unsigned int nr)
{
	bool young = clear_flush_young_ptes(vma, addr, ptep, nr);

	young |= mmu_notifier_clear_flush_young(vma->vm_mm, addr, addr + nr * PAGE_SIZE);
	return young;
}

static inline bool test_and_clear_young_ptes_notify(struct vm_area_struct *vma,
						    unsigned long addr, pte_t *ptep,
						    unsigned int nr)
{
	bool young = test_and_clear_young_ptes(vma, addr, ptep, nr);

	young |= mmu_notifier_clear_young(vma->vm_mm, addr, addr + nr * PAGE_SIZE);
	return young;
}

/* 6.12's one-PTE forms (include/linux/mmu_notifier.h) */
static inline bool ptep_clear_flush_young_notify(struct vm_area_struct *vma,
						 unsigned long addr, pte_t *ptep)
{
	bool young = ptep_clear_flush_young(vma, addr, ptep);

	young |= mmu_notifier_clear_flush_young(vma->vm_mm, addr, addr + PAGE_SIZE);
	return young;
}

static inline bool ptep_clear_young_notify(struct vm_area_struct *vma,
					   unsigned long addr, pte_t *ptep)
{
	bool young = ptep_test_and_clear_young(vma, addr, ptep);

	young |= mmu_notifier_clear_young(vma->vm_mm, addr, addr + PAGE_SIZE);
	return young;
}

#endif
