/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Physical memory: frames have no contents, only one byte of ground truth
 * each, written by the simulated CPUs and read by the invariant checks.
 */
#ifndef PTELAB_HW_PHYS_H
#define PTELAB_HW_PHYS_H

#include "hw/types.h"

#define FRAME_WRITTEN 0x1 /* stored to since software last cleaned it */
#define FRAME_FREE 0x2    /* owned by the page allocator */

struct hw_phys {
	u64 nr_frames;
	u8 *frame;
};

extern struct hw_phys hw_phys;

void hw_phys_init(u64 nr_frames); /* nr_frames frames, none written */
void hw_phys_exit(void);

static inline bool hw_frame_written(u64 pfn)
{
	return hw_phys.frame[pfn] & FRAME_WRITTEN;
}

/* Software took responsibility for the data (writeback, discard). */
static inline void hw_frame_clean(u64 pfn, u64 nr)
{
	for (u64 i = 0; i < nr; i++)
		hw_phys.frame[pfn + i] &= ~FRAME_WRITTEN;
}

void hw_frames_set_free(u64 pfn, u64 nr, bool free);

static inline bool hw_frame_is_free(u64 pfn)
{
	return hw_phys.frame[pfn] & FRAME_FREE;
}

/* A store reached the frame by another way than hw_access() (a guest's, through stage 2 / EPT). */
static inline void hw_frame_store(u64 pfn)
{
	hw_phys.frame[pfn] |= FRAME_WRITTEN;
}

#endif
