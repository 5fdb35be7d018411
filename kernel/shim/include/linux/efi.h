/* SPDX-License-Identifier: GPL-2.0-only */
/* Stand-in for <linux/efi.h>: the lab has no EFI runtime mm. */
#ifndef PTELAB_SHIM_LINUX_EFI_H
#define PTELAB_SHIM_LINUX_EFI_H

#include "kernel/shim/shim.h"

static inline bool mm_is_efi(struct mm_struct *mm)
{
	(void)mm;
	return false;
}

#endif
