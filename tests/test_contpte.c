// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of the arm64 dispatchers and the reference contpte layer. */
#include "arch/arm64/switches.h"
#include "hw/interleave.h"
#include "hw/phys.h"
#include "tests/ktap.h"
#include "tests/lab_test.h"

#define A64_CONT (1ULL << 52)
#define A64_AF (1ULL << 10)
#define A64_RDONLY (1ULL << 7)
#define A64_DBM (1ULL << 51)
#define A64_SWDIRTY (1ULL << 55)

static bool raw_cont(pte_t *p) { return pte_val(*p) & A64_CONT; }
static bool raw_young(pte_t *p) { return pte_val(*p) & A64_AF; }

/* Make every entry old and clean behind the API's back (no shadows). */
static void raw_age(pte_t *p, int n)
{
	for (int i = 0; i < n; i++) {
		p[i].pte &= ~(A64_AF | A64_SWDIRTY);
		p[i].pte |= A64_RDONLY;
		*hw_pt_shadow(&p[i].pte) = 0;
	}
}

/* Not writable (DBM clear), behind the API's back. */
static void raw_rdonly(pte_t *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i].pte &= ~A64_DBM;
}

static u64 reads_of(void (*fn)(pte_t *), pte_t *p)
{
	u64 before = hw_events.v[EV_pte_read];

	fn(p);
	return hw_events.v[EV_pte_read] - before;
}

static void do_ptep_get(pte_t *p) { (void)ptep_get(p); }

