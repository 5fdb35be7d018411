/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel definitions the lab duplicates, as tools/testing/vma does: each
 * says which kernel header it must stay in sync with (taken from 7.3).
 * kernel/quirks.c's kernel_dups checks every tree at build time against
 * these and against the arm64 layout the shim compiles kernel code with
 * (arch/arm64/pgtable-hwdef.h, pte.h), by value or by body, and refuses
 * a tree that changed one, naming the file and the definition. Not
 * checked (ptelab's versions are simplifications, not copies): the
 * compiler attributes, READ_ONCE/WRITE_ONCE, try_cmpxchg, KERNEL_VERSION.
 * Behaviour that differs in the lab is in lab.h, stubs in stubs.h.
 */
#ifndef PTELAB_SHIM_DUP_H
#define PTELAB_SHIM_DUP_H

/* include/generated/uapi/linux/version.h */
#define KERNEL_VERSION(a, b, c) (((a) << 16) + ((b) << 8) + (c))

/* include/linux/compiler.h, compiler_types.h, compiler_attributes.h */
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#define noinline __attribute__((__noinline__))
#define __bitwise
#define __force
#define __maybe_unused __attribute__((__unused__))

/* include/vdso/bits.h */
#define BIT(n) (1UL << (n))

/* include/asm-generic/rwonce.h (no tearing on 64-bit values) */
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

/* include/linux/align.h */
#define PTR_ALIGN_DOWN(p, a) ((__typeof__(p))ALIGN_DOWN((unsigned long)(p), (a)))
#define PTR_ALIGN(p, a) ((__typeof__(p))ALIGN((unsigned long)(p), (a)))

/* include/linux/atomic/atomic-instrumented.h: the generic try_cmpxchg */
#define try_cmpxchg(ptr, oldp, new) \
	__atomic_compare_exchange_n((ptr), (oldp), (new), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

#endif
