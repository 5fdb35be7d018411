// SPDX-License-Identifier: GPL-2.0-only
#include "arch/arm64/tlbflush.h"
#include "hw/cpu.h"
#include "hw/perf.h"

bool system_supports_tlb_range(void)
{
	return hw_machine.cfg.tlbi_range;
}

void flush_tlb_mm(struct mm_struct *mm)
{
	PERF_FUNC();
	hw_dsb(); /* ishst: make the PTE stores visible to the walkers */
	hw_tlbi_asid(ASID(mm), true, 0);
	hw_dsb(); /* ish: wait for the broadcast to complete */
}

void flush_tlb_page(struct vm_area_struct *vma, unsigned long uaddr)
{
	PERF_FUNC();
	hw_dsb();
	hw_tlbi_va(ASID(vma->vm_mm), uaddr, true, 0);
	hw_dsb();
}

/*
 * The range loop of __flush_tlb_range_op: single-page TLBIs without
 * FEAT_TLBIRANGE; otherwise range TLBIs of (num+1) << (5*scale+1) pages
 * with increasing scale, single ones for what a range cannot cover.
 * A non-broadcast flush (TLBF_NOBROADCAST) touches only this CPU.
 */
static void flush_tlb_range_op(int asid, unsigned long start,
			       unsigned long pages, unsigned long stride,
			       bool broadcast)
{
	unsigned long stride_pages = stride >> PAGE_SHIFT;
	int cpu = hw_machine.cur_cpu;
	int scale = 0;

	while (pages > 0) {
		if (!system_supports_tlb_range() || pages == stride_pages) {
			hw_tlbi_va(asid, start, broadcast, cpu);
			start += stride;
			pages -= stride_pages;
			continue;
		}
		long num = (long)((pages >> (5 * scale + 1)) & 0x1f) - 1;
		if (num >= 0) {
			unsigned long n = __TLBI_RANGE_PAGES(num, scale);

			hw_tlbi_range(asid, start, start + n * PAGE_SIZE, broadcast, cpu);
			start += n * PAGE_SIZE;
			pages -= n;
		}
		scale++;
	}
}

/* Too many pages for per-page (or range) TLBIs: drop the whole ASID. */
static bool flush_whole_asid(unsigned long start, unsigned long end,
			     unsigned long stride)
{
	unsigned long pages = (end - start) >> PAGE_SHIFT;

	return (!system_supports_tlb_range() && (end - start) >= MAX_TLBI_OPS * stride) ||
	       pages > MAX_TLBI_RANGE_PAGES;
}

void arm64_flush_tlb_range_flags(struct vm_area_struct *vma, unsigned long start,
				 unsigned long end, unsigned long stride,
				 int tlb_level, tlbf_t flags)
{
	(void)tlb_level;
	start = ALIGN_DOWN(start, stride);
	end = ALIGN(end, stride);
	if (flush_whole_asid(start, end, stride)) {
		flush_tlb_mm(vma->vm_mm);
		return;
	}
	hw_dsb();
	flush_tlb_range_op(ASID(vma->vm_mm), start, (end - start) >> PAGE_SHIFT, stride,
			   !(flags & TLBF_NOBROADCAST));
	if (!(flags & TLBF_NOSYNC))
		hw_dsb();
}

void __flush_tlb_range_nosync(struct vm_area_struct *vma, unsigned long start,
			      unsigned long end, unsigned long stride,
			      bool last_level, int tlb_level)
{
	PERF_FUNC();
	arm64_flush_tlb_range_flags(vma, start, end, stride, tlb_level,
				    TLBF_NOSYNC | (last_level ? TLBF_NOWALKCACHE : 0));
}

void __flush_tlb_range(struct vm_area_struct *vma, unsigned long start,
		       unsigned long end, unsigned long stride, bool last_level,
		       int tlb_level)
{
	PERF_FUNC();
	arm64_flush_tlb_range_flags(vma, start, end, stride, tlb_level,
				    last_level ? TLBF_NOWALKCACHE : 0);
}

void flush_tlb_range(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end)
{
	PERF_FUNC();
	__flush_tlb_range(vma, start, end, PAGE_SIZE, false, 0);
}
