// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "hw/cpu.h"
#include "hw/host.h"
#include "hw/invariants.h"
#include "hw/phys.h"
#include "hw/tlb.h"

static const u8 tlb_shifts[] = { 12, 16, 21 };

/*
 * Reverse index of TLB outputs (all CPUs), so freeing a frame scans the
 * TLBs only when some entry may still reach it: 4 KiB entries counted per
 * frame, 64 KiB and 2 MiB ones per 64 KiB of physical memory (a per-64K
 * count alone sent every free beside a cached 4 KiB page to a full scan).
 * Sized for the machine's frames by hw_tlb_gran_init at machine setup.
 */
static u16 *gran_refs, *frame_refs;
static u64 gran_nr, frame_nr;

static void gran_ref(const struct tlb_entry *e, int d)
{
	if (e->shift == PAGE_SHIFT) {
		if (e->pfn < frame_nr)
			frame_refs[e->pfn] += d;
		return;
	}
	u64 first = e->pfn >> 4;
	u64 n = e->shift > 16 ? 1UL << (e->shift - 16) : 1;

	if (!gran_refs || first + n > gran_nr)
		return;
	for (u64 i = 0; i < n; i++)
		gran_refs[first + i] += d;
}

void hw_tlb_gran_init(u64 nr_frames)
{
	hw_tlb_gran_exit();
	gran_nr = (nr_frames >> 4) + 1;
	gran_refs = host_calloc(gran_nr, sizeof(*gran_refs), "the TLB reverse index");
	frame_nr = nr_frames;
	frame_refs = host_calloc(frame_nr, sizeof(*frame_refs), "the TLB reverse index");
}

void hw_tlb_gran_exit(void)
{
	free(gran_refs);
	free(frame_refs);
	gran_refs = frame_refs = NULL;
	gran_nr = frame_nr = 0;
}

/* The region filter's size: a power of two, ample for the TLB's entries. */
#define TLB_REGION_SHIFT 21
#define TLB_REGION_BITS 12

static inline u32 tlb_region(u16 asid, u64 va)
{
	u64 h = ((va >> TLB_REGION_SHIFT) ^ ((u64)asid << 43)) * 0x9E3779B97F4A7C15ULL;

	return (u32)(h >> (64 - TLB_REGION_BITS));
}

/* Whether an entry of asid may cover some va of [start, end) (end - start <= 2 MiB). */
static inline bool tlb_region_maybe(const struct hw_tlb *tlb, u16 asid, u64 start, u64 end)
{
	return tlb->region[tlb_region(asid, start)] || tlb->region[tlb_region(asid, end - 1)];
}

/* Sets are a power of two: the largest that fits in the entries asked for. */
static u32 tlb_sets(u32 entries, u32 ways)
{
	u32 nsets = 1;

	while (nsets * 2 * ways <= entries)
		nsets *= 2;
	return nsets;
}

u32 hw_tlb_entries(u32 entries, u32 ways)
{
	return tlb_sets(entries, ways) * ways;
}

void hw_tlb_init(struct hw_tlb *tlb, u32 entries, u32 ways)
{
	u32 nsets = tlb_sets(entries, ways);

	tlb->nsets = nsets;
	tlb->ways = ways;
	tlb->nvalid = 0;
	memset(tlb->nvalid_size, 0, sizeof(tlb->nvalid_size));
	tlb->last_hit = NULL;
	tlb->clock = 0;
	tlb->asids_reused = false;
	tlb->e = host_calloc((size_t)nsets * ways, sizeof(*tlb->e), "TLBs");
	tlb->valid = host_calloc(((size_t)nsets * ways + 63) / 64, sizeof(u64), "TLBs");
	tlb->region = host_calloc(1UL << TLB_REGION_BITS, sizeof(*tlb->region), "TLBs");
}

void hw_tlb_exit(struct hw_tlb *tlb)
{
	hw_tlb_inval_all(tlb, -1);
	free(tlb->e);
	free(tlb->region);
	free(tlb->valid);
	tlb->e = NULL;
	tlb->region = NULL;
	tlb->valid = NULL;
	tlb->last_hit = NULL;
}

static inline u32 tlb_set(const struct hw_tlb *tlb, u16 asid, u64 va, u8 shift)
{
	u64 h = (va >> shift) * 0x9E3779B97F4A7C15ULL;

	h ^= (u64)asid * 0xC2B2AE3D27D4EB4FULL + shift;
	return (u32)(h >> 40) & (tlb->nsets - 1);
}

static inline unsigned int size_idx(u8 shift)
{
	return shift == 12 ? 0 : shift == 16 ? 1 : 2;
}

