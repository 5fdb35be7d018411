// SPDX-License-Identifier: GPL-2.0-only
/*
 * Swap device (swapdev.h). Requests arrive in time order and are served
 * FIFO, and each finishes after the one before it (the channel is shared
 * and in order), so the slot a request gets is the one freed by the
 * request depth places before it: a ring of completion times, O(1).
 */
#include <stdlib.h>

#include "hw/host.h"
#include "sim/frames.h"
#include "sim/swapdev.h"

int sim_swapdev_init(struct sim_swapdev *d, const char *name, u64 latency_ns, u64 bandwidth,
		     u32 depth)
{
	*d = (struct sim_swapdev){ .name = name, .latency_ns = latency_ns,
				   .bandwidth = bandwidth, .depth = depth };
	if (!depth || !bandwidth)
		return -1;
	d->slot_done = host_calloc(depth, sizeof(*d->slot_done), "sim swap device");
	return 0;
}

void sim_swapdev_release(struct sim_swapdev *d)
{
	free(d->slot_done);
	d->slot_done = NULL;
}

u64 sim_io_submit(struct sim_swapdev *d, u64 bytes)
{
	u64 *slot, t, start, xfer_start, xfer, done;

	sim_sync();
	t = sim_now();
	slot = &d->slot_done[d->nr_issued++ % d->depth];
	start = max(t, *slot);
	xfer = (u64)((unsigned __int128)bytes * 1000000000u / d->bandwidth);
	xfer_start = max(start + d->latency_ns, d->channel_free);
	done = xfer_start + xfer;
	d->channel_free = done;
	*slot = done;

	d->requests++;
	d->bytes += bytes;
	d->transfer_ns += xfer;
	d->queue_wait_ns += start - t;
	d->max_queue_wait_ns = max(d->max_queue_wait_ns, start - t);
	/* Starts never go back in time, so the union of [start, done] grows at the end. */
	if (start >= d->busy_until)
		d->busy_ns += done - start;
	else if (done > d->busy_until)
		d->busy_ns += done - d->busy_until;
	d->busy_until = max(d->busy_until, done);
	return done;
}

u64 sim_io(struct sim_swapdev *d, u64 bytes, int frame)
{
	u64 done;

	sim_frame_enter(frame);
	done = sim_io_submit(d, bytes);
	sim_sleep_until(done);
	sim_frame_exit(frame);
	return done;
}
