// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ASID allocator (arch/asid.c, after arm64's context.c): ASIDs number
 * the mms in order; a rollover invalidates nothing at once, keeps the
 * ASIDs the CPUs run, and each CPU pays one local TLBI + DSB at its next
 * context switch; an mm of the old generation takes a new ASID when it
 * runs again unless it kept its own.
 */
#include "arch/asid.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

static struct mm_struct *small_mm(struct hw_cpu *cpu)
{
	struct mm_struct *mm = mm_alloc();

	mmap_anon(mm, T_BASE, SZ_64K, VM_READ | VM_WRITE, 0, false);
	switch_mm(cpu, mm);
	for (u64 a = 0; a < SZ_64K; a += PAGE_SIZE)
		access_user(cpu, mm, T_BASE + a, true);
	return mm;
}

/* Runs that never roll over: ASIDs 1, 2, 3 and no flush at a switch. */
static void test_no_rollover_no_flush(void)
{
	struct t_lab t;
	struct mm_struct *b, *c;
	u64 gen;

	t_setup(&t, "arm64", SZ_64K, SZ_64K, HW_POLICY_ACCESSED);
	gen = asid_generation();
	hw_events_reset();
	b = small_mm(&hw_machine.cpu[1]);
	c = small_mm(t.cpu);
	switch_mm(t.cpu, t.mm);
	switch_mm(&hw_machine.cpu[1], c);
	EXPECT_EQ(t.mm->context.asid, 1);
	EXPECT_EQ(b->context.asid, 2);
	EXPECT_EQ(c->context.asid, 3);
	EXPECT_EQ(asid_generation(), gen);
	EXPECT_EQ(hw_events.v[EV_tlbi_local], 0);
	EXPECT_EQ(hw_events.v[EV_dsb], 0);
	mmput(b);
	mmput(c);
	t_teardown(&t);
	EXPECT_EQ(hw_violations.total, 0);
}

static void test_rollover_flushes_each_cpu_at_its_next_switch(void)
{
	struct hw_cpu *cpu1 = &hw_machine.cpu[1];
	struct mm_struct *b, *d, *m;
	struct t_lab t;
	u16 a_asid, b_asid;
	u64 gen;

	/* A runs on CPU 0; D, then B, on CPU 1, whose TLB keeps both */
	t_setup(&t, "arm64", SZ_64K, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	cpu1 = &hw_machine.cpu[1];
	d = small_mm(cpu1);
	b = small_mm(cpu1);
	a_asid = t.mm->context.asid;
	b_asid = b->context.asid;
	gen = asid_generation();

	/* short-lived mms until the ASIDs run out */
	hw_events_reset();
	for (;;) {
		m = mm_alloc();
		if (asid_generation() != gen)
			break;
		mmput(m);
	}
	/* nothing invalidated yet, the running ASIDs are kept */
	EXPECT_EQ(hw_events.v[EV_tlbi_local], 0);
	EXPECT(hw_tlb_lookup(&t.cpu->tlb, a_asid, T_BASE) != NULL);
	EXPECT(hw_tlb_lookup(&cpu1->tlb, b_asid, T_BASE) != NULL);
	/* the first free number goes to m: D's, whose entries CPU 1 still holds */
	EXPECT_EQ(m->context.asid, d->context.asid);
	EXPECT(hw_tlb_lookup(&cpu1->tlb, d->context.asid, T_BASE) != NULL);
	/* CPU 1 owes a flush before it runs m: its leftovers are no stale entries */
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);

	/* CPU 1 pays at its next switch: one local TLBI and one DSB */
	switch_mm(cpu1, m);
	EXPECT_EQ(hw_events.v[EV_tlbi_local], 1);
	EXPECT_EQ(hw_events.v[EV_dsb], 1);
	EXPECT(hw_tlb_lookup(&cpu1->tlb, b_asid, T_BASE) == NULL);
	/* CPU 0 has not switched: A's entries are still there */
	EXPECT(hw_tlb_lookup(&t.cpu->tlb, a_asid, T_BASE) != NULL);

	/* A was running at the rollover: it keeps its ASID; CPU 0 pays once */
	switch_mm(t.cpu, t.mm);
	EXPECT_EQ(t.mm->context.asid, a_asid);
	EXPECT_EQ(hw_events.v[EV_tlbi_local], 2);
	switch_mm(t.cpu, t.mm);
	EXPECT_EQ(hw_events.v[EV_tlbi_local], 2);

	/* D lost its number to m: it takes a new one when it runs, no flush */
	switch_mm(t.cpu, d);
	EXPECT(d->context.asid != m->context.asid && d->context.asid != a_asid &&
	       d->context.asid != b_asid);
	EXPECT_EQ(d->context.id >> 16, asid_generation() >> 16);
	EXPECT_EQ(hw_events.v[EV_tlbi_local], 2);
	EXPECT(!access_user(t.cpu, d, T_BASE, true));
	/* B kept its ASID (reserved by CPU 1 at the rollover) */
	switch_mm(t.cpu, b);
	EXPECT_EQ(b->context.asid, b_asid);
	EXPECT_EQ(hw_events.v[EV_tlbi_local], 2);
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	mmput(m);
	mmput(d);
	mmput(b);
	t_teardown(&t);
}

static const struct ktap_case cases[] = {
	{ "no_rollover_no_flush", test_no_rollover_no_flush },
	{ "rollover_flushes_each_cpu_at_its_next_switch", test_rollover_flushes_each_cpu_at_its_next_switch },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "asid", cases, (int)ARRAY_SIZE(cases));
}
