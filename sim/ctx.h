/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Coroutine contexts for sim/ agents: each agent runs on its own mmap'd
 * stack with a PROT_NONE guard below it, so an overflow faults instead of
 * corrupting a neighbour. On x86-64 every switch swaps the callee-saved
 * registers and the stack pointer (a new stack starts from a frame laid
 * out as if it had been switched away from); elsewhere a context starts
 * once through makecontext()/setcontext() and every later switch is
 * _setjmp()/_longjmp(). Neither makes a signal-mask system call. Under
 * ASan the switches are announced with
 * __sanitizer_{start,finish}_switch_fiber.
 *
 * Neither can move between shadow stacks (x86 CET, arm64 GCS): when
 * the process runs with one, every switch is swapcontext(), which can, at
 * the price of a signal-mask system call per switch.
 */
#ifndef PTELAB_SIM_CTX_H
#define PTELAB_SIM_CTX_H

#include <setjmp.h>

#include "hw/types.h"

struct sim_ctx {
	jmp_buf jb;
	void *sp;             /* x86-64: the saved stack pointer (sim/ctx.c's ctx_swap) */
	void *map;            /* mmap base (guard + stack); NULL: the host thread's stack */
	size_t map_size;
	void *stack_lo;       /* lowest usable byte, just above the guard */
	size_t stack_size;
	bool started;
	void *uc;             /* ucontext_t: the start, and every switch with swapcontext */
	void *asan_fake;      /* ASan fake stack kept while switched out */
};

/* Guard below every stack: large enough that a big frame cannot jump it. */
#define SIM_STACK_GUARD (64 * 1024UL)

/* A new context that will run entry() on a stack_size stack; 0 or -errno. */
int sim_ctx_init(struct sim_ctx *c, size_t stack_size, void (*entry)(void));
/* Unmap c's stack (c must not be running). */
void sim_ctx_free(struct sim_ctx *c);
/* Save the running context in from and run to; returns when switched back. */
void sim_ctx_switch(struct sim_ctx *from, struct sim_ctx *to);
/* Leave from forever (its stack is unmapped once to runs) and run to. */
__attribute__((noreturn)) void sim_ctx_exit_to(struct sim_ctx *from, struct sim_ctx *to);
/* The context's entry must call this first, on its own stack. */
void sim_ctx_entered(void);
/*
 * Switch with swapcontext() (on) or _setjmp/_longjmp (off). The default is
 * swapcontext only if a shadow stack is active. Only while no context is
 * suspended; for tests.
 */
void sim_ctx_use_ucontext(bool on);
bool sim_ctx_uses_ucontext(void);

#endif