static void test_fault_maps_contiguous_blocks(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, 4 * SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	for (int i = 0; i < 64; i++)
		EXPECT(raw_cont(&p[i]));
	EXPECT(pte_none(ptep_get(&p[64])));
	EXPECT_EQ(hw_events.v[EV_fault], 4);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

static void test_no_contpte_switch(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	lab_switch_off("contpte");
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	for (int i = 0; i < 16; i++)
		EXPECT(!raw_cont(&p[i]) && pte_present(ptep_get(&p[i])));
	t_teardown(&t);
}

static void test_ptep_get_gathers_any_entry(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	raw_age(p, 16);
	EXPECT(!pte_young(ptep_get(&p[3])) && !pte_dirty(ptep_get(&p[3])));
	p[7].pte |= A64_AF;
	p[12].pte &= ~A64_RDONLY; /* hardware dirty: DBM and writable */
	EXPECT(pte_young(ptep_get(&p[3])));
	EXPECT(pte_dirty(ptep_get(&p[0])));
	EXPECT(pte_dirty(ptep_get(&p[15])));
	t_teardown(&t);
}

static void test_ptep_get_early_exit(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	/*
	 * entry 0 is young and dirty: the gather can stop after it, but, as
	 * in 7.3, its young loop starts by loading the dirty entry again
	 */
	EXPECT_EQ(reads_of(do_ptep_get, &p[5]), 3);
	lab_switch_off("ptep-get-reread");
	EXPECT_EQ(reads_of(do_ptep_get, &p[5]), 2);
	lab_switch_off("ptep-get-early-exit");
	EXPECT_EQ(reads_of(do_ptep_get, &p[5]), 17);
	/* nothing young or dirty: all 16 must be read either way */
	lab_switches_reset();
	raw_age(p, 16);
	EXPECT_EQ(reads_of(do_ptep_get, &p[5]), 17);
	t_teardown(&t);
}

static u64 tests_of(pte_t *p)
{
	u64 before = hw_events.v[EV_contpte_test];

	(void)ptep_get(p);
	return hw_events.v[EV_contpte_test] - before;
}

/*
 * A gather's bit tests beyond one per entry it loaded (contpte_test):
 * the loop before S4 tests both bits of all 16 entries; S4's, once it
 * has found one bit, tests only the other, once per entry it loads.
 */
static void test_ptep_get_extra_tests(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	/* young and dirty: entry 0's dirty test, then its reload's young test */
	EXPECT_EQ(tests_of(&p[5]), 0);
	lab_switch_off("ptep-get-reread");
	EXPECT_EQ(tests_of(&p[5]), 1);
	lab_switch_off("ptep-get-early-exit");
	EXPECT_EQ(tests_of(&p[5]), 16);
	/* only entry 8 young: both bits up to it, then the dirty bit alone */
	lab_switches_reset();
	raw_age(p, 16);
	p[8].pte |= A64_AF;
	EXPECT_EQ(tests_of(&p[5]), 9);
	lab_switch_off("ptep-get-early-exit");
	EXPECT_EQ(tests_of(&p[5]), 16);
	/* nothing young or dirty: both bits of every entry either way */
	p[8].pte &= ~A64_AF;
	EXPECT_EQ(tests_of(&p[5]), 16);
	lab_switches_reset();
	EXPECT_EQ(tests_of(&p[5]), 16);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

static void test_young_batch_spanning_blocks(void)
{
	struct t_lab t;
	u64 r0;

	t_setup(&t, "arm64", SZ_2M, SZ_256K_T, HW_POLICY_ACCESSED);
	t_touch(&t, 0, 4 * SZ_64K, false);
	pte_t *p = t_ptep(&t, 0);
	/* from mid block 0 to mid block 2: blocks 0..2 cleared whole */
	r0 = hw_events.v[EV_pte_read];
	EXPECT(test_and_clear_young_ptes(t.vma, T_BASE + 4 * PAGE_SIZE, &p[4], 36));
	u64 batched = hw_events.v[EV_pte_read] - r0;
	for (int i = 0; i < 48; i++)
		EXPECT(!raw_young(&p[i]));
	for (int i = 48; i < 64; i++)
		EXPECT(raw_young(&p[i]));
	EXPECT(!test_and_clear_young_ptes(t.vma, T_BASE, &p[0], 48));
	/* every entry of the three blocks visited once, plus the end checks */
	EXPECT(batched <= 48 + 4);
	EXPECT_EQ(hw_violations.total, 0);

	/* per-PTE (core-mm without young-batch): each call scans its whole block */
	r0 = hw_events.v[EV_pte_read];
	bool young = false;
	for (int i = 48; i < 64; i++)
		young |= ptep_test_and_clear_young(t.vma, T_BASE + i * PAGE_SIZE, &p[i]);
	EXPECT(young);
	EXPECT(hw_events.v[EV_pte_read] - r0 >= 16 * 16);
	t_teardown(&t);
}

static void test_young_batch_first_not_cont(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_128K_T, HW_POLICY_ACCESSED);
	t_touch(&t, 0, 2 * SZ_64K, false);
	pte_t *p = t_ptep(&t, 0);
	/* write-protecting one entry unfolds block 0 */
	wrprotect_ptes(t.mm, T_BASE, &p[0], 1);
	flush_tlb_range(t.vma, T_BASE, T_BASE + PAGE_SIZE);
	EXPECT(!raw_cont(&p[0]) && !raw_cont(&p[8]) && raw_cont(&p[16]));
	EXPECT_EQ(hw_events.v[EV_unfold], 1);
	/* entries 8..27: first plain, last contiguous -> end widened to 32 */
	EXPECT(test_and_clear_young_ptes(t.vma, T_BASE + 8 * PAGE_SIZE, &p[8], 20));
	for (int i = 0; i < 8; i++)
		EXPECT(raw_young(&p[i]));
	for (int i = 8; i < 32; i++)
		EXPECT(!raw_young(&p[i]));
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

static void test_get_and_clear_unfolds_only_partial_ends(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_256K_T, HW_POLICY_ACCESSED);
	t_touch(&t, 0, 4 * SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	pte_t pte = get_and_clear_full_ptes(t.mm, T_BASE + 4 * PAGE_SIZE, &p[4], 36, 0);
	EXPECT(pte_dirty(pte) && pte_young(pte));
	EXPECT_EQ(hw_events.v[EV_unfold], 2);
	for (int i = 0; i < 4; i++)
		EXPECT(pte_present(ptep_get(&p[i])) && !raw_cont(&p[i]));
	for (int i = 4; i < 40; i++)
		EXPECT(pte_none(ptep_get(&p[i])));
	for (int i = 40; i < 48; i++)
		EXPECT(pte_present(ptep_get(&p[i])) && !raw_cont(&p[i]));
	EXPECT(raw_cont(&p[48]));
	/* whole blocks: no unfold at all */
	get_and_clear_full_ptes(t.mm, T_BASE + 48 * PAGE_SIZE, &p[48], 16, 0);
	EXPECT_EQ(hw_events.v[EV_unfold], 2);
	/* without exit-clear-ptes, every block is unfolded first */
	lab_switch_off("exit-clear-ptes");
	clear_full_ptes(t.mm, T_BASE, &p[0], 4, 0);
	EXPECT_EQ(hw_violations.total, 0);
	do_munmap(t.mm, T_BASE, SZ_2M);
	t_teardown(&t);
}

/*
 * S2's posted ways of clearing one entry of a dying mm's block. Both leave
 * the block contiguous while the zap goes through it; robust stashes each
 * cleared entry's young/dirty in the block's top entry and gathers again,
 * so the last clear still reports them, where simple lets them go.
 */
static pte_t clear_block_one_by_one(struct t_lab *t, pte_t *p, enum contpte_full_mode mode,
				    u64 *gathers)
{
	pte_t pte = __pte(0);
	u64 before;

	arm64_sw.full_mode = mode;
	lab_switch_off("exit-clear-ptes");
	lab_switch_off("ptep-get-early-exit");
	before = hw_events.v[EV_contpte_get];
	for (int i = 0; i < 16; i++) {
		pte = ptep_get_and_clear_full(t->mm, T_BASE + i * PAGE_SIZE, &p[i], 1);
		if (i < 15)
			EXPECT(raw_cont(&p[15]));
	}
	*gathers = hw_events.v[EV_contpte_get] - before;
	arch_leave_lazy_mmu_mode();
	return pte;
}

static void test_full_clear_simple_and_robust(void)
{
	struct t_lab t;
	u64 gathers;
	pte_t last;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	/* the block's young and dirty live in entry 3 alone */
	raw_age(p, 16);
	p[3].pte |= A64_AF | A64_SWDIRTY;
	last = clear_block_one_by_one(&t, p, CONTPTE_FULL_ROBUST, &gathers);
	EXPECT(pte_young(last) && pte_dirty(last));
	/* entries 0..2 found nothing to stash: gathered; 3..14 stashed, gathered */
	EXPECT_EQ(gathers, 15);
	for (int i = 0; i < 16; i++)
		EXPECT(pte_none(ptep_get(&p[i])));
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	p = t_ptep(&t, 0);
	raw_age(p, 16);
	p[3].pte |= A64_AF | A64_SWDIRTY;
	last = clear_block_one_by_one(&t, p, CONTPTE_FULL_SIMPLE, &gathers);
	EXPECT(!pte_young(last) && !pte_dirty(last));
	EXPECT_EQ(gathers, 0);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

/* The full contract: a block left partly cleared at the lazy-MMU end is reported. */
static void test_full_clear_left_unfinished(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, 2 * SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	arm64_sw.full_mode = CONTPTE_FULL_SIMPLE;
	lab_switch_off("exit-clear-ptes");
	ptep_get_and_clear_full(t.mm, T_BASE, &p[0], 1);
	EXPECT_EQ(hw_violations.total, 0);
	/* going on to the next block leaves the first: reported then */
	ptep_get_and_clear_full(t.mm, T_BASE + SZ_64K, &p[16], 1);
	EXPECT_EQ(hw_violations.count[VIOL_BAD_CONT_BLOCK], 1);
	arch_leave_lazy_mmu_mode();
	EXPECT_EQ(hw_violations.count[VIOL_BAD_CONT_BLOCK], 2);
	/* without full, one entry's clear unfolds: nothing owed */
	arm64_sw.full_mode = CONTPTE_FULL_NONE;
	hw_violations_reset();
	t_teardown(&t);
}

static void test_wrprotect_keeps_fold_and_dirty(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	wrprotect_ptes(t.mm, T_BASE, p, 16);
	flush_tlb_range(t.vma, T_BASE, T_BASE + SZ_64K);
	for (int i = 0; i < 16; i++) {
		EXPECT(raw_cont(&p[i]));
		EXPECT(!pte_write(ptep_get(&p[i])) && pte_dirty(ptep_get(&p[i])));
	}
	EXPECT_EQ(hw_events.v[EV_unfold], 0);
	/* one entry alone must unfold */
	wrprotect_ptes(t.mm, T_BASE, p, 1);
	EXPECT_EQ(hw_events.v[EV_unfold], 1);
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

static void test_clear_young_dirty_widens_to_block(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	clear_young_dirty_ptes(t.vma, T_BASE + 3 * PAGE_SIZE, &p[3], 2,
			       CYDP_CLEAR_YOUNG | CYDP_CLEAR_DIRTY);
	flush_tlb_range(t.vma, T_BASE, T_BASE + SZ_64K);
	hw_frame_clean(pte_pfn(ptep_get(&p[0])), 16); /* the folio's data is dropped */
	for (int i = 0; i < 16; i++)
		EXPECT(raw_cont(&p[i]) && !raw_young(&p[i]) && !pte_dirty(ptep_get(&p[i])));
	/* a store sets dirty again through the hardware (DBM) */
	t_touch(&t, 5 * PAGE_SIZE, PAGE_SIZE, true);
	EXPECT(pte_dirty(ptep_get(&p[0])));
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

static void test_access_flags_same_write_no_unfold(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, false);
	pte_t *p = t_ptep(&t, 0);
	raw_age(p, 16);
	pte_t e = pte_mkyoung(ptep_get(&p[2]));
	EXPECT_EQ(ptep_set_access_flags(t.vma, T_BASE + 2 * PAGE_SIZE, &p[2], e, 0), 1);
	EXPECT_EQ(hw_events.v[EV_unfold], 0);
	for (int i = 0; i < 16; i++)
		EXPECT(raw_young(&p[i]) && raw_cont(&p[i]));
	EXPECT_EQ(ptep_set_access_flags(t.vma, T_BASE + 2 * PAGE_SIZE, &p[2], e, 0), 0);
	t_teardown(&t);
}

static void test_fold_after_single_sets(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	pte_t e = ptep_get(&p[0]);
	/* rewrite the block entry by entry: the last one folds it back */
	get_and_clear_full_ptes(t.mm, T_BASE, p, 16, 0);
	for (int i = 0; i < 16; i++)
		set_pte_at(t.mm, T_BASE + i * PAGE_SIZE, &p[i], pte_advance_pfn(pte_mknoncont_t(e), i));
	EXPECT_EQ(hw_events.v[EV_fold], 1);
	for (int i = 0; i < 16; i++)
		EXPECT(raw_cont(&p[i]));
	mm_check_invariants(t.mm);
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

static void test_lockless_hint_and_flush_young(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, 2 * SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	raw_age(p, 16);
	p[9].pte |= A64_AF;
	pte_t l = ptep_get_lockless(&p[2]);
	EXPECT(pte_young(l) && !pte_dirty(l) && pte_pfn(l) == pte_pfn(ptep_get(&p[2])));
	/* the hint skips to the end of the block, whatever entry it starts at */
	EXPECT_EQ(pte_batch_hint(&p[0], ptep_get(&p[0])), 16);
	EXPECT_EQ(pte_batch_hint(&p[5], ptep_get(&p[5])), 11);
	/* per-PTE clear_flush_young on a block: whole block, one range flush */
	u64 tlbi = hw_events.v[EV_tlbi_page] + hw_events.v[EV_tlbi_range] + hw_events.v[EV_tlbi_asid];
	EXPECT(ptep_clear_flush_young(t.vma, T_BASE + 2 * PAGE_SIZE, &p[2]));
	EXPECT(hw_events.v[EV_tlbi_page] + hw_events.v[EV_tlbi_range] +
	       hw_events.v[EV_tlbi_asid] > tlbi);
	for (int i = 0; i < 16; i++)
		EXPECT(!raw_young(&p[i]));
	EXPECT(!ptep_clear_flush_young(t.vma, T_BASE, &p[0]));
	/* the batched form over both blocks */
	EXPECT(clear_flush_young_ptes(t.vma, T_BASE, p, 32));
	EXPECT(!clear_flush_young_ptes(t.vma, T_BASE, p, 32));
	/* a store after the flush sets the access flag again in hardware */
	t_touch(&t, 20 * PAGE_SIZE, PAGE_SIZE, false);
	EXPECT(pte_young(ptep_get(&p[16])));
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

/*
 * A walker without hardware access-flag management (a CPU with HA off, an
 * SMMU without HTTU) faults on each old entry it reads. If only a sibling
 * of a block is young, the gathered view already looks young: the access
 * flag fix-up must still update every entry, or the walker faults forever.
 */
static void test_no_hafdbs_sibling_young(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, false);
	pte_t *p = t_ptep(&t, 0);
	raw_age(p, 16);
	p[7].pte |= A64_AF; /* only a sibling is young */
	flush_tlb_range(t.vma, T_BASE, T_BASE + SZ_64K);
	t.cpu->ha = t.cpu->hd = false;
	u64 faults = hw_events.v[EV_fault];
	EXPECT_EQ(access_user(t.cpu, t.mm, T_BASE + 3 * PAGE_SIZE, false), 0);
	EXPECT_EQ(hw_events.v[EV_fault] - faults, 1);
	for (int i = 0; i < 16; i++)
		EXPECT(raw_young(&p[i]) && raw_cont(&p[i]));
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

/* The checkers themselves: a lost dirty bit and a TLB conflict are seen. */
static void test_oracle_catches_lost_dirty(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ADVERSARIAL);
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	clear_young_dirty_ptes(t.vma, T_BASE, p, 16, CYDP_CLEAR_DIRTY);
	flush_tlb_range(t.vma, T_BASE, T_BASE + SZ_64K);
	t_touch(&t, 2 * PAGE_SIZE, PAGE_SIZE, true); /* hw dirties entry 15 */
	EXPECT(!(pte_val(p[2]) & A64_RDONLY) == false);
	/* a buggy unfold that forgets the other entries' dirty state */
	for (int i = 0; i < 16; i++)
		p[i].pte = (p[i].pte & ~A64_CONT) | A64_RDONLY;
	mm_check_invariants(t.mm);
	EXPECT(hw_violations.count[VIOL_LOST_DIRTY] > 0);
	hw_violations_reset();
	t_teardown(&t);
}

static void test_tlb_conflict_detected(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_4K, HW_POLICY_ACCESSED);
	/* 16 order-0 folios that happen to be contiguous */
	t_touch(&t, 0, SZ_64K, false);
	pte_t *p = t_ptep(&t, 0);
	/* set the contiguous bit without break-before-make or a flush */
	for (int i = 0; i < 16; i++)
		p[i].pte |= A64_CONT;
	/* a walk of another page fills a 64K entry over the cached 4K ones */
	hw_tlb_inval(&t.cpu->tlb, t.mm->context.asid, T_BASE + 5 * PAGE_SIZE,
		     T_BASE + 6 * PAGE_SIZE);
	t_touch(&t, 5 * PAGE_SIZE, PAGE_SIZE, false);
	bool contiguous = pte_pfn(ptep_get(&p[0])) % 16 == 0;
	if (contiguous)
		EXPECT(hw_violations.count[VIOL_TLB_CONFLICT] > 0);
	else
		EXPECT(hw_violations.count[VIOL_BAD_CONT_BLOCK] > 0);
	for (int i = 0; i < 16; i++)
		p[i].pte &= ~A64_CONT;
	flush_tlb_mm(t.mm);
	hw_violations_reset();
	t_teardown(&t);
}

/*
 * 7.x's batched mprotect on arm64 (a known finding, hw/invariants.c):
 * modify_prot_start_ptes() clears the run with no invalidation and
 * modify_prot_commit_ptes()'s set_ptes() folds it, so a TLB that cached
 * the block's pages apart also caches the 64K entry. That conflict is
 * the finding's, not a violation; the same conflict from the contiguous
 * bit written any other way stays one.
 */
static void test_mprotect_fold_is_a_known_finding(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	EXPECT(pte_val(p[0]) & A64_CONT);
	EXPECT_EQ(pte_pfn(ptep_get(&p[0])) % 16, 0);
	/* one entry write-protected: the block unfolds; the CPU caches its pages apart */
	ptep_set_wrprotect(t.mm, T_BASE + 3 * PAGE_SIZE, &p[3]);
	flush_tlb_range(t.vma, T_BASE, T_BASE + SZ_64K);
	EXPECT(!(pte_val(p[0]) & A64_CONT));
	t_touch(&t, 0, SZ_64K, false);

	/* mprotect(PROT_READ)'s transaction over the whole run, as change_pte_range batches it */
	pte_t old = modify_prot_start_ptes(t.vma, T_BASE, p, 16);
	modify_prot_commit_ptes(t.vma, T_BASE, p, old, pte_wrprotect(old), 16);
	EXPECT(pte_val(p[0]) & A64_CONT);
	/* before change_protection()'s flush, a walk of page 5 caches the 64K entry */
	hw_tlb_inval(&t.cpu->tlb, t.mm->context.asid, T_BASE + 5 * PAGE_SIZE, T_BASE + 6 * PAGE_SIZE);
	t_touch(&t, 5 * PAGE_SIZE, PAGE_SIZE, false);
	EXPECT_EQ(hw_violations.count[VIOL_TLB_CONFLICT], 0);
	EXPECT(hw_violations.known[KNOWN_MPROTECT_FOLD_NO_BBM] > 0);
	EXPECT(strstr(hw_violations.known_msg, "mprotect-fold-no-bbm: cpu0 va") != NULL);
	flush_tlb_range(t.vma, T_BASE, T_BASE + SZ_64K);

	/* the same fold written by hand, not by mprotect's commit: a violation */
	ptep_set_wrprotect(t.mm, T_BASE + 3 * PAGE_SIZE, &p[3]);
	ptep_set_access_flags(t.vma, T_BASE + 3 * PAGE_SIZE, &p[3], pte_mkold(ptep_get(&p[3])), 0);
	flush_tlb_range(t.vma, T_BASE, T_BASE + SZ_64K);
	for (int i = 0; i < 16; i++)
		p[i].pte &= ~A64_CONT;
	flush_tlb_range(t.vma, T_BASE, T_BASE + SZ_64K);
	t_touch(&t, 0, SZ_64K, false);
	for (int i = 0; i < 16; i++)
		p[i].pte |= A64_CONT;
	hw_tlb_inval(&t.cpu->tlb, t.mm->context.asid, T_BASE + 5 * PAGE_SIZE, T_BASE + 6 * PAGE_SIZE);
	t_touch(&t, 5 * PAGE_SIZE, PAGE_SIZE, false);
	EXPECT(hw_violations.count[VIOL_TLB_CONFLICT] > 0);
	flush_tlb_mm(t.mm);
	hw_violations_reset();
	t_teardown(&t);
}

/*
 * A TLB that ignores the contiguous hint caches a block's pages apart, so a
 * TLBI of one page leaves the others; with the hint one 64K entry goes.
 */
static void test_nohint_tlb_caches_pages_apart(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	for (int nohint = 0; nohint < 2; nohint++) {
		struct hw_cpu *cpu = &hw_machine.cpu[1];
		u16 asid = t.mm->context.asid;

		cpu->nohint = nohint;
		switch_mm(cpu, t.mm);
		access_user(cpu, t.mm, T_BASE, false);
		access_user(cpu, t.mm, T_BASE + 5 * PAGE_SIZE, false);
		struct tlb_entry *e = hw_tlb_peek(&cpu->tlb, asid, T_BASE + 5 * PAGE_SIZE);
		EXPECT(e && e->shift == (nohint ? 12 : 16));
		hw_tlb_inval(&cpu->tlb, asid, T_BASE, T_BASE + PAGE_SIZE);
		EXPECT(!hw_tlb_peek(&cpu->tlb, asid, T_BASE));
		EXPECT_EQ(!!hw_tlb_peek(&cpu->tlb, asid, T_BASE + 5 * PAGE_SIZE), nohint);
		hw_tlb_inval_all(&cpu->tlb, asid);
	}
	EXPECT_EQ(hw_violations.total, 0);
	t_teardown(&t);
}

/* A read may report young/dirty its block holds, not a neighbour's. */
static void test_phantom_gather_is_a_violation(void)
{
	struct t_lab t;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, 2 * SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);

	raw_age(p, 16);
	EXPECT(!pte_dirty(ptep_get(&p[3])) && pte_dirty(ptep_get(&p[16])));
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 0);
	/* what a gather one past its block would return */
	oracle_check_phantom(&p[3], pte_mkdirty(ptep_get(&p[3])), "test");
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 1);
	/* another entry of the block dirty: the report is the folio's */
	p[9].pte |= A64_SWDIRTY;
	oracle_check_phantom(&p[3], pte_mkdirty(ptep_get(&p[3])), "test");
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 1);
	hw_violations_reset();
	t_teardown(&t);
}

