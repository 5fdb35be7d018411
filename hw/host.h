/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Host memory for the simulation. When the machine running ptelab runs out
 * of memory, that is the host's limit, not a simulated fault: a child run
 * tells its parent (kernel/isolate.c), which says so in one line and exits
 * 2; ptelab itself, with no reporter set, prints that line and exits 2.
 */
#ifndef PTELAB_HW_HOST_H
#define PTELAB_HW_HOST_H

#include <stddef.h>

#define HOST_OOM_EXIT 75

/* Prints "ptelab: error: the host ran out of memory ..." and _exit()s. */
__attribute__((noreturn)) void host_oom(const char *what, size_t bytes);
/* Who hears that line instead of stderr (a child run tells its parent). */
void host_oom_set_reporter(void (*fn)(const char *line));

/* calloc/malloc/realloc/posix_memalign that never return NULL. */
void *host_calloc(size_t n, size_t size, const char *what);
void *host_malloc(size_t size, const char *what);
void *host_realloc(void *p, size_t size, const char *what);
void *host_aligned_alloc(size_t align, size_t size, const char *what);

#endif
