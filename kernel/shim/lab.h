/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where kernel code meets the simulated machine: WARNs become lab
 * violations, CPU features come from the machine's configuration. Pages
 * and folios are ptelab's struct page, one per simulated frame
 * (include/page.h; pte_page() is arch/arm64/pte.h's, as for the reference).
 */
#ifndef PTELAB_SHIM_LAB_H
#define PTELAB_SHIM_LAB_H

/* A kernel WARN is a lab violation: the code asserted something false. */
void ptelab_kernel_warn(const char *file, int line, const char *cond);
#define WARN_ON(c) ({ bool __c = !!(c); if (unlikely(__c)) ptelab_kernel_warn(__FILE__, __LINE__, #c); __c; })
#define WARN_ON_ONCE(c) WARN_ON(c)
#define VM_WARN_ON(c) ((void)WARN_ON(c))
#define VM_WARN_ON_ONCE(c) ((void)WARN_ON(c))
#define VM_BUG_ON(c) ((void)WARN_ON(c))
#define BUG_ON(c) ((void)WARN_ON(c))

/* CPU features, from the simulated machine */
bool ptelab_hw_bbml2(void);
bool system_supports_tlb_range(void);
static inline bool system_supports_bbml2_noabort(void) { return ptelab_hw_bbml2(); }
static inline bool system_supports_bbml3(void) { return ptelab_hw_bbml2(); }

#endif
