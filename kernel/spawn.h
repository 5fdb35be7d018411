/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Running host programs (the compiler, addr2line, fetch.sh, plot.py) from
 * an argument vector, never through a shell: a kernel tree may live in a
 * directory called "o'brien" or "x';touch PWNED;'", and both must simply
 * work as paths.
 */
#ifndef PTELAB_KERNEL_SPAWN_H
#define PTELAB_KERNEL_SPAWN_H

#include <stddef.h>

enum spawn_output {
	SPAWN_INHERIT,          /* the child writes where ptelab writes */
	SPAWN_STDOUT_TO_STDERR, /* keep ptelab's stdout for results */
	SPAWN_CAPTURE,          /* stdout and stderr into *captured */
	SPAWN_CAPTURE_STDOUT,   /* stdout into *captured, stderr discarded */
};

/*
 * Runs argv[0] (searched in PATH) with argv. Returns its exit status
 * (0..255), 128 + the signal that killed it, or -1 if it could not be
 * started (errno set). With SPAWN_CAPTURE*, *captured is a malloc'd
 * NUL-terminated string (possibly empty) the caller frees.
 */
int spawn_run(char *const argv[], enum spawn_output out, char **captured);

/*
 * Splits a command given in the environment (e.g. CC="ccache gcc") into
 * words at blanks, without any shell interpretation. Returns the number of
 * words stored in words[] (at most max), storage in buf.
 */
int spawn_split_words(const char *cmd, char *buf, size_t buflen, char **words, int max);

#endif
