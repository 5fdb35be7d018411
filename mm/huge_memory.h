/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Mirrors include/linux/huge_mm.h's split_folio(): the lab splits no
 * large folio, so it fails as the kernel's does when the folio has extra
 * references (-EAGAIN). Its callers (madvise's walkers) then leave a
 * folio only partly in their range as it is.
 */
#ifndef PTELAB_MM_HUGE_MEMORY_H
#define PTELAB_MM_HUGE_MEMORY_H

#include <errno.h>

struct folio;

static inline int split_folio(struct folio *folio)
{
	(void)folio;
	return -EAGAIN;
}

#endif