/* set_ptes() of an aligned block must leave it contiguous (contpte's point). */
static void test_set_ptes_must_make_blocks_contiguous(void)
{
	struct t_lab t;
	struct postcond pc;

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	pte_t pte = pte_mknoncont_t(ptep_get(&p[0]));

	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 0);
	/* a tree whose set_ptes writes the block without the contiguous bit */
	postcond_start(&pc, "set_ptes", t.mm, T_BASE, p, 16, false);
	for (int i = 0; i < 16; i++)
		p[i].pte = pte_val(pte) + ((u64)i << PAGE_SHIFT);
	postcond_set(&pc, pte);
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 1);
	/* the same block's last entry set alone: it must fold */
	postcond_start(&pc, "set_ptes", t.mm, T_BASE + 15 * PAGE_SIZE, &p[15], 1, false);
	postcond_set(&pc, __pte(p[15].pte));
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 2);
	/* ...unless the entries differ in more than young and dirty */
	p[4].pte ^= 1ULL << 53; /* PXN */
	postcond_start(&pc, "set_ptes", t.mm, T_BASE + 15 * PAGE_SIZE, &p[15], 1, false);
	postcond_set(&pc, __pte(p[15].pte));
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 2);
	p[4].pte ^= 1ULL << 53;
	flush_tlb_mm(t.mm);
	hw_violations_reset();
	t_teardown(&t);
}

