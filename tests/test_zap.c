// SPDX-License-Identifier: GPL-2.0-only
/* zap/munmap: counts return to zero, no TLB entry survives, batching pays. */
#include "tests/ktap.h"
#include "tests/lab_test.h"
#include "mm/filemap.h"
#include "mm/switches.h"

/* zap_pte_range of contpte series v3 (S2's clear-ptes) for the next zap_run */
static bool zap_v3;

struct zap_out {
	struct hw_counters ev;
	u64 free_pages, pt_live;
	long rss;
};

static void zap_run(const char *arch_name, u64 folio, bool batch, u64 off,
		    u64 len, struct zap_out *o)
{
	struct t_lab t;
	struct hw_counters before;

	t_setup(&t, arch_name, SZ_2M * 4, folio, HW_POLICY_RANDOM);
	if (!batch)
		lab_switch_off("zap-batch");
	mm_sw.zap_clear_ptes_v3 = zap_v3;
	if (zap_v3) /* nor did 2023's contpte_ptep_get stop early */
		lab_switch_off("ptep-get-early-exit");
	t_touch(&t, 0, SZ_2M * 4, true);
	/* the other CPU caches some translations too */
	switch_mm(&hw_machine.cpu[1], t.mm);
	for (u64 a = 0; a < SZ_2M * 4; a += 3 * PAGE_SIZE)
		access_user(&hw_machine.cpu[1], t.mm, T_BASE + a, false);
	hw_events_snapshot(&before);
	do_munmap(t.mm, T_BASE + off, len);
	hw_events_diff(&o->ev, &before, &hw_events);
	mm_check_invariants(t.mm);
	/* nothing of the unmapped range may still translate on any CPU */
	for (int c = 0; c < 2; c++)
		for (u64 a = off; a < off + len; a += PAGE_SIZE)
			EXPECT(!hw_tlb_lookup(&hw_machine.cpu[c].tlb, t.mm->context.asid,
					      T_BASE + a));
	o->rss = t.mm->rss;
	o->free_pages = nr_free_pages();
	o->pt_live = hw_pt_live();
	t_teardown(&t);
	EXPECT_EQ(hw_violations.total, 0);
}

static void test_batched_saves_rmap_and_refs(void)
{
	struct zap_out a, b;

	zap_run("arm64", SZ_64K, true, 0, SZ_2M * 4, &a);
	zap_run("arm64", SZ_64K, false, 0, SZ_2M * 4, &b);
	EXPECT_EQ(a.ev.v[EV_rmap_call] * 16, b.ev.v[EV_rmap_call]);
	EXPECT_EQ(a.ev.v[EV_folio_ref_atomic] * 16, b.ev.v[EV_folio_ref_atomic]);
	EXPECT_EQ(a.ev.v[EV_folio_free], b.ev.v[EV_folio_free]);
	EXPECT_EQ(a.ev.v[EV_unfold], 0);
	EXPECT_EQ(b.ev.v[EV_unfold], SZ_2M * 4 / SZ_64K);
	/* the same final state */
	EXPECT_EQ(a.free_pages, b.free_pages);
	EXPECT_EQ(a.pt_live, b.pt_live);
	EXPECT_EQ(a.rss, 0);
	EXPECT_EQ(b.rss, 0);
}

/*
 * The Dec 2023 zap: per 64K block one gather at the loop's top and one per
 * further entry in folio_nr_pages_cont_mapped (16 in all), one clear_ptes()
 * of the whole block (no unfold), then rmap and gather per page.
 */
static void test_clear_ptes_v3_exact_counts(void)
{
	struct zap_out a, b;
	const u64 blocks = SZ_2M * 4 / SZ_64K;

	zap_v3 = true;
	zap_run("arm64", SZ_64K, false, 0, SZ_2M * 4, &a);
	zap_v3 = false;
	zap_run("arm64", SZ_64K, false, 0, SZ_2M * 4, &b);
	EXPECT_EQ(a.ev.v[EV_contpte_get], 16 * blocks);
	EXPECT_EQ(a.ev.v[EV_contpte_get_read], 16 * 16 * blocks);
	EXPECT_EQ(a.ev.v[EV_unfold], 0);
	EXPECT_EQ(b.ev.v[EV_unfold], blocks);
	EXPECT_EQ(a.ev.v[EV_pte_atomic], 16 * blocks);
	/* rmap and references as the per-PTE zap: one call, one atomic per page */
	EXPECT_EQ(a.ev.v[EV_rmap_call], 16 * blocks);
	EXPECT_EQ(a.ev.v[EV_rmap_call], b.ev.v[EV_rmap_call]);
	EXPECT_EQ(a.ev.v[EV_folio_ref_atomic], b.ev.v[EV_folio_ref_atomic]);
	EXPECT_EQ(a.free_pages, b.free_pages);
	EXPECT_EQ(a.rss, 0);
	/* a range that starts and ends inside blocks unfolds those two only */
	zap_v3 = true;
	zap_run("arm64", SZ_64K, false, 5 * PAGE_SIZE, SZ_2M + 7 * PAGE_SIZE, &a);
	zap_v3 = false;
	EXPECT_EQ(a.ev.v[EV_unfold], 2);
}

static void test_order0_same_work(void)
{
	struct zap_out a, b;

	zap_run("x86", SZ_4K, true, 0, SZ_2M * 4, &a);
	zap_run("x86", SZ_4K, false, 0, SZ_2M * 4, &b);
	EXPECT_EQ(a.ev.v[EV_rmap_call], b.ev.v[EV_rmap_call]);
	EXPECT_EQ(a.ev.v[EV_folio_ref_atomic], b.ev.v[EV_folio_ref_atomic]);
	EXPECT_EQ(a.ev.v[EV_pte_atomic], b.ev.v[EV_pte_atomic]);
}

