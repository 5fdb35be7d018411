/* SPDX-License-Identifier: GPL-2.0-only */
/* Stand-in for <linux/mm.h>: everything comes from the shim. */
#ifndef PTELAB_SHIM_LINUX_MM_H
#define PTELAB_SHIM_LINUX_MM_H

#include "kernel/shim/shim.h"

#define TLB_FLUSH_VMA(mm, flags) { .vm_mm = (mm), .vm_flags = (flags) }

#endif
