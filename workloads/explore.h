/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * check --explore: a catalogue of small scenarios (one PTE operation, or
 * the core-mm call that makes it, on a block in one state), each run
 * again and again with one other agent acting at one point inside the
 * operation (hw/interleave.h, exact mode): every point, every agent,
 * every entry of the block, every kind of action.
 */
#ifndef PTELAB_WORKLOADS_EXPLORE_H
#define PTELAB_WORKLOADS_EXPLORE_H

/* Scenarios in the catalogue: sequence numbers 0 .. EXPLORE_SCENARIOS - 1. */
extern const unsigned int explore_nr_scenarios;

#endif