/* A contiguous block, old, clean and read-only behind the API's back. */
static pte_t *old_clean_block(struct t_lab *t)
{
	t_setup(t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(t, 0, SZ_64K, true);
	pte_t *p = t_ptep(t, 0);

	raw_age(p, 16);
	raw_rdonly(p, 16);
	return p;
}

/* An op may spread a block's young/dirty over it, never make them up. */
static void test_convert_must_not_make_up_young_dirty(void)
{
	struct t_lab t;
	struct postcond pc;
	pte_t *p = old_clean_block(&t);

	flush_tlb_mm(t.mm);
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 0);
	/* an unfold that ORs the negation of dirty: a clean block comes out dirty */
	postcond_start(&pc, "wrprotect_ptes", t.mm, T_BASE + 2 * PAGE_SIZE, &p[2], 4, false);
	for (int i = 0; i < 16; i++)
		p[i].pte = (p[i].pte & ~A64_CONT) | A64_SWDIRTY;
	postcond_wrprotected(&pc);
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 1);
	/* one entry was dirty before: spreading it over the block is what unfold does */
	raw_age(p, 16);
	p[7].pte |= A64_SWDIRTY;
	postcond_start(&pc, "wrprotect_ptes", t.mm, T_BASE + 2 * PAGE_SIZE, &p[2], 4, false);
	for (int i = 0; i < 16; i++)
		p[i].pte = (p[i].pte & ~A64_CONT) | A64_SWDIRTY;
	postcond_wrprotected(&pc);
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 1);
	for (int i = 0; i < 16; i++)
		p[i].pte |= A64_CONT;
	/* young the caller asked for (set_ptes of a young pte) is not made up */
	raw_age(p, 16);
	postcond_start(&pc, "set_ptes", t.mm, T_BASE + 15 * PAGE_SIZE, &p[15], 1, false);
	for (int i = 0; i < 16; i++)
		p[i].pte |= A64_AF;
	postcond_set(&pc, __pte(p[15].pte));
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 1);
	flush_tlb_mm(t.mm);
	hw_violations_reset();
	t_teardown(&t);
}