static void test_partial_munmap_mid_folio(void)
{
	struct zap_out a;

	/* unmap from the middle of one 64K folio to the middle of another */
	zap_run("arm64", SZ_64K, true, 5 * PAGE_SIZE, SZ_2M + 7 * PAGE_SIZE, &a);
	EXPECT_EQ(a.ev.v[EV_unfold], 2);
	EXPECT(a.rss > 0);
	/* every size, both archs, both ways */
	for (u64 f = SZ_4K; f <= SZ_2M; f <<= 1)
		for (int batch = 0; batch < 2; batch++) {
			zap_run("arm64", f, batch, 3 * PAGE_SIZE, SZ_2M * 3, &a);
			zap_run("x86", f, batch, 0, SZ_2M * 4, &a);
		}
}

static void test_pmd_mapped(void)
{
	struct t_lab t;
	struct run_params p = {
		.arch = "x86", .impl = "ref", .nr_cpus = 1, .seed = 1,
		.tlb_entries = 256, .tlb_ways = 4, .hafdbs = true,
	};
	char err[100];

	lab_switches_reset();
	lab_machine_setup(&p, 8192, err, sizeof(err));
	t.cpu = &hw_machine.cpu[0];
	t.mm = mm_alloc();
	t.vma = mmap_anon(t.mm, T_BASE, SZ_2M * 2, VM_READ | VM_WRITE, PMD_ORDER, true);
	switch_mm(t.cpu, t.mm);
	t_touch(&t, 0, SZ_2M * 2, true);
	EXPECT_EQ(hw_events.v[EV_fault], 2);
	EXPECT(!pmd_table(*pmd_walk(t.mm, T_BASE)));
	mm_check_invariants(t.mm);
	do_munmap(t.mm, T_BASE, SZ_2M * 2);
	EXPECT_EQ(hw_violations.total, 0);
	EXPECT_EQ(nr_free_pages(), max_pfn);
	t_teardown(&t);
}

/* x86: a range flush is INVLPGs locally and one IPI per other CPU. */
static void test_x86_shootdown(void)
{
	struct t_lab t;

	t_setup(&t, "x86", SZ_2M, SZ_4K, HW_POLICY_ACCESSED);
	switch_mm(&hw_machine.cpu[1], t.mm);
	t_touch(&t, 0, 8 * PAGE_SIZE, true);
	access_user(&hw_machine.cpu[1], t.mm, T_BASE, false);
	u64 ipi = hw_events.v[EV_ipi], inv = hw_events.v[EV_tlbi_local];
	do_munmap(t.mm, T_BASE, 8 * PAGE_SIZE);
	EXPECT_EQ(hw_events.v[EV_ipi] - ipi, 1);
	EXPECT(hw_events.v[EV_tlbi_local] - inv >= 16); /* 8 pages on each CPU */
	EXPECT(!hw_tlb_lookup(&hw_machine.cpu[1].tlb, t.mm->context.asid, T_BASE));
	/* above the ceiling of 33 pages: a full flush instead */
	t_touch(&t, 0x100000UL, 64 * PAGE_SIZE, true);
	u64 full = hw_events.v[EV_tlbi_asid];
	do_munmap(t.mm, T_BASE + 0x100000UL, 64 * PAGE_SIZE);
	EXPECT(hw_events.v[EV_tlbi_asid] - full >= 1);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

/*
 * munmap of a shared file mapping, 4 MiB in 64K folios, read or written:
 * the gather flushes it needed. A dirty file folio's rmap removal waits
 * for the TLB flush, forced under each PTE table's lock (tlb_delay_rmap,
 * tlb_flush_rmaps): one more flush per table.
 */
static u64 file_munmap_flushes(bool write, bool *dirty)
{
	struct t_lab t;
	u64 len = 2 * SZ_2M, before;

	t_setup(&t, "arm64", SZ_64K, SZ_64K, HW_POLICY_ACCESSED);
	struct address_space *file = address_space_create(len, 4);
	EXPECT(mmap_file(t.mm, T_BASE + SZ_2M, len, file, 0, VM_READ | VM_WRITE | VM_SHARED));
	for (u64 a = 0; a < len; a += PAGE_SIZE)
		access_user(t.cpu, t.mm, T_BASE + SZ_2M + a, write);
	before = hw_events.v[EV_gather_flush];
	EXPECT_EQ(do_munmap(t.mm, T_BASE + SZ_2M, len), 0);
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	*dirty = folio_test_dirty(filemap_get_folio(file, 0));
	return hw_events.v[EV_gather_flush] - before;
}

static void test_dirty_file_rmap_waits_for_the_flush(void)
{
	bool dirty;

	EXPECT_EQ(file_munmap_flushes(false, &dirty), 1);
	EXPECT(!dirty);
	EXPECT_EQ(file_munmap_flushes(true, &dirty), 1 + 2);
	EXPECT(dirty);
}

static const struct ktap_case cases[] = {
	{ "dirty_file_rmap_waits_for_the_flush", test_dirty_file_rmap_waits_for_the_flush },
	{ "x86_shootdown", test_x86_shootdown },
	{ "batched_saves_rmap_and_refs", test_batched_saves_rmap_and_refs },
	{ "clear_ptes_v3_exact_counts", test_clear_ptes_v3_exact_counts },
	{ "order0_same_work", test_order0_same_work },
	{ "partial_munmap_mid_folio", test_partial_munmap_mid_folio },
	{ "pmd_mapped", test_pmd_mapped },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "zap", cases, (int)ARRAY_SIZE(cases));
}
