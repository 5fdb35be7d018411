// SPDX-License-Identifier: GPL-2.0-only
#include "arch/asid.h"
#include "hw/cpu.h"
#include "hw/events.h"

static u32 next_asid = 1;

void asid_reset(void)
{
	next_asid = 1;
}

u16 asid_alloc(void)
{
	if (next_asid >= HW_NR_ASIDS) {
		/* rollover: no old ASID may hit once numbers are reused */
		for (int c = 0; c < hw_machine.nr_cpus; c++) {
			hw_tlb_inval_all(&hw_machine.cpu[c].tlb, -1);
			hw_count(EV_tlbi_local, 1);
			hw_count(EV_dsb, 1);
		}
		next_asid = 1;
	}
	return (u16)next_asid++;
}
