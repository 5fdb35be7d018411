// SPDX-License-Identifier: GPL-2.0-only
/* fork + COW + exit, mprotect, madvise, mlock: counts, dirty state, blocks. */
#include "hw/phys.h"
#include "mm/lru.h"
#include "mm/reclaim.h"
#include "mm/switches.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

#define A64_CONT (1ULL << 52)

static bool cont_at(struct mm_struct *mm, u64 off)
{
	pmd_t *pmd = pmd_walk(mm, T_BASE + off);

	return pmd && (pte_offset_map(pmd, T_BASE + off)->pte & A64_CONT);
}

static pte_t pte_at(struct mm_struct *mm, u64 off)
{
	return ptep_get(pte_offset_map(pmd_walk(mm, T_BASE + off), T_BASE + off));
}

static void test_fork_cow_exit(void)
{
	struct t_lab t;
	struct hw_cpu *c1;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_RANDOM);
	c1 = &hw_machine.cpu[1];
	t_touch(&t, 0, SZ_2M, true);
	struct mm_struct *child = dup_mm(t.mm);
	EXPECT(child != NULL);
	switch_mm(c1, child);
	/* blocks stay folded on both sides, read-only, dirty kept */
	EXPECT(cont_at(t.mm, 0) && cont_at(child, 0));
	EXPECT(!pte_write(pte_at(t.mm, 5 * PAGE_SIZE)) && pte_dirty(pte_at(t.mm, 5 * PAGE_SIZE)));
	EXPECT(!pte_write(pte_at(child, 5 * PAGE_SIZE)) && pte_dirty(pte_at(child, 5 * PAGE_SIZE)));
	EXPECT_EQ(hw_events.v[EV_unfold], 0);
	mm_check_invariants(t.mm);
	mm_check_invariants(child);

	/* the child writes page 5: its own copy; the parent's stays dirty */
	u64 shared_pfn = pte_pfn(pte_at(t.mm, 5 * PAGE_SIZE));
	EXPECT_EQ(access_user(c1, child, T_BASE + 5 * PAGE_SIZE, true), 0);
	pte_t cp = pte_at(child, 5 * PAGE_SIZE);
	EXPECT(pte_pfn(cp) != shared_pfn && pte_write(cp) && pte_dirty(cp));
	EXPECT(pte_pfn(pte_at(t.mm, 5 * PAGE_SIZE)) == shared_pfn);
	EXPECT(pte_dirty(pte_at(t.mm, 5 * PAGE_SIZE)));
	EXPECT(!cont_at(child, 0) && cont_at(child, SZ_64K)); /* only that block unfolded */
	/* the parent writes page 40: copied too (the folio is shared) */
	EXPECT_EQ(access_user(t.cpu, t.mm, T_BASE + 40 * PAGE_SIZE, true), 0);
	EXPECT(pte_write(pte_at(t.mm, 40 * PAGE_SIZE)));
	mm_check_invariants(t.mm);
	mm_check_invariants(child);
	EXPECT_EQ(hw_violations.total, 0);

	/* the child exits; every count must come back exactly */
	mmput(child);
	mm_check_invariants(t.mm);
	/* an order-0 page the parent alone maps is reused in place, not copied */
	u64 own = pte_pfn(pte_at(t.mm, 40 * PAGE_SIZE));
	wrprotect_ptes(t.mm, T_BASE + 40 * PAGE_SIZE, pte_offset_map(pmd_walk(t.mm, T_BASE), T_BASE + 40 * PAGE_SIZE), 1);
	flush_tlb_mm(t.mm);
	EXPECT_EQ(access_user(t.cpu, t.mm, T_BASE + 40 * PAGE_SIZE, true), 0);
	EXPECT_EQ(pte_pfn(pte_at(t.mm, 40 * PAGE_SIZE)), own);
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
	mm_check_all_freed();
}

static u64 fork_events(bool batch, enum hw_event ev)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	if (!batch)
		lab_switch_off("fork-batch");
	t_touch(&t, 0, SZ_2M, true);
	u64 before = hw_events.v[ev];
	struct mm_struct *child = dup_mm(t.mm);
	u64 n = hw_events.v[ev] - before;
	mm_check_invariants(t.mm);
	mm_check_invariants(child);
	EXPECT_EQ(hw_violations.total, 0);
	for (int i = 0; i < hw_violations.kept && i < 3; i++)
		printf("    # %s\n", hw_violations.msg[i]);
	mmput(child);
	t_teardown(&t);
	return n;
}