/* A contiguous block maps one folio: a fold across small folios is a violation. */
static void test_block_across_folios_is_a_violation(void)
{
	struct t_lab t;
	struct postcond pc;
	u8 order[16];

	t_setup(&t, "arm64", SZ_2M, SZ_64K, HW_POLICY_ACCESSED);
	t_touch(&t, 0, SZ_64K, true);
	pte_t *p = t_ptep(&t, 0);
	struct page *head = pfn_to_page(pte_pfn(ptep_get(p)));

	EXPECT(raw_cont(p));
	postcond_start(&pc, "set_ptes", t.mm, T_BASE + 15 * PAGE_SIZE, &p[15], 1, false);
	postcond_set(&pc, __pte(p[15].pte));
	EXPECT_EQ(hw_violations.count[VIOL_BAD_CONT_BLOCK], 0);
	/* the same frames, seen as four 16K folios: the block spans them */
	for (int i = 0; i < 16; i++) {
		order[i] = head[i].order;
		head[i].order = 2;
	}
	postcond_start(&pc, "set_ptes", t.mm, T_BASE + 15 * PAGE_SIZE, &p[15], 1, false);
	postcond_set(&pc, __pte(p[15].pte));
	EXPECT_EQ(hw_violations.count[VIOL_BAD_CONT_BLOCK], 1);
	for (int i = 0; i < 16; i++)
		head[i].order = order[i];
	hw_violations_reset();
	t_teardown(&t);
}

