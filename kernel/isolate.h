/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel code under test may crash, hang, exit or print: each simulation
 * runs in a child process with a watchdog, and what happened comes back
 * over a pipe, so a misbehaving backend is a finding about that backend,
 * never the end of ptelab or a silent success.
 */
#ifndef PTELAB_KERNEL_ISOLATE_H
#define PTELAB_KERNEL_ISOLATE_H

#include <stdbool.h>
#include <stddef.h>

#define ISOLATE_MAX_FRAMES 48

enum isolate_outcome {
	ISOLATE_DONE,     /* fn returned and sent its result */
	ISOLATE_CRASH,    /* a fatal signal (signo), or a sanitizer report */
	ISOLATE_TIMEOUT,  /* the watchdog fired; frames: where it was */
	ISOLATE_EXIT,     /* something called exit() (exit_status); frames: who */
	ISOLATE_HOST_OOM, /* the host ran out of memory (hw/host.h) */
	ISOLATE_KILLED,   /* killed from outside (signo): the OOM killer, a user */
	ISOLATE_LOST,     /* ended without a word: killed from outside, or a lab bug */
};

struct isolate_report {
	enum isolate_outcome outcome;
	int signo, si_code;      /* ISOLATE_CRASH by a signal */
	bool has_addr;
	unsigned long fault_addr;
	bool stack_overflow;     /* the fault was at the stack pointer */
	int exit_status;         /* ISOLATE_EXIT, ISOLATE_LOST */
	int nr_frames;           /* innermost first; frames[0] is the PC */
	unsigned long frames[ISOLATE_MAX_FRAMES];
	char sanitizer[4096];    /* a sanitizer's report, when one fired */
	char message[256];       /* ISOLATE_HOST_OOM: what could not be allocated */
	void *payload;           /* ISOLATE_DONE: what fn sent (malloc'd) */
	size_t payload_len;
};

/*
 * Runs fn(arg) in a child process that is killed after timeout_s seconds
 * (0: never). The child's stdout is ptelab's stderr, so nothing it prints
 * reaches results. Returns 0 with *rep filled (free rep->payload), or -1
 * if no child could be started (errno).
 */
int isolate_run(void (*fn)(void *arg), void *arg, unsigned int timeout_s,
		struct isolate_report *rep);

/*
 * The address space a child may grow by beyond what it starts with (0: no
 * limit), from the next isolate_run on: kernel code that allocates without
 * bound then gets NULL (a crash in its own code, a located finding) before
 * the host's OOM killer picks a process. Not applied under
 * AddressSanitizer, whose shadow memory needs terabytes of address space.
 */
void isolate_set_memory_budget(unsigned long long bytes);

/* In the child: the result, sent once, before fn returns. */
void isolate_send(const void *buf, size_t len);

/* SIGSEGV, SIGABRT, ... or "signal N". */
const char *isolate_signal_name(int signo);

#endif
