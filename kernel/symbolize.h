/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Code addresses to names: which object (a kernel backend or ptelab), which
 * function, which file:line, read from the object's debug info with
 * addr2line. Backends are built with -g for this.
 */
#ifndef PTELAB_KERNEL_SYMBOLIZE_H
#define PTELAB_KERNEL_SYMBOLIZE_H

#include <limits.h>
#include <stdbool.h>

struct code_loc {
	char function[128]; /* "??" when unknown */
	char file[256];     /* from the tree's top (arch/arm64/mm/contpte.c) when it can */
	int line;           /* 0 when unknown */
	const char *backend; /* the kernel backend whose object holds it, or NULL */
	const char *version; /* its kernel version */
	char object[PATH_MAX];
};

/*
 * return_address: addr is where a call returns to (every frame but the
 * innermost), so the call itself is one byte before it.
 */
void symbolize(unsigned long addr, bool return_address, struct code_loc *loc);

#endif
