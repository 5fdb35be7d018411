/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Version quirks: what differs between kernel trees in ways the shim must
 * follow, each detected from what the tree's code declares (comments and
 * strings stripped first, so a comment mentioning a name does not count),
 * never from a version number.
 */
#ifndef PTELAB_KERNEL_QUIRKS_H
#define PTELAB_KERNEL_QUIRKS_H

#include <stdbool.h>
#include <stddef.h>

struct kernel_quirk {
	const char *define;  /* what the shim is built with when present */
	const char *file;    /* the tree file it is detected in */
	const char *detect;  /* how, in words */
	const char *changes; /* what it changes in the shim */
	bool (*present)(const char *code);
};

extern const struct kernel_quirk kernel_quirks[];
extern const unsigned int nr_kernel_quirks;

/* text with comments and string/char literals blanked (newlines kept); malloc'd */
char *code_only(const char *text);
/* identifier id appears in code as a whole token */
bool code_has_token(const char *code, const char *id);

#endif
