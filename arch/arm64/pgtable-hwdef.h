/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arm64 page-table entry layout with Linux's names (4 KiB granule, 48-bit
 * output addresses). Shared by the reference contpte code, the raw
 * operations and the shim that compiles a kernel's contpte.c: the values
 * kernel code reads are checked against each tree's (kernel/quirks.c,
 * kernel_dups; in sync with 7.3).
 */
#ifndef PTELAB_ARM64_PGTABLE_HWDEF_H
#define PTELAB_ARM64_PGTABLE_HWDEF_H

#include "include/pte_types.h"

#define PTE_VALID (1ULL << 0)
#define PTE_TYPE_MASK (3ULL << 0)
#define PTE_TYPE_PAGE (3ULL << 0)
#define PTE_TABLE_BIT (1ULL << 1)
#define PTE_USER (1ULL << 6)   /* AP[1] */
#define PTE_RDONLY (1ULL << 7) /* AP[2] */
#define PTE_SHARED (3ULL << 8) /* SH[1:0], inner shareable */
#define PTE_AF (1ULL << 10)
#define PTE_NG (1ULL << 11)
#define PTE_DBM (1ULL << 51)
#define PTE_CONT (1ULL << 52)
#define PTE_PXN (1ULL << 53)
#define PTE_UXN (1ULL << 54)
#define PTE_ADDR_LOW (((1ULL << (48 - PAGE_SHIFT)) - 1) << PAGE_SHIFT)
#define PTE_ADDR_MASK PTE_ADDR_LOW
#define PTE_ATTRINDX(t) ((u64)(t) << 2)
#define MT_NORMAL 0

/* Software bits */
#define PTE_WRITE PTE_DBM
#define PTE_SWP_EXCLUSIVE (1ULL << 2)
#define PTE_DIRTY (1ULL << 55)
#define PTE_SPECIAL (1ULL << 56)
#define PTE_PRESENT_INVALID PTE_NG /* only when !PTE_VALID */

/* Table and block descriptors of the upper levels */
#define PMD_TYPE_MASK (3ULL << 0)
#define PMD_TYPE_TABLE (3ULL << 0)
#define PMD_TYPE_SECT (1ULL << 0)
#define PUD_TYPE_MASK (3ULL << 0)
#define PUD_TYPE_TABLE (3ULL << 0)
#define P4D_TYPE_MASK (3ULL << 0)
#define P4D_TYPE_TABLE (3ULL << 0)

#define CONT_PTE_SHIFT (4 + PAGE_SHIFT)
#define CONT_PTES (1 << (CONT_PTE_SHIFT - PAGE_SHIFT))
#define CONT_PTE_SIZE (CONT_PTES * PAGE_SIZE)
#define CONT_PTE_MASK (~(CONT_PTE_SIZE - 1))

#define _PROT_DEFAULT (PTE_TYPE_PAGE | PTE_AF | PTE_SHARED)
#define _PAGE_DEFAULT (_PROT_DEFAULT | PTE_ATTRINDX(MT_NORMAL))
#define PAGE_NONE_VAL (((_PAGE_DEFAULT) & ~PTE_VALID) | PTE_PRESENT_INVALID | PTE_RDONLY | PTE_NG | PTE_PXN | PTE_UXN)
#define PAGE_SHARED_VAL (_PAGE_DEFAULT | PTE_USER | PTE_RDONLY | PTE_NG | PTE_PXN | PTE_UXN | PTE_WRITE)
#define PAGE_READONLY_VAL (_PAGE_DEFAULT | PTE_USER | PTE_RDONLY | PTE_NG | PTE_PXN | PTE_UXN)

#endif
