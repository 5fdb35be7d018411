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

/*
 * A well-mixed, never-zero starting state for seed (splitmix64): nearby
 * seeds give unrelated sequences, unlike "seed | 1", which maps 2k and
 * 2k + 1 to the same state.
 */
static inline u64 xorshift_seed(u64 seed)
{
	u64 z = seed + 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return z ? z : 0x9E3779B97F4A7C15ULL;
}

#endif
