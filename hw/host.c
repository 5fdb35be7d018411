// SPDX-License-Identifier: GPL-2.0-only
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hw/host.h"

static void (*reporter)(const char *line);

void host_oom_set_reporter(void (*fn)(const char *line))
{
	reporter = fn;
}

void host_oom(const char *what, size_t bytes)
{
	char line[256];
	size_t n;

	/* snprintf into the stack only: malloc is what just failed */
	snprintf(line, sizeof(line) - 1,
		 "the host ran out of memory allocating %zu bytes for %s; "
		 "use a smaller --size or free memory on this machine", bytes, what);
	if (reporter) {
		reporter(line);
		_exit(HOST_OOM_EXIT);
	}
	n = strlen(line);
	line[n++] = '\n';
	/* ptelab itself (no child to report for): bad input's status, 2 */
	if (write(2, "ptelab: error: ", 15) < 0 || write(2, line, n) < 0)
		_exit(2);
	_exit(2);
}

/*
 * The big tables (struct pages, SPTEs, the page cache, the frames) are
 * touched at random over gigabytes at full scale: ask for transparent
 * huge pages on their 2 MiB-aligned interior, so the host takes one
 * fault and one TLB entry per 2 MiB instead of per 4 KiB (S3 at full
 * size: 122 s against 134 s of host time). Advice only: where THP is
 * off nothing changes.
 */
#define HOST_THP_MIN (8UL << 20)
#define HOST_THP_SIZE (2UL << 20)

static void *host_advise(void *p, size_t size)
{
	uintptr_t start, end;

	if (!p || size < HOST_THP_MIN)
		return p;
	start = ((uintptr_t)p + HOST_THP_SIZE - 1) & ~(HOST_THP_SIZE - 1);
	end = ((uintptr_t)p + size) & ~(HOST_THP_SIZE - 1);
	if (end > start)
		(void)madvise((void *)start, end - start, MADV_HUGEPAGE);
	return p;
}

void *host_calloc(size_t n, size_t size, const char *what)
{
	void *p = calloc(n, size);

	if (!p && n && size)
		host_oom(what, n * size);
	return host_advise(p, n * size);
}

void *host_malloc(size_t size, const char *what)
{
	void *p = malloc(size);

	if (!p && size)
		host_oom(what, size);
	return p;
}

void *host_realloc(void *p, size_t size, const char *what)
{
	void *q = realloc(p, size);

	if (!q && size)
		host_oom(what, size);
	return q;
}

void *host_aligned_alloc(size_t align, size_t size, const char *what)
{
	void *p = NULL;

	if (posix_memalign(&p, align, size))
		host_oom(what, size);
	return p;
}