/* Only so that postcond_start() keeps its snapshot: the reads below are made by hand. */
static u64 plain_reader(u64 *ptep)
{
	return *ptep;
}

/*
 * op starts on the block, and a reader racing it returns entry 12 as it is
 * now: what a gather that went on past the cleared entry 3 returns.
 */
static void read_racing(struct postcond *pc, struct t_lab *t, const char *op, pte_t *p,
			unsigned int takes)
{
	hw_interleave.on = true;
	postcond_start(pc, op, t->mm, T_BASE, p, 16, false);
	pc->takes = takes;
	hw_interleave.read_ptep[0] = &p[12].pte;
	hw_interleave.read_val[0] = p[12].pte;
	hw_interleave.nr_read = 1;
	hw_interleave.on = false;
}

/* A lockless reader racing a convert must not return the block without its dirty. */
static void test_torn_lockless_read_is_a_violation(void)
{
	struct t_lab t;
	struct postcond pc;
	pte_t *p = old_clean_block(&t);

	p[3].pte |= A64_SWDIRTY;
	flush_tlb_mm(t.mm);
	hw_interleave.reader = plain_reader;
	/* wrprotect keeps dirty: a read of entry 12 must say dirty */
	read_racing(&pc, &t, "wrprotect_ptes", p, 0);
	postcond_wrprotected(&pc);
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 1);
	/* the same read racing MADV_COLD's clean of young: dirty is kept, so still a loss */
	read_racing(&pc, &t, "clear_young_dirty_ptes", p, PC_TAKES_YOUNG);
	postcond_young_dirty_cleared(&pc, CYDP_CLEAR_YOUNG);
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 2);
	/* racing MADV_FREE's clean of dirty it is fine */
	read_racing(&pc, &t, "clear_young_dirty_ptes", p, PC_TAKES_DIRTY);
	p[3].pte &= ~A64_SWDIRTY;
	postcond_young_dirty_cleared(&pc, CYDP_CLEAR_DIRTY);
	EXPECT_EQ(hw_violations.count[VIOL_POSTCOND], 2);
	hw_interleave.reader = NULL;
	hw_violations_reset();
	t_teardown(&t);
}

