/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Invariant violations found by any layer during a run. The simulated
 * hardware can see what real hardware hides (a write through a stale TLB
 * entry, an access flag set in entry 7 of a block), so the lab checks it.
 */
#ifndef PTELAB_HW_INVARIANTS_H
#define PTELAB_HW_INVARIANTS_H

#include "hw/types.h"

#define HW_VIOLATIONS_KEPT 16

enum hw_violation_kind {
	VIOL_LOST_YOUNG,
	VIOL_LOST_DIRTY,
	VIOL_STALE_TLB,
	VIOL_TLB_CONFLICT,
	VIOL_BAD_CONT_BLOCK,
	VIOL_REFCOUNT,
	VIOL_MAPCOUNT,
	VIOL_FREED_FRAME,
	VIOL_NO_PROGRESS,  /* an access faults again and again, the handler changing nothing */
	VIOL_POSTCOND,     /* an operation returned without doing what it must (arch/postcond.h) */
	VIOL_PERMISSION,   /* a PTE lets a page be written that must not be (mm/debug.c) */
	VIOL_OTHER,
	NR_VIOL_KINDS
};

/*
 * Known kernel findings: hazards of unmodified kernels the lab has
 * traced to their mechanism (hw/invariants.c says each one's where and
 * why). An occurrence is attributed to one only where the hardware model
 * can tell it was that mechanism (a TLB entry marked when the hazard was
 * created); it is reported, beside the violations, and is not one: a
 * patch is judged on what else it breaks.
 */
enum hw_known_finding {
	KNOWN_MPROTECT_FOLD_NO_BBM,
	NR_KNOWN_FINDINGS
};

struct hw_known_info {
	const char *id;
	const char *what;
};

extern const struct hw_known_info hw_known_findings[NR_KNOWN_FINDINGS];

struct hw_violations {
	u64 count[NR_VIOL_KINDS];
	u64 total;
	int kept;
	char msg[HW_VIOLATIONS_KEPT][160];
	u64 known[NR_KNOWN_FINDINGS];
	char known_msg[160]; /* the first occurrence of a known finding */
};

extern struct hw_violations hw_violations;
extern const char *const hw_violation_names[NR_VIOL_KINDS];

void hw_violation(enum hw_violation_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void hw_violations_reset(void);
void hw_known(enum hw_known_finding f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
