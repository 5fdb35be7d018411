/* SPDX-License-Identifier: GPL-2.0-only */
/* A small reproducible generator (xorshift64) for workloads and tests. */
#ifndef PTELAB_HW_RANDOM_H
#define PTELAB_HW_RANDOM_H

#include "hw/types.h"

/* A number in [0, n) from *state, which must start non-zero. */
static inline u64 xorshift_rnd(u64 *state, u64 n)
{
	u64 x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x % n;
}

#endif
