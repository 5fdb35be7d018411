// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "arch/pte_op_calls.h"
#include "hw/state.h"

const char *const pte_op_names[NR_PTE_OPS] = {
#define X(n) #n,
	PTE_OPS(X)
#undef X
};

/* literals: results travel from the run's child process by value */
const char *const pte_op_result_keys[NR_PTE_OPS][2] = {
#define X(n) { "calls." #n, "calls_cont." #n },
	PTE_OPS(X)
#undef X
};

u64 pte_op_calls[NR_PTE_OPS][2];
bool pte_op_digest_on;
u64 pte_op_digest;

/* counts read once, at the end of a run: accumulators (hw/state.h) */
static void __attribute__((constructor)) pte_op_calls_state(void)
{
	hw_state_register(pte_op_calls, sizeof(pte_op_calls), HW_STATE_ACCUMULATES);
}

void pte_op_calls_reset(void)
{
	memset(pte_op_calls, 0, sizeof(pte_op_calls));
	pte_op_digest_on = false;
	pte_op_digest = 0;
}
