// SPDX-License-Identifier: GPL-2.0-only
/*
 * Coroutine contexts (see ctx.h). On x86-64 a switch is ctx_swap below:
 * push the callee-saved registers, swap stack pointers, pop. Elsewhere it
 * is _setjmp/_longjmp between stacks, what fiber libraries on glibc do
 * (_FORTIFY_SOURCE would turn _longjmp into __longjmp_chk, which refuses
 * to jump to another stack, so it is off here); glibc's _longjmp also
 * mangles pointers and unwinds pthread cleanups, which the switch of every
 * simulated lock wait and sync paid for.
 */
#undef _FORTIFY_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "sim/ctx.h"

#if defined(__SANITIZE_ADDRESS__)
#define SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_ASAN 1
#endif
#endif

#ifdef SIM_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__x86_64__)
#define SIM_CTX_SWAP 1
/*
 * ctx_swap(save, to): the SysV callee-saved registers (rbx, rbp, r12-r15)
 * onto this stack, its pointer into *save, then the same from to's stack.
 * The caller-saved registers, flags and the x87/SSE state the ABI lets a
 * call clobber are the compiler's to keep, as across any call.
 */
void ctx_swap(void **save, void *to);
__asm__(".text\n"
	".p2align 4\n"
	".globl ctx_swap\n"
	".hidden ctx_swap\n"
	".type ctx_swap, @function\n"
	"ctx_swap:\n"
	"\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n"
	"\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n"
	"\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
	"\tret\n"
	".size ctx_swap, .-ctx_swap\n");

/*
 * A new stack as ctx_swap would have left it: six zero registers, then
 * entry as the return address, and above it a null one, so that entry
 * starts with the stack aligned as after a call (rsp + 8 a multiple of 16)
 * and a backtrace ends there.
 */
static void *ctx_initial_frame(void *stack_hi, void (*entry)(void))
{
	u64 *sp = (u64 *)((uintptr_t)stack_hi & ~(uintptr_t)15);

	*--sp = 0;
	*--sp = (u64)(uintptr_t)entry;
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	return sp;
}
#endif

static struct sim_ctx *ctx_prev;  /* the context that switched to the running one */
static struct sim_ctx *ctx_dying; /* finished; its stack is unmapped by the next one */
static int ctx_ucontext = -1;     /* switch with swapcontext; -1: not decided yet */

/* Does this thread run with a hardware shadow stack (x86 CET, arm64 GCS)? */
static bool shadow_stack_active(void)
{
#if defined(__x86_64__) && defined(SYS_arch_prctl)
	unsigned long features = 0;

	/* ARCH_SHSTK_STATUS; bit 0: ARCH_SHSTK_SHSTK. Old kernels: EINVAL. */
	return syscall(SYS_arch_prctl, 0x5005, &features) == 0 && (features & 1);
#elif defined(__aarch64__)
	unsigned long status = 0;

	/* PR_GET_SHADOW_STACK_STATUS; bit 0: PR_SHADOW_STACK_ENABLE. */
	return prctl(74, &status, 0, 0, 0) == 0 && (status & 1);
#else
	return false;
#endif
}

bool sim_ctx_uses_ucontext(void)
{
	if (ctx_ucontext < 0)
		ctx_ucontext = shadow_stack_active();
	return ctx_ucontext;
}

void sim_ctx_use_ucontext(bool on)
{
	ctx_ucontext = on;
}

static void asan_start(void **fake_save, struct sim_ctx *to)
{
#ifdef SIM_ASAN
	__sanitizer_start_switch_fiber(fake_save, to->stack_lo, to->stack_size);
#else
	(void)fake_save;
	(void)to;
#endif
}

static void asan_finish(void *fake)
{
#ifdef SIM_ASAN
	const void *bottom;
	size_t size;

	__sanitizer_finish_switch_fiber(fake, &bottom, &size);
	/* The host thread's stack bounds are only known to ASan: learn them. */
	if (ctx_prev && !ctx_prev->map) {
		ctx_prev->stack_lo = (void *)bottom;
		ctx_prev->stack_size = size;
	}
#else
	(void)fake;
#endif
}

/* Everything a context does right after it starts running again. */
static void ctx_landed(void)
{
	if (ctx_dying) {
		sim_ctx_free(ctx_dying);
		ctx_dying = NULL;
	}
}

static __attribute__((noreturn)) void ctx_jump(struct sim_ctx *to)
{
#ifdef SIM_CTX_SWAP
	void *dead;

	to->started = true;
	ctx_swap(&dead, to->sp);
#else
	if (to->started)
		_longjmp(to->jb, 1);
	to->started = true;
	setcontext(to->uc);
#endif
	abort(); /* setcontext only returns on error; ctx_swap never to here */
}

int sim_ctx_init(struct sim_ctx *c, size_t stack_size, void (*entry)(void))
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t guard = ALIGN(SIM_STACK_GUARD, pg);
	ucontext_t *uc;
	void *map;

	memset(c, 0, sizeof(*c));
	stack_size = ALIGN(stack_size, pg);
	/* MAP_NORESERVE: only the pages an agent touches cost memory. */
	map = mmap(NULL, guard + stack_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (map == MAP_FAILED)
		return -errno;
	uc = malloc(sizeof(*uc));
	if (!uc || mprotect(map, guard, PROT_NONE) || getcontext(uc)) {
		int err = uc ? errno : ENOMEM;

		free(uc);
		munmap(map, guard + stack_size);
		return -err;
	}
	c->map = map;
	c->map_size = guard + stack_size;
	c->stack_lo = (char *)map + guard;
	c->stack_size = stack_size;
	uc->uc_stack.ss_sp = c->stack_lo;
	uc->uc_stack.ss_size = stack_size;
	uc->uc_link = NULL;
	makecontext(uc, entry, 0);
	c->uc = uc;
#ifdef SIM_CTX_SWAP
	c->sp = ctx_initial_frame((char *)c->stack_lo + stack_size, entry);
#endif
	return 0;
}

void sim_ctx_free(struct sim_ctx *c)
{
	free(c->uc);
	c->uc = NULL;
	if (!c->map)
		return;
#ifdef SIM_ASAN
	/* Frames left on the stack keep their redzones poisoned: clear them, or
	 * whatever is mapped here next would trip over them. */
	ASAN_UNPOISON_MEMORY_REGION(c->stack_lo, c->stack_size);
#endif
	munmap(c->map, c->map_size);
	c->map = NULL;
}

void sim_ctx_switch(struct sim_ctx *from, struct sim_ctx *to)
{
	ctx_prev = from;
	from->started = true; /* the host stack is never started through makecontext */
	asan_start(&from->asan_fake, to);
	if (sim_ctx_uses_ucontext()) {
		if (!from->uc && !(from->uc = malloc(sizeof(ucontext_t))))
			abort();
		to->started = true;
		if (swapcontext(from->uc, to->uc))
			abort();
	} else {
#ifdef SIM_CTX_SWAP
		to->started = true;
		ctx_swap(&from->sp, to->sp);
#else
		if (!_setjmp(from->jb))
			ctx_jump(to);
#endif
	}
	asan_finish(from->asan_fake);
	ctx_landed();
}

void sim_ctx_exit_to(struct sim_ctx *from, struct sim_ctx *to)
{
	ctx_prev = from;
	ctx_dying = from;
	asan_start(NULL, to); /* NULL: from's fake stack is dropped */
	if (sim_ctx_uses_ucontext()) {
		to->started = true;
		setcontext(to->uc);
		abort();
	}
	ctx_jump(to);
}

void sim_ctx_entered(void)
{
	asan_finish(NULL);
	ctx_landed();
}
