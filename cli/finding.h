/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PTELAB_CLI_FINDING_H
#define PTELAB_CLI_FINDING_H

#include "cli/cli.h"
#include "kernel/isolate.h"

/*
 * A child run that ended badly, as a finding about backend impl: what
 * happened and where, at the innermost kernel frame when there is one
 * (f->in_kernel), else at the innermost frame.
 */
void finding_from_report(const struct isolate_report *rep, const char *impl,
			 unsigned int timeout_s, struct run_finding *f);

#endif
