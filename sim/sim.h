/* SPDX-License-Identifier: GPL-2.0-only */
/* The sim/ layer in one include: engine, frames, locks, swap device, wait queues. */
#ifndef PTELAB_SIM_SIM_H
#define PTELAB_SIM_SIM_H

#include "sim/engine.h"
#include "sim/frames.h"
#include "sim/rwlock.h"
#include "sim/spinlock.h"
#include "sim/swapdev.h"
#include "sim/waitq.h"

#endif
