// SPDX-License-Identifier: GPL-2.0-only
/* A fresh machine per run: hardware, allocator, LRU, arch and backend. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arch/arch.h"
#include "arch/postcond.h"
#include "arch/pte_op_calls.h"
#include "hw/cache.h"
#include "hw/cpu.h"
#include "hw/interleave.h"
#include "hw/invariants.h"
#include "hw/pgtable_mem.h"
#include "hw/profile.h"
#include "kernel/backend.h"
#include "mm/core.h"
#include "mm/filemap.h"
#include "mm/lru.h"
#include "mm/mm.h"
#include "mm/mmzone.h"
#include "mm/reclaim.h"
#include "mm/swap.h"
#include "include/page.h"
#include "lab/lab.h"

/* A figure that is not a finite number is a bug in the workload: say so. */
static bool progress_open; /* a "\r" line is on the terminal */

void lab_progress(const char *fmt, ...)
{
	bool tty = isatty(2);
	va_list ap;

	fputs("ptelab: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	/* a log gets lines; only a terminal gets one line rewritten */
	fputc(tty ? '\r' : '\n', stderr);
	progress_open = tty;
}

void lab_progress_done(void)
{
	if (progress_open)
		fputc('\n', stderr);
	progress_open = false;
}


/*
 * The one reset path: every piece of mutable state in hw/, arch/, mm/
 * and workloads/ that a run can observe starts here from the same value,
 * whatever ran before in this process.
 *
 *   hw/      machine, CPUs, TLBs and their reverse index, frames, random
 *            state (hw_machine_init); page-table slots and ids
 *            (hw_pt_reset); events; violations; interleaving
 *            (hw_interleave: off, its chance set by the run)
 *   arch/    arch and contpte backend (chosen below); PTE op call counts;
 *            a block a fullmm clear left owed (postcond_reset)
 *   mm/      ASIDs and live mms (mm_reset), buddy allocator and mem_map
 *            (page_alloc_init), classic LRU and its add batch
 *            (lruvec_init), MGLRU generations and Bloom filters
 *            (lru_gen_init), mlock batch (mlock_reset), page-cache
 *            removal count (filemap_reset), node watermarks and kswapd
 *            state (pgdat_reset), the swap device (swapoff)
 *   workloads/  exit seeds its generator per run; fuzz per sequence
 *
 * Left alone on purpose: the switches (mm_sw, arm64_sw; lab/switches.c) are the
 * run's configuration, set by the caller (lab_switches_for_run: --without
 * and the variant's) before the workload runs; caches that no run can observe:
 * freed page-table slots (zeroed when reused, hashed by id, not address),
 * loaded kernel backends (kernel/), lab_home()'s path (lab/paths.c).
 */
void lab_reset(void)
{
	/* what a previous run left: its mms are forgotten, then every table slot is free */
	mm_reset();
	hw_pt_reset();
	ptlock_exit();
	lruvec_init(&root_lruvec);
	lru_gen_init();
	mlock_reset();
	filemap_reset();
	pgdat_reset();
	swapoff();
	hw_events_reset();
	hw_violations_reset();
	pte_op_calls_reset();
	postcond_reset();
	memset(&hw_interleave, 0, sizeof(hw_interleave));
	hw_interleave_random();
	gather_memo_reset();
}

static int walk_caps(const char *v, size_t n, u8 *caps)
{
	static const struct {
		const char *name;
		u8 caps;
	} names[] = { { "hafdbs", HW_WALK_HA | HW_WALK_HD }, { "ha", HW_WALK_HA }, { "none", 0 } };

	/* CAPS+nohint: the agent's TLB ignores the contiguous hint */
	bool nohint = n > 7 && !strncmp(v + n - 7, "+nohint", 7);

	if (nohint)
		n -= 7;
	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++) {
		if (strlen(names[i].name) == n && !strncmp(v, names[i].name, n)) {
			*caps = names[i].caps | (nohint ? HW_WALK_NOHINT : 0);
			return 0;
		}
	}
	return -1;
}

