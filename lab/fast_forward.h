/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fast-forward of a workload's loop whose whole state repeats. The
 * simulation is deterministic: once the state at the end of an iteration
 * equals the state at the end of an earlier one (every byte ptelab
 * writes, hw/state.h, apart from accumulating counters and host-only
 * memory), the iterations between them repeat for ever, each period
 * adding the same amounts to the accumulators. The loop then skips whole
 * periods, adding what they would have (events, modelled time, perf
 * frames, call counts), and runs the rest: every output is what running
 * them gives. S4's mlock loop repeats every 15 iterations (mlock's folio
 * batch), from its second one.
 *
 * Each of the first FF_TRIES iterations is digested (two 64-bit hashes of
 * the state, ~1 ms for S4's): a loop with no period in them runs in full.
 * Off under a sanitizer (its allocator's memory is not ptelab's to read)
 * and with PTELAB_NO_FAST_FORWARD=1 in the environment.
 */
#ifndef PTELAB_LAB_FAST_FORWARD_H
#define PTELAB_LAB_FAST_FORWARD_H

#include <stdbool.h>

#include "hw/types.h"

#define FF_TRIES 64

struct lab_ff_point;

struct lab_ff {
	u64 total;              /* the loop's iterations */
	bool off;
	struct lab_ff_point *ring; /* the last FF_TRIES iterations' digests and accumulators */
	size_t acc_words;       /* accumulator words when it began */
	u64 period, skipped;    /* what it did, for the run's report (0, 0: nothing) */
};

void lab_ff_begin(struct lab_ff *ff, u64 total);
/*
 * After `done` iterations (from 1): how many more to skip, their effects
 * applied. The caller adds it to its count of iterations done.
 */
u64 lab_ff_step(struct lab_ff *ff, u64 done);
void lab_ff_end(struct lab_ff *ff);

#endif
