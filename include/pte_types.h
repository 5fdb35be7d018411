/* SPDX-License-Identifier: GPL-2.0-only */
/* pte_t and pgprot_t as the kernel spells them: wrapped for type safety. */
#ifndef PTELAB_INCLUDE_PTE_TYPES_H
#define PTELAB_INCLUDE_PTE_TYPES_H

#include "hw/types.h"

typedef u64 pteval_t;
typedef struct { pteval_t pte; } pte_t;
typedef struct { pteval_t pgprot; } pgprot_t;

/* a PMD entry: a table of PTEs, a 2M block, or none */
typedef u64 pmdval_t;
typedef struct { pmdval_t pmd; } pmd_t;

#define pte_val(x) ((x).pte)
#define __pte(x) ((pte_t){ (x) })
#define pmd_val(x) ((x).pmd)
#define __pmd(x) ((pmd_t){ (x) })
#define pgprot_val(x) ((x).pgprot)
#define __pgprot(x) ((pgprot_t){ (x) })

/* clear_young_dirty_ptes() flags, as in include/linux/mm_types.h */
typedef int cydp_t;
#define CYDP_CLEAR_YOUNG 0x1
#define CYDP_CLEAR_DIRTY 0x2

#endif