int lab_parse_walkers(const struct run_params *p, struct hw_config *cfg, char *err,
		      size_t errlen)
{
	bool x86 = !strcmp(p->arch, "x86");
	/* x86 always manages A/D in hardware */
	u8 all = x86 || p->hafdbs ? HW_WALK_HA | HW_WALK_HD : 0;
	const char *s = p->walkers;
	bool named[HW_MAX_CPUS + 1] = { false }; /* each CPU, then the SMMU: once */

	for (int i = 0; i < HW_MAX_CPUS; i++)
		cfg->cpu_walk[i] = all;
	cfg->smmu = false;
	cfg->smmu_walk = 0;
	if (!s || !*s)
		return 0;
	if (x86) {
		snprintf(err, errlen, "--walkers applies to --arch arm64 (x86 always sets A/D in hardware)");
		return -1;
	}
	while (*s) {
		size_t n = strcspn(s, ","), k = strcspn(s, "=");
		const char *v = s + k + 1;
		char *end;
		u8 caps;

		if (k >= n || walk_caps(v, n - k - 1, &caps))
			goto bad;
		long agent;

		if (k == 4 && !strncmp(s, "smmu", 4)) {
			cfg->smmu = true;
			cfg->smmu_walk = caps;
			agent = HW_MAX_CPUS;
		} else if (k > 3 && !strncmp(s, "cpu", 3) && s[3] >= '0' && s[3] <= '9') {
			long c = strtol(s + 3, &end, 10);

			if (end != s + k || c >= p->nr_cpus) {
				snprintf(err, errlen, "--walkers names %.*s, but the machine has CPUs "
					 "cpu0 to cpu%d", (int)k, s, p->nr_cpus - 1);
				return -1;
			}
			cfg->cpu_walk[c] = caps;
			agent = c;
		} else {
			goto bad;
		}
		if (named[agent]) {
			snprintf(err, errlen, "--walkers names %.*s twice; give each agent once",
				 (int)k, s);
			return -1;
		}
		named[agent] = true;
		s += n;
		if (*s == ',' && *++s == 0)
			goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "--walkers takes AGENT=CAPS[,...] with AGENT cpuN or smmu and CAPS "
		 "hafdbs, ha or none, each maybe +nohint (got '%s')", p->walkers);
	return -1;
}

