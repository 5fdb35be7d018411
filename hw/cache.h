/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Each CPU's data cache as the kernel's page-table and struct page work
 * meets it: a set-associative cache of 64-byte lines with LRU replacement
 * and a stream prefetcher, whose geometry is part of the cost profile
 * (cache.size_kb, cache.ways; 0: no cache model, every access costs what
 * its event costs). A software access to a PTE line or a struct page
 * line counts cache_hit or cache_miss; a miss costs cost.cache_miss on
 * top of the access's own event (a hit's cost is that event's). The
 * hardware walker's loads fill the walking CPU's cache uncounted: their
 * cost is ptw's, but a later software access to the line hits.
 *
 * Lines have stable names, not host addresses, so a run's hits and
 * misses are the same on every host: a PTE line is its table's id and
 * the line's index in the table, a struct page line the page's pfn (the
 * kernel's struct page is one 64-byte line of the vmemmap).
 *
 * The prefetcher is an L2 streamer's essence: a miss in one of the last
 * HW_CACHE_STREAMS 4 KiB pages touched finds its line already fetched,
 * as a walk of PTEs or of a folio's struct pages does on real cores; it
 * counts as a hit. The first line a walk touches in each page misses.
 */
#ifndef PTELAB_HW_CACHE_H
#define PTELAB_HW_CACHE_H

#include "hw/cpu.h"
#include "hw/events.h"
#include "hw/pgtable_mem.h"
#include "hw/types.h"

struct sim_agent;

#define HW_CACHE_LINE_SHIFT 6
#define HW_CACHE_STREAMS 16

struct hw_cache {
	u32 *tag;      /* nsets x ways tags (cache_tag()), most recently used first; 0: empty */
	u32 nsets, ways;
	u32 set_shift; /* log2(nsets) */
	u64 mru[3];    /* hw_cache_recent(): hits without a set lookup */
	u64 stream[HW_CACHE_STREAMS]; /* the pages streamed, + 1 (0: none) */
	u32 stream_next;              /* the stream a new one replaces */
	u64 stream_last;              /* the page of the last access (one of the streams) */
};

/* Set by hw_cache_setup(): whether software accesses go through the model. */
extern bool hw_cache_on;

/* Line name spaces (the top bits of a name; 0 is never a name). */
#define HW_LINE_PT (1ULL << 62)
#define HW_LINE_PAGE (2ULL << 62)

/*
 * The lines a CPU touched last, found without a set lookup and left where
 * they are in their set's LRU order: the last two PTE lines touched (a
 * contiguous block's 16 entries span two) and the last struct page line
 * (PTE and folio work alternate). recent[0..1]: PTE lines, most recent
 * first, [2]: struct page.
 */
static inline bool hw_cache_recent(const u64 recent[3], u64 line)
{
	return line & HW_LINE_PAGE ? line == recent[2] : line == recent[0] || line == recent[1];
}

/* After an access to `line`: it is the most recent of its kind. */
static inline void hw_cache_recent_add(u64 recent[3], u64 line)
{
	if (line & HW_LINE_PAGE) {
		recent[2] = line;
	} else if (line != recent[0]) {
		recent[1] = recent[0];
		recent[0] = line;
	}
}

/*
 * The machine's caches, one per CPU (lab_machine_setup sets them up from
 * the profile): size_kb 0 turns the model off. Returns -1 if the geometry
 * is not a power-of-two number of sets of 1..64 ways.
 */
int hw_cache_setup(u32 size_kb, u32 ways);
void hw_cache_teardown(void);
/* Whether a geometry is one hw_cache_setup() takes. */
bool hw_cache_geometry_ok(u32 size_kb, u32 ways);

/*
 * Look up and fill `line` in cpu's cache; true: it hit (or was
 * prefetched). Counts nothing (the walker's fills, tests).
 */
bool hw_cache_access(int cpu, u64 line);
/* Whether cpu's cache holds `line` now (no state changes: for tests). */
bool hw_cache_holds(int cpu, u64 line);

/* A PTE's line, named by its table's id. */
static inline u64 hw_pte_line(const void *ptep)
{
	u64 idx = ((uintptr_t)ptep & (PAGE_SIZE - 1)) >> HW_CACHE_LINE_SHIFT;

	return HW_LINE_PT | (u64)hw_pt_meta(ptep)->id << (PAGE_SHIFT - HW_CACHE_LINE_SHIFT) | idx;
}

static inline u64 hw_page_line(u64 pfn)
{
	return HW_LINE_PAGE | pfn;
}

/*
 * A software access by the CPU software runs on (hw_machine.cur_cpu, or
 * the sim agent's own), counted. That CPU's recent lines (hw_cache_recent)
 * are hits found inline: hw_cache_mru mirrors them, PTE lines by host
 * address (naming one needs its table's pt_meta, a load the hottest
 * loops should not pay), and is forgotten whenever it could stop
 * mirroring them: another CPU or agent runs (hw_cache_switch), the
 * walker touched a cache, a table was freed (its host lines may name
 * another table next).
 */
void hw_cache_count_pte(const void *ptep);
void hw_cache_count_page(u64 pfn);

struct hw_cache_mru {
	uintptr_t pt[2]; /* host lines (address >> 6) of recent[0..1]; 0: none */
	u64 page;        /* recent[2] */
};
extern struct hw_cache_mru hw_cache_mru;

/* Forget the inline mirror: software now runs elsewhere, or names changed. */
static inline void hw_cache_switch(void)
{
	hw_cache_mru = (struct hw_cache_mru){ { 0, 0 }, 0 };
}

/* Software runs on `cpu` from now on (hw_machine.cur_cpu): its cache's recent lines. */
static inline void hw_run_on_cpu(int cpu)
{
	hw_machine.cur_cpu = cpu;
	hw_cache_switch();
}

/* A hit costs its access's own event: cache_hit is a count (no cost.cache_hit). */
static inline void hw_cache_hit(void)
{
	hw_events.v[EV_cache_hit]++;
}

static inline void hw_cache_pte(const void *ptep)
{
	if (hw_cache_on) {
		uintptr_t l = (uintptr_t)ptep >> HW_CACHE_LINE_SHIFT;

		if (l == hw_cache_mru.pt[0] || l == hw_cache_mru.pt[1])
			hw_cache_hit();
		else
			hw_cache_count_pte(ptep);
	}
}

static inline void hw_cache_page(u64 pfn)
{
	if (hw_cache_on) {
		if (hw_page_line(pfn) == hw_cache_mru.page)
			hw_cache_hit();
		else
			hw_cache_count_page(pfn);
	}
}

/* The walker's load of a descriptor: fills the cache, counts nothing. */
static inline void hw_cache_walk(int cpu, const void *ptep)
{
	if (hw_cache_on)
		hw_cache_access(cpu, hw_pte_line(ptep));
}

#endif
