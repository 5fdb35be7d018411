/* SPDX-License-Identifier: GPL-2.0-only */
/* Basic fixed-width types with kernel spellings, shared by every layer. */
#ifndef PTELAB_HW_TYPES_H
#define PTELAB_HW_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int16_t s16;
typedef int64_t s64;

#define PAGE_SHIFT 12
#define PAGE_SIZE (1UL << PAGE_SHIFT)
#define PAGE_MASK (~(PAGE_SIZE - 1))
#define PTRS_PER_PTE 512

#define SZ_4K 0x1000UL
#define SZ_64K 0x10000UL
#define SZ_2M 0x200000UL
#define SZ_1G 0x40000000UL

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define ALIGN(x, a) ALIGN_DOWN((x) + (a) - 1, (a))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)

#ifndef min
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#endif

#endif
