// SPDX-License-Identifier: GPL-2.0-only
/*
 * S3: tools/testing/selftests/kvm/max_guest_memory_test.c on a host with
 * less memory than the guest. The VMM backs --size of guest memory with
 * one memfd (shmem, --folio-size folios, 4K as MADV_NOHUGEPAGE gives) in
 * one memslot and prefaults it (one byte per page); --vcpus vCPUs then
 * each store one u64 per page of their own contiguous share (run1); a
 * reset; the same again (run2, the measured phase). --host-memory is the
 * machine's RAM (default 256 GB, decimal: 238.4 GiB): what the kernel's struct pages and page tables leave is
 * all the page allocator has, so kswapd and direct reclaim swap the
 * memfd out to the profile's swap device throughout.
 *
 * Everything runs on the discrete-event engine (sim/): the VMM thread,
 * one agent per vCPU thread and kswapd, each with its own clock advanced
 * by the profile's cost of what it does, contending on kvm->mmu_lock and
 * the swap device. modelled_ns is run2's makespan.
 *
 * --variant names the kernel: v1 (default) is the seed's base
 * (mm-unstable of Feb 2023: 6.2's KVM, 6.3-rc1's MGLRU; host-only
 * MGLRU scans, folio_referenced_one asking KVM per page under the
 * write lock, flushing when young), and with the seed on top unless
 * --without spte-test-clear-young; v2 the seed's second posting, on
 * mm-unstable of May 2023 (6.4-rc) with "mm: rmap: Don't flush TLB after
 * checking PTE young" (folio_referenced_one calls clear_young, not
 * clear_flush_young: no flush), and a reset that keeps the EPT root
 * where 6.2 zapped it; 6.12, 6.15 and 7.3 what merged instead
 * (core-mm's shape is set by the lab, lab/variants.c; KVM's comes from
 * kvm_config_for here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/cpu.h"
#include "hw/host.h"
#include "hw/invariants.h"
#include "hw/profile.h"
#include "include/sched.h"
#include "mm/filemap.h"
#include "mm/lru.h"
#include "mm/mmzone.h"
#include "mm/reclaim.h"
#include "mm/shmem.h"
#include "mm/swap.h"
#include "mm/switches.h"
#include "sim/callgraph.h"
#include "sim/sim.h"
#include "virt/kvm_host.h"
#include "workloads/workload.h"

#define MGM_HVA 0x100000000000UL /* where the VMM maps the memfd */
#define MGM_GPA 0x100000000UL    /* the slot's guest-physical base (4 GiB) */
/* the kernel's struct page (x86-64 and arm64), not the lab's smaller host one */
#define KERNEL_STRUCT_PAGE_SIZE 64

enum { PH_START, PH_PREFAULT, PH_RUN1, PH_RESET, PH_RUN2, NR_PH };

struct mgm {
	const struct run_params *p;
	struct run_result *r; /* its host_phase_ns: run2's host time */
	struct sim_engine *e;
	struct kvm *kvm;
	struct mm_struct *mm;
	struct address_space *memfd;
	u64 nr_pages;
	int nr_vcpus;
	int phase;             /* 1: run1, 2: run2 */
	int running;           /* vCPU threads still in the run */
	struct sim_waitq done;
	u64 t[NR_PH];          /* modelled time at the end of each phase */
	struct hw_counters ev[NR_PH];
	struct sim_lock_stat rd[NR_PH], wr[NR_PH];
	struct sim_lock_stat lru[NR_PH]; /* the lruvec lock (completed holds) */
	struct kvm_stat kst[NR_PH];
	u64 swpin[NR_PH], swpout[NR_PH];
	u64 ra_pages[NR_PH], ra_hits[NR_PH]; /* swap read-ahead: pages read ahead, and found by a fault */
	long swapped[NR_PH];   /* the memfd's pages on swap at the end of each phase */
	u8 *run2_stores;       /* stores each guest page took in run2 (conservation) */
	struct task_struct *tasks;
	int failed;
	char err[160];
};

