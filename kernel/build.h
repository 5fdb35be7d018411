/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PTELAB_KERNEL_BUILD_H
#define PTELAB_KERNEL_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "hw/types.h"

/*
 * The shared object of backend name from the kernel tree at tree, built
 * if it is not cached. 0 with so_path and version ("X.Y.Z"), or -1 with
 * one line in err (not a tree, no contpte.c, no dispatcher block, does
 * not compile against the shim).
 */
int kernel_build_backend(const char *name, const char *tree, char *so_path, size_t so_len,
			 char *version, char *err, size_t errlen);

/* Build backends with AddressSanitizer from now on. */
void kernel_backends_sanitize(bool on);
bool kernel_backends_sanitized(void);

#endif
