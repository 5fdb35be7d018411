/* SPDX-License-Identifier: GPL-2.0-only */
/* Stand-in for <linux/export.h>: every function of the object is visible. */
#ifndef PTELAB_SHIM_LINUX_EXPORT_H
#define PTELAB_SHIM_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)

#endif
