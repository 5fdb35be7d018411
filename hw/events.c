// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "hw/events.h"
#include "hw/state.h"

struct hw_counters hw_events;

const char *const hw_event_names[NR_HW_EVENTS] = {
#define X(name) #name,
	HW_EVENTS(X)
#undef X
};

bool hw_cost_on;
u64 hw_cost_rate[NR_HW_EVENTS];
u64 hw_cost_acc;

/* counted, costed, read as differences: accumulators (hw/state.h) */
static void __attribute__((constructor)) hw_events_state(void)
{
	hw_state_register(&hw_events, sizeof(hw_events), HW_STATE_ACCUMULATES);
	hw_state_register(&hw_cost_acc, sizeof(hw_cost_acc), HW_STATE_ACCUMULATES);
}

void hw_events_reset(void)
{
	memset(&hw_events, 0, sizeof(hw_events));
	memset(hw_cost_rate, 0, sizeof(hw_cost_rate));
	hw_cost_on = false;
	hw_cost_acc = 0;
}

void hw_events_snapshot(struct hw_counters *out)
{
	*out = hw_events;
}

void hw_events_diff(struct hw_counters *out, const struct hw_counters *a,
		    const struct hw_counters *b)
{
	for (int i = 0; i < NR_HW_EVENTS; i++)
		out->v[i] = b->v[i] - a->v[i];
}

int hw_event_by_name(const char *name)
{
	for (int i = 0; i < NR_HW_EVENTS; i++)
		if (!strcmp(hw_event_names[i], name))
			return i;
	return -1;
}

bool hw_event_is_attribution(int ev)
{
	return ev == EV_contpte_get_read || ev == EV_young_read || ev == EV_young_atomic;
}

bool hw_event_is_count_only(int ev)
{
	return hw_event_is_attribution(ev) || ev == EV_contpte_get || ev == EV_fold ||
	       ev == EV_unfold || ev == EV_lock_contended || ev == EV_cache_hit;
}