static void snapshot(struct mgm *m, int ph)
{
	m->t[ph] = sim_now();
	hw_events_snapshot(&m->ev[ph]);
	sim_rwlock_stats(&m->kvm->mmu_lock, m->t[ph], &m->rd[ph], &m->wr[ph]);
	m->lru[ph] = root_lruvec.lru_lock.st;
	m->kst[ph] = m->kvm->stat;
	m->swpin[ph] = swap_info.pswpin;
	m->swpout[ph] = swap_info.pswpout;
	m->ra_pages[ph] = swap_info.ra_pages;
	m->ra_hits[ph] = swap_info.ra_hit_pages;
	m->swapped[ph] = m->memfd ? m->memfd->nrswapped : 0;
}

static void fail(struct mgm *m, const char *what)
{
	if (!m->failed++)
		snprintf(m->err, sizeof(m->err), "%s", what);
}

/* A vCPU thread: one store per page of its share, then out of the guest. */
static void vcpu_thread(void *arg)
{
	struct kvm_vcpu *vcpu = arg;
	struct mgm *m = vcpu->priv;
	u64 per = m->nr_pages / (u64)m->nr_vcpus;
	u64 first = (u64)vcpu->vcpu_id * per;
	u64 last = vcpu->vcpu_id == m->nr_vcpus - 1 ? m->nr_pages : first + per;

	for (u64 i = first; i < last && !m->failed; i++) {
		int r = kvm_vcpu_access(vcpu, MGM_GPA + (i << PAGE_SHIFT), true);

		if (r) {
			fail(m, r == -EFAULT ? "a vCPU's store found no host page (the host ran out of "
					       "memory and swap)" : "a vCPU's store never completed");
			break;
		}
		if (m->phase == 2)
			m->run2_stores[i]++;
		if (vcpu->vcpu_id == 0 && ((i - first) & 0xffff) == 0xffff)
			lab_progress("max-guest-memory: run%d, vCPU 0 at %llu/%llu pages", m->phase,
				     (unsigned long long)(i - first + 1),
				     (unsigned long long)(last - first));
	}
	kvm_vcpu_leave_guest(vcpu);
	sim_sync();
	if (--m->running == 0)
		sim_wake_up(&m->done, 0);
}

static void run_vcpus(struct mgm *m, int phase)
{
	char name[32];

	m->phase = phase;
	m->running = m->nr_vcpus;
	for (int i = 0; i < m->nr_vcpus; i++) {
		struct kvm_vcpu *vcpu = kvm_get_vcpu(m->kvm, i);
		struct sim_agent *a;

		vcpu->priv = m;
		snprintf(name, sizeof(name), "vcpu%d-run%d", i, phase);
		a = sim_agent_create(m->e, name, "vcpu", vcpu_thread, vcpu);
		if (!a) {
			fail(m, "cannot create a vCPU agent (host memory)");
			m->running -= m->nr_vcpus - i;
			break;
		}
		a->task = &m->tasks[1 + i];
		a->no_frames = true; /* only kswapd's profile is reported */
	}
	/* pthread_join: test, then sleep with no sync between */
	for (;;) {
		sim_sync();
		if (!m->running)
			break;
		sim_wait(&m->done, SIM_FRAME("vcpu_join"));
	}
}

/* The test's main thread: prefault from the VMM, run1, reset, run2; then stop kswapd. */
static void main_thread(void *arg)
{
	struct mgm *m = arg;
	struct hw_cpu *cpu = &hw_machine.cpu[0];

	snapshot(m, PH_START);
	for (u64 i = 0; i < m->nr_pages && !m->failed; i++) {
		sim_sync();
		if (access_user(cpu, m->mm, MGM_HVA + (i << PAGE_SHIFT), true))
			fail(m, "the VMM's prefault of the memfd failed (the host ran out of memory "
				"and swap)");
		if ((i & 0xfffff) == 0xfffff)
			lab_progress("max-guest-memory: prefault %llu/%llu MiB",
				     (unsigned long long)(i >> 8), (unsigned long long)(m->nr_pages >> 8));
	}
	snapshot(m, PH_PREFAULT);
	run_vcpus(m, 1);
	snapshot(m, PH_RUN1);
	/*
	 * The reset (x86: CR0.WP toggled in every vCPU, KVM_SET_SREGS)
	 * resets the vCPUs' MMU context. From 6.4 with TDP the EPT root and
	 * its entries are kept, so run2 starts from the tables run1 left;
	 * before, every vCPU unloads the root and the last one's put zaps it,
	 * so every run2 access faults first (kvm_config.cr0_wp_unloads_roots).
	 */
	for (int i = 0; i < m->nr_vcpus; i++)
		kvm_vcpu_toggle_cr0_wp(kvm_get_vcpu(m->kvm, i));
	snapshot(m, PH_RESET);
	run_phase_begin(m->r);
	run_vcpus(m, 2);
	run_phase_end(m->r);
	snapshot(m, PH_RUN2);
	lab_progress_done();
	kswapd_stop();
}

