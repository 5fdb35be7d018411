// SPDX-License-Identifier: GPL-2.0-only
/*
 * Mirrors 7.3: mm/swap_state.c (swapin_nr_pages, __swapin_nr_pages,
 * swap_cluster_readahead's window; the read-ahead hit counting of
 * swap_cache_get_folio).
 */
/*
 * Swap read-ahead: a fault that must read a page from swap also reads
 * the other slots of an aligned window around it, on the bet that what
 * was written out together is wanted together. The window adapts: it is
 * 1 << page_cluster while the pages read ahead are being used (hits;
 * the counter starts at 4, so the first swap-in reads a whole window),
 * and shrinks to one page (no read-ahead) when they are not, unless the
 * faults walk the slots one by one. The kernel plugs the window into one
 * block request; the lab issues one per page, each with its swap_io of
 * software time (in S3's run2 at 1/64, 0.23 s more CPU time of 50 s). The pages read ahead are locked
 * until their reads complete; the lab, with no completion interrupt,
 * unlocks one when someone next looks at it after that time.
 */
#include <stdint.h>
#include <stdlib.h>

#include "hw/host.h"
#include "hw/phys.h"
#include "mm/swap.h"
#include "sim/engine.h"
#include "sim/frames.h"
#include "sim/waitq.h"

/* __swapin_nr_pages: "+ 2 ... just happens to work well" (the kernel's words) */
static unsigned long window_pages(unsigned long prev_offset, unsigned long offset,
				  unsigned long hits, unsigned long max_pages,
				  unsigned long prev_win)
{
	unsigned long pages = hits + 2;

	if (pages == 2) {
		/* no hits to judge by: read ahead only if the faults walk the slots */
		if (offset != prev_offset + 1 && offset != prev_offset - 1)
			pages = 1;
	} else {
		unsigned long roundup = 4;

		while (roundup < pages)
			roundup <<= 1;
		pages = roundup;
	}
	if (pages > max_pages)
		pages = max_pages;
	/* don't shrink read-ahead too fast */
	if (pages < prev_win / 2)
		pages = prev_win / 2;
	return pages;
}

unsigned long swapin_nr_pages(unsigned long offset)
{
	unsigned long max_pages = 1UL << SWAP_PAGE_CLUSTER, hits, pages;

	hits = swap_info.ra_hits;
	swap_info.ra_hits = 0;
	pages = window_pages(swap_info.ra_prev_offset, offset, hits, max_pages,
			     swap_info.ra_last_pages);
	if (!hits)
		swap_info.ra_prev_offset = offset;
	swap_info.ra_last_pages = pages;
	return pages;
}

/* faults that found a folio read ahead whose read is not submitted yet */
static struct sim_waitq readahead_submit_wait = { .name = "readahead_submit" };

void swap_readahead_reset(void)
{
	readahead_submit_wait.list = (struct sim_waitlist){ NULL, NULL };
}

static u64 *ra_done_of(struct folio *folio)
{
	if (!swap_info.ra_done)
		swap_info.ra_done = host_calloc(hw_phys.nr_frames, sizeof(u64), "swap read-ahead");
	return &swap_info.ra_done[folio_pfn(folio)];
}

void swap_readahead_started(struct folio *folio)
{
	folio_set_locked(folio);
	folio_set_readahead(folio);
	*ra_done_of(folio) = UINT64_MAX; /* not submitted yet */
	swap_info.ra_pages++;
}

void swap_readahead_submitted(struct folio *folio, u64 done)
{
	*ra_done_of(folio) = done;
	sim_wake_up(&readahead_submit_wait, 0);
}

/* The read is done by now (or will be once the caller has slept until then): unlocked. */
static void readahead_complete(struct folio *folio)
{
	*ra_done_of(folio) = 0;
	folio_clear_locked(folio);
}

/* Read ahead and its read not yet seen complete: locked, and still PG_readahead. */
static bool readahead_in_flight(const struct folio *folio)
{
	return folio_test_locked(folio) && folio_test_readahead(folio);
}

bool folio_readahead_busy(struct folio *folio)
{
	if (!readahead_in_flight(folio))
		return false;
	if (*ra_done_of(folio) > sim_now())
		return true;
	readahead_complete(folio);
	return false;
}

bool swap_readahead_wait(struct folio *folio)
{
	u64 done;

	if (!readahead_in_flight(folio))
		return false;
	/* folio_lock: the read is still on its way (until it is submitted, look again later) */
	for (; folio_readahead_busy(folio); sim_sync()) {
		done = *ra_done_of(folio);
		if (done == UINT64_MAX)
			sim_wait(&readahead_submit_wait, SIM_FRAME("folio_wait_locked"));
		else
			sim_sleep_until(done);
	}
	return true;
}

void swap_readahead_hit(struct folio *folio)
{
	if (!folio_test_readahead(folio))
		return;
	folio_clear_readahead(folio);
	swap_info.ra_hits++;
	swap_info.ra_hit_pages++;
}