int lab_machine_setup(const struct run_params *p, u64 nr_frames, char *err,
		      size_t errlen)
{
	const struct arch_ops *a = arch_by_name(p->arch);
	struct hw_config cfg = {
		.nr_cpus = p->nr_cpus,
		.tlb_entries = p->tlb_entries,
		.tlb_ways = p->tlb_ways,
		.tlbi_range = p->tlbi_range,
		.bbml2 = p->bbml2,
		.tlb_mode = p->tlb_sticky ? HW_TLB_STICKY : HW_TLB_REWALK,
		.policy = p->policy,
		.seed = p->seed,
		.nr_frames = ALIGN(nr_frames, 1UL << MAX_PAGE_ORDER),
	};

	if (!a) {
		snprintf(err, errlen, "unknown arch '%s'; use arm64 or x86", p->arch);
		return -1;
	}
	if (p->lru && strcmp(p->lru, "mglru") && strcmp(p->lru, "classic")) {
		snprintf(err, errlen, "unknown --lru '%s'; use mglru or classic", p->lru);
		return -1;
	}
	if (lab_parse_walkers(p, &cfg, err, errlen))
		return -1;
	arch_select(a, NULL);
	lab_reset();
	/* host memory running out exits in host_*alloc; these fail on limits only */
	if (hw_machine_init(a->fmt, &cfg) || page_alloc_init(cfg.nr_frames)) {
		snprintf(err, errlen, "cannot set up a machine with %llu frames and %d CPUs "
			 "(at most %llu frames, 1 to %d CPUs)", (unsigned long long)cfg.nr_frames,
			 cfg.nr_cpus, (unsigned long long)NULL_PFN - 1, HW_MAX_CPUS);
		return -1;
	}
	/* each CPU's cache of PTE and struct page lines, as the profile sizes it */
	if (hw_cache_setup(p->prof ? p->prof->cache_kb : 0, p->prof ? p->prof->cache_ways : 0)) {
		snprintf(err, errlen, "profile %s: cache.size_kb %u in %u ways is not a cache the "
			 "model takes", p->prof->name, p->prof->cache_kb, p->prof->cache_ways);
		return -1;
	}
	const struct arm64_backend *b = arm64_backend_by_name(p->impl, err, errlen);
	if (!b)
		return -1;
	/* on another arch a tree brings its core-mm (the arch's PTE API is the lab's) */
	if (b != &arm64_ref_backend && a != &arch_arm64_ops && !kernel_backend_core(b)) {
		snprintf(err, errlen, "impl %s with --core ref is only its tree's arm64 contpte code; "
			 "use --arch arm64, or its own core-mm (--core tree) on %s", p->impl, a->name);
		return -1;
	}
	arm64_use_backend(b);
	mm_core = kernel_backend_core(b);
	mm_debug_vm = false;
	/* the switches are set: a kernel without contpte runs its #else block */
	arch_select(a, a == &arch_arm64_ops ? arm64_backend_api() : NULL);
	lru_gen_enabled = p->lru && !strcmp(p->lru, "mglru");
	/* counting starts on a machine that is ready */
	hw_events_reset();
	hw_violations_reset();
	pte_op_calls_reset();
	hw_interleave.chance = p->interleave;
	return 0;
}

void lab_machine_teardown(void)
{
	swapoff();
	pgdat_reset();
	lru_gen_exit();
	ptlock_exit();
	page_alloc_exit();
	hw_cache_teardown();
	hw_machine_exit();
}

int lab_folio_order(u64 folio_size)
{
	int order = 0;

	while ((PAGE_SIZE << order) < folio_size)
		order++;
	return order;
}

/*
 * A fresh machine with one mm on CPU 0 and --size of anonymous memory at
 * base in --folio-size folios, every page written once.
 */
struct mm_struct *lab_anon_setup(const struct run_params *p, u64 base,
				 struct vm_area_struct **vmap, char *err, size_t errlen)
{
	u64 nr_pages = p->size >> PAGE_SHIFT;
	struct hw_cpu *cpu;
	struct mm_struct *mm;
	struct vm_area_struct *vma;

	if (lab_machine_setup(p, nr_pages + nr_pages / 16 + 4096, err, errlen))
		return NULL;
	cpu = &hw_machine.cpu[0];
	mm = mm_alloc();
	vma = mmap_anon(mm, base, p->size, VM_READ | VM_WRITE,
			lab_folio_order(p->folio_size), p->pmd_mapped);
	if (!vma) {
		snprintf(err, errlen, "cannot map %llu bytes", (unsigned long long)p->size);
		return NULL;
	}
	switch_mm(cpu, mm);
	for (u64 i = 0; i < nr_pages; i++) {
		if (access_user(cpu, mm, base + i * PAGE_SIZE, true)) {
			snprintf(err, errlen, "simulated store to %#llx failed",
				 (unsigned long long)(base + i * PAGE_SIZE));
			return NULL;
		}
		if ((i & 0xfffff) == 0xfffff)
			lab_progress("touched %llu/%llu MiB", (unsigned long long)(i >> 8),
				     (unsigned long long)(nr_pages >> 8));
	}
	lab_progress_done();
	/* every page was touched once: the page tables map all of it, and rss says so */
	if (mm_count_present_pages(mm) != nr_pages)
		hw_violation(VIOL_OTHER, "%llu pages mapped after touching %llu",
			     (unsigned long long)mm_count_present_pages(mm),
			     (unsigned long long)nr_pages);
	mm_check_rss(mm);
	if (vmap)
		*vmap = vma;
	return mm;
}