/* The KVM of --variant, with the seed's op where its base is. */
static int variant_config(const struct run_params *p, enum kvm_mmu_type type,
			  struct kvm_config *cfg, char *err, size_t errlen)
{
	const char *v = p->variant ? p->variant : "v1";
	bool base = !strcmp(v, "v1") || !strcmp(v, "v2");

	if (base) {
		/* v1 on mm-unstable of Feb 2023 (6.2's KVM), v2 on May 2023's (6.4-rc) */
		*cfg = kvm_config_for(type, !strcmp(v, "v1") ? KVM_VERSION(6, 2) : KVM_VERSION(6, 4));
		cfg->test_clear_young = mm_sw.spte_test_clear_young;
		return 0;
	}
	if (!mm_sw.spte_test_clear_young) {
		snprintf(err, errlen, "--without spte-test-clear-young applies to variants v1 and v2 "
			 "(the seed's base); variant %s is a kernel that never had the seed", v);
		return -1;
	}
	*cfg = kvm_config_for(type, !strcmp(v, "6.12") ? KVM_VERSION(6, 12) :
				    !strcmp(v, "6.15") ? KVM_VERSION(6, 15) : KVM_VERSION(7, 3));
	return 0;
}

static void add_results(struct mgm *m, struct run_result *r)
{
	const struct hw_counters *r1 = &m->ev[PH_RUN1], *a = &m->ev[PH_RESET], *b = &m->ev[PH_RUN2];
	struct sim_profile prof;
	struct sim_callgraph cg;

	run_result_add(r, "prefault_s", (double)(m->t[PH_PREFAULT] - m->t[PH_START]) / 1e9);
	run_result_add(r, "run1_s", (double)(m->t[PH_RUN1] - m->t[PH_PREFAULT]) / 1e9);
	/* the reset's root zap (6.2) is a worker's, beside run2 in the kernel; here it is alone */
	run_result_add(r, "reset_s", (double)(m->t[PH_RESET] - m->t[PH_RUN1]) / 1e9);
	run_result_add(r, "run2_s", (double)(m->t[PH_RUN2] - m->t[PH_RESET]) / 1e9);
	/* run1's faults and swap-ins: where run2 starts from */
	run_result_add(r, "run1_secondary_faults", (double)(r1->v[EV_secondary_fault] -
							   m->ev[PH_PREFAULT].v[EV_secondary_fault]));
	run_result_add(r, "run1_swap_ins", (double)(m->swpin[PH_RUN1] - m->swpin[PH_PREFAULT]));
	/* run2's counts */
	run_result_add(r, "notifier_calls", (double)(b->v[EV_notifier_call] - a->v[EV_notifier_call]));
	run_result_add(r, "mmu_lock_write", (double)(m->wr[PH_RUN2].acquired - m->wr[PH_RESET].acquired));
	run_result_add(r, "mmu_lock_read", (double)(m->rd[PH_RUN2].acquired - m->rd[PH_RESET].acquired));
	run_result_add(r, "mmu_lock_write_wait_s",
		       (double)(m->wr[PH_RUN2].wait_ns - m->wr[PH_RESET].wait_ns) / 1e9);
	run_result_add(r, "mmu_lock_read_wait_s",
		       (double)(m->rd[PH_RUN2].wait_ns - m->rd[PH_RESET].wait_ns) / 1e9);
	/* lock_stat's holdtime: the writers' sum is run2's serial part through the lock */
	run_result_add(r, "mmu_lock_write_hold_s",
		       (double)(m->wr[PH_RUN2].hold_ns - m->wr[PH_RESET].hold_ns) / 1e9);
	/* the lruvec lock: reclaimers' isolation and putback, the tasks' lru_add batches */
	run_result_add(r, "lru_lock_acquired", (double)(m->lru[PH_RUN2].acquired - m->lru[PH_RESET].acquired));
	run_result_add(r, "lru_lock_contended",
		       (double)(m->lru[PH_RUN2].contended - m->lru[PH_RESET].contended));
	run_result_add(r, "lru_lock_wait_s", (double)(m->lru[PH_RUN2].wait_ns - m->lru[PH_RESET].wait_ns) / 1e9);
	run_result_add(r, "lru_lock_hold_s", (double)(m->lru[PH_RUN2].hold_ns - m->lru[PH_RESET].hold_ns) / 1e9);
	run_result_add(r, "remote_tlb_flushes",
		       (double)(m->kst[PH_RUN2].remote_tlb_flush - m->kst[PH_RESET].remote_tlb_flush));
	run_result_add(r, "flush_ipis", (double)(b->v[EV_ipi] - a->v[EV_ipi]));
	/* of those, the host's own shootdowns (reclaim's unmap) that made a vCPU exit */
	run_result_add(r, "host_shootdown_kicks",
		       (double)(m->kst[PH_RUN2].host_shootdown_kicks -
				m->kst[PH_RESET].host_shootdown_kicks));
	run_result_add(r, "secondary_faults",
		       (double)(b->v[EV_secondary_fault] - a->v[EV_secondary_fault]));
	run_result_add(r, "fault_retries", (double)(b->v[EV_fault_retry] - a->v[EV_fault_retry]));
	run_result_add(r, "swap_ins", (double)(m->swpin[PH_RUN2] - m->swpin[PH_RESET]));
	run_result_add(r, "swap_outs", (double)(m->swpout[PH_RUN2] - m->swpout[PH_RESET]));
	/* of the swap-ins, the pages read ahead, and those a fault then found (hits) */
	run_result_add(r, "swap_readahead_pages", (double)(m->ra_pages[PH_RUN2] - m->ra_pages[PH_RESET]));
	run_result_add(r, "swap_readahead_hits", (double)(m->ra_hits[PH_RUN2] - m->ra_hits[PH_RESET]));
	/*
	 * Every page on swap when run2 starts is swapped in once; the rest of
	 * its swap-ins are pages resident at the start that reclaim evicted
	 * before their vCPU reached them (or that came in twice): a measure
	 * of what aging chose to evict, a page already written being the
	 * free choice.
	 */
	run_result_add(r, "run2_swapped_at_start", (double)m->swapped[PH_RESET]);
	run_result_add(r, "run2_early_evictions",
		       (double)(m->swpin[PH_RUN2] - m->swpin[PH_RESET]) - (double)m->swapped[PH_RESET]);
	run_result_add(r, "age_calls", (double)(m->kst[PH_RUN2].age_calls - m->kst[PH_RESET].age_calls));
	run_result_add(r, "test_clear_young_fast",
		       (double)(m->kst[PH_RUN2].test_clear_young_fast -
				m->kst[PH_RESET].test_clear_young_fast));
	run_result_add(r, "kswapd_reclaimed", (double)node_data.kswapd_stat.nr_reclaimed);
	run_result_add(r, "direct_reclaimed", (double)node_data.direct_stat.nr_reclaimed);
	run_result_add(r, "allocstall", (double)node_data.allocstall);
	run_result_add(r, "aging_passes",
		       (double)(node_data.kswapd_stat.nr_aging + node_data.direct_stat.nr_aging));
	/* how much of the guest each aging walk got through */
	run_result_add(r, "aging_walk_ptes",
		       (double)(node_data.kswapd_stat.nr_walk_ptes + node_data.direct_stat.nr_walk_ptes));
	/* young neighbours eviction's look-around promoted (the aging walk's feedback) */
	run_result_add(r, "look_around_young_ptes",
		       (double)(node_data.kswapd_stat.nr_look_around_young +
				node_data.direct_stat.nr_look_around_young));
	run_result_add(r, "aging_walks_stopped",
		       (double)(node_data.kswapd_stat.nr_walks_stopped +
				node_data.direct_stat.nr_walks_stopped));

	/* kswapd over the whole test, as perf record -a would see it */
	sim_profile_class(&prof, m->e, "kswapd");
	snprintf(r->profile_of, sizeof(r->profile_of), "kswapd");
	for (int i = 0; i < prof.nr_rows && r->nr_profile < RUN_MAX_PROFILE; i++) {
		struct run_profile_row *row = &r->profile[r->nr_profile++];

		snprintf(row->name, sizeof(row->name), "%s", prof.rows[i].name);
		row->share = prof.rows[i].share;
		row->calls = prof.rows[i].calls;
	}
	sim_profile_release(&prof);

	/* JSON "perf": every agent's call paths (vCPUs keep none) under the test */
	sim_callgraph_class(&cg, m->e, NULL);
	r->perf_flat = false;
	r->nr_perf = min(cg.nr_nodes, PERF_MAX_NODES);
	for (int i = 0; i < r->nr_perf; i++) {
		struct perf_node_out *n = &r->perf[i];

		snprintf(n->name, sizeof(n->name), "%s", i ? cg.nodes[i].name : "max_guest_memory_test");
		n->parent = (s16)cg.nodes[i].parent;
		n->calls = i ? cg.nodes[i].calls : 1;
		n->incl_ns = (double)cg.nodes[i].incl_ns;
		n->self_ns = n->incl_ns;
	}
	/* self: what the kept callees do not cover (nodes beyond the limit fold into their callers) */
	for (int i = 1; i < r->nr_perf; i++)
		r->perf[r->perf[i].parent].self_ns -= r->perf[i].incl_ns;
	sim_callgraph_release(&cg);
}

