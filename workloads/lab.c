// SPDX-License-Identifier: GPL-2.0-only
/* A fresh machine per run: hardware, allocator, LRU, arch and backend. */
#include <stdio.h>
#include <string.h>

#include "arch/arch.h"
#include "hw/cpu.h"
#include "hw/invariants.h"
#include "hw/pgtable_mem.h"
#include "kernel/backend.h"
#include "mm/lru.h"
#include "mm/reclaim.h"
#include "mm/page.h"
#include "workloads/workload.h"

void run_result_add(struct run_result *r, const char *name, double v)
{
	if (r->nr_extra >= RUN_MAX_EXTRA)
		return;
	r->extra_name[r->nr_extra] = name;
	r->extra_val[r->nr_extra++] = v;
}

int lab_machine_setup(const struct run_params *p, u64 nr_frames, char *err,
		      size_t errlen)
{
	const struct arch_ops *a = arch_by_name(p->arch);
	struct hw_config cfg = {
		.nr_cpus = p->nr_cpus,
		.tlb_entries = p->tlb_entries,
		.tlb_ways = p->tlb_ways,
		.ha = p->hafdbs,
		.hd = p->hafdbs,
		.tlbi_range = p->tlbi_range,
		.policy = p->policy,
		.seed = p->seed,
		.nr_frames = ALIGN(nr_frames, 1UL << MAX_PAGE_ORDER),
	};

	if (!a) {
		snprintf(err, errlen, "unknown arch '%s'; use arm64 or x86", p->arch);
		return -1;
	}
	arch = a;
	if (a == &arch_x86_ops)
		cfg.ha = cfg.hd = true; /* x86 always manages A/D in hardware */
	if (hw_machine_init(a->fmt, &cfg) || page_alloc_init(cfg.nr_frames)) {
		snprintf(err, errlen, "cannot allocate a machine with %llu frames",
			 (unsigned long long)cfg.nr_frames);
		return -1;
	}
	const struct contpte_ops *b = contpte_backend_by_name(p->impl, err, errlen);
	if (!b)
		return -1;
	if (!arm64_contpte_is_ref(b) && a != &arch_arm64_ops) {
		snprintf(err, errlen, "impl %s is an arm64 contpte backend; use --arch arm64", p->impl);
		return -1;
	}
	arm64_use_contpte(b);
	lruvec_init(&root_lruvec);
	if (p->lru && strcmp(p->lru, "mglru") && strcmp(p->lru, "classic")) {
		snprintf(err, errlen, "unknown --lru '%s'; use mglru or classic", p->lru);
		return -1;
	}
	lru_gen_init();
	lru_gen_enabled = p->lru && !strcmp(p->lru, "mglru");
	memset(&hw_events, 0, sizeof(hw_events));
	hw_violations_reset();
	return 0;
}

void lab_machine_teardown(void)
{
	lru_gen_exit();
	page_alloc_exit();
	hw_machine_exit();
}