/*
 * The entry a full probe would return: the smallest size first. The last
 * hit is that entry when it still covers va and no smaller size has any
 * entry (so the same entry, the same stamps: the same model, fewer probes).
 */
static struct tlb_entry *find(struct hw_tlb *tlb, u16 asid, u64 va)
{
	struct tlb_entry *l = tlb->last_hit;

	if (!tlb->nvalid)
		return NULL;
	if (l && tlbe_covers(l, asid, va)) {
		unsigned int i = size_idx(l->shift), smaller = 0;

		for (unsigned int k = 0; k < i; k++)
			smaller += tlb->nvalid_size[k];
		if (!smaller)
			return l;
	}
	if (!tlb->region[tlb_region(asid, va)])
		return NULL;
	for (unsigned s = 0; s < ARRAY_SIZE(tlb_shifts); s++) {
		u8 shift = tlb_shifts[s];
		struct tlb_entry *set;

		if (!tlb->nvalid_size[s])
			continue;
		set = &tlb->e[tlb_set(tlb, asid, va, shift) * tlb->ways];
		for (u32 w = 0; w < tlb->ways; w++)
			if (set[w].shift == shift && tlbe_covers(&set[w], asid, va))
				return tlb->last_hit = &set[w];
	}
	return NULL;
}

/*
 * The next LRU stamp. The clock is 32 bits: before it wraps (and a new
 * entry would look the oldest) the stamps are renumbered in their order.
 */
static inline u32 tlb_tick(struct hw_tlb *tlb)
{
	if (__builtin_expect(tlb->clock == UINT32_MAX, 0))
		hw_tlb_canon(tlb);
	return ++tlb->clock;
}

struct tlb_entry *hw_tlb_lookup(struct hw_tlb *tlb, u16 asid, u64 va)
{
	struct tlb_entry *e = find(tlb, asid, va);

	if (e)
		e->stamp = tlb_tick(tlb);
	return e;
}

struct tlb_entry *hw_tlb_peek(struct hw_tlb *tlb, u16 asid, u64 va)
{
	return find(tlb, asid, va);
}

void hw_tlb_drop(struct hw_tlb *tlb, struct tlb_entry *e)
{
	if (!(e->flags & TLBE_VALID))
		return;
	gran_ref(e, -1);
	tlb->region[tlb_region(e->asid, e->va)]--;
	e->flags = 0;
	tlb->valid[(e - tlb->e) / 64] &= ~(1ULL << ((e - tlb->e) % 64));
	tlb->nvalid--;
	tlb->nvalid_size[size_idx(e->shift)]--;
}

struct tlb_entry *hw_tlb_fill(struct hw_tlb *tlb, u16 asid, u64 va, u8 shift,
			      u64 pfn, u8 flags, u64 *ptep)
{
	struct tlb_entry *set = &tlb->e[tlb_set(tlb, asid, va, shift) * tlb->ways];
	struct tlb_entry *victim = &set[0];

	for (u32 w = 0; w < tlb->ways; w++) {
		if (!(set[w].flags & TLBE_VALID)) {
			victim = &set[w];
			break;
		}
		if (set[w].stamp < victim->stamp)
			victim = &set[w];
	}
	hw_tlb_drop(tlb, victim);
	victim->va = ALIGN_DOWN(va, 1UL << shift);
	victim->pfn = pfn;
	victim->ptep = ptep;
	victim->asid = asid;
	victim->shift = shift;
	victim->flags = flags | TLBE_VALID;
	tlb->valid[(victim - tlb->e) / 64] |= 1ULL << ((victim - tlb->e) % 64);
	victim->stamp = tlb_tick(tlb);
	/* a new entry may come first in a probe: the next lookup probes */
	tlb->last_hit = NULL;
	tlb->nvalid++;
	tlb->nvalid_size[size_idx(shift)]++;
	tlb->region[tlb_region(asid, victim->va)]++;
	gran_ref(victim, 1);
	return victim;
}

