/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the reference contpte (arch/arm64/pgtable.c) needs from core-mm.
 * Kernel backends get the same from the shim (page_folio(pte_page(pte))).
 */
#ifndef PTELAB_ARM64_CONTPTE_H
#define PTELAB_ARM64_CONTPTE_H

#include "arch/arm64/raw.h"

/*
 * The frames of the folio that contains pfn (the kernel's page_folio() +
 * folio_nr_pages()). False: no folio.
 */
bool pfn_folio_span(u64 pfn, u64 *first_pfn, u64 *nr_pages);

#endif
