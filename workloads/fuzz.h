/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Random operation sequences with an independent model of what the
 * simulated stores imply: the engine behind `ptelab check`, the fuzz
 * workload and the property tests.
 */
#ifndef PTELAB_WORKLOADS_FUZZ_H
#define PTELAB_WORKLOADS_FUZZ_H

#include "hw/types.h"

#define FUZZ_SIZE (4UL << 20)
#define FUZZ_PAGES (FUZZ_SIZE >> PAGE_SHIFT)
#define FUZZ_BASE 0x40000000UL

/*
 * One sequence on the machine already set up: a new mm maps FUZZ_SIZE of
 * anonymous memory in folios of the given order, nr_ops random operations
 * run on it (with lifecycle: fork, mprotect, madvise, mlock too), then
 * the model is checked (every page stored to since it was cleaned reads
 * dirty; a block cleaned and untouched since reads clean) and the
 * invariants swept. Problems are recorded as violations.
 */
void fuzz_sequence(u64 seed, int folio_order, int nr_ops, bool lifecycle);

/* The seed of sequence s of a fuzz run with --seed run_seed. */
u64 fuzz_sequence_seed(u64 run_seed, u64 s);

/* The generator state a sequence seed starts from (distinct seeds differ). */
u64 fuzz_rng_start(u64 seed);

#endif
