/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tree's own dispatchers: the CONFIG_ARM64_CONTPTE block of
 * arch/arm64/include/asm/pgtable.h, between its preprocessor markers,
 * taken as it is (its #ifdef part: contpte on; its #else part: off).
 */
#ifndef PTELAB_KERNEL_DISPATCH_H
#define PTELAB_KERNEL_DISPATCH_H

#include <stddef.h>

/*
 * Splits the text of asm/pgtable.h. 0 with *cont and *nocont malloc'd
 * (each starts with a #line so compiler messages name pgtable.h), or -1
 * with the marker that is missing in missing[].
 */
int dispatch_block_split(const char *pgtable_h, const char *path, char **cont, char **nocont,
			 char *missing, size_t len);

#endif
