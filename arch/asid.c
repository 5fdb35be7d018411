// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: arch/arm64/mm/context.c (asid_generation, flush_context,
 * check_update_reserved_asid, new_context, check_and_switch_context),
 * without KPTI's ASID pairs, pinned ASIDs or CnP; the lab's CPUs have
 * 16-bit ASIDs.
 */
#include <string.h>

#include "arch/asid.h"
#include "hw/cpu.h"
#include "hw/events.h"

#define ASID_BITS 16
#define ASID_MASK (~((1ULL << ASID_BITS) - 1))
#define ASID_FIRST_VERSION (1ULL << ASID_BITS)
#define NUM_USER_ASIDS ASID_FIRST_VERSION
#define ctxid2asid(id) ((id) & ~ASID_MASK)
#define asid2ctxid(asid, genid) ((asid) | (genid))

_Static_assert(NUM_USER_ASIDS == HW_NR_ASIDS, "one ASID per hardware tag");

static u64 generation;
static u64 asid_map[NUM_USER_ASIDS / 64];
static u64 active_asids[HW_MAX_CPUS];
static u64 reserved_asids[HW_MAX_CPUS];
static u64 tlb_flush_pending; /* a bit per CPU */
static u32 cur_idx;

void asid_reset(void)
{
	generation = ASID_FIRST_VERSION;
	memset(asid_map, 0, sizeof(asid_map));
	memset(active_asids, 0, sizeof(active_asids));
	memset(reserved_asids, 0, sizeof(reserved_asids));
	tlb_flush_pending = 0;
	cur_idx = 1;
}

u64 asid_generation(void)
{
	return generation;
}

static bool asid_gen_match(u64 id)
{
	return !((id ^ generation) >> ASID_BITS);
}

static bool test_and_set(u64 asid)
{
	bool was = asid_map[asid / 64] & (1ULL << (asid % 64));

	asid_map[asid / 64] |= 1ULL << (asid % 64);
	return was;
}

static u64 find_next_zero(u64 from)
{
	for (u64 a = from; a < NUM_USER_ASIDS; a++)
		if (!(asid_map[a / 64] & (1ULL << (a % 64))))
			return a;
	return NUM_USER_ASIDS;
}

/*
 * Rollover: the ASIDs the CPUs are running (or last ran) stay reserved,
 * every other is free again, and each CPU owes a local TLB invalidation
 * before it runs another ASID. Nothing is invalidated here; until a CPU
 * pays, its TLB may hold entries of ASIDs that now name other mms.
 */
static void flush_context(void)
{
	memset(asid_map, 0, sizeof(asid_map));
	for (int i = 0; i < hw_machine.nr_cpus; i++) {
		u64 asid = active_asids[i];

		active_asids[i] = 0;
		if (asid == 0)
			asid = reserved_asids[i];
		test_and_set(ctxid2asid(asid));
		reserved_asids[i] = asid;
		hw_tlb_asids_reused(&hw_machine.cpu[i].tlb);
	}
	tlb_flush_pending = hw_machine.nr_cpus == 64 ? ~0ULL : (1ULL << hw_machine.nr_cpus) - 1;
}

static bool check_update_reserved_asid(u64 asid, u64 newasid)
{
	bool hit = false;

	for (int i = 0; i < hw_machine.nr_cpus; i++) {
		if (reserved_asids[i] == asid) {
			hit = true;
			reserved_asids[i] = newasid;
		}
	}
	return hit;
}

static u64 new_context(u64 id)
{
	u64 asid;

	if (id != 0) {
		u64 newasid = asid2ctxid(ctxid2asid(id), generation);

		/* our ASID was running during the rollover: keep it */
		if (check_update_reserved_asid(id, newasid))
			return newasid;
		/* a valid ASID in a previous life: re-use it if free */
		if (!test_and_set(ctxid2asid(id)))
			return newasid;
	}
	/* ASID 0 is the reserved TTBR0's (no mm): count from 1 */
	asid = find_next_zero(cur_idx);
	if (asid == NUM_USER_ASIDS) {
		generation += ASID_FIRST_VERSION;
		flush_context();
		asid = find_next_zero(1);
	}
	test_and_set(asid);
	cur_idx = (u32)asid;
	return asid2ctxid(asid, generation);
}

/* The ASID an mm runs with: the hardware tags, and the sweeps' view of it. */
static void set_context(struct mm_struct *mm, u64 id)
{
	mm->context.id = id;
	mm->context.asid = (u16)ctxid2asid(id);
	hw_machine.asid_root[mm->context.asid] = mm->pgd;
	hw_machine.asid_retired[mm->context.asid] = false;
}

void asid_new_context(struct mm_struct *mm)
{
	set_context(mm, new_context(0));
}

void check_and_switch_context(struct mm_struct *mm, int cpu)
{
	u64 id = mm->context.id;

	/* the fast path: this generation, and this CPU owes no flush */
	if (active_asids[cpu] && asid_gen_match(id)) {
		active_asids[cpu] = id;
		return;
	}
	if (!asid_gen_match(id)) {
		id = new_context(id);
		set_context(mm, id);
	}
	if (tlb_flush_pending & (1ULL << cpu)) {
		tlb_flush_pending &= ~(1ULL << cpu);
		/* local_flush_tlb_all(): TLBI VMALLE1 and its DSB, this CPU only */
		hw_tlb_inval_all(&hw_machine.cpu[cpu].tlb, -1);
		hw_count(EV_tlbi_local, 1);
		hw_count(EV_dsb, 1);
	}
	active_asids[cpu] = id;
}
