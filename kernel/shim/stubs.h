/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What kernel code mentions but the lab has none of: features off, and
 * kernel-mapping helpers the dispatcher block names (ptep_try_set() and
 * flush_tlb_before_set() serve kernel mappings; user page tables never
 * reach them, and if they did, a WARN says so).
 */
#ifndef PTELAB_SHIM_STUBS_H
#define PTELAB_SHIM_STUBS_H

static inline bool lpa2_is_enabled(void) { return false; }
static inline bool system_supports_mte(void) { return false; }

/* the kernel's own mm: contpte only manages user mms */
extern struct mm_struct init_mm;

/* arm64 dsb(ishst) + isb after kernel PTE stores: no kernel PTEs here */
static inline void emit_pte_barriers(void) { }

static inline void flush_tlb_kernel_range(unsigned long start, unsigned long end)
{
	ptelab_kernel_warn(__FILE__, __LINE__, "flush_tlb_kernel_range: no kernel mappings in the lab");
}

#endif