static void test_fork_batching(void)
{
	EXPECT_EQ(fork_events(false, EV_rmap_call), 16 * fork_events(true, EV_rmap_call));
	EXPECT_EQ(fork_events(false, EV_folio_ref_atomic), 16 * fork_events(true, EV_folio_ref_atomic));
	EXPECT_EQ(fork_events(true, EV_unfold), 0);
	/* per PTE: write-protecting one entry unfolds each parent block */
	EXPECT_EQ(fork_events(false, EV_unfold), SZ_2M / SZ_64K);
}

/*
 * mprotect of 4 contiguous 64K blocks, read-only and back: batched (6.17),
 * each block is cleared and set whole and stays contiguous; one PTE at a
 * time (6.12) each block unfolds at its first entry and refolds at its
 * last. Either way the entries keep their dirt, and the way back makes
 * them writable again without a fault (exclusive anonymous pages).
 */
static void mprotect_refolds(bool batch)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_RANDOM);
	mm_sw.mprotect_batch = batch;
	t_touch(&t, 0, SZ_2M, true);
	hw_events_reset();
	EXPECT_EQ(do_mprotect(t.mm, T_BASE, SZ_256K_T, VM_READ), 0);
	EXPECT(!pte_write(pte_at(t.mm, 0)) && pte_dirty(pte_at(t.mm, 0)));
	EXPECT(cont_at(t.mm, 0));
	EXPECT_EQ(hw_events.v[EV_unfold], batch ? 0 : 4);
	EXPECT_EQ(hw_events.v[EV_fold], batch ? 0 : 4);
	EXPECT(access_user(t.cpu, t.mm, T_BASE, true) != 0); /* now read-only */
	EXPECT_EQ(do_mprotect(t.mm, T_BASE, SZ_256K_T, VM_READ | VM_WRITE), 0);
	EXPECT(pte_write(pte_at(t.mm, 0)) && cont_at(t.mm, 0));
	u64 faults = hw_events.v[EV_fault];
	EXPECT_EQ(access_user(t.cpu, t.mm, T_BASE, true), 0);
	EXPECT_EQ(hw_events.v[EV_fault], faults);
	EXPECT_EQ(t.mm->nr_vmas, 2);
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
	mm_sw.mprotect_batch = true;
}

static void test_mprotect_refolds(void)
{
	mprotect_refolds(true);
	mprotect_refolds(false);
}

static void test_madvise(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ADVERSARIAL);
	t_touch(&t, 0, SZ_2M, true);
	u64 free_before = nr_free_pages();
	EXPECT_EQ(do_madvise(t.mm, T_BASE, SZ_256K_T, MADV_DONTNEED), 0);
	EXPECT_EQ(nr_free_pages() - free_before, SZ_256K_T / PAGE_SIZE);
	EXPECT(pte_none(pte_at(t.mm, 0)));
	/* MADV_FREE: clean and old, whole blocks, still folded */
	EXPECT_EQ(do_madvise(t.mm, T_BASE + SZ_256K_T, SZ_256K_T, MADV_FREE), 0);
	pte_t e = pte_at(t.mm, SZ_256K_T + 3 * PAGE_SIZE);
	EXPECT(!pte_dirty(e) && !pte_young(e) && cont_at(t.mm, SZ_256K_T));
	EXPECT(!hw_frame_written(pte_pfn(e)));
	/* a store afterwards makes it dirty again (hardware, via DBM) */
	t_touch(&t, SZ_256K_T + 3 * PAGE_SIZE, PAGE_SIZE, true);
	EXPECT(pte_dirty(pte_at(t.mm, SZ_256K_T)));
	/* MADV_COLD: old, dirty kept */
	EXPECT_EQ(do_madvise(t.mm, T_BASE + SZ_1M_T, SZ_256K_T, MADV_COLD), 0);
	e = pte_at(t.mm, SZ_1M_T);
	EXPECT(!pte_young(e) && pte_dirty(e));
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

static void test_mlock_lru(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_1M_T, true); /* half the range is never touched */
	long unevictable = root_lruvec.nr_pages[LRU_UNEVICTABLE];
	EXPECT_EQ(do_mlock(t.mm, T_BASE, SZ_2M, true), 0);
	/* population faulted in the other half; all of it is unevictable */
	EXPECT_EQ(root_lruvec.nr_pages[LRU_UNEVICTABLE] - unevictable, SZ_2M / PAGE_SIZE);
	EXPECT(t.mm->rss == (long)(SZ_2M / PAGE_SIZE));
	EXPECT_EQ(do_mlock(t.mm, T_BASE, SZ_2M, false), 0);
	EXPECT_EQ(root_lruvec.nr_pages[LRU_UNEVICTABLE], unevictable);
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

/*
 * A PTE must not let a page be written that must not be: not in a VMA
 * without VM_WRITE, not an anonymous page shared after fork. Each made
 * writable behind the core's back (a batched restore gone wrong) is a
 * permission violation; the same tables as core-mm leaves them are not.
 */
