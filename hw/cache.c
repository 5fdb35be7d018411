// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/cache.h"
#include "hw/cpu.h"
#include "hw/host.h"
#include "sim/engine.h"

/*
 * One cache per CPU (and the SMMU's walker), then one per agent slot of
 * the discrete-event engine: its agents are threads on CPUs of their own
 * (a vCPU, kswapd), so each gets a cache, by agent id. Tag arrays are
 * allocated on first use.
 */
#define HW_CACHE_AGENT_SLOTS 64
#define HW_CACHE_SLOTS (HW_MAX_CPUS + 1 + HW_CACHE_AGENT_SLOTS)

bool hw_cache_on;
struct hw_cache_mru hw_cache_mru;
static struct hw_cache caches[HW_CACHE_SLOTS];
static u32 cache_sets, cache_ways;

bool hw_cache_geometry_ok(u32 size_kb, u32 ways)
{
	u64 lines = (u64)size_kb << (10 - HW_CACHE_LINE_SHIFT);

	if (!size_kb)
		return true;
	if (!ways || ways > 64 || size_kb > (1U << 20) || lines % ways)
		return false;
	u64 sets = lines / ways;

	return sets && !(sets & (sets - 1));
}

int hw_cache_setup(u32 size_kb, u32 ways)
{
	hw_cache_teardown();
	if (!hw_cache_geometry_ok(size_kb, ways))
		return -1;
	if (!size_kb)
		return 0;
	cache_ways = ways;
	cache_sets = (u32)(((u64)size_kb << (10 - HW_CACHE_LINE_SHIFT)) / ways);
	hw_cache_on = true;
	return 0;
}

void hw_cache_teardown(void)
{
	for (int i = 0; i < HW_CACHE_SLOTS; i++)
		free(caches[i].tag);
	memset(caches, 0, sizeof(caches));
	memset(&hw_cache_mru, 0, sizeof(hw_cache_mru));
	hw_cache_on = false;
	cache_sets = cache_ways = 0;
}

static struct hw_cache *cache_of(int slot)
{
	struct hw_cache *c = &caches[slot];

	if (!c->tag) {
		c->nsets = cache_sets;
		c->ways = cache_ways;
		c->set_shift = (u32)__builtin_ctz(cache_sets);
		c->tag = host_calloc((size_t)cache_sets * cache_ways, sizeof(u32), "a CPU cache model");
	}
	return c;
}

/*
 * The set a line falls in: its low bits, as a physically indexed cache
 * takes them (the lines of a table or of the vmemmap are consecutive),
 * with the two name spaces offset so table 0 and pfn 0 do not collide
 * by construction.
 */
#define HW_LINES_PER_PAGE_SHIFT (PAGE_SHIFT - HW_CACHE_LINE_SHIFT)

static inline u32 set_of(const struct hw_cache *c, u64 line)
{
	return (u32)((line + (line >> 62) * 0x9E3779B1ULL) & (c->nsets - 1));
}

/*
 * A line as its set stores it: its name space and the name's bits above
 * the set index (the set holds the rest), 32 bits, so a 16-way set is one
 * host cache line. Table ids are u32 and pfns far below 2^38, so the
 * bits fit for any geometry the lab can run.
 */
static inline u32 cache_tag(const struct hw_cache *c, u64 line)
{
	u64 hi = (line & ~(3ULL << 62)) >> c->set_shift;

	if (__builtin_expect(hi >> 30, 0)) {
		fprintf(stderr, "ptelab: internal error, a bug in ptelab: cache line name %#llx does "
			"not fit the cache model's tags\n", (unsigned long long)line);
		abort();
	}
	return (u32)(line >> 62) << 30 | (u32)hi;
}

/*
 * The streamer: it tracks the 4 KiB pages of the last HW_CACHE_STREAMS
 * pages touched (hits included, as an L2 streamer trains on every
 * request it sees); once a page is streamed, the rest of it is fetched
 * ahead of the walk, in whichever direction it goes, so a later miss in
 * that page finds its line there. Streams stop at the page's end, as
 * real ones do: the next page of a table or of the vmemmap is
 * elsewhere. Returns whether a stream covered a miss of `line`.
 */
