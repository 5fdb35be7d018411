// SPDX-License-Identifier: GPL-2.0-only
/*
 * folio_pte_batch_flags() as mm/internal.h (7.3) has it: a batch ends at
 * its folio's last page without reading past it, merges young/dirty/write
 * of its own entries only, and FPB_RESPECT_DIRTY keeps clean and dirty
 * apart (fork of a private mapping).
 */
#include "hw/phys.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

/* Map 2 folios at 0 and make all 32 entries old and clean (MADV_FREE-like). */
static pte_t *two_clean_folios(struct t_lab *t)
{
	pte_t *p;

	t_touch(t, 0, 2 * SZ_64K, true);
	p = t_ptep(t, 0);
	for (int f = 0; f < 2; f++) {
		clear_young_dirty_ptes(t->vma, T_BASE + f * SZ_64K, p + 16 * f, 16,
				       CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
		hw_frame_clean(pte_pfn(ptep_get(p + 16 * f)), 16);
	}
	flush_tlb_mm(t->mm);
	return p;
}

/* x86: no batch hint, every entry of the batch is read */
static void test_stops_at_folio_end_without_reading_past(void)
{
	struct t_lab t;

	t_setup(&t, "x86", SZ_1M_T, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, 2 * SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	pte_t first = ptep_get(p);
	struct folio *folio = pfn_folio(pte_pfn(first));
	u64 reads = hw_events.v[EV_pte_read];

	EXPECT_EQ(folio_pte_batch(folio, p, first, 32), 16);
	/* entries 1..15 only: entry 16 belongs to the next folio */
	EXPECT_EQ(hw_events.v[EV_pte_read] - reads, 15);
	/* from the middle of the folio: the rest of it */
	EXPECT_EQ(folio_pte_batch(folio, p + 5, ptep_get(p + 5), 32), 11);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

static void test_merges_only_its_own_entries(void)
{
	struct t_lab t;

	t_setup(&t, "x86", SZ_1M_T, SZ_64K, HW_POLICY_ACCESSED);
	pte_t *p = two_clean_folios(&t);
	t_touch(&t, 7 * PAGE_SIZE, PAGE_SIZE, false); /* folio 0: entry 7 young */
	t_touch(&t, SZ_64K, PAGE_SIZE, true);         /* folio 1: entry 16 dirty */
	pte_t pte = ptep_get(p);
	struct folio *folio = pfn_folio(pte_pfn(pte));

	EXPECT(!pte_young(pte) && !pte_dirty(pte));
	EXPECT_EQ(folio_pte_batch_flags(folio, NULL, p, &pte, 32, FPB_MERGE_YOUNG_DIRTY), 16);
	EXPECT(pte_young(pte));   /* entry 7 */
	EXPECT(!pte_dirty(pte));  /* the next folio's dirt is not ours */
	t_teardown(&t);
}

static void test_respect_dirty_splits_batches(void)
{
	struct t_lab t;

	t_setup(&t, "x86", SZ_1M_T, SZ_64K, HW_POLICY_ACCESSED);
	pte_t *p = two_clean_folios(&t);
	t_touch(&t, 0, 6 * PAGE_SIZE, true); /* entries 0..5 dirty, 6..15 clean */
	pte_t pte = ptep_get(p);
	struct folio *folio = pfn_folio(pte_pfn(pte));

	EXPECT_EQ(folio_pte_batch_flags(folio, NULL, p, &pte, 16, FPB_RESPECT_DIRTY), 6);
	pte = ptep_get(p + 6);
	EXPECT_EQ(folio_pte_batch_flags(folio, NULL, p + 6, &pte, 10, FPB_RESPECT_DIRTY), 10);
	pte = ptep_get(p);
	EXPECT_EQ(folio_pte_batch(folio, p, pte, 16), 16); /* dirt ignored */
	t_teardown(&t);
}

/* A batched fork gives each child entry its own parent's dirty bit. */
static void test_fork_keeps_dirty_per_entry(void)
{
	struct t_lab t;

	t_setup(&t, "x86", SZ_1M_T, SZ_64K, HW_POLICY_ACCESSED);
	pte_t *pp = two_clean_folios(&t);
	t_touch(&t, 3 * PAGE_SIZE, 4 * PAGE_SIZE, true); /* entries 3..6 dirty */
	struct mm_struct *child = dup_mm(t.mm);
	pte_t *cp = pte_offset_map(pmd_walk(child, T_BASE), T_BASE);

	for (int i = 0; i < 16; i++)
		EXPECT_EQ(pte_dirty(ptep_get(cp + i)), pte_dirty(ptep_get(pp + i)));
	EXPECT(pte_dirty(ptep_get(cp + 3)) && !pte_dirty(ptep_get(cp + 0)));
	mmput(child);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

static const struct ktap_case cases[] = {
	{ "stops_at_folio_end_without_reading_past", test_stops_at_folio_end_without_reading_past },
	{ "merges_only_its_own_entries", test_merges_only_its_own_entries },
	{ "respect_dirty_splits_batches", test_respect_dirty_splits_batches },
	{ "fork_keeps_dirty_per_entry", test_fork_keeps_dirty_per_entry },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "pte_batch", cases, (int)ARRAY_SIZE(cases));
}
