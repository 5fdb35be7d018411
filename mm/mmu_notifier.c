// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/mmu_notifier.c (mmu_notifier_register,
 * __mmu_notifier_clear_flush_young, __mmu_notifier_clear_young,
 * __mmu_notifier_test_young, __mmu_notifier_invalidate_range_start/end,
 * __mmu_notifier_release); __mmu_notifier_test_clear_young from the S3
 * seed (v1, Feb 2023).
 */
/*
 * Every subscriber's callback is one counted notifier_call. Inside a sim
 * agent each entry point is a profile frame, as perf shows them.
 */
#include <stdlib.h>

#include "hw/events.h"
#include "hw/host.h"
#include "mm/mmu_notifier.h"
#include "sim/frames.h"

int mmu_notifier_register(struct mmu_notifier *sub, struct mm_struct *mm)
{
	if (!mm->notifier_subscriptions)
		mm->notifier_subscriptions = host_calloc(1, sizeof(*mm->notifier_subscriptions),
							 "mmu_notifier subscriptions");
	sub->mm = mm;
	sub->next = mm->notifier_subscriptions->list;
	mm->notifier_subscriptions->list = sub;
	return 0;
}

void mmu_notifier_unregister(struct mmu_notifier *sub, struct mm_struct *mm)
{
	if (!mm->notifier_subscriptions)
		return;
	for (struct mmu_notifier **p = &mm->notifier_subscriptions->list; *p; p = &(*p)->next) {
		if (*p == sub) {
			*p = sub->next;
			break;
		}
	}
	sub->mm = NULL;
}

/* mmdrop's share: the subscriptions die with the mm */
void mmu_notifier_subscriptions_destroy(struct mm_struct *mm)
{
	free(mm->notifier_subscriptions);
	mm->notifier_subscriptions = NULL;
}

bool __mmu_notifier_clear_flush_young(struct mm_struct *mm, unsigned long start,
				      unsigned long end)
{
	int frame = SIM_FRAME("__mmu_notifier_clear_flush_young");
	bool young = false;

	sim_frame_enter(frame);
	for (struct mmu_notifier *sub = mm->notifier_subscriptions->list; sub; sub = sub->next) {
		if (sub->ops->clear_flush_young) {
			hw_count(EV_notifier_call, 1);
			young |= sub->ops->clear_flush_young(sub, mm, start, end);
		}
	}
	sim_frame_exit(frame);
	return young;
}

bool __mmu_notifier_clear_young(struct mm_struct *mm, unsigned long start,
				unsigned long end)
{
	int frame = SIM_FRAME("__mmu_notifier_clear_young");
	bool young = false;

	sim_frame_enter(frame);
	for (struct mmu_notifier *sub = mm->notifier_subscriptions->list; sub; sub = sub->next) {
		if (sub->ops->clear_young) {
			hw_count(EV_notifier_call, 1);
			young |= sub->ops->clear_young(sub, mm, start, end);
		}
	}
	sim_frame_exit(frame);
	return young;
}

bool __mmu_notifier_test_young(struct mm_struct *mm, unsigned long address)
{
	int frame = SIM_FRAME("__mmu_notifier_test_young");
	bool young = false;

	sim_frame_enter(frame);
	for (struct mmu_notifier *sub = mm->notifier_subscriptions->list; sub; sub = sub->next) {
		if (sub->ops->test_young) {
			hw_count(EV_notifier_call, 1);
			if (sub->ops->test_young(sub, mm, address)) {
				young = true;
				break;
			}
		}
	}
	sim_frame_exit(frame);
	return young;
}

/* see mmu_notifier_test_clear_young() */
int __mmu_notifier_test_clear_young(struct mm_struct *mm, unsigned long start,
				    unsigned long end, bool fallback, unsigned long *bitmap)
{
	int frame = SIM_FRAME("__mmu_notifier_test_clear_young");
	int young = 0;

	sim_frame_enter(frame);
	for (struct mmu_notifier *sub = mm->notifier_subscriptions->list; sub; sub = sub->next) {
		if (sub->ops->test_clear_young) {
			hw_count(EV_notifier_call, 1);
			if (sub->ops->test_clear_young(sub, mm, start, end, bitmap))
				continue;
		}
		if (fallback && sub->ops->clear_young) {
			hw_count(EV_notifier_call, 1);
			young |= sub->ops->clear_young(sub, mm, start, end);
		}
	}
	sim_frame_exit(frame);
	return young;
}

/*
 * exit_mmap's first step (7.3): each subscriber's release drops its
 * secondary mappings, and the subscriber leaves the list, so the
 * teardown's invalidations that follow find nobody to tell.
 */
void __mmu_notifier_release(struct mm_struct *mm)
{
	struct mmu_notifier *sub;

	while ((sub = mm->notifier_subscriptions->list)) {
		mm->notifier_subscriptions->list = sub->next;
		sub->next = NULL;
		sub->mm = NULL; /* released: unregister has nothing left to do */
		if (sub->ops->release) {
			hw_count(EV_notifier_call, 1);
			sub->ops->release(sub, mm);
		}
	}
}

void __mmu_notifier_invalidate_range_start(struct mmu_notifier_range *range)
{
	struct mm_struct *mm = range->mm;

	for (struct mmu_notifier *sub = mm->notifier_subscriptions->list; sub; sub = sub->next) {
		if (sub->ops->invalidate_range_start) {
			hw_count(EV_notifier_call, 1);
			sub->ops->invalidate_range_start(sub, range);
		}
	}
}

void __mmu_notifier_invalidate_range_end(struct mmu_notifier_range *range)
{
	struct mm_struct *mm = range->mm;

	for (struct mmu_notifier *sub = mm->notifier_subscriptions->list; sub; sub = sub->next) {
		if (sub->ops->invalidate_range_end) {
			hw_count(EV_notifier_call, 1);
			sub->ops->invalidate_range_end(sub, range);
		}
	}
}
