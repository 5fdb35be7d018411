// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hw/invariants.h"

struct hw_violations hw_violations;

const char *const hw_violation_names[NR_VIOL_KINDS] = {
	[VIOL_LOST_YOUNG] = "lost_young",
	[VIOL_LOST_DIRTY] = "lost_dirty",
	[VIOL_STALE_TLB] = "stale_tlb",
	[VIOL_TLB_CONFLICT] = "tlb_conflict",
	[VIOL_BAD_CONT_BLOCK] = "bad_cont_block",
	[VIOL_REFCOUNT] = "refcount",
	[VIOL_MAPCOUNT] = "mapcount",
	[VIOL_FREED_FRAME] = "freed_frame",
	[VIOL_NO_PROGRESS] = "no_progress",
	[VIOL_POSTCOND] = "postcondition",
	[VIOL_PERMISSION] = "permission",
	[VIOL_OTHER] = "other",
};

void hw_violation(enum hw_violation_kind kind, const char *fmt, ...)
{
	va_list ap;

	hw_violations.count[kind]++;
	hw_violations.total++;
	if (hw_violations.kept >= HW_VIOLATIONS_KEPT)
		return;
	char *m = hw_violations.msg[hw_violations.kept++];
	int n = snprintf(m, 160, "%s: ", hw_violation_names[kind]);
	va_start(ap, fmt);
	vsnprintf(m + n, 160 - n, fmt, ap);
	va_end(ap);
}

const struct hw_known_info hw_known_findings[NR_KNOWN_FINDINGS] = {
	[KNOWN_MPROTECT_FOLD_NO_BBM] = {
		"mprotect-fold-no-bbm",
		"7.x batched mprotect on arm64 without BBML2: modify_prot_start_ptes() clears a run "
		"with no TLB invalidation (arch/arm64/mm/mmu.c), modify_prot_commit_ptes() sets it "
		"again with set_ptes(), whose contpte_set_ptes() folds a whole aligned block; a TLB "
		"still holding a page of the block from before then also caches the 64K entry "
		"(a TLB conflict) until change_protection()'s flush",
	},
};

void hw_known(enum hw_known_finding f, const char *fmt, ...)
{
	va_list ap;

	if (!hw_violations.known[f]++ && !hw_violations.known_msg[0]) {
		int n = snprintf(hw_violations.known_msg, 160, "%s: ", hw_known_findings[f].id);

		va_start(ap, fmt);
		vsnprintf(hw_violations.known_msg + n, 160 - n, fmt, ap);
		va_end(ap);
	}
}

void hw_violations_reset(void)
{
	memset(&hw_violations, 0, sizeof(hw_violations));
}