static void test_writable_where_it_must_not_be(void)
{
	struct t_lab t;

	/* read-only VMA: mprotect, then one entry made writable again */
	t_setup(&t, "arm64", SZ_2M, 4096, HW_POLICY_RANDOM);
	t_touch(&t, 0, SZ_2M, true);
	EXPECT_EQ(do_mprotect(t.mm, T_BASE, SZ_256K_T, VM_READ), 0);
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.count[VIOL_PERMISSION], 0);
	pte_t *ptep = t_ptep(&t, 3 * PAGE_SIZE);
	set_pte_at(t.mm, T_BASE + 3 * PAGE_SIZE, ptep, pte_mkwrite(ptep_get(ptep)));
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.count[VIOL_PERMISSION], 1);
	EXPECT(strstr(hw_violations.msg[0], "is writable in a VMA without VM_WRITE") != NULL);
	t_teardown(&t);

	/* after fork, the parent's copy of a shared page made writable */
	t_setup(&t, "arm64", SZ_2M, 4096, HW_POLICY_RANDOM);
	t_touch(&t, 0, SZ_2M, true);
	struct mm_struct *child = dup_mm(t.mm);
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.count[VIOL_PERMISSION], 0);
	ptep = t_ptep(&t, 7 * PAGE_SIZE);
	set_pte_at(t.mm, T_BASE + 7 * PAGE_SIZE, ptep, pte_mkwrite(ptep_get(ptep)));
	mm_check_invariants(t.mm);
	/* the page table's walk: not exclusive; the frames' sweep: mapped twice */
	EXPECT_EQ(hw_violations.count[VIOL_PERMISSION], 2);
	EXPECT(strstr(hw_violations.msg[0], "is not exclusive (PageAnonExclusive clear)") != NULL);
	EXPECT(strstr(hw_violations.msg[1], "is mapped 2 times and writable") != NULL);
	mmput(child);
	t_teardown(&t);
}

/*
 * 7.x's COW reuse of a large folio (__wp_can_reuse_large_anon_folio): after
 * the child exits, the folio's mm ids say only the parent maps it, and a
 * write makes that one page exclusive and writable in place; the folio's
 * other pages stay shared-marked and read-only. While the child lives the
 * write copies. A writable entry on a page that is not exclusive is a
 * permission violation even with one mapping; mprotect and mremap keep
 * the mixed folio's pages apart.
 */
static void test_large_folio_reused_after_fork(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_RANDOM);
	EXPECT(mm_sw.wp_reuse_large); /* 7.x's default */
	t_touch(&t, 0, SZ_2M, true);
	struct folio *folio = pfn_folio(pte_pfn(pte_at(t.mm, 0)));
	EXPECT(!folio_maybe_mapped_shared(folio));
	struct mm_struct *child = dup_mm(t.mm);
	EXPECT(folio_maybe_mapped_shared(folio));
	/* while the child maps it: copied */
	EXPECT_EQ(access_user(t.cpu, t.mm, T_BASE + SZ_64K + 3 * PAGE_SIZE, true), 0);
	EXPECT(pte_pfn(pte_at(t.mm, SZ_64K + 3 * PAGE_SIZE)) !=
	       pte_pfn(pte_at(child, SZ_64K + 3 * PAGE_SIZE)));
	mmput(child);
	EXPECT(!folio_maybe_mapped_shared(folio));
	mm_check_invariants(t.mm);

	/* the child gone: page 5 reused where it is */
	u64 pfn5 = pte_pfn(pte_at(t.mm, 5 * PAGE_SIZE));
	EXPECT_EQ(access_user(t.cpu, t.mm, T_BASE + 5 * PAGE_SIZE, true), 0);
	EXPECT_EQ(pte_pfn(pte_at(t.mm, 5 * PAGE_SIZE)), pfn5);
	EXPECT(pte_write(pte_at(t.mm, 5 * PAGE_SIZE)) && PageAnonExclusive(pfn_to_page(pfn5)));
	EXPECT(!pte_write(pte_at(t.mm, 4 * PAGE_SIZE)) && !PageAnonExclusive(pfn_to_page(pfn5 - 1)));
	EXPECT(!cont_at(t.mm, 0)); /* the write bit changed inside the block: unfolded */
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);

	/* mprotect both ways and mremap: page 5 alone writable, nothing leaks */
	EXPECT_EQ(do_mprotect(t.mm, T_BASE, SZ_64K, VM_READ), 0);
	EXPECT_EQ(do_mprotect(t.mm, T_BASE, SZ_64K, VM_READ | VM_WRITE), 0);
	EXPECT(pte_write(pte_at(t.mm, 5 * PAGE_SIZE)) && !pte_write(pte_at(t.mm, 6 * PAGE_SIZE)));
	EXPECT_EQ(do_mremap_fixed(t.mm, T_BASE, SZ_64K, T_BASE + (1UL << 20) + SZ_64K), 0);
	EXPECT(pte_write(pte_at(t.mm, (1UL << 20) + SZ_64K + 5 * PAGE_SIZE)));
	EXPECT(!pte_write(pte_at(t.mm, (1UL << 20) + SZ_64K + 4 * PAGE_SIZE)));
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);

	/* a batch that took page 5's write bit for its neighbour */
	pte_t *ptep = pte_offset_map(pmd_walk(t.mm, T_BASE + (1UL << 20)), T_BASE + (1UL << 20) + SZ_64K + 4 * PAGE_SIZE);
	set_pte_at(t.mm, T_BASE + (1UL << 20) + SZ_64K + 4 * PAGE_SIZE, ptep, pte_mkwrite(ptep_get(ptep)));
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.count[VIOL_PERMISSION], 1);
	EXPECT(strstr(hw_violations.msg[0], "is not exclusive (PageAnonExclusive clear)") != NULL);
	mm_sw.wp_reuse_large = false;
	t_teardown(&t);

	/* without 6.15's reuse (6.12's core): the write copies */
	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_RANDOM);
	mm_sw.wp_reuse_large = false;
	t_touch(&t, 0, SZ_2M, true);
	mmput(dup_mm(t.mm));
	pfn5 = pte_pfn(pte_at(t.mm, 5 * PAGE_SIZE));
	EXPECT_EQ(access_user(t.cpu, t.mm, T_BASE + 5 * PAGE_SIZE, true), 0);
	EXPECT(pte_pfn(pte_at(t.mm, 5 * PAGE_SIZE)) != pfn5);
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