/*
 * kswapd along the paths through folio_referenced, the branch the
 * published kswapd profiles show (perf report -G, one path expanded):
 * each function's share of kswapd's CPU time in the nodes that are
 * folio_referenced, under it, or above it (outermost per path).
 * rmap_walk_file and _raw_write_lock are also reached from try_to_unmap
 * and the invalidation notifier; those paths are not on this branch.
 */
static void kswapd_branch(struct run_result *r, const struct sim_engine *e, const char *fn)
{
	struct sim_callgraph g;
	bool *under, *above;

	sim_callgraph_class(&g, e, "kswapd");
	under = host_calloc((size_t)g.nr_nodes, sizeof(bool), "kswapd branch");
	above = host_calloc((size_t)g.nr_nodes, sizeof(bool), "kswapd branch");
	/* parents come before children */
	for (int i = 1; i < g.nr_nodes; i++)
		under[i] = !strcmp(g.nodes[i].name, fn) || under[g.nodes[i].parent];
	for (int i = g.nr_nodes - 1; i > 0; i--)
		if (under[i] && !strcmp(g.nodes[i].name, fn))
			above[g.nodes[i].parent] = true;
		else if (above[i])
			above[g.nodes[i].parent] = true;
	snprintf(r->branch_of, sizeof(r->branch_of), "kswapd_%s", fn);
	r->nr_branch = 0;
	for (int i = 1; i < g.nr_nodes; i++) {
		struct run_profile_row *row = NULL;
		bool outermost = true;

		if (!under[i] && !above[i])
			continue;
		for (int p = g.nodes[i].parent; p > 0; p = g.nodes[p].parent)
			outermost &= !!strcmp(g.nodes[p].name, g.nodes[i].name);
		if (!outermost)
			continue;
		for (int k = 0; k < r->nr_branch; k++)
			if (!strcmp(r->branch[k].name, g.nodes[i].name))
				row = &r->branch[k];
		if (!row) {
			if (r->nr_branch == RUN_MAX_PROFILE)
				continue;
			row = &r->branch[r->nr_branch++];
			snprintf(row->name, sizeof(row->name), "%s", g.nodes[i].name);
			row->share = 0;
			row->calls = 0;
		}
		row->share += g.cpu_ns ? (double)g.nodes[i].incl_ns / (double)g.cpu_ns : 0;
		row->calls += g.nodes[i].calls;
	}
	/* largest first, as the profile rows */
	for (int i = 1; i < r->nr_branch; i++)
		for (int j = i; j > 0 && r->branch[j].share > r->branch[j - 1].share; j--) {
			struct run_profile_row t = r->branch[j];

			r->branch[j] = r->branch[j - 1];
			r->branch[j - 1] = t;
		}
	free(under);
	free(above);
	sim_callgraph_release(&g);
}

