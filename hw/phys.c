// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>

#include "hw/host.h"
#include "hw/phys.h"
#include "hw/tlb.h"

struct hw_phys hw_phys;

void hw_phys_init(u64 nr_frames)
{
	hw_phys_exit();
	hw_phys.frame = host_calloc(nr_frames, 1, "the simulated frames");
	hw_phys.nr_frames = nr_frames;
}

void hw_phys_exit(void)
{
	free(hw_phys.frame);
	hw_phys.frame = NULL;
	hw_phys.nr_frames = 0;
}

/*
 * A frame given back to the allocator must not be reachable through any
 * TLB: that would be a use-after-free the next access makes visible.
 */
void hw_frames_set_free(u64 pfn, u64 nr, bool free)
{
	for (u64 i = 0; i < nr; i++) {
		if (free)
			hw_phys.frame[pfn + i] = FRAME_FREE;
		else
			hw_phys.frame[pfn + i] &= ~FRAME_FREE;
	}
	if (free)
		hw_tlb_check_freed(pfn, nr);
}
