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

void hw_violations_reset(void)
{
	memset(&hw_violations, 0, sizeof(hw_violations));
}
