// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "arch/arch.h"

const struct arch_ops *arch = &arch_arm64_ops;

const struct arch_ops *arch_by_name(const char *name)
{
	if (!strcmp(name, "arm64"))
		return &arch_arm64_ops;
	if (!strcmp(name, "x86"))
		return &arch_x86_ops;
	return NULL;
}