static const struct ktap_case cases[] = {
	{ "fault_maps_contiguous_blocks", test_fault_maps_contiguous_blocks },
	{ "full_clear_simple_and_robust", test_full_clear_simple_and_robust },
	{ "full_clear_left_unfinished", test_full_clear_left_unfinished },
	{ "no_contpte_switch", test_no_contpte_switch },
	{ "ptep_get_gathers_any_entry", test_ptep_get_gathers_any_entry },
	{ "ptep_get_early_exit", test_ptep_get_early_exit },
	{ "ptep_get_extra_tests", test_ptep_get_extra_tests },
	{ "young_batch_spanning_blocks", test_young_batch_spanning_blocks },
	{ "young_batch_first_not_cont", test_young_batch_first_not_cont },
	{ "get_and_clear_unfolds_only_partial_ends", test_get_and_clear_unfolds_only_partial_ends },
	{ "wrprotect_keeps_fold_and_dirty", test_wrprotect_keeps_fold_and_dirty },
	{ "clear_young_dirty_widens_to_block", test_clear_young_dirty_widens_to_block },
	{ "access_flags_same_write_no_unfold", test_access_flags_same_write_no_unfold },
	{ "fold_after_single_sets", test_fold_after_single_sets },
	{ "lockless_hint_and_flush_young", test_lockless_hint_and_flush_young },
	{ "no_hafdbs_sibling_young", test_no_hafdbs_sibling_young },
	{ "oracle_catches_lost_dirty", test_oracle_catches_lost_dirty },
	{ "tlb_conflict_detected", test_tlb_conflict_detected },
	{ "mprotect_fold_is_a_known_finding", test_mprotect_fold_is_a_known_finding },
	{ "nohint_tlb_caches_pages_apart", test_nohint_tlb_caches_pages_apart },
	{ "phantom_gather_is_a_violation", test_phantom_gather_is_a_violation },
	{ "set_ptes_must_make_blocks_contiguous", test_set_ptes_must_make_blocks_contiguous },
	{ "convert_must_not_make_up_young_dirty", test_convert_must_not_make_up_young_dirty },
	{ "block_across_folios_is_a_violation", test_block_across_folios_is_a_violation },
	{ "torn_lockless_read_is_a_violation", test_torn_lockless_read_is_a_violation },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "contpte", cases, (int)ARRAY_SIZE(cases));
}
