// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel/spawn.h"

extern char **environ;

static char *read_all(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;

	if (!buf)
		return NULL;
	for (;;) {
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	return buf;
}

int spawn_run(char *const argv[], enum spawn_output out, char **captured)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2] = { -1, -1 }, status, rc;
	bool capture = out == SPAWN_CAPTURE || out == SPAWN_CAPTURE_STDOUT;
	pid_t pid;

	if (captured)
		*captured = NULL;
	if (capture && pipe2(pipefd, O_CLOEXEC))
		return -1;
	posix_spawn_file_actions_init(&fa);
	switch (out) {
	case SPAWN_INHERIT:
		break;
	case SPAWN_STDOUT_TO_STDERR:
		posix_spawn_file_actions_adddup2(&fa, 2, 1);
		break;
	case SPAWN_CAPTURE:
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
		break;
	case SPAWN_CAPTURE_STDOUT:
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
		break;
	}
	/* what ptelab has buffered must not appear twice or out of order */
	fflush(stdout);
	fflush(stderr);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (capture)
		close(pipefd[1]);
	if (rc) {
		if (capture)
			close(pipefd[0]);
		errno = rc;
		return -1;
	}
	if (capture) {
		char *text = read_all(pipefd[0]);

		close(pipefd[0]);
		if (captured)
			*captured = text;
		else
			free(text);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	/* posix_spawnp reports a missing program as exit 127 on glibc */
	return WEXITSTATUS(status);
}

int spawn_split_words(const char *cmd, char *buf, size_t buflen, char **words, int max)
{
	int n = 0;

	snprintf(buf, buflen, "%s", cmd);
	for (char *p = buf; *p && n < max;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		words[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return n;
}