/* Every page every vCPU owns was stored to exactly once in run2. */
static void check_conservation(struct mgm *m)
{
	u64 bad = 0, first = 0;

	for (u64 i = 0; i < m->nr_pages; i++)
		if (m->run2_stores[i] != 1 && !bad++)
			first = i;
	if (bad)
		hw_violation(VIOL_OTHER, "max-guest-memory: %llu guest pages were not stored to "
			     "exactly once in run2 (first gfn %#llx: %u times)",
			     (unsigned long long)bad,
			     (unsigned long long)gpa_to_gfn(MGM_GPA) + first,
			     m->run2_stores[first]);
}

static int max_guest_memory_run(const struct run_params *p, struct run_result *r,
				char *err, size_t errlen)
{
	struct mgm m = { .p = p, .r = r, .nr_pages = p->size >> PAGE_SHIFT, .nr_vcpus = p->nr_vcpus };
	enum kvm_mmu_type type = !strcmp(p->arch, "x86") ? KVM_MMU_TDP : KVM_MMU_STAGE2;
	u64 host_pages = p->host_memory >> PAGE_SHIFT;
	int order = lab_folio_order(p->folio_size);
	struct sim_swapdev swapdev;
	struct profile_meter meter;
	struct kvm_config cfg;
	struct sim_agent *a;

	if (!p->prof || !p->prof->swap_bandwidth_mbps || !p->prof->swap_depth) {
		snprintf(err, errlen, "profile %s has no swap device (swap.latency_ns, "
			 "swap.bandwidth_mbps, swap.depth); use --profile %s",
			 p->prof ? p->prof->name : "?", type == KVM_MMU_TDP ? "x86-kvm-host" :
			 "arm64-kvm-host");
		return -1;
	}
	if (m.nr_pages < (u64)m.nr_vcpus) {
		snprintf(err, errlen, "--size gives each of the %d vCPUs less than a page", m.nr_vcpus);
		return -1;
	}
	if (variant_config(p, type, &cfg, err, errlen))
		return -1;
	/*
	 * What the page allocator manages: the RAM less the struct pages (64
	 * bytes per 4 KiB frame, as mem_map takes) and the page tables of the
	 * VMM's mapping and of the secondary MMU (one 4 KiB table per 512
	 * entries, each).
	 */
	u64 reserved = host_pages * KERNEL_STRUCT_PAGE_SIZE / PAGE_SIZE + 2 * (m.nr_pages / 512 + 1);
	if (host_pages <= reserved + 4096) {
		snprintf(err, errlen, "--host-memory %lluM leaves no memory once the kernel's own is "
			 "taken; give more", (unsigned long long)(p->host_memory >> 20));
		return -1;
	}
	u64 managed = host_pages - reserved;
	if (lab_machine_setup(p, managed, err, errlen))
		return -1;
	setup_per_zone_wmarks(managed);
	if (sim_swapdev_init(&swapdev, "swap", (u64)p->prof->swap_latency_ns,
			     (u64)(p->prof->swap_bandwidth_mbps * 1e6), (u32)p->prof->swap_depth) ||
	    swapon(m.nr_pages, &swapdev)) {
		snprintf(err, errlen, "cannot set up the swap device");
		return -1;
	}
	m.tasks = host_calloc((size_t)m.nr_vcpus + 2, sizeof(*m.tasks), "task structs");
	m.run2_stores = host_calloc(m.nr_pages, 1, "the run2 store counts");
	m.done.name = "vcpu_join";

	/* the VMM: memfd_create + ftruncate + mmap(MAP_SHARED), one memslot */
	m.mm = mm_alloc();
	m.memfd = shmem_file_setup(p->size, (unsigned int)order);
	if (!mmap_file(m.mm, MGM_HVA, p->size, m.memfd, 0, VM_READ | VM_WRITE)) {
		snprintf(err, errlen, "cannot map a %llu-byte memfd", (unsigned long long)p->size);
		return -1;
	}
	switch_mm(&hw_machine.cpu[0], m.mm);
	m.kvm = kvm_create_vm(m.mm, &(struct kvm_create_params){
		.mmu_type = type, .cfg = cfg, .nr_vcpus = m.nr_vcpus,
		.s2_hw_af = p->hafdbs, .tlbi_range = p->tlbi_range });
	if (kvm_set_memory_region(m.kvm, 0, MGM_GPA, p->size, MGM_HVA)) {
		snprintf(err, errlen, "cannot add a %llu-byte memslot", (unsigned long long)p->size);
		return -1;
	}

	m.e = sim_engine_create(&(struct sim_config){ .seed = p->seed, .sync_quantum_ns = 200 });
	profile_meter_init(&meter, p->prof);
	sim_set_cost_counter(m.e, &hw_cost_acc, HW_COST_SHIFT);
	m.tasks[0].comm = "kswapd0";
	a = sim_agent_create(m.e, "kswapd0", "kswapd", kswapd, NULL);
	if (a)
		a->task = &m.tasks[0];
	for (int i = 0; i < m.nr_vcpus; i++)
		m.tasks[1 + i].comm = "vcpu";
	m.tasks[1 + m.nr_vcpus].comm = "max_guest_memo";
	struct sim_agent *main_agent = sim_agent_create(m.e, "main", "vmm", main_thread, &m);
	if (!a || !main_agent) {
		snprintf(err, errlen, "cannot create the sim agents (host memory)");
		return -1;
	}
	main_agent->task = &m.tasks[1 + m.nr_vcpus];
	main_agent->no_frames = true;
	if (sim_run(m.e)) {
		sim_engine_report_stuck(m.e, stderr);
		hw_violation(VIOL_NO_PROGRESS, "max-guest-memory: agents left waiting forever "
			     "(a deadlock in the modelled kernel)");
	} else if (ptlock_any_held()) {
		hw_violation(VIOL_OTHER, "max-guest-memory: a PTE table's lock is still held "
			     "after every task finished");
	} else if (root_lruvec.lru_lock.locked) {
		hw_violation(VIOL_OTHER, "max-guest-memory: the lru_lock is still held "
			     "after every task finished");
	}
	/* the folios still in the tasks' batches onto the LRU, before the checks */
	lru_add_drain_all();
	if (m.failed) {
		snprintf(err, errlen, "%s", m.err);
		return -1;
	}
	r->setup = m.ev[PH_RESET];
	hw_events_diff(&r->measured, &m.ev[PH_RESET], &m.ev[PH_RUN2]);
	r->sim_timed = true;
	r->sim_modelled_ns = (double)(m.t[PH_RUN2] - m.t[PH_RESET]);
	check_conservation(&m);
	kvm_check_invariants(m.kvm);
	mm_check_invariants(m.mm);
	add_results(&m, r);
	kswapd_branch(r, m.e, "folio_referenced");

	kvm_destroy_vm(m.kvm);
	sim_engine_destroy(m.e);
	mmput(m.mm);
	address_space_destroy(m.memfd);
	mm_check_all_freed();
	free(m.run2_stores);
	free(m.tasks);
	swapoff();
	sim_swapdev_release(&swapdev);
	lab_machine_teardown();
	return 0;
}

const struct workload workload_max_guest_memory = {
	.name = "max-guest-memory",
	.help = "S3: max_guest_memory_test, a guest larger than the host swapping shmem; "
		"vCPUs and kswapd on mmu_lock (measured: run2)",
	.measured = "run2",
	.opts = RUN_OPT_SIZE | RUN_OPT_FOLIO_SIZE | RUN_OPT_VARIANT | RUN_OPT_LRU |
		RUN_OPT_VCPUS | RUN_OPT_HOST_MEMORY,
	.default_size = 250ULL << 30,
	.default_folio_size = SZ_4K,
	.max_size = 1ULL << 40,
	.default_vcpus = 64,
	/* "256 GB", as the published host is described: decimal */
	.default_host_memory = 256000000000ULL,
	.variants = "v1|v2|6.12|6.15|7.3",
	.profile_x86 = "x86-kvm-host",
	.profile_arm64 = "arm64-kvm-host",
	.run = max_guest_memory_run,
};