/*
 * Data the user unmapped is nobody's: MADV_FREE, a store to one page,
 * munmap of that page, then reclaim discards the rest of the lazyfree
 * folio. No lost write (check's sequence 38, 16K, found it flagged).
 */
static void test_unmapped_data_may_be_discarded(void)
{
	struct t_lab t;
	struct reclaim_stat rs = { 0 };

	t_setup(&t, "arm64", SZ_2M, (16UL << 10), HW_POLICY_ACCESSED);
	t_touch(&t, 0, (16UL << 10), false);
	EXPECT_EQ(do_madvise(t.mm, T_BASE, (16UL << 10), MADV_FREE), 0);
	EXPECT_EQ(access_user(t.cpu, t.mm, T_BASE + 3 * PAGE_SIZE, true), 0);
	u64 pfn3 = pte_pfn(pte_at(t.mm, 3 * PAGE_SIZE));
	EXPECT(hw_frame_written(pfn3));
	EXPECT_EQ(do_munmap(t.mm, T_BASE + 3 * PAGE_SIZE, PAGE_SIZE), 0);
	EXPECT(!hw_frame_written(pfn3));
	u64 lazyfreed = vm_lazyfreed_pages();
	memory_reclaim(SZ_2M, &rs);
	EXPECT_EQ(vm_lazyfreed_pages() - lazyfreed, 4);
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

/* A batched op's nr entries stay in the one PTE table the caller mapped. */
static void test_batch_past_table_end(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, 4096, HW_POLICY_RANDOM);
	t_touch(&t, 0, SZ_2M, false);
	/* the table's last 4 entries: within it */
	test_and_clear_young_ptes(t.vma, T_BASE + SZ_2M - 4 * PAGE_SIZE,
				  t_ptep(&t, SZ_2M - 4 * PAGE_SIZE), 4);
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 0);
	/* 8 from 4 before its end: 4 past it (the next slot of table memory is unused) */
	test_and_clear_young_ptes(t.vma, T_BASE + SZ_2M - 4 * PAGE_SIZE,
				  t_ptep(&t, SZ_2M - 4 * PAGE_SIZE), 8);
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 1);
	EXPECT(strstr(hw_violations.msg[0], "test_and_clear_young_ptes(va 0x401fc000, nr 8) runs "
		      "past the end of its PTE table (entry 508 of 512)") != NULL);
	t_teardown(&t);
}

static const struct ktap_case cases[] = {
	{ "batch_past_table_end", test_batch_past_table_end },
	{ "writable_where_it_must_not_be", test_writable_where_it_must_not_be },
	{ "fork_cow_exit", test_fork_cow_exit },
	{ "large_folio_reused_after_fork", test_large_folio_reused_after_fork },
	{ "fork_batching", test_fork_batching },
	{ "mprotect_refolds", test_mprotect_refolds },
	{ "madvise", test_madvise },
	{ "unmapped_data_may_be_discarded", test_unmapped_data_may_be_discarded },
	{ "mlock_lru", test_mlock_lru },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "lifecycle", cases, (int)ARRAY_SIZE(cases));
}
