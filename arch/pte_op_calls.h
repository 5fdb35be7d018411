/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How often each public PTE operation was called, on an entry of a
 * contiguous block or not (the branch contpte takes differs): what
 * `ptelab check` prints as coverage and fails on when an op a backend
 * exports was never reached; and what the calls returned.
 */
#ifndef PTELAB_ARCH_PTE_OP_CALLS_H
#define PTELAB_ARCH_PTE_OP_CALLS_H

#include "hw/types.h"

#define PTE_OPS(X)                       \
	X(ptep_get)                      \
	X(ptep_get_lockless)             \
	X(set_ptes)                      \
	X(clear_full_ptes)               \
	X(get_and_clear_full_ptes)       \
	X(ptep_get_and_clear_full)       \
	X(ptep_test_and_clear_young)     \
	X(ptep_clear_flush_young)        \
	X(test_and_clear_young_ptes)     \
	X(clear_flush_young_ptes)        \
	X(wrprotect_ptes)                \
	X(clear_young_dirty_ptes)        \
	X(ptep_set_access_flags)         \
	X(pte_batch_hint)

enum pte_op {
#define X(n) PTE_OP_##n,
	PTE_OPS(X)
#undef X
	NR_PTE_OPS
};

extern const char *const pte_op_names[NR_PTE_OPS];
/* run results: "calls.<op>" (all calls), "calls_cont.<op>" (on a contiguous entry) */
extern const char *const pte_op_result_keys[NR_PTE_OPS][2];
/* [op][1]: the first entry had the contiguous bit */
extern u64 pte_op_calls[NR_PTE_OPS][2];

void pte_op_calls_reset(void);

/*
 * check --diff: a digest of every value the ops return (young, gathered
 * entries, changed, batch hints), in call order, to compare two
 * backends on the same sequences. Off unless a workload turns it on.
 */
extern bool pte_op_digest_on;
extern u64 pte_op_digest;

static inline void pte_op_return(enum pte_op op, u64 v)
{
	if (__builtin_expect(pte_op_digest_on, 0))
		pte_op_digest = (pte_op_digest ^ (v * 0x9E3779B97F4A7C15ULL + (u64)op)) * 0x100000001b3ULL;
}

#endif
