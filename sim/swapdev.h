/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A swap device as a queueing server: at most depth requests in service,
 * granted FIFO; each spends latency_ns in service, then transfers its
 * bytes over the device's one channel at bandwidth bytes/s, in arrival
 * order. A lone request completes latency + bytes / bandwidth after it is
 * issued; otherwise add the wait for a slot and for the channel.
 *
 * Requests are issued at a sync point, so they arrive in modelled-time
 * order and each completion time is known on arrival.
 */
#ifndef PTELAB_SIM_SWAPDEV_H
#define PTELAB_SIM_SWAPDEV_H

#include "sim/engine.h"

struct sim_swapdev {
	const char *name;
	u64 latency_ns;
	u64 bandwidth;    /* bytes per second */
	u32 depth;        /* requests in service at once */
	u64 *slot_done;   /* completion times of the last depth requests (ring) */
	u64 nr_issued;
	u64 channel_free; /* when the transfer channel is next idle */
	u64 busy_until;
	/* counters */
	u64 requests;
	u64 bytes;
	u64 busy_ns;      /* time with at least one request in service */
	u64 transfer_ns;  /* time the channel spent transferring */
	u64 queue_wait_ns;     /* issue to start of service (waiting for a slot) */
	u64 max_queue_wait_ns;
};

/* 0, or -1 if a parameter is zero (depth, bandwidth). */
int sim_swapdev_init(struct sim_swapdev *d, const char *name, u64 latency_ns, u64 bandwidth,
		     u32 depth);
void sim_swapdev_release(struct sim_swapdev *d);

/* Issue a request now (syncs first) without waiting; returns its completion time. */
u64 sim_io_submit(struct sim_swapdev *d, u64 bytes);
/*
 * Issue a request and sleep until it completes (io_schedule()): the time
 * is sleep, not CPU, charged to frame (0: the caller's frames). Returns the
 * completion time.
 */
u64 sim_io(struct sim_swapdev *d, u64 bytes, int frame);

#endif
