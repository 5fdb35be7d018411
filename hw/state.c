// SPDX-License-Identifier: GPL-2.0-only
/* The registry of memory that is not simulation state (hw/state.h). */
#include <string.h>

#include "hw/state.h"

struct hw_state_range hw_state_ranges[HW_STATE_MAX_RANGES];
int hw_state_nr_ranges;

int hw_state_register(const void *p, size_t bytes, enum hw_state_kind kind)
{
	uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
	int i = 0;

	if (!bytes)
		return 0;
	if (kind == HW_STATE_ACCUMULATES && ((lo | bytes) & 7))
		return -1;
	while (i < hw_state_nr_ranges && hw_state_ranges[i].hi <= lo)
		i++;
	if (i < hw_state_nr_ranges && hw_state_ranges[i].lo == lo && hw_state_ranges[i].hi == hi &&
	    hw_state_ranges[i].kind == kind)
		return 0;
	if ((i < hw_state_nr_ranges && hw_state_ranges[i].lo < hi) ||
	    hw_state_nr_ranges == HW_STATE_MAX_RANGES)
		return -1;
	memmove(&hw_state_ranges[i + 1], &hw_state_ranges[i],
		(size_t)(hw_state_nr_ranges - i) * sizeof(hw_state_ranges[0]));
	hw_state_ranges[i] = (struct hw_state_range){ lo, hi, kind };
	hw_state_nr_ranges++;
	return 0;
}

void hw_state_unregister(const void *p)
{
	for (int i = 0; i < hw_state_nr_ranges; i++)
		if (hw_state_ranges[i].lo == (uintptr_t)p) {
			memmove(&hw_state_ranges[i], &hw_state_ranges[i + 1],
				(size_t)(hw_state_nr_ranges - i - 1) * sizeof(hw_state_ranges[0]));
			hw_state_nr_ranges--;
			return;
		}
}
