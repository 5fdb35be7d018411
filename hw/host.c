// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

void *host_calloc(size_t n, size_t size, const char *what)
{
	void *p = calloc(n, size);

	if (!p && n && size)
		host_oom(what, n * size);
	return p;
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