static bool stream_step(struct hw_cache *c, u64 line, bool miss)
{
	u64 page = (line >> HW_LINES_PER_PAGE_SHIFT) + 1; /* 0: no stream */

	if (page == c->stream_last)
		return miss; /* the page this cache streamed last: still a stream */
	c->stream_last = page;
	for (int s = 0; s < HW_CACHE_STREAMS; s++)
		if (c->stream[s] == page)
			return miss;
	c->stream[c->stream_next] = page;
	c->stream_next = (c->stream_next + 1) % HW_CACHE_STREAMS;
	return false;
}

static bool cache_lookup(struct hw_cache *c, u64 line)
{
	u32 *set, prev, tag;

	if (hw_cache_recent(c->mru, line)) {
		hw_cache_recent_add(c->mru, line);
		return true;
	}
	hw_cache_recent_add(c->mru, line);
	set = c->tag + (size_t)set_of(c, line) * c->ways;
	tag = cache_tag(c, line);
	if (set[0] == tag) {
		stream_step(c, line, false);
		return true;
	}
	/* one pass: each way moves down one until the line's own slot (a hit) or the end (a miss) */
	prev = set[0];
	set[0] = tag;
	for (u32 w = 1; w < c->ways; w++) {
		u32 cur = set[w];

		set[w] = prev;
		if (cur == tag) {
			stream_step(c, line, false);
			return true;
		}
		prev = cur;
	}
	/*
	 * A miss: the line came in, the least recently used one (prev) went.
	 * A recent line is found without its set: if it was the one to go,
	 * it is recent no more (the inline mirror forgets too).
	 */
	for (unsigned int i = 0; prev && i < ARRAY_SIZE(c->mru); i++)
		if (c->mru[i] && cache_tag(c, c->mru[i]) == prev &&
		    set_of(c, c->mru[i]) == set_of(c, line)) {
			c->mru[i] = 0;
			hw_cache_switch();
		}
	return stream_step(c, line, true);
}

bool hw_cache_holds(int cpu, u64 line)
{
	const struct hw_cache *c = cache_of(cpu);
	const u32 *set = c->tag + (size_t)set_of(c, line) * c->ways;

	for (u32 w = 0; w < c->ways; w++)
		if (set[w] == cache_tag(c, line))
			return true;
	return false;
}

bool hw_cache_access(int cpu, u64 line)
{
	/* the walker moved a cache's recent lines: software's inline hits must look again */
	hw_cache_switch();
	return cache_lookup(cache_of(cpu), line);
}

/* The cache software runs on: its CPU's, or the sim agent's own. */
static struct hw_cache *software_cache(void)
{
	struct sim_agent *a = sim_current_agent;
	/* (a later run's vCPU thread may share a slot with an earlier one's: a thread on its CPU again) */
	return cache_of(a ? HW_MAX_CPUS + 1 + a->id % HW_CACHE_AGENT_SLOTS : hw_machine.cur_cpu);
}

void hw_cache_count_pte(const void *ptep)
{
	uintptr_t l = (uintptr_t)ptep >> HW_CACHE_LINE_SHIFT;

	hw_count(cache_lookup(software_cache(), hw_pte_line(ptep)) ? EV_cache_hit : EV_cache_miss, 1);
	/* as cache_lookup() made it recent[0]: the mirror stays a part of the cache's recent lines */
	if (l != hw_cache_mru.pt[0]) {
		hw_cache_mru.pt[1] = hw_cache_mru.pt[0];
		hw_cache_mru.pt[0] = l;
	}
}

void hw_cache_count_page(u64 pfn)
{
	hw_count(cache_lookup(software_cache(), hw_page_line(pfn)) ? EV_cache_hit : EV_cache_miss, 1);
	hw_cache_mru.page = hw_page_line(pfn);
}
