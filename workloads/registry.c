// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "workloads/workload.h"

extern const struct workload workload_munmap;

const struct workload *const workloads[] = {
	&workload_munmap,
	NULL,
};

const struct workload *workload_by_name(const char *name)
{
	for (int i = 0; workloads[i]; i++)
		if (!strcmp(workloads[i]->name, name))
			return workloads[i];
	return NULL;
}
