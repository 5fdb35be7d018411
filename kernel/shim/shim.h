/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Forced first into a kernel's arch/arm64/mm/contpte.c and its dispatcher
 * block (-include), so they compile unchanged against ptelab: kernel
 * spellings on top of ptelab's arm64 pte layout, raw operations and TLB
 * maintenance. Split as tools/testing/vma splits its shim: dup.h (kernel
 * definitions kept in sync), stubs.h (what the lab has none of), lab.h
 * (where kernel code meets the simulated machine). The build passes:
 *   PTELAB_KVER            VERSION * 65536 + PATCHLEVEL * 256 + SUBLEVEL
 *   the quirks of kernel/quirks.c that the tree has (PTELAB_TLBF, ...)
 *   PTELAB_DISPATCH_BLOCK  "file" holding the tree's dispatcher block
 */
#ifndef PTELAB_KERNEL_SHIM_H
#define PTELAB_KERNEL_SHIM_H

#define PTELAB_SHIM 1

#include "arch/arm64/raw.h"
#include "include/page.h"

#include "kernel/shim/dup.h"
#include "kernel/shim/lab.h"
#include "kernel/shim/stubs.h"

/*
 * The tree's own public PTE API: its asm/pgtable.h CONFIG_ARM64_CONTPTE
 * block (the dispatchers and contpte_* prototypes), or the #else block
 * for a kernel without contpte, as the build extracted them.
 */
#ifdef PTELAB_DISPATCH_BLOCK
#include PTELAB_DISPATCH_BLOCK
#endif

#endif
