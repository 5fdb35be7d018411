/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What of ptelab's memory is not the simulation's state. The state is
 * everything the process writes outside its C library and stack: its
 * data and bss, heap and anonymous mappings (frames, page tables, TLBs,
 * caches, struct pages, LRUs, mms) and the loaded kernel objects' data.
 * Registered here are the exceptions, which lab/fast_forward.c leaves
 * out of a state's digest:
 *
 * - accumulators: u64 counters only ever added to and read as
 *   differences (events, modelled cost, perf frames' calls and time, PTE
 *   API call counts). No decision reads them, so two moments whose other
 *   memory is equal run on alike, each adding the same amounts to them;
 * - host memory no result depends on (the gather replay's table, the
 *   fast-forward's own history).
 *
 * A piece of state left out by mistake would let a fast-forward skip
 * work whose effects differ; one forgotten here only keeps the state
 * from ever repeating, so the loop runs in full. Register no more than
 * is sure.
 */
#ifndef PTELAB_HW_STATE_H
#define PTELAB_HW_STATE_H

#include <stddef.h>

#include "hw/types.h"

enum hw_state_kind {
	HW_STATE_ACCUMULATES, /* u64 words, 8-byte aligned */
	HW_STATE_HOST,
};

struct hw_state_range {
	uintptr_t lo, hi;
	enum hw_state_kind kind;
};

#define HW_STATE_MAX_RANGES 512
extern struct hw_state_range hw_state_ranges[HW_STATE_MAX_RANGES]; /* sorted, disjoint */
extern int hw_state_nr_ranges;

/* Leave [p, p + bytes) out (again: no change); a range that overlaps another is refused (-1). */
int hw_state_register(const void *p, size_t bytes, enum hw_state_kind kind);
/* Forget one registered at p (memory about to be freed). */
void hw_state_unregister(const void *p);

#endif
