// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "arch/arch.h"

const struct arch_ops *arch = &arch_arm64_ops;
static struct arch_ops run_arch;

void arch_select(const struct arch_ops *a, const struct pte_api *pte)
{
	run_arch = *a;
	if (pte)
		run_arch.pte = *pte;
	arch = &run_arch;
}

const struct arch_ops *arch_by_name(const char *name)
{
	if (!strcmp(name, "arm64"))
		return &arch_arm64_ops;
	if (!strcmp(name, "x86"))
		return &arch_x86_ops;
	return NULL;
}