void hw_tlb_inval(struct hw_tlb *tlb, int asid, u64 start, u64 end)
{
	if (!tlb->nvalid)
		return;
	/*
	 * Small ranges probe, large ones sweep. A probe visits, for each size
	 * the TLB holds, the set of every block of that size the range
	 * touches (one per 64 KiB, not sixteen), and drops every entry there
	 * that covers it: what a page-by-page lookup until miss would drop.
	 */
	if (asid >= 0 && (end - start) >> PAGE_SHIFT <= 32) {
		if (!tlb_region_maybe(tlb, (u16)asid, start, end))
			return;
		for (unsigned int s = 0; s < ARRAY_SIZE(tlb_shifts); s++) {
			u8 shift = tlb_shifts[s];

			if (!tlb->nvalid_size[s])
				continue;
			for (u64 va = ALIGN_DOWN(start, 1UL << shift); va < end; va += 1UL << shift) {
				struct tlb_entry *set = &tlb->e[tlb_set(tlb, (u16)asid, va, shift) * tlb->ways];

				for (u32 w = 0; w < tlb->ways; w++)
					if (set[w].shift == shift && tlbe_covers(&set[w], (u16)asid, va))
						hw_tlb_drop(tlb, &set[w]);
			}
		}
		return;
	}
	/* a sweep visits the valid entries alone, in order */
	u32 i;

	if (!tlb->nvalid)
		return;
	for_each_tlb_valid(tlb, i) {
		struct tlb_entry *e = &tlb->e[i];
		u64 size = 1UL << e->shift;

		if ((e->flags & TLBE_VALID) && (asid < 0 || e->asid == asid) && e->va < end &&
		    e->va + size > start)
			hw_tlb_drop(tlb, e);
	}
}

void hw_tlb_inval_all(struct hw_tlb *tlb, int asid)
{
	hw_tlb_inval(tlb, asid, 0, ~0ULL);
	/* empty: no replacement history either (a run after it runs the same) */
	if (asid < 0) {
		tlb->asids_reused = false;
		tlb->clock = 0;
	}
}

/*
 * The same replacement choices from here on, written canonically: in
 * each set the valid entries' stamps renumbered 1..n in their order
 * (ties as the victim scan breaks them: the lower way first), the
 * invalid ones' 0, the clock past them. Only the order within a set picks
 * a victim and every new stamp is the clock's next, so the run goes on
 * exactly as it would have; a loop whose accesses repeat then repeats
 * its stamps too, not only their order (lab/fast_forward.c).
 */
void hw_tlb_canon(struct hw_tlb *tlb)
{
	u32 rank[64];

	if (!tlb->e || tlb->ways > 64)
		return;
	for (u32 s = 0; s < tlb->nsets; s++) {
		struct tlb_entry *set = &tlb->e[s * tlb->ways];

		for (u32 w = 0; w < tlb->ways; w++) {
			rank[w] = 0;
			if (!(set[w].flags & TLBE_VALID))
				continue;
			rank[w] = 1;
			for (u32 v = 0; v < tlb->ways; v++)
				if ((set[v].flags & TLBE_VALID) &&
				    (set[v].stamp < set[w].stamp ||
				     (set[v].stamp == set[w].stamp && v < w)))
					rank[w]++;
		}
		for (u32 w = 0; w < tlb->ways; w++)
			set[w].stamp = rank[w];
	}
	tlb->clock = tlb->ways;
}

void hw_tlbs_canon(void)
{
	for (int c = 0; c < hw_machine.nr_agents; c++)
		hw_tlb_canon(&hw_machine.cpu[c].tlb);
}

void hw_tlb_asids_reused(struct hw_tlb *tlb)
{
	tlb->asids_reused = true;
}

void hw_tlb_for_each(struct hw_tlb *tlb,
		     void (*fn)(struct tlb_entry *e, void *arg), void *arg)
{
	u32 i;

	if (!tlb->nvalid)
		return;
	for_each_tlb_valid(tlb, i)
		if (tlb->e[i].flags & TLBE_VALID)
			fn(&tlb->e[i], arg);
}

void hw_tlb_check_freed(u64 pfn, u64 nr)
{
	bool maybe = false;

	if (!gran_refs)
		return;
	for (u64 g = pfn >> 4; g <= (pfn + nr - 1) >> 4 && g < gran_nr && !maybe; g++)
		if (gran_refs[g])
			maybe = true;
	for (u64 f = pfn; f < pfn + nr && f < frame_nr && !maybe; f++)
		if (frame_refs[f])
			maybe = true;
	if (!maybe)
		return;
	for (int c = 0; c < hw_machine.nr_agents; c++) {
		struct hw_tlb *tlb = &hw_machine.cpu[c].tlb;
		u32 i;

		if (!tlb->nvalid)
			continue;
		for_each_tlb_valid(tlb, i) {
			struct tlb_entry *e = &tlb->e[i];

			if (!(e->flags & TLBE_VALID) || hw_machine.asid_retired[e->asid] ||
			    tlbe_owed_flush(tlb, e, hw_machine.cpu[c].asid))
				continue;
			if (e->pfn < pfn + nr && e->pfn + (1UL << (e->shift - PAGE_SHIFT)) > pfn)
				hw_violation(VIOL_FREED_FRAME,
					     "cpu%d asid %u va %#llx still maps freed pfn %#llx",
					     c, e->asid, (unsigned long long)e->va,
					     (unsigned long long)pfn);
		}
	}
}
