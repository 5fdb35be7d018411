// SPDX-License-Identifier: GPL-2.0-only
#include <execinfo.h>

#include "hw/cpu.h"
#include "hw/interleave.h"
#include "hw/pgtable_mem.h"

struct hw_interleave hw_interleave = { .at = -1 };

const char *const hw_il_point_names[NR_IL_POINTS] = {
	[IL_READ] = "__ptep_get", [IL_WRITE] = "__set_pte", [IL_XCHG] = "__ptep_get_and_clear",
	[IL_CMPXCHG] = "cmpxchg", [IL_TLBI] = "TLBI", [IL_DSB] = "DSB",
};

const char *const hw_il_action_names[NR_IL_ACTS] = {
	[IL_ACT_LOAD] = "load", [IL_ACT_STORE] = "store",
	[IL_ACT_STORE_TLB] = "store through its TLB", [IL_ACT_READER] = "ptep_get_lockless",
};

void hw_interleave_exact(long at, int agent, int kind, u64 *ptep, u64 va)
{
	struct hw_interleave *il = &hw_interleave;

	il->at = at;
	il->act_agent = agent;
	il->act_kind = kind;
	il->act_ptep = ptep;
	il->act_va = va;
	il->points = 0;
	il->hit_point = -1;
	il->hit_ptep = NULL;
	il->bt_n = 0;
	il->nr_read = 0;
}

void hw_interleave_random(void)
{
	hw_interleave_exact(-1, 0, 0, NULL, 0);
}

static unsigned int block_entries(void)
{
	return hw_machine.fmt->cont_ptes ? hw_machine.fmt->cont_ptes : 16;
}

static const u64 *block_of(const u64 *ptep)
{
	return (const u64 *)ALIGN_DOWN((uintptr_t)ptep, block_entries() * sizeof(u64));
}

/* May agent a act on the operation's mm? (a torn-down mm runs nowhere) */
static bool runs_ctx(int a)
{
	const struct hw_cpu *cpu = &hw_machine.cpu[a];

	return a != hw_machine.cur_cpu && cpu->ttbr == hw_interleave.ctx_pgd &&
	       !hw_machine.asid_retired[cpu->asid];
}

/*
 * A lockless reader of target, as GUP-fast on another CPU. One that
 * retries more than a few block reads would spin until the writer is
 * done: it gives up, which is no finding.
 */
static void read_lockless(struct hw_interleave *il, u64 *target)
{
	u64 v;

	il->in_reader = true;
	il->reader_reads = 0;
	if (setjmp(il->reader_jmp)) {
		il->in_reader = false;
		il->reader_gave_up++;
		return;
	}
	v = il->reader(target);
	il->in_reader = false;
	if (il->nr_read < IL_READS_KEPT) {
		il->read_ptep[il->nr_read] = target;
		il->read_val[il->nr_read++] = v;
	}
}

static void act(struct hw_interleave *il, struct hw_cpu *cpu, u64 *target, u64 va, int kind)
{
	il->depth++;
	if (kind == IL_ACT_READER) {
		read_lockless(il, target);
	} else {
		bool write = kind != IL_ACT_LOAD;

		if (kind != IL_ACT_STORE_TLB)
			hw_tlb_inval(&cpu->tlb, cpu->asid, va, va + PAGE_SIZE);
		if (hw_access(cpu, va, write) == HW_OK && write && il->on_store)
			il->on_store(cpu, va);
	}
	il->acted++;
	il->depth--;
}

void __hw_interleave_point(u64 *ptep, enum hw_il_point what)
{
	struct hw_interleave *il = &hw_interleave;
	u64 *base = (u64 *)il->ctx_ptep;
	unsigned int n;
	int agents[HW_MAX_CPUS + 1], nr = 0;

	if (il->log) {
		struct hw_il_log *log = il->log;

		if (log->n < IL_LOG_MAX) {
			log->what[log->n] = (u8)what;
			log->ptep[log->n] = ptep;
		}
		log->n++;
		return;
	}
	if (il->depth) {
		/* inside a reader: bounded retries */
		if (il->in_reader && ++il->reader_reads > 4 * (block_entries() + 1))
			longjmp(il->reader_jmp, 1);
		return;
	}
	il->points++;
	if (!base)
		return;
	if (il->at >= 0) {
		if (il->points - 1 != (u64)il->at || !runs_ctx(il->act_agent) ||
		    (il->act_kind == IL_ACT_READER && !il->reader))
			return;
		il->hit_point = what;
		il->hit_ptep = ptep && hw_pt_table(ptep) == hw_pt_table(base) ? ptep : NULL;
		if (il->want_backtrace)
			il->bt_n = backtrace(il->bt, IL_BT_MAX);
		act(il, &hw_machine.cpu[il->act_agent], il->act_ptep, il->act_va, il->act_kind);
		return;
	}
	if (!il->chance)
		return;
	/* one point in chance: check's chance is a power of two, and a mask spares a division */
	u64 pick = hw_random();

	if (il->chance & (il->chance - 1) ? pick % il->chance : pick & (il->chance - 1))
		return;
	/* an entry of the table the operation works in, else the operation's own */
	if (ptep && hw_pt_table(ptep) != hw_pt_table(base))
		ptep = NULL;
	n = block_entries();
	for (int a = 0; a < hw_machine.nr_agents; a++)
		if (runs_ctx(a))
			agents[nr++] = a;
	if (!nr)
		return;
	u64 r = hw_random();
	struct hw_cpu *cpu = &hw_machine.cpu[agents[r % (u64)nr]];
	u64 *at = ptep ? ptep : base;
	/* the entry at hand half the time, else any of its block */
	u64 *target = (r >> 8) & 1 ? at : (u64 *)block_of(at) + (r >> 9) % n;
	u64 va = il->ctx_va + (u64)((target - base) * (long)PAGE_SIZE);
	int kind;

	/* a reader one time in 8 (on an entry the kernel code has in hand) */
	if (il->reader && ptep && (r >> 20) % 8 == 0)
		kind = IL_ACT_READER;
	else if ((r >> 17) & 3) /* its TLB entry gone (capacity), so the walker looks */
		kind = (r >> 16) & 1 ? IL_ACT_STORE : IL_ACT_LOAD;
	else
		kind = (r >> 16) & 1 ? IL_ACT_STORE_TLB : IL_ACT_LOAD;
	act(il, cpu, target, va, kind);
}
